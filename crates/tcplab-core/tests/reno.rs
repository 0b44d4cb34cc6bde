//! Reno on two hosts with deterministic drops (the Fall and Floyd 1996 set-up).

mod common;
use common::*;

#[test]
fn reno_recovers_one_drop_in_a_large_window_by_fast_retransmit() {
    // Segment 40 is sent when the window is well past 8 segments.
    let (r, t) = run(&two_hosts("variant = \"reno\"", &drop_segments(&[40]), 100_000, 20.0));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 100_000);
    assert_eq!((f.timeouts, f.fast_retransmits, f.retransmits), (0, 1, 1));
    assert_eq!(retransmitted(&t), vec![39_000]);
    let times = sends_of(&t, 39_000);
    assert_eq!(times.len(), 2);
    // The retransmission follows the third duplicate ACK: about one round trip (20.8 ms
    // plus queueing behind the window) after the original, never a timeout (>= 1 s) later.
    let gap = times[1] - times[0];
    assert!(gap > 20.0 * MS && gap < 200.0 * MS, "gap {gap}");
}

#[test]
fn reno_window_halves_after_fast_recovery() {
    let (_, t) =
        run(&two_hosts("variant = \"reno\"\ninitial_ssthresh = \"1MiB\"", &drop_segments(&[40]), 100_000, 20.0));
    let rtx_time = (sends_of(&t, 39_000)[1] * 1e9) as u64;
    let before = t.rows.iter().rfind(|r| r.time < rtx_time).unwrap();
    let after = t.rows.iter().find(|r| r.snd_una > 39_000).unwrap();
    // cwnd just before the loss was detected, and ssthresh once recovery ended.
    assert!(before.cwnd >= 8_000, "window at loss {}", before.cwnd);
    assert!(after.ssthresh <= before.cwnd / 2 + 1000 && after.ssthresh >= before.cwnd / 2 - 1000);
    assert!(after.cwnd <= after.ssthresh + 1000);
}

#[test]
fn a_lost_only_segment_waits_for_the_timeout() {
    // A one-segment transfer cannot produce duplicate ACKs.
    let (r, t) = run(&two_hosts("variant = \"reno\"", &drop_segments(&[1]), 1000, 20.0));
    let f = &r.flows[0];
    assert_eq!((f.timeouts, f.fast_retransmits), (1, 0));
    let times = sends_of(&t, 0);
    // No RTT sample yet: the initial 3 s timeout (fine-grained timer).
    assert!((times[1] - times[0] - 3.0).abs() < 1e-6, "{times:?}");
    assert!(f.completion_time_s.unwrap() > 3.0);
}
