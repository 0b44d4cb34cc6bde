//! Bad scenarios are rejected with the field at fault, never a panic.

use tcplab_core::{run_scenario, Error, RunOptions};

fn field_of(text: &str) -> (String, String) {
    match run_scenario(text, &RunOptions::default()) {
        Err(Error::Scenario(e)) => (e.field, e.message),
        Err(e) => panic!("expected a scenario error, got {e}"),
        Ok(_) => panic!("expected a scenario error, the run succeeded"),
    }
}

const BASE: &str = r#"
duration = "1s"
nodes = ["a", "b"]
[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "1ms"
[[flow]]
src = "a"
dst = "b"
"#;

#[test]
fn not_toml() {
    let (f, m) = field_of("this is [not toml");
    assert_eq!(f, "scenario");
    assert!(m.contains("line 1"), "{m}");
}

#[test]
fn unknown_field_is_named() {
    let (f, m) = field_of(&BASE.replace("delay = \"1ms\"", "delay = \"1ms\"\nspeed = 3"));
    assert_eq!(f, "link[0].speed");
    assert!(m.contains("unknown field"), "{m}");
}

#[test]
fn negative_rate() {
    let (f, m) = field_of(&BASE.replace("\"10Mbps\"", "\"-5Mbps\""));
    assert_eq!(f, "link[0].rate");
    assert!(m.contains("negative"), "{m}");
}

#[test]
fn flow_on_missing_node() {
    let (f, m) = field_of(&BASE.replace("dst = \"b\"", "dst = \"c\""));
    assert_eq!(f, "flow[0].dst");
    assert!(m.contains("no node named 'c'"), "{m}");
}

#[test]
fn no_route() {
    let text =
        BASE.replace("nodes = [\"a\", \"b\"]", "nodes = [\"a\", \"b\", \"c\"]").replace("dst = \"b\"", "dst = \"c\"");
    let (f, m) = field_of(&text);
    assert_eq!(f, "flow[0].dst");
    assert!(m.contains("no route from 'a' to 'c'"), "{m}");
}

#[test]
fn bad_values_name_their_fields() {
    let cases = [
        (BASE.replace("[[flow]]", "[[flow]]\ntcp = { variant = \"cubic\" }"), "flow[0].tcp.variant"),
        (BASE.replace("[[flow]]", "[[flow]]\ntcp = { mss = 0 }"), "flow[0].tcp.mss"),
        (
            BASE.replace("delay = \"1ms\"", "delay = \"1ms\"\nloss = { model = \"bernoulli\", p = 1.5 }"),
            "link[0].loss.p",
        ),
        (BASE.replace("delay = \"1ms\"", "delay = \"1ms\"\n[link.ba]\nrate = 0"), "link[0].ba.rate"),
        (BASE.replace("duration = \"1s\"", "duration = \"soon\""), "duration"),
        (BASE.replace("delay = \"1ms\"", "delay = \"1ms\"\nqueue = -3"), "link[0].queue"),
        (BASE.replace("[[flow]]", "[[flow]]\ntcp = { timer = \"coarse\" }"), "flow[0].tcp.timer"),
    ];
    for (text, field) in cases {
        assert_eq!(field_of(&text).0, field);
    }
}

#[test]
fn missing_required_field() {
    let (f, m) = field_of(&BASE.replace("rate = \"10Mbps\"\n", ""));
    assert_eq!(f, "link[0].rate");
    assert!(m.contains("missing"), "{m}");
}

#[test]
fn wrong_types_say_what_was_expected_in_the_file_s_terms() {
    let (f, m) = field_of(&BASE.replace("rate = \"10Mbps\"", "rate = true"));
    assert_eq!(f, "link[0].rate");
    assert!(m.contains("expected a number or a string with a unit"), "{m}");
    let (f, m) = field_of(&BASE.replace("delay = \"1ms\"", "delay = \"1ms\"\nloss = \"bernoulli\""));
    assert_eq!(f, "link[0].loss");
    assert!(m.contains("expected an inline table with a model"), "{m}");
    let (f, m) = field_of(&format!("tcp = 3\n{BASE}"));
    assert_eq!(f, "tcp");
    assert!(m.contains("expected a table of TCP settings") && !m.contains("TcpSpec"), "{m}");
}

#[test]
fn unknown_stack_is_named() {
    let text = format!("{BASE}[flow.tcp]\nstack = \"ns3\"\n");
    let (f, m) = field_of(&text);
    assert_eq!(f, "flow[0].tcp.stack");
    assert!(m.contains("unknown stack 'ns3'") && m.contains("bsd44"), "{m}");
}

#[test]
fn stack_knobs_are_checked() {
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\nwindow_rule = \"cubic\"\n"));
    assert_eq!(f, "flow[0].tcp.window_rule");
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\ndeflation = \"never\"\n"));
    assert_eq!(f, "flow[0].tcp.deflation");
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\nmax_cwnd = -1\n"));
    assert_eq!(f, "flow[0].tcp.max_cwnd");
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\ntimer = \"ns2:0ms\"\n"));
    assert_eq!(f, "flow[0].tcp.timer");
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\ntimer = \"ns1:0ms\"\n"));
    assert_eq!(f, "flow[0].tcp.timer");
    let (f, m) = field_of(&format!("{BASE}[flow.tcp]\nrtt_sample = \"karn\"\n"));
    assert_eq!(f, "flow[0].tcp.rtt_sample");
    assert!(m.contains("timestamp"), "{m}");
    let (f, _) = field_of(&format!("{BASE}[flow.tcp]\nrecovery_send = \"burst\"\n"));
    assert_eq!(f, "flow[0].tcp.recovery_send");
    let (f, m) = field_of(&format!("{BASE}[flow.tcp]\nssthresh_floor = 0\n"));
    assert_eq!(f, "flow[0].tcp.ssthresh_floor");
    assert!(m.contains("ns2"), "{m}");
}

