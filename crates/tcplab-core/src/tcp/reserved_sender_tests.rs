//! The reserved-connection policies inside a sender, segment by segment. Offsets are stream
//! bytes; both ISNs are 0, so data starts at wire sequence 1. Segments are 1000 bytes.

use super::*;
use crate::packet::Packet;
use crate::rng::stream;
use crate::tcp::config::{RecoveryKind, TcpConfig};
use crate::tcp::TcpSender;
use crate::time::MS;

fn sender(cfg: TcpConfig, rc: ReservedConfig) -> TcpSender {
    let mut s = TcpSender::new(TcpConfig { mss: 1000, ..cfg }, 0, 0, None, 0, false);
    s.reserved = Some(Box::new(Reserved::new(rc, stream(1, "reserved", 0))));
    s.open(0);
    assert!(!s.is_plain(), "a reservation has a say in every send: not a plain sender");
    s
}

fn ack(s: &mut TcpSender, t_ms: u64, off: u64, wnd: u32) {
    let p = Packet::test_ack(off, wnd);
    s.on_packet(t_ms * MS, &p);
}

fn drain(s: &mut TcpSender, t_ms: u64) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(t_ms * MS)).map(|p| p.seq.wrapping_sub(1) as u64).collect()
}

fn tokens(s: &mut TcpSender, bytes: u64) {
    s.reserved.as_mut().unwrap().set_tokens(bytes);
}

/// 400 kb/s reserved and a 100 ms RTT: RWND = 5000 bytes (5 segments).
fn adaptive(variant: RecoveryKind) -> TcpSender {
    let rc = ReservedConfig {
        rate_bps: 400_000,
        adaptive_window: true,
        window_rtt: WindowRtt::Smoothed,
        send: SendRule::AckClock,
    };
    let mut s = sender(TcpConfig { initial_cwnd: 10, rcv_buf: 1 << 20, recovery: variant, ..TcpConfig::default() }, rc);
    assert_eq!(drain(&mut s, 0), (0..10).map(|i| i * 1000).collect::<Vec<_>>());
    ack(&mut s, 100, 1000, 1 << 20); // the RTT sample: 100 ms; cwnd 11 segments
    assert_eq!(drain(&mut s, 100), vec![10_000, 11_000]);
    s
}

#[test]
fn fig4_after_a_fast_retransmit_reno_newreno_and_sack() {
    for variant in [RecoveryKind::Reno, RecoveryKind::NewReno, RecoveryKind::Sack] {
        let mut s = adaptive(variant);
        for t in 101..=103 {
            ack(&mut s, t, 1000, 1 << 20);
        }
        assert_eq!(drain(&mut s, 103)[0], 1000, "{variant:?}: fast retransmit");
        // ssthresh = RWND + (cwnd - RWND)/2 = 5 + (11 - 5)/2 = 8 segments (plain TCP: 5).
        assert_eq!(s.window().ssthresh, 8000, "{variant:?}");
        if variant != RecoveryKind::Sack {
            assert_eq!(s.window().cwnd, 11_000, "{variant:?}: ssthresh + 3 inflation");
        }
        assert_eq!(s.stats.fast_retransmits, 1);
    }
}

#[test]
fn fig4_after_a_timeout() {
    let mut s = adaptive(RecoveryKind::Reno);
    let rto = s.next_deadline().unwrap();
    s.on_timer(rto);
    assert_eq!(s.stats.timeouts, 1);
    // cwnd = RWND + 1 = 6 segments; ssthresh = 5 + (11 - 5)/2 = 8.
    assert_eq!((s.window().cwnd, s.window().ssthresh), (6000, 8000));
    let t = rto / MS;
    assert_eq!(drain(&mut s, t), vec![1000, 2000, 3000, 4000, 5000, 6000], "go back N over 6 segments");
}

#[test]
fn delayed_send_timer_rules_in_the_sender() {
    let rc = ReservedConfig {
        rate_bps: 1_000_000,
        adaptive_window: false,
        window_rtt: WindowRtt::Smoothed,
        send: SendRule::Delayed { max_delay: 50 * MS },
    };
    let mut s = sender(TcpConfig { initial_cwnd: 4, rcv_buf: 1 << 20, ..TcpConfig::default() }, rc);
    // Two segments' worth of tokens (the simulation's bucket loses 1040 per marked packet):
    // two go, the third is held back and the timer set.
    for (have, off) in [(2080, 0), (1040, 1000)] {
        tokens(&mut s, have);
        assert_eq!(s.poll_transmit(0).map(|p| p.seq as u64 - 1), Some(off));
    }
    tokens(&mut s, 0);
    assert_eq!(drain(&mut s, 0), Vec::<u64>::new());
    let t = s.next_deadline().unwrap();
    assert!(t <= 50 * MS, "the delay timer comes before the RTO");
    // The timer expires with no tokens: one segment goes anyway (unmarked), one only.
    s.on_timer(t);
    assert_eq!(drain(&mut s, t / MS), vec![2000]);
    let t2 = s.next_deadline().unwrap();
    assert!(t2 > t && t2 <= t + 50 * MS, "the next short segment set the timer again");
    // An ACK while the timer is set: its segments go at once, tokens or not.
    ack(&mut s, t / MS, 1000, 1 << 20);
    assert_eq!(drain(&mut s, t / MS), vec![3000, 4000, 5000], "cwnd 5, snd_una 1000");
}

