//! Reserved connections end to end (Feng, Kandlur, Saha and Shin 1997, Fig. 1 in small): the
//! rate-adaptive window and delayed/timed send run on Reno, NewReno and SACK, runs conserve
//! packets and repeat exactly, timed send cuts token loss, and bad fields are named.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, Error, RunOptions};

/// Three reserved flows (1, 2 and 4 Mb/s, 50 ms buckets) and three best-effort flows over a
/// 10 Mb/s ERED bottleneck with an 80-packet buffer; 1 KB segments, 100-segment windows.
fn fig1(variant: &str, reservation: &str) -> String {
    let mut s = format!(
        r#"
duration = "20s"
seed = 2
nodes = ["r", "d", "s0", "s1", "s2", "s3", "s4", "s5"]
[tcp]
mss = 1000
rcv_buf = "100kB"
variant = "{variant}"
[[link]]
a = "r"
b = "d"
rate = "10Mbps"
delay = "20ms"
queue = 80
qdisc = {{ kind = "ered", min_th = 20, max_th = 60, max_p = 0.1 }}
"#
    );
    for i in 0..6 {
        s += &format!("[[link]]\na = \"s{i}\"\nb = \"r\"\nrate = \"100Mbps\"\ndelay = \"10ms\"\n");
    }
    for (i, rate) in [1, 2, 4, 0, 0, 0].iter().enumerate() {
        s += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"d\"\n");
        if *rate > 0 {
            s += &format!("marker = {{ rate = \"{rate}Mbps\", depth_time = \"50ms\" }}\n");
            if !reservation.is_empty() {
                s += &format!("reservation = {reservation}\n");
            }
        }
    }
    s
}

fn run(text: &str) -> RunReport {
    let mut r = run_scenario(text, &RunOptions::default()).unwrap().0;
    r.wall_s = 0.0;
    r
}

fn tokens_lost(r: &RunReport) -> f64 {
    r.flows.iter().map(|f| f.marking.as_ref().unwrap().tokens_lost_bytes).sum()
}

#[test]
fn every_policy_runs_on_reno_newreno_and_sack() {
    for variant in ["reno", "newreno", "sack"] {
        for send in ["ack", "delayed", "timed"] {
            let res = format!("{{ window = \"rate_adaptive\", send = \"{send}\" }}");
            let r = run(&fig1(variant, &res));
            for f in &r.flows[..3] {
                let m = f.marking.as_ref().unwrap();
                assert!(m.marked_segments_delivered > 100, "{variant}/{send}: flow {} {m:?}", f.id);
                assert!(f.bytes_delivered > 1_000_000, "{variant}/{send}: flow {}", f.id);
            }
        }
    }
}

#[test]
fn runs_with_random_delays_repeat_exactly() {
    let text = fig1("newreno", r#"{ send = "delayed" }"#);
    assert_eq!(run(&text), run(&text));
}

#[test]
fn timed_send_loses_fewer_tokens_than_the_ack_clock() {
    let ack = tokens_lost(&run(&fig1("reno", "")));
    let timed = tokens_lost(&run(&fig1("reno", r#"{ send = "timed", interval = "20ms" }"#)));
    assert!(timed < ack / 2.0, "tokens lost: timed {timed} bytes, ACK clock {ack} bytes");
}

#[test]
fn bad_reservation_fields_are_named() {
    let field = |text: &str| match run_scenario(text, &RunOptions::default()) {
        Err(Error::Scenario(e)) => e.field,
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    };
    let no_marker = fig1("reno", "").replace(
        "[[flow]]\nsrc = \"s3\"\ndst = \"d\"\n",
        "[[flow]]\nsrc = \"s3\"\ndst = \"d\"\nreservation = { send = \"timed\" }\n",
    );
    assert_eq!(field(&no_marker), "flow[3].reservation");
    assert_eq!(field(&fig1("reno", r#"{ send = "delayed", interval = "20ms" }"#)), "flow[0].reservation.interval");
    assert_eq!(field(&fig1("reno", r#"{ window = "adaptive" }"#)), "flow[0].reservation.window");
    assert_eq!(field(&fig1("reno", r#"{ send = "tmed", interval = "20ms" }"#)), "flow[0].reservation.send");
    assert_eq!(field(&fig1("reno", r#"{ send = "timed", interval = "0s" }"#)), "flow[0].reservation.interval");
    assert_eq!(field(&fig1("reno", r#"{ window = "rate_adaptive", rtt = "mean" }"#)), "flow[0].reservation.rtt");
    assert_eq!(field(&fig1("reno", r#"{ rtt = "min" }"#)), "flow[0].reservation.rtt");
}