/// Issue 25: `delay = "10"` ran as 10 s without a word; a string needs its unit.
#[test]
fn a_string_without_a_unit_is_named() {
    let (f, m) = field_of(&BASE.replace("delay = \"1ms\"", "delay = \"10\""));
    assert_eq!(f, "link[0].delay");
    assert!(m.contains("'10' has no unit"), "{m}");
    // The bare number keeps its meaning: seconds.
    let ok = BASE.replace("delay = \"1ms\"", "delay = 0.001");
    assert!(run_scenario(&ok, &RunOptions::default()).is_ok());
}

/// Issue 25: RED's max_th of 45 on a 20-packet queue was accepted, a curve the average never
/// reaches; at the limit it is still a curve (forced drops exactly when full).
#[test]
fn red_thresholds_above_the_queue_limit_are_named() {
    let red = |max_th: u32, queue: u32| {
        BASE.replace(
            "delay = \"1ms\"",
            &format!("delay = \"1ms\"\nqueue = {queue}\nqdisc = {{ kind = \"red\", min_th = 5, max_th = {max_th} }}"),
        )
    };
    let (f, m) = field_of(&red(45, 20));
    assert_eq!(f, "link[0].qdisc.max_th");
    assert!(m.contains("above the queue limit (20 packets)"), "{m}");
    assert!(run_scenario(&red(20, 20), &RunOptions::default()).is_ok());
    let ered = BASE.replace(
        "delay = \"1ms\"",
        "delay = \"1ms\"\nqueue = 30\nqdisc = { kind = \"ered\", min_th = 5, max_th = 15, marked = \"curve\", \
         marked_min_th = 10, marked_max_th = 40, marked_max_p = 0.1 }",
    );
    let (f, _) = field_of(&ered);
    assert_eq!(f, "link[0].qdisc.marked_max_th");
}

/// A number TOML cannot hold is refused by the TOML parser before any field is known; the
/// error still names the key on its line, under its table (a hostile probe, stop 53: these
/// were all reported against `scenario`).
#[test]
fn a_number_too_large_for_toml_names_its_key() {
    let big = "18446744073709551615";
    for (text, field) in [
        (format!("seed = {big}\n{BASE}"), "seed".to_string()),
        (BASE.replace("delay = \"1ms\"", &format!("delay = \"1ms\"\nqueue = {big}")), "link[0].queue".into()),
        (format!("{BASE}[tcp]\ninitial_cwnd = {big}\n"), "tcp.initial_cwnd".into()),
        (
            format!("{BASE}[[link]]\na = \"b\"\nb = \"a\"\nrate = 1\n[link.ab]\nqueue = {big}\n"),
            "link[1].ab.queue".into(),
        ),
    ] {
        let (f, m) = field_of(&text);
        assert_eq!(f, field, "{m}");
        assert!(m.contains("line"), "{m}");
    }
}
