//! RED/ERED queues and source token buckets in whole runs: marks reach the receiver and the
//! pcap, ERED's rule for marked packets holds, runs repeat exactly, bad fields are named.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, Error, RunOptions};

/// Feng et al.'s Fig. 1 in small: one reserved flow (2 Mb/s, 50 ms bucket) and two best-effort
/// flows share a 5 Mb/s bottleneck with an ERED queue.
fn scenario(qdisc: &str, extra_link: &str) -> String {
    format!(
        r#"
duration = "20s"
seed = 3
series_bin = "5s"
nodes = ["s0", "s1", "s2", "r", "d"]
[tcp]
mss = 1000
rcv_buf = "100kB"
[[link]]
a = "r"
b = "d"
rate = "5Mbps"
delay = "10ms"
queue = 40
qdisc = {qdisc}
{extra_link}
[[link]]
a = "s0"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "s1"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "s2"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[flow]]
src = "s0"
dst = "d"
marker = {{ rate = "2Mbps", depth_time = "50ms" }}
[[flow]]
src = "s1"
dst = "d"
[[flow]]
src = "s2"
dst = "d"
"#
    )
}

fn run(text: &str, out: Option<std::path::PathBuf>) -> RunReport {
    run_scenario(text, &RunOptions { seed: None, out_dir: out }).unwrap().0
}

const ERED: &str = r#"{ kind = "ered", min_th = 5, max_th = 15, max_p = 0.1 }"#;

#[test]
fn ered_marks_travel_and_marked_packets_drop_only_on_overflow() {
    let r = run(&scenario(ERED, ""), None);
    let q = r.links[0].stats.queue.as_ref().expect("an explicit qdisc reports its counters");
    assert!(q.drops_early + q.drops_forced > 0, "RED dropped nothing: {q:?}");
    assert!(q.drops_marked <= q.drops_overflow, "a marked packet was dropped early: {q:?}");
    assert_eq!(q.drops_early + q.drops_forced + q.drops_overflow, r.links[0].stats.drops_queue);
    let m = r.flows[0].marking.as_ref().unwrap();
    assert!(m.marked_packets > 0 && m.marked_segments_delivered > 0, "{m:?}");
    assert!(m.marked_segments_delivered <= m.marked_packets);
    // Compliant throughput can never beat the reservation plus the bucket: 2 Mb/s for 20 s
    // plus 12.5 kB.
    assert!(m.marked_bytes_delivered as f64 <= 2e6 / 8.0 * 20.0 + 12_500.0, "{m:?}");
    let series: u64 = m.marked_delivered_series.as_ref().unwrap().iter().sum();
    assert_eq!(series, m.marked_bytes_delivered);
    let lost: f64 = m.tokens_lost_series.as_ref().unwrap().iter().sum();
    assert!((lost - m.tokens_lost_bytes).abs() < 1e-3 * m.tokens_lost_bytes.max(1.0), "{lost} vs {m:?}");
    // Best-effort flows carry nothing marked.
    let be = r.flows[1].marking.as_ref().unwrap();
    assert_eq!((be.marked_packets, be.marked_segments_delivered, be.tokens_lost_bytes), (0, 0, 0.0));
}

#[test]
fn red_without_marks_treats_marked_packets_like_others() {
    let red = r#"{ kind = "red", min_th = 5, max_th = 15, max_p = 0.1 }"#;
    let r = run(&scenario(red, ""), None);
    let q = r.links[0].stats.queue.as_ref().unwrap();
    assert!(q.arrivals_marked > 0);
    assert!(q.drops_marked > 0, "plain RED never dropped a marked packet: {q:?}");
}