#[test]
fn timed_send_ignores_cwnd_but_never_the_advertised_window() {
    let rc = ReservedConfig {
        rate_bps: 1_000_000,
        adaptive_window: false,
        window_rtt: WindowRtt::Smoothed,
        send: SendRule::Timed { interval: 20 * MS },
    };
    let mut s = sender(TcpConfig { initial_cwnd: 1, rcv_buf: 5000, ..TcpConfig::default() }, rc);
    tokens(&mut s, 100_000);
    assert_eq!(drain(&mut s, 0), vec![0], "cwnd is one segment");
    assert_eq!(s.next_deadline(), Some(20 * MS));
    s.on_timer(20 * MS);
    // Tokens for many, cwnd for none: the tick sends up to the advertised 5000 bytes.
    assert_eq!(drain(&mut s, 20), vec![1000, 2000, 3000, 4000]);
    assert_eq!(s.window().cwnd, 1000);
    // The receiver opens its window; without a tick nothing beyond cwnd goes.
    ack(&mut s, 30, 1000, 8000);
    assert_eq!(drain(&mut s, 30), Vec::<u64>::new(), "flight 4000 is above cwnd 2000");
    s.on_timer(40 * MS);
    assert_eq!(drain(&mut s, 40), vec![5000, 6000, 7000, 8000], "up to snd_una + 8000");
    // Tokens short of a packet: the tick sends nothing.
    ack(&mut s, 50, 9000, 8000);
    assert_eq!(drain(&mut s, 50), vec![9000, 10_000, 11_000]);
    tokens(&mut s, 1039);
    s.on_timer(60 * MS);
    assert_eq!(drain(&mut s, 60), Vec::<u64>::new());
}

/// Sec. 6: MaxBurst = 2 lets at most two segments leave per ACK (and per timeout), so the
/// large window the rate-adaptive rules give after a timeout (RWND + 1) is refilled in a
/// slow-start-like way instead of in one burst.
#[test]
fn max_burst_two_paces_the_rate_adaptive_window_after_a_timeout() {
    let rc = ReservedConfig {
        rate_bps: 400_000,
        adaptive_window: true,
        window_rtt: WindowRtt::Smoothed,
        send: SendRule::AckClock,
    };
    let cfg = TcpConfig { initial_cwnd: 10, max_burst: Some(2), rcv_buf: 1 << 20, ..TcpConfig::default() };
    let mut s = sender(cfg, rc);
    assert_eq!(drain(&mut s, 0), vec![0, 1000]);
    ack(&mut s, 100, 1000, 1 << 20); // RTT sample 100 ms: RWND = 5 segments
    assert_eq!(drain(&mut s, 100), vec![2000, 3000]);
    let rto = s.next_deadline().unwrap();
    s.on_timer(rto);
    assert_eq!(s.window().cwnd, 6000, "RWND + 1");
    let t = rto / MS;
    assert_eq!(drain(&mut s, t), vec![1000, 2000], "two of the six segments the window allows");
    ack(&mut s, t + 100, 2000, 1 << 20);
    assert_eq!(drain(&mut s, t + 100), vec![3000, 4000]);
}

/// The minimum-RTT alternative: a later, longer round trip (a queue, a long recovery) raises
/// the smoothed RTT and with it RWND, but not the smallest sample. Samples of 100 ms and then
/// 400 ms (Fine clock: srtt = (7 x 100 + 400)/8 = 137.5 ms): RWND = 400 kb/s x 137.5 ms =
/// 6875 bytes smoothed, 5000 bytes from the minimum.
#[test]
fn fig4_with_the_minimum_rtt_ignores_a_longer_later_round_trip() {
    for (window_rtt, rwnd) in [(WindowRtt::Smoothed, 6875), (WindowRtt::Min, 5000)] {
        let rc = ReservedConfig { rate_bps: 400_000, adaptive_window: true, window_rtt, send: SendRule::AckClock };
        let cfg =
            TcpConfig { initial_cwnd: 10, rcv_buf: 1 << 20, recovery: RecoveryKind::NewReno, ..TcpConfig::default() };
        let mut s = sender(cfg, rc);
        drain(&mut s, 0);
        ack(&mut s, 100, 1000, 1 << 20); // 100 ms sample
        assert_eq!(drain(&mut s, 100), vec![10_000, 11_000], "the second timed segment is 10,000");
        ack(&mut s, 500, 11_000, 1 << 20); // 400 ms sample
        drain(&mut s, 500);
        let cwnd = s.window().cwnd;
        for t in 501..=503 {
            ack(&mut s, t, 11_000, 1 << 20);
        }
        assert_eq!(drain(&mut s, 503)[0], 11_000, "{window_rtt:?}: fast retransmit");
        let usable = cwnd.min(1 << 20);
        assert_eq!(s.window().ssthresh, rwnd + (usable - rwnd) / 2, "{window_rtt:?}: cwnd was {cwnd}");
    }
}
