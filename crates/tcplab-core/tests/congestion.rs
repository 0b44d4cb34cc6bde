//! The congestion controllers beyond the classic family (`tcp.cc`) on two hosts: CUBIC
//! against RFC 9438's window curve after one loss, Vegas holding a few segments queued,
//! BBR filling the pipe at a paced rate with a short queue and probing its RTT; each with
//! deterministic drops, and each surviving random loss under every loss-recovery variant.

mod common;
use common::*;
use tcplab_core::metrics::{FlowTrace, RunReport};

/// The two-host path's round trip without queueing (20 ms of propagation, a data and an ACK
/// serialisation) and its bandwidth-delay product in 1000-byte segments.
const BASE_RTT_S: f64 = 0.020864;
const BDP_SEGMENTS: f64 = 10e6 / 8.0 * BASE_RTT_S / 1040.0;

/// The controllers beyond the classic family.
const CONTROLLERS: &[&str] = &["cubic", "vegas", "bbr"];

fn run_cc(tcp: &str, drops: &[u64], bytes: u64, duration_s: f64) -> (RunReport, FlowTrace) {
    let loss = if drops.is_empty() { String::new() } else { drop_segments(drops) };
    run(&two_hosts(tcp, &loss, bytes, duration_s))
}

/// cwnd (segments) of the last trace row at or before `t` seconds.
fn cwnd_at(t: &FlowTrace, secs: f64) -> f64 {
    let row = t.rows.iter().take_while(|r| r.time as f64 / 1e9 <= secs).last().expect("a row");
    row.cwnd as f64 / 1000.0
}

#[test]
fn cubic_reaches_w_max_at_k_after_one_loss_and_grows_past_it() {
    // One loss at segment 300, then a lossless path: RFC 9438's curve W_cubic(t) = C (t - K)^3
    // + W_max from the congestion event's W_max. The run stops at 18 s, before the window
    // (about 1000 segments by then) overflows the 1000-packet queue.
    let (r, t) = run_cc("cc = \"cubic\"\nvariant = \"newreno\"", &[300], 1 << 40, 18.0);
    assert_eq!((r.flows[0].fast_retransmits, r.flows[0].timeouts), (1, 0));
    // The event: the first row whose ssthresh is not the initial one; W_max is the window
    // just before it.
    let i = t.rows.iter().position(|row| row.ssthresh != t.rows[0].ssthresh).unwrap();
    let w_max = t.rows[i - 1].cwnd as f64 / 1000.0;
    let ssthresh = t.rows[i].ssthresh as f64 / 1000.0;
    // Recovery ends when cwnd is deflated to ssthresh; the stage begins with the next ACK.
    let end = t.rows[i..].iter().find(|row| row.cwnd as f64 / 1000.0 <= ssthresh).unwrap();
    let t_epoch = end.time as f64 / 1e9;
    let cwnd_epoch = end.cwnd as f64 / 1000.0;
    let k = ((w_max - cwnd_epoch) / 0.4).cbrt();
    assert!(k > 3.0, "K = {k} s (W_max {w_max}, cwnd_epoch {cwnd_epoch})");
    let at_k = cwnd_at(&t, t_epoch + k);
    assert!((at_k - w_max).abs() <= 2.0, "cwnd at t = K: {at_k}, W_max {w_max}");
    let half = cwnd_at(&t, t_epoch + k / 2.0);
    let curve = 0.4 * (-k / 2.0f64).powi(3) + w_max;
    assert!(half > cwnd_epoch && half < w_max && (half - curve).abs() < 3.0, "concave: {half} vs {curve}");
    let past = cwnd_at(&t, t_epoch + 1.6 * k);
    assert!(past > w_max + 0.4 * (0.6 * k).powi(3) - 3.0, "convex beyond K: {past}");
}

#[test]
fn cubic_cuts_to_seven_tenths_of_the_flight() {
    let (_, t) = run_cc("cc = \"cubic\"\nvariant = \"newreno\"\ninitial_ssthresh = 40000", &[100], 400_000, 60.0);
    let i = t.rows.iter().position(|row| row.ssthresh != t.rows[0].ssthresh).unwrap();
    let before = &t.rows[i - 1];
    let flight = before.snd_nxt - before.snd_una;
    assert_eq!(t.rows[i].ssthresh, (flight as f64 * 0.7) as u64);
}

