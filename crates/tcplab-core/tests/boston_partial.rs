//! TCP Boston's answer to a partial ACK (`boston_partial`), segment by segment, on a two-host
//! cell path with a one-segment window.

mod common;
use common::sends_of;
use tcplab_core::metrics::{FlowTrace, RunReport};
use tcplab_core::{run_scenario, Error, RunOptions};

/// Five 470-byte Boston segments (m = 10 shards, 11 cells with the header cell) from a to b,
/// one segment in flight at a time; `drops` lists cells of the flow (1-based) lost on a->b.
fn path(partial: &str, drops: &str) -> String {
    format!(
        "duration = 30\nnodes = [\"a\", \"b\"]\n[atm]\ntrailer = false\nllc_snap = false\n\
         [tcp]\nmss = 470\ncodec = \"boston\"\nboston_partial = \"{partial}\"\nhandshake = \"none\"\nmax_cwnd = 1\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\natm = true\nqueue = 100000\n[link.ab]\n\
         loss = {{ model = \"drop_list\", flow = 0, by = \"tx_index\", values = [{drops}] }}\n\
         [[flow]]\nsrc = \"a\"\ndst = \"b\"\nbytes = 2350\ntrace = true\n"
    )
}

fn run(text: &str) -> (RunReport, FlowTrace) {
    let (r, mut t) = run_scenario(text, &RunOptions { seed: Some(1), out_dir: None }).expect("runs");
    (r, t.remove(0))
}

#[test]
fn wait_resends_the_missing_shards_only_on_the_timer() {
    // Cell 5 is a shard of the first segment: the receiver holds 9 of 10 and says so in a
    // partial ACK, which is the only duplicate ACK a one-segment window can bring.
    let (r, t) = run(&path("wait", "5"));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 2350);
    assert_eq!(f.partial_segments, 1);
    assert_eq!((f.timeouts, f.fast_retransmits, f.retransmits), (1, 0, 1), "{f:?}");
    let sends = sends_of(&t, 0);
    assert_eq!(sends.len(), 2);
    assert!(sends[1] - sends[0] >= 3.0, "the initial RTO is 3 s: {sends:?}");
}

#[test]
fn fresh_sends_the_missing_shards_on_the_partial_ack() {
    let (r, t) = run(&path("fresh", "5"));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 2350);
    assert_eq!(f.partial_segments, 1);
    assert_eq!((f.timeouts, f.fast_retransmits, f.retransmits), (0, 0, 1), "{f:?}");
    let sends = sends_of(&t, 0);
    assert_eq!(sends.len(), 2);
    // One round trip (10 ms of propagation plus serialisation), not a timeout.
    assert!(sends[1] - sends[0] < 0.05, "{sends:?}");
    let done = f.completion_time_s.expect("completes");
    let (wait, _) = run(&path("wait", "5"));
    assert!(done + 2.0 < wait.flows[0].completion_time_s.unwrap(), "fresh {done} s");
}

#[test]
fn fresh_answers_each_count_once_and_falls_back_on_the_timer() {
    // Cells 5 and 13: one shard of the first copy, then the single fresh shard of the answer
    // (cell 12 is its header cell). The receiver gets the answer's header cell but no shard,
    // so its next partial ACK repeats r = 9: that count was answered, nothing more goes, and
    // the timer resends.
    let (r, t) = run(&path("fresh", "5, 13"));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 2350);
    assert_eq!((f.timeouts, f.retransmits), (1, 2), "{f:?}");
    let sends = sends_of(&t, 0);
    assert_eq!(sends.len(), 3);
    assert!(sends[1] - sends[0] < 0.05 && sends[2] - sends[1] >= 1.0, "{sends:?}");
}

#[test]
fn fresh_still_lets_the_duplicate_acks_behind_the_segment_fire_fast_retransmit() {
    // A four-segment window: the first segment loses a shard, its partial ACK is the first
    // duplicate ACK and the three segments behind it bring three more. "wait" resends once,
    // at fast retransmit; "fresh" answers the partial ACK at once and fast retransmit (with
    // its window cut) still resends m - r more fresh shards, which the receiver does not need.
    let four = |p: &str| path(p, "5").replace("max_cwnd = 1", "max_cwnd = 4\ninitial_cwnd = 4");
    let (wait, _) = run(&four("wait"));
    let (fresh, t) = run(&four("fresh"));
    for r in [&wait, &fresh] {
        assert_eq!(r.flows[0].bytes_delivered, 2350);
        assert_eq!((r.flows[0].timeouts, r.flows[0].fast_retransmits), (0, 1), "{:?}", r.flows[0]);
    }
    assert_eq!(wait.flows[0].retransmits, 1);
    assert_eq!(fresh.flows[0].retransmits, 2);
    let sends = sends_of(&t, 0);
    assert!(sends.len() == 3 && sends[2] - sends[0] < 0.05, "{sends:?}");
}

#[test]
fn boston_partial_names_its_field_when_unknown() {
    match run_scenario(&path("soon", "5"), &RunOptions::default()) {
        Err(Error::Scenario(e)) => {
            assert_eq!(e.field, "tcp.boston_partial");
            assert!(e.message.contains("wait or fresh"), "{}", e.message);
        }
        other => panic!("expected a scenario error, got {:?}", other.map(|r| r.0.flows.len())),
    }
}
