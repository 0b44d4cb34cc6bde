//! Every loss-recovery variant on two hosts with deterministic drops in one window of 16
//! segments (Fall and Floyd 1996's one to four drops), asserting on what was resent, when,
//! and how often the timer had to fire.

mod common;
use common::*;
use tcplab_core::metrics::{FlowReport, FlowTrace};

const VARIANTS: [&str; 7] = ["vanilla", "tahoe", "reno", "newreno", "newreno_ns2", "sack", "sack_rfc6675"];

/// 200 segments; slow start ends at 16 segments, so the window is about 17 segments when
/// segment 60 leaves, and cwnd (not the receiver's window) limits the sender, as in Fall and
/// Floyd's runs. `drops` are segment numbers (1-based) in that window, each lost once.
fn scenario(variant: &str, drops: &[u64], extra: &str) -> (FlowReport, FlowTrace) {
    let tcp = format!("variant = \"{variant}\"\ninitial_ssthresh = 16000\n{extra}");
    let (r, t) = run(&two_hosts(&tcp, &drop_segments(drops), 200_000, 60.0));
    let f = r.flows[0].clone();
    assert_eq!(f.bytes_delivered, 200_000, "{variant} must deliver everything");
    (f, t)
}

fn drops(n: u64) -> Vec<u64> {
    every_other_from_60(n)
}

/// The round-trip time: propagation plus one data and one ACK serialisation (0.02086 s), and
/// the round-trip time with a full window of about 17 segments queued at the sender.
const BASE_RTT: f64 = 0.020864;
const RTT: f64 = BASE_RTT + 17.0 * 0.000832;

#[test]
fn one_drop_vanilla_times_out_the_others_recover_without() {
    for v in VARIANTS {
        let (f, t) = scenario(v, &[60], "");
        if v == "vanilla" {
            assert_eq!((f.timeouts, f.fast_retransmits), (1, 0), "{v}");
        } else {
            assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{v}");
            let gap = repair_times(&t, &[60])[0] - sends_of(&t, 59_000)[0];
            assert!(gap < 2.0 * RTT, "{v}: resent {gap} s after the original");
        }
    }
}

#[test]
fn tahoe_slow_starts_after_fast_retransmit_and_never_times_out() {
    for n in 1..=4 {
        let (f, t) = scenario("tahoe", &drops(n), "");
        assert_eq!(f.timeouts, 0, "{n} drops");
        let rtx = repair_times(&t, &[60])[0];
        let after = t.rows.iter().find(|r| r.time as f64 / 1e9 >= rtx).unwrap();
        assert_eq!(after.cwnd, 1000, "cwnd is one segment after the fast retransmit");
    }
}

#[test]
fn reno_handles_two_drops_but_times_out_with_three_or_four() {
    // Fall and Floyd 1996: each further loss in the window halves cwnd again, and once too
    // few packets remain in flight to produce three duplicate ACKs Reno must wait for the timer.
    let (two, _) = scenario("reno", &drops(2), "");
    assert_eq!(two.timeouts, 0);
    assert_eq!(two.fast_retransmits, 2, "two separate fast retransmits, two halvings");
    for n in [3, 4] {
        let (f, _) = scenario("reno", &drops(n), "");
        assert!(f.timeouts >= 1, "{n} drops: Reno should time out");
    }
}

#[test]
fn newreno_resends_one_hole_per_round_trip_without_a_timeout() {
    for v in ["newreno", "newreno_ns2"] {
        for n in 2..=4 {
            let d = drops(n);
            let (f, t) = scenario(v, &d, "");
            assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{v} {n}");
            let times = repair_times(&t, &d);
            for w in times.windows(2) {
                let gap = w[1] - w[0];
                assert!(gap > 0.99 * BASE_RTT && gap < 2.0 * RTT, "{v} {n}: holes {gap} s apart");
            }
        }
    }
}

#[test]
fn sack_repairs_all_holes_in_about_one_round_trip() {
    for v in ["sack", "sack_rfc6675"] {
        for n in 2..=4 {
            let d = drops(n);
            let (f, t) = scenario(v, &d, "");
            assert_eq!((f.timeouts, f.fast_retransmits), (0, 1), "{v} {n}");
            assert_eq!(f.retransmits, n, "{v} {n}: only the lost segments are resent");
            let times = repair_times(&t, &d);
            let spread = times.last().unwrap() - times[0];
            assert!(spread < 1.2 * RTT, "{v} {n}: repairs spread over {spread} s");
        }
    }
}

