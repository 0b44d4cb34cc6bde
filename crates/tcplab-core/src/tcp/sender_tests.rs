//! The sender driven segment by segment (in the style of smoltcp's socket tests).
//! Offsets are stream bytes; the peer's ISN is 0 and ours is 0, so data starts at wire seq 1.

use super::*;
use crate::packet::{flags, Packet};
use crate::tcp::config::{Handshake, TcpConfig};
use crate::time::{Time, MS, SEC};

fn cfg() -> TcpConfig {
    TcpConfig { mss: 1000, rcv_buf: 1 << 20, ..TcpConfig::default() }
}

fn sender_with(cfg: TcpConfig, total: Option<u64>) -> TcpSender {
    let mut s = TcpSender::new(cfg, 0, 0, total, 0, true);
    s.open(0);
    s
}

fn ack_pkt(off: u64, wnd: u32) -> Packet {
    Packet::test_ack(off, wnd)
}

/// Everything the sender emits at `t` ms, as (offset, len) of data segments.
fn drain(s: &mut TcpSender, t: u64) -> Vec<(u64, u64)> {
    std::iter::from_fn(|| s.poll_transmit(t * MS)).map(|p| (p.seq.wrapping_sub(1) as u64, p.payload as u64)).collect()
}

macro_rules! ack {
    ($s:expr, t = $t:expr, $off:expr) => {
        $s.on_packet($t * MS, &ack_pkt($off, 1 << 20))
    };
}

macro_rules! expect {
    ($s:expr, t = $t:expr, [$($off:expr),*]) => {
        assert_eq!(drain(&mut $s, $t), vec![$(($off, 1000)),*], "segments sent at t={} ms", $t)
    };
}

#[test]
fn slow_start_doubles_the_window_each_round() {
    let mut s = sender_with(cfg(), None);
    expect!(s, t = 0, [0]);
    ack!(s, t = 20, 1000);
    expect!(s, t = 20, [1000, 2000]);
    ack!(s, t = 40, 2000);
    expect!(s, t = 40, [3000, 4000]);
    ack!(s, t = 40, 3000);
    expect!(s, t = 40, [5000, 6000]);
    assert_eq!(s.window().cwnd, 4000);
}

#[test]
fn congestion_avoidance_adds_about_one_segment_per_window() {
    let mut s = sender_with(TcpConfig { initial_cwnd: 4, initial_ssthresh: 4000, ..cfg() }, None);
    expect!(s, t = 0, [0, 1000, 2000, 3000]);
    for i in 1..=4 {
        ack!(s, t = 20, i * 1000);
    }
    // 4000 + 250 + 1000*1000/4250 + ... : just over one segment in a window of four ACKs.
    let w = s.window().cwnd;
    assert!((4900..=5000).contains(&w), "cwnd {w}");
}