#[test]
fn runs_repeat_exactly_and_write_queue_traces_and_ds_bytes() {
    let dir = std::env::temp_dir().join(format!("tcplab-qdisc-{}", std::process::id()));
    let text = scenario(ERED, "trace_queue = true\npcap = true");
    let mut a = run(&text, Some(dir.clone()));
    let mut b = run(&text, None);
    a.wall_s = 0.0;
    b.wall_s = 0.0;
    assert_eq!(a, b);
    let trace = std::fs::read_to_string(dir.join("queue-0.csv")).unwrap();
    let mut lines = trace.lines();
    assert_eq!(lines.next(), Some("time_s,packets,bytes,avg"));
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len() as u64, a.links[0].stats.arrivals);
    assert!(rows.iter().any(|r| r[3] > 5.0), "the average never reached min_th");
    assert!(rows.iter().all(|r| r[1] <= 40.0));
    // The DS byte of every data packet from s0 (10.x address of node 0) is AF11 or 0, and
    // both occur; other flows' packets are never marked.
    let pcap = std::fs::read(dir.join("link-r-d.pcap")).unwrap();
    let (mut pos, mut seen) = (24, [0u64; 2]);
    while pos + 16 <= pcap.len() {
        let incl = u32::from_le_bytes(pcap[pos + 8..pos + 12].try_into().unwrap()) as usize;
        let ip = &pcap[pos + 16 + 14..pos + 16 + incl];
        let ds = ip[1];
        let from_flow0 = ip[12..16] == pcap_ip_of_node(0);
        match (ds, from_flow0) {
            (0x28, true) => seen[0] += 1,
            (0, true) => seen[1] += 1,
            (0, false) => {}
            other => panic!("unexpected DS byte {other:?}"),
        }
        pos += 16 + incl;
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    // Every marked segment delivered crossed this link; some marked ones were dropped before it
    // or are still queued at the end.
    let m = a.flows[0].marking.as_ref().unwrap();
    assert!(seen[0] >= m.marked_segments_delivered && seen[0] <= m.marked_packets, "{seen:?} {m:?}");
    std::fs::remove_dir_all(&dir).ok();
}

fn pcap_ip_of_node(i: u32) -> [u8; 4] {
    tcplab_core::pcap::node_ip(i)
}

#[test]
fn bad_qdisc_and_marker_fields_are_named() {
    let field = |text: &str| match run_scenario(text, &RunOptions::default()) {
        Err(Error::Scenario(e)) => e.field,
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    };
    assert_eq!(field(&scenario(r#"{ kind = "ered", min_th = 5 }"#, "")), "link[0].qdisc.max_th");
    assert_eq!(
        field(&scenario(r#"{ kind = "red", min_th = 5, max_th = 9, gentel = true }"#, "")),
        "link[0].qdisc.gentel"
    );
    assert_eq!(field(&scenario(ERED, "atm = true")), "link[0].qdisc");
    let bad_marker = scenario(ERED, "").replace("depth_time = \"50ms\"", "depth_time = \"1ms\"");
    assert_eq!(field(&bad_marker), "flow[0].marker.depth_time");
}

/// CoDel (RFC 8289) on the bottleneck: three long flows into a 400-packet buffer would hold a
/// standing queue of hundreds of milliseconds under drop-tail; CoDel drops at dequeue instead,
/// the ledger balances (the run checks conservation), and the drops are counted as the
/// queue's.
#[test]
fn codel_drops_at_dequeue_and_the_run_balances() {
    let text = scenario(r#"{ kind = "codel" }"#, "").replace("queue = 40", "queue = 400");
    let codel = run(&text, None);
    let tail = run(&scenario(r#"{ kind = "drop_tail" }"#, "").replace("queue = 40", "queue = 400"), None);
    let (c, t) = (&codel.links[0].stats, &tail.links[0].stats);
    assert!(c.drops_queue > 0, "CoDel dropped nothing: {c:?}");
    // Under drop-tail the buffer fills; under CoDel it holds far fewer packets at its peak.
    assert!(c.peak_queue_packets * 2 < t.peak_queue_packets, "codel {c:?} tail {t:?}");
    let q = c.queue.as_ref().unwrap();
    assert_eq!(q.drops_overflow, 0, "{q:?}");
    assert_eq!(q.drops_sojourn, c.drops_queue, "{q:?}");
    assert_eq!(run(&text, None).links[0].stats, codel.links[0].stats, "same seed, same run");
}
