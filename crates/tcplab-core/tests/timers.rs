//! Coarse BSD timers and delayed ACKs, seen from outside.

mod common;
use common::*;

#[test]
fn coarse_rto_fires_on_tick_boundaries_and_backs_off() {
    // The only segment is lost twice: the first timeout uses the initial 3 s (6 ticks), the
    // second twice that; both expire on the host's 500 ms tick boundaries.
    let text = two_hosts(
        "timer = \"500ms\"",
        "{ model = \"drop_list\", flow = 0, by = \"tx_index\", values = [1, 2] }",
        1000,
        30.0,
    );
    let (r, t) = run(&text);
    assert_eq!(r.flows[0].timeouts, 2);
    let s = sends_of(&t, 0);
    assert_eq!(s.len(), 3);
    let (first, second) = (s[1] - s[0], s[2] - s[1]);
    assert!(first > 2.5 && first <= 3.0, "first timeout after {first}");
    assert!(second > 5.5 && second <= 6.0 + 1e-9, "second timeout after {second}");
    // Both expiries lie on the same 500 ms grid.
    let grid = ((s[2] - s[1]) / 0.5).round() * 0.5;
    assert!((s[2] - s[1] - grid).abs() < 1e-9);
}

#[test]
fn coarse_rto_after_samples_is_whole_ticks() {
    // Six of the eight segments of one window are lost once: two duplicate ACKs cannot
    // trigger fast retransmit, so recovery needs a timeout. By then the 20 ms RTT has been
    // sampled many times: BSD's RTO is 3 ticks, which expire 1-1.5 s after arming.
    let text =
        two_hosts("timer = \"500ms\"\nrcv_buf = 8192", &drop_segments(&[100, 101, 102, 103, 104, 105]), 400_000, 30.0);
    let (r, t) = run(&text);
    let f = &r.flows[0];
    assert!(f.timeouts >= 1);
    assert_eq!(f.bytes_delivered, 400_000);
    let first_rtx = t.sends.iter().find(|s| s.retransmit).unwrap();
    let original = t.sends.iter().find(|s| s.offset == first_rtx.offset).unwrap();
    let gap = (first_rtx.time - original.time) as f64 / 1e9;
    assert!(gap > 1.0 && gap <= 1.5, "timeout after {gap} s");
}

#[test]
fn delayed_ack_holds_a_lone_segment_until_the_200ms_clock() {
    // One segment with delayed ACKs: completion happens at arrival, but the sender sees the
    // ACK only at the receiver's next 200 ms tick; a two-segment transfer is ACKed at once.
    let one = two_hosts("delayed_ack = true", "", 1000, 5.0);
    let (r1, t1) = run(&one);
    let done1 = t1.rows.iter().find(|r| r.snd_una == 1000).unwrap().time as f64 / 1e9;
    assert!(r1.flows[0].completion_time_s.unwrap() < 0.012);
    assert!(done1 > 0.011 && done1 <= 0.2 + 0.012, "ack seen at {done1}");

    let two = two_hosts("delayed_ack = true\ninitial_cwnd = 2", "", 2000, 5.0);
    let (_, t2) = run(&two);
    let done2 = t2.rows.iter().find(|r| r.snd_una == 2000).unwrap().time as f64 / 1e9;
    assert!(done2 < 0.025, "two full segments must be ACKed at once, got {done2}");
}

#[test]
fn reno_receiver_acks_out_of_order_data_at_once_tahoe_era_keeps_delaying() {
    // With a hole at segment 20, each later segment makes a duplicate ACK at once (Reno-era)
    // so fast retransmit happens; a Tahoe-era receiver delays them and recovery is slower.
    let reno = two_hosts("delayed_ack = true", &drop_segments(&[20]), 60_000, 20.0);
    let tahoe = two_hosts("delayed_ack = true\nout_of_order_ack = \"delayed\"", &drop_segments(&[20]), 60_000, 20.0);
    let (rr, _) = run(&reno);
    let (rt, _) = run(&tahoe);
    assert_eq!(rr.flows[0].fast_retransmits, 1);
    assert!(rt.flows[0].acks_sent < rr.flows[0].acks_sent);
    assert!(rt.flows[0].completion_time_s.unwrap() > rr.flows[0].completion_time_s.unwrap());
}

/// Two ns-2 flows through a small bottleneck queue with round trips of 1-2 ticks: the RTT
/// samples (tick boundaries crossed), so the RTO, depend on where each host's ticks fall, and
/// Vanilla (no fast retransmit) waits for the RTO after every loss.
fn ns2_contention(tick_phase: &str) -> String {
    format!(
        "duration = 20\nnodes = [\"a\", \"b\", \"c\"]\n[tcp]\nstack = \"ns2\"\nvariant = \"vanilla\"\n\
         tick_phase = \"{tick_phase}\"\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [[link]]\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\ndelay = \"60ms\"\nqueue = 6\n\
         [[flow]]\nsrc = \"a\"\ndst = \"c\"\n\
         [[flow]]\nsrc = \"a\"\ndst = \"c\"\nstart = \"0.3s\"\n"
    )
}

#[test]
fn aligned_tick_phases_take_the_hosts_clocks_out_of_the_seed() {
    let outcome = |text: &str, seed| {
        let r = run_seed(text, seed);
        r.flows.iter().map(|f| (f.bytes_delivered, f.timeouts, f.retransmits)).collect::<Vec<_>>()
    };
    let aligned = ns2_contention("aligned");
    let first = outcome(&aligned, 1);
    for seed in 2..6 {
        assert_eq!(outcome(&aligned, seed), first, "aligned clocks: the seed moves nothing (seed {seed})");
    }
    let random = ns2_contention("random");
    let runs: Vec<_> = (1..6).map(|seed| outcome(&random, seed)).collect();
    assert!(runs.iter().any(|r| *r != runs[0]), "random phases move the run with the seed: {runs:?}");
}

#[test]
fn a_bad_tick_phase_names_its_field() {
    let e = tcplab_core::run_scenario(&ns2_contention("sometimes"), &tcplab_core::RunOptions::default()).unwrap_err();
    assert!(e.to_string().contains("tcp.tick_phase"), "{e}");
}