#[test]
fn super_fast_retransmit_recovers_the_fig16_losses_that_make_reno_time_out() {
    // Cohen and Ramanathan (1998) Fig. 16: a congestion window of eight packets, packets 11 and 14 lost. After
    // the first repair only two packets sent during recovery are left to produce duplicate
    // ACKs for packet 14: too few for the third-duplicate rule, enough for the first.
    let setup = "initial_cwnd = 8\ninitial_ssthresh = 8000";
    let text = |thresh: u32| {
        two_hosts(
            &format!("variant = \"reno\"\n{setup}\ndupack_threshold = {thresh}"),
            &drop_segments(&[11, 14]),
            40_000,
            60.0,
        )
    };
    let (three, _) = run(&text(3));
    let (one, t1) = run(&text(1));
    assert!(three.flows[0].timeouts >= 1, "fast retransmit needs a timeout for packet 14");
    assert_eq!(one.flows[0].timeouts, 0, "super fast retransmit recovers both");
    assert_eq!(retransmitted(&t1), vec![10_000, 13_000]);
}

#[test]
fn random_loss_is_survived_by_every_variant() {
    for v in VARIANTS {
        for seed in 0..5 {
            let text = two_hosts(
                &format!("variant = \"{v}\""),
                "{ model = \"bernoulli\", p = 0.03 }\n[link.ba]\nloss = { model = \"bernoulli\", p = 0.03 }",
                300_000,
                600.0,
            );
            let r = run_seed(&text, seed);
            assert_eq!(r.flows[0].bytes_delivered, 300_000, "{v} seed {seed}");
        }
    }
}

#[test]
fn max_burst_caps_segments_sent_per_ack() {
    // After NewReno's recovery a cumulative ACK opens the window by many segments at once;
    // MaxBurst 2 lets at most two leave per ACK.
    let d = drops(4);
    // ns-2.1b3's NewReno sets cwnd to ssthresh when recovery ends, releasing a burst.
    let (_, free) = scenario("newreno_ns2", &d, "");
    let (_, capped) = scenario("newreno_ns2", &d, "max_burst = 2");
    let burst = |t: &FlowTrace| {
        let mut best = 0;
        let mut i = 0;
        while i < t.sends.len() {
            let n = t.sends[i..].iter().take_while(|s| s.time == t.sends[i].time).count();
            best = best.max(n);
            i += n;
        }
        best
    };
    assert!(burst(&free) > 2, "without a cap a burst of {} left at once", burst(&free));
    assert!(burst(&capped) <= 2);
}

#[test]
fn window_scaling_off_caps_the_window_at_64k() {
    let (r, t) = run(&two_hosts("window_scaling = false\nrcv_buf = \"1MiB\"", "", 2_000_000, 60.0));
    assert_eq!(r.flows[0].bytes_delivered, 2_000_000);
    let max_flight = t.rows.iter().map(|r| r.snd_nxt - r.snd_una).max().unwrap();
    assert!(max_flight <= 65_535, "flight {max_flight}");
}

#[test]
fn sws_avoidance_off_sends_window_limited_small_segments() {
    let (_, on) = run(&two_hosts("rcv_buf = 2500\ninitial_cwnd = 4", "", 10_000, 10.0));
    let (_, off) = run(&two_hosts("rcv_buf = 2500\ninitial_cwnd = 4\nsws_avoidance = false", "", 10_000, 10.0));
    assert!(on.sends.iter().all(|s| s.len == 1000), "only full segments with SWS avoidance");
    assert!(off.sends.iter().any(|s| s.len == 500), "a 500-byte window-limited segment");
}

#[test]
fn initial_ssthresh_bdp_ends_slow_start_at_the_path_bdp() {
    // 10 Mb/s x 20 ms round trip = 25 000 bytes: slow start stops there.
    let (_, t) = run(&two_hosts("initial_ssthresh = \"bdp\"", "", 500_000, 60.0));
    assert_eq!(t.rows[0].ssthresh, 25_000);
}