#[test]
fn vegas_keeps_between_alpha_and_beta_segments_queued() {
    // Reno fills the 1000-packet queue; Vegas settles with 1 to 3 segments above the BDP
    // (beta + 1 at most: Vegas shrinks only once Diff has exceeded beta).
    let (r, t) = run_cc("cc = \"vegas\"\nvariant = \"newreno\"", &[], 1 << 40, 20.0);
    assert_eq!(r.flows[0].retransmits, 0);
    let late: Vec<f64> =
        t.rows.iter().filter(|row| row.time > 10_000_000_000).map(|r| r.cwnd as f64 / 1000.0).collect();
    let (lo, hi) = late.iter().fold((f64::MAX, 0.0f64), |(a, b), &c| (a.min(c), b.max(c)));
    assert!(lo >= BDP_SEGMENTS && hi <= BDP_SEGMENTS + 4.0, "cwnd {lo}..{hi} segments, BDP {BDP_SEGMENTS}");
    // The queue peaks in slow start's last doubling, which sends two segments per ACK at twice
    // the bottleneck's rate: at most half the largest window of the run queues.
    let max_cwnd = t.rows.iter().map(|r| r.cwnd).max().unwrap() / 1000;
    let peak = r.links[0].stats.peak_queue_packets;
    assert!(peak <= max_cwnd / 2, "peak queue {peak}, largest window {max_cwnd} segments");
    let reno = run_cc("variant = \"newreno\"", &[], 1 << 40, 20.0).0;
    assert!(reno.links[0].stats.peak_queue_packets > 500);
}

#[test]
fn bbr_fills_the_pipe_at_a_paced_rate_with_a_short_queue() {
    let (r, t) = run_cc("cc = \"bbr\"\nvariant = \"sack_rfc6675\"", &[], 1 << 40, 20.0);
    let f = &r.flows[0];
    assert_eq!(f.retransmits, 0);
    assert!(f.goodput_bps > 0.9 * 10e6 * 1000.0 / 1040.0, "goodput {}", f.goodput_bps);
    // STARTUP's overshoot queues at most about 1.9 BDP; Reno would fill the 1000 packets.
    let peak = r.links[0].stats.peak_queue_packets as f64;
    assert!(peak < 2.5 * BDP_SEGMENTS, "peak queue {peak}");
    // Paced: after the first round trips, no two segments leave at the same instant.
    let late: Vec<_> = t.sends.iter().filter(|s| s.time > 1_000_000_000).collect();
    assert!(late.windows(2).all(|w| w[1].time > w[0].time), "segments sent back to back");
    // In PROBE_BW cwnd is 2 BDP plus three quanta of 2 segments.
    let cwnd = cwnd_at(&t, 9.0);
    assert!((cwnd - 2.0 * BDP_SEGMENTS - 6.0).abs() < 3.0, "cwnd {cwnd}, BDP {BDP_SEGMENTS}");
}

#[test]
fn bbr_probes_its_rtt_every_ten_seconds_with_four_segments() {
    let (_, t) = run_cc("cc = \"bbr\"\nvariant = \"newreno\"", &[], 1 << 40, 25.0);
    let min_in = |a: f64, b: f64| {
        t.rows.iter().filter(|r| (a..b).contains(&(r.time as f64 / 1e9))).map(|r| r.cwnd).min().unwrap()
    };
    assert_eq!(min_in(9.0, 11.5), 4000, "PROBE_RTT about 10 s after the first RTT sample");
    assert_eq!(min_in(19.0, 21.5), 4000, "and again 10 s later");
    assert!(min_in(12.0, 19.0) > 4000, "not in between");
}

#[test]
fn every_controller_recovers_from_one_to_four_drops_in_a_window() {
    for cc in CONTROLLERS {
        for variant in ["newreno", "sack_rfc6675"] {
            for n in 1..=4 {
                let d = every_other_from_60(n);
                let tcp = format!("cc = \"{cc}\"\nvariant = \"{variant}\"\ninitial_ssthresh = 16000");
                let (r, t) = run_cc(&tcp, &d, 200_000, 60.0);
                let f = &r.flows[0];
                assert_eq!(f.bytes_delivered, 200_000, "{cc} {variant} {n}");
                assert_eq!(f.timeouts, 0, "{cc} {variant} {n} drops: no timeout");
                assert_eq!(repair_times(&t, &d).len(), d.len());
            }
        }
    }
}

#[test]
fn every_controller_survives_random_loss_with_every_variant() {
    let variants = ["vanilla", "tahoe", "reno", "newreno", "newreno_ns2", "sack", "sack_rfc6675"];
    for cc in CONTROLLERS {
        for v in variants {
            for seed in 0..3 {
                let text = two_hosts(
                    &format!("cc = \"{cc}\"\nvariant = \"{v}\""),
                    "{ model = \"bernoulli\", p = 0.03 }\n[link.ba]\nloss = { model = \"bernoulli\", p = 0.03 }",
                    300_000,
                    600.0,
                );
                let r = run_seed(&text, seed);
                assert_eq!(r.flows[0].bytes_delivered, 300_000, "{cc} {v} seed {seed}");
            }
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_run_for_every_controller() {
    for cc in CONTROLLERS {
        let text = two_hosts(&format!("cc = \"{cc}\""), "{ model = \"bernoulli\", p = 0.01 }", 2_000_000, 60.0);
        let a = serde_json::to_string(&run_seed(&text, 7).flows).unwrap();
        let b = serde_json::to_string(&run_seed(&text, 7).flows).unwrap();
        assert_eq!(a, b, "{cc}");
    }
}