#[test]
fn reno_third_dupack_retransmits_then_inflates_and_releases_new_data() {
    let mut s = sender_with(TcpConfig { initial_cwnd: 8, ..cfg() }, None);
    expect!(s, t = 0, [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
    ack!(s, t = 20, 0);
    ack!(s, t = 20, 0);
    expect!(s, t = 20, []);
    ack!(s, t = 21, 0);
    expect!(s, t = 21, [0]);
    assert_eq!((s.window().ssthresh, s.window().cwnd), (4000, 7000));
    assert_eq!(s.stats.fast_retransmits, 1);
    ack!(s, t = 22, 0); // cwnd 8000: still 8000 outstanding
    expect!(s, t = 22, []);
    ack!(s, t = 23, 0); // cwnd 9000: one new segment
    expect!(s, t = 23, [8000]);
    ack!(s, t = 41, 8000); // the retransmission filled the hole: recovery ends
    assert_eq!(s.window().cwnd, 4000 + 250);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn fine_rto_without_samples_is_the_initial_three_seconds_then_doubles() {
    let mut s = sender_with(cfg(), Some(5000));
    expect!(s, t = 0, [0]);
    assert_eq!(s.next_deadline(), Some(3 * SEC));
    s.on_timer(2999 * MS);
    expect!(s, t = 2999, []);
    s.on_timer(3 * SEC);
    expect!(s, t = 3000, [0]);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.next_deadline(), Some(9 * SEC));
}

#[test]
fn karn_takes_no_sample_from_a_retransmitted_segment() {
    let mut s = sender_with(cfg(), Some(5000));
    expect!(s, t = 0, [0]);
    s.on_timer(3 * SEC);
    expect!(s, t = 3000, [0]);
    ack!(s, t = 3020, 1000); // ambiguous: could be an ACK of either copy
    assert_eq!(s.rto(), 3 * SEC, "no sample may be taken");
    expect!(s, t = 3020, [1000, 2000]);
    ack!(s, t = 3040, 2000);
    assert!(s.rto() < 3 * SEC, "a fresh segment gives a sample");
}

#[test]
fn timeout_goes_back_n_with_a_one_segment_window() {
    let mut s = sender_with(TcpConfig { initial_cwnd: 4, ..cfg() }, None);
    expect!(s, t = 0, [0, 1000, 2000, 3000]);
    ack!(s, t = 20, 1000);
    expect!(s, t = 20, [4000, 5000]);
    let d = s.next_deadline().unwrap();
    s.on_timer(d);
    assert_eq!(s.window().cwnd, 1000);
    assert_eq!(s.window().ssthresh, 2000); // half of 5000, rounded down to whole segments
    expect!(s, t = d / MS, [1000]);
    ack!(s, t = d / MS + 20, 2000);
    expect!(s, t = d / MS + 20, [2000, 3000]);
}

#[test]
fn the_window_never_sends_a_silly_small_segment() {
    let mut s = sender_with(TcpConfig { initial_cwnd: 10, ..cfg() }, None);
    s.on_packet(0, &ack_pkt(0, 2500));
    expect!(s, t = 0, [0, 1000]); // 500 bytes of window stay unused
}

#[test]
fn the_last_partial_segment_goes_out_and_nagle_holds_it_while_data_is_unacked() {
    let mut plain = sender_with(TcpConfig { initial_cwnd: 4, ..cfg() }, Some(2500));
    assert_eq!(drain(&mut plain, 0), vec![(0, 1000), (1000, 1000), (2000, 500)]);
    let mut nagle = sender_with(TcpConfig { initial_cwnd: 4, nagle: true, ..cfg() }, Some(2500));
    assert_eq!(drain(&mut nagle, 0), vec![(0, 1000), (1000, 1000)]);
    nagle.on_packet(20 * MS, &ack_pkt(2000, 1 << 20));
    assert_eq!(drain(&mut nagle, 20), vec![(2000, 500)]);
    nagle.on_packet(40 * MS, &ack_pkt(2500, 1 << 20));
    assert!(nagle.all_acked());
}

fn syn_from_peer(ack: Option<u32>) -> Packet {
    let mut p = ack_pkt(0, 1 << 20);
    p.seq = 0;
    p.flags = flags::SYN | if ack.is_some() { flags::ACK } else { 0 };
    p.ack = ack.unwrap_or(0);
    p
}

#[test]
fn the_initiator_starts_with_one_segment() {
    let mut s = sender_with(TcpConfig { handshake: Handshake::SenderOpens, ..cfg() }, None);
    let syn = s.poll_transmit(0).unwrap();
    assert!(syn.is_syn() && !syn.has_ack());
    s.on_packet(20 * MS, &syn_from_peer(Some(1)));
    expect!(s, t = 20, [0]);
}

#[test]
fn the_acceptor_ends_the_handshake_with_two_segments() {
    let mut s = sender_with(TcpConfig { handshake: Handshake::ReceiverOpens, ..cfg() }, None);
    assert!(s.poll_transmit(0).is_none());
    s.on_packet(10 * MS, &syn_from_peer(None));
    let synack = s.poll_transmit(10 * MS).unwrap();
    assert!(synack.is_syn() && synack.has_ack());
    s.on_packet(30 * MS, &ack_pkt(0, 1 << 20)); // acknowledges our SYN (wire seq 1)
    expect!(s, t = 30, [0, 1000]);
}

#[test]
fn a_lost_syn_is_resent_after_the_initial_timeout() {
    let mut s = sender_with(TcpConfig { handshake: Handshake::SenderOpens, ..cfg() }, None);
    assert!(s.poll_transmit(0).unwrap().is_syn());
    assert_eq!(s.next_deadline(), Some(3 * SEC));
    s.on_timer(3 * SEC);
    assert!(s.poll_transmit(3 * SEC).unwrap().is_syn());
    assert_eq!(s.stats.syn_retransmits, 1);
}

#[test]
fn the_first_write_leaves_as_a_segment_of_its_own() {
    // An HTTP server with the acceptor's window of two: the 200-byte header, then one full
    // segment, then it must wait for an ACK (Cohen and Ramanathan 1998, Sec. VI.A).
    let mut s = sender_with(TcpConfig { initial_cwnd: 2, first_write: Some(200), ..cfg() }, Some(10_000));
    assert_eq!(drain(&mut s, 0), vec![(0, 200), (200, 1000)]);
}

#[test]
fn a_receiver_buffer_smaller_than_one_segment_is_still_served() {
    // RFC 1122: send once the window allows half the largest window offered.
    let mut s = sender_with(TcpConfig { rcv_buf: 500, ..cfg() }, Some(2000));
    assert_eq!(drain(&mut s, 0), vec![(0, 500)]);
}

#[test]
fn go_back_n_resends_window_cut_pieces_but_boston_only_whole_segments() {
    let run = |boston: bool| {
        let boston = boston.then(crate::tcp::boston::BostonConfig::default);
        let mut s = sender_with(TcpConfig { initial_cwnd: 3, boston, ..cfg() }, None);
        assert_eq!(drain(&mut s, 0).len(), 3);
        let d = s.next_deadline().unwrap();
        s.on_timer(d);
        assert_eq!(drain(&mut s, d / MS), vec![(0, 1000)]);
        s.on_packet(d + 20 * MS, &ack_pkt(1000, 1500)); // the receiver's window shrank
        drain(&mut s, d / MS + 20)
    };
    assert_eq!(run(false), vec![(1000, 1000), (2000, 500)]);
    assert_eq!(run(true), vec![(1000, 1000)], "a Boston segment is never re-cut");
}

#[test]
fn fast_retransmit_timer_knob_keeps_stops_or_doubles_the_backoff() {
    use crate::tcp::knobs::FastRetransmitTimer as F;
    // No RTT sample yet: the fine timer's RTO is its initial 3 s; a fast retransmit at 21 ms.
    let run = |rule: F| {
        let mut s = sender_with(TcpConfig { initial_cwnd: 8, fast_retransmit_timer: rule, ..cfg() }, None);
        expect!(s, t = 0, [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
        for _ in 0..3 {
            ack!(s, t = 21, 0);
        }
        let before_send = s.next_deadline();
        expect!(s, t = 21, [0]);
        (before_send, s.next_deadline())
    };
    // The fine timer's own rule stops the timer until the retransmission leaves, then 3 s.
    assert_eq!(run(F::Clock), (None, Some(21 * MS + 3 * SEC)));
    assert_eq!(run(F::Keep), (Some(21 * MS + 3 * SEC), Some(21 * MS + 3 * SEC)));
    assert_eq!(run(F::Backoff), (Some(21 * MS + 6 * SEC), Some(21 * MS + 6 * SEC)), "doubled");
}

#[test]
fn a_sender_is_plain_unless_a_rare_feature_is_on() {
    use crate::tcp::config::RecoveryKind as R;
    use crate::tcp::knobs::Congestion as C;
    assert!(sender_with(cfg(), None).is_plain(), "the defaults use no rare feature");
    for recovery in [R::Vanilla, R::Tahoe, R::Reno, R::NewReno] {
        assert!(sender_with(TcpConfig { recovery, limited_transmit: true, ..cfg() }, None).is_plain());
    }
    let rare = [
        ("max_burst", TcpConfig { max_burst: Some(4), ..cfg() }),
        ("sack", TcpConfig { recovery: R::Sack, ..cfg() }),
        ("sack_rfc6675", TcpConfig { recovery: R::Sack6675, ..cfg() }),
        ("newreno_ns2", TcpConfig { recovery: R::NewRenoNs2, ..cfg() }),
        ("vegas", TcpConfig { cc: C::Vegas, ..cfg() }),
        ("bbr", TcpConfig { cc: C::Bbr, ..cfg() }),
        ("ecn", TcpConfig { ecn: true, ..cfg() }),
        ("boston", TcpConfig { boston: Some(crate::tcp::boston::BostonConfig::default()), ..cfg() }),
    ];
    for (knob, c) in rare {
        assert!(!sender_with(c, None).is_plain(), "{knob} must clear plain");
    }
}

/// Drives a sender through slow start, a fast retransmit with limited transmit and recovery,
/// and a timeout, recording every packet it sends and its state after each step.
fn lossy_run(s: TcpSender) -> Vec<String> {
    lossy_run_polled(s, false)
}

/// `lossy_run`, polling with `poll_transmit_lazy` (an `Option` made for each packet) if `lazy`.
fn lossy_run_polled(mut s: TcpSender, lazy: bool) -> Vec<String> {
    let mut log = Vec::new();
    let poll = move |s: &mut TcpSender, now: Time| {
        if lazy {
            s.poll_transmit_lazy(now, || None).flatten()
        } else {
            s.poll_transmit(now)
        }
    };
    let step = |s: &mut TcpSender, t: u64, log: &mut Vec<String>| {
        while let Some(p) = poll(s, t * MS) {
            log.push(format!("{p:?}"));
        }
        log.push(format!("{:?} {} {} {:?} {:?}", s.window(), s.snd_nxt(), s.snd_max(), s.next_deadline(), s.stats));
    };
    step(&mut s, 0, &mut log);
    for (t, off) in [(20, 1000), (21, 2000), (40, 2000), (41, 2000), (42, 2000), (43, 2000), (60, 5000), (61, 9000)] {
        ack!(s, t = t, off);
        step(&mut s, t, &mut log);
    }
    let d = s.next_deadline().unwrap();
    s.on_timer(d);
    step(&mut s, d / MS, &mut log);
    ack!(s, t = d / MS + 20, 12000);
    step(&mut s, d / MS + 20, &mut log);
    log
}

#[test]
fn the_plain_paths_decide_what_the_general_ones_do() {
    use crate::tcp::config::RecoveryKind as R;
    for recovery in [R::Tahoe, R::Reno, R::NewReno] {
        let c = TcpConfig { recovery, initial_cwnd: 4, limited_transmit: true, ..cfg() };
        let plain = sender_with(c.clone(), Some(40_000));
        let mut general = sender_with(c, Some(40_000));
        assert!(plain.is_plain());
        general.gates.plain = false;
        assert_eq!(lossy_run(plain), lossy_run(general), "{recovery:?}");
    }
}

#[test]
fn the_lazy_poll_sends_what_the_poll_does() {
    use crate::tcp::config::RecoveryKind as R;
    for recovery in [R::Vanilla, R::Tahoe, R::Reno, R::NewReno, R::NewRenoNs2, R::Sack, R::Sack6675] {
        let c = TcpConfig { recovery, initial_cwnd: 4, limited_transmit: true, ..cfg() };
        for plain in [true, false] {
            let mut s = sender_with(c.clone(), Some(40_000));
            s.gates.plain &= plain;
            assert_eq!(lossy_run_polled(s.clone(), true), lossy_run_polled(s, false), "{recovery:?} plain {plain}");
        }
    }
}

/// `lossy_run`'s steps, each packet from the receiver given to `on_packet`, or to its general
/// path alone (`on_packet_general`) if `general`; a sender that opens gets its SYN-ACK first.
fn acked_run(mut s: TcpSender, general: bool) -> Vec<String> {
    let mut log = Vec::new();
    let mut step = |s: &mut TcpSender, t: u64, pkt: Option<Packet>| {
        if let Some(p) = pkt {
            if general {
                s.on_packet_general(t * MS, &p);
            } else {
                s.on_packet(t * MS, &p);
            }
        }
        while let Some(p) = s.poll_transmit(t * MS) {
            log.push(format!("{p:?}"));
        }
        log.push(format!(
            "{:?} {:?} {} {} {:?} {:?}",
            s.state(),
            s.window(),
            s.snd_nxt(),
            s.snd_max(),
            s.next_deadline(),
            s.stats
        ));
    };
    step(&mut s, 0, None);
    if s.state() == SenderState::SynSent {
        step(&mut s, 10, Some(syn_from_peer(Some(1))));
    }
    for (t, off) in [(20, 1000), (21, 2000), (40, 2000), (41, 2000), (42, 2000), (43, 2000), (60, 5000), (61, 9000)] {
        step(&mut s, t, Some(ack_pkt(off, 1 << 20)));
    }
    let d = s.next_deadline().unwrap();
    s.on_timer(d);
    step(&mut s, d / MS, None);
    step(&mut s, d / MS + 20, Some(ack_pkt(12000, 1 << 20)));
    log
}

#[test]
fn the_straight_ack_path_does_what_the_general_one_does() {
    use crate::tcp::config::RecoveryKind as R;
    for recovery in [R::Vanilla, R::Tahoe, R::Reno, R::NewReno, R::NewRenoNs2, R::Sack, R::Sack6675] {
        for handshake in [Handshake::None, Handshake::SenderOpens] {
            let c = TcpConfig { recovery, handshake, initial_cwnd: 4, limited_transmit: true, ..cfg() };
            let s = sender_with(c, Some(40_000));
            let (straight, general) = (acked_run(s.clone(), false), acked_run(s, true));
            assert!(straight.iter().any(|l| l.contains("seq: 12001")), "{recovery:?} {handshake:?}: data flowed");
            assert_eq!(straight, general, "{recovery:?} {handshake:?}");
        }
    }
}

#[test]
fn the_gates_word_is_the_four_tests() {
    use SenderState as S;
    for state in [S::Closed, S::Listen, S::SynSent, S::SynReceived, S::Established] {
        for bits in 0..8u8 {
            let (plain, ctl_due, ack_due) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let g = Gates { plain, ctl_due, ack_due, state };
            let expected = plain && !ctl_due && !ack_due && state == S::Established;
            assert_eq!(g.window_only(), expected, "{g:?}");
        }
    }
}
