//! ECN in TCP (RFC 3168 sec. 6.1), segment by segment in the style of smoltcp's socket
//! tests: the sender and the receiver are driven by hand, and each expectation cites the
//! section it checks. Offsets are in segments of 1000 bytes; both ISNs are 0.

use tcplab_core::packet::{flags, Ecn, Packet};
use tcplab_core::tcp::knobs::Congestion;
use tcplab_core::tcp::window::Window;
use tcplab_core::tcp::{DelayedAck, Handshake, RecoveryKind, TcpConfig, TcpReceiver, TcpSender};
use tcplab_core::time::MS;

const WND: u32 = 1 << 20;

fn cfg(ecn: bool) -> TcpConfig {
    TcpConfig { mss: 1000, rcv_buf: WND, initial_cwnd: 8, ecn, ..TcpConfig::default() }
}

fn sender(cfg: TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(cfg, 0, 0, None, 0, false);
    s.open(0);
    s
}

fn receiver(cfg: TcpConfig) -> TcpReceiver {
    let mut r = TcpReceiver::new(cfg, 0, 0, None, 0);
    r.open(0);
    r
}

/// Everything the sender emits at `t` ms.
fn drain(s: &mut TcpSender, t: u64) -> Vec<Packet> {
    std::iter::from_fn(|| s.poll_transmit(t * MS)).collect()
}

fn seg(p: &Packet) -> u64 {
    p.seq.wrapping_sub(1) as u64 / 1000
}

/// A cumulative ACK of everything below segment `n`, with `extra` flags (ECE).
fn ack(n: u64, extra: u8) -> Packet {
    let mut p = Packet::test_ack(n * 1000, WND);
    p.flags |= extra;
    p
}

#[test]
fn off_by_default_nothing_carries_ecn() {
    let mut s = sender(TcpConfig { ecn: false, ..cfg(false) });
    let sent = drain(&mut s, 0);
    assert_eq!(sent.len(), 8);
    for p in &sent {
        assert_eq!((p.ecn, p.flags & (flags::ECE | flags::CWR)), (Ecn::NotEct, 0));
        assert_eq!(p.ds_byte(), 0);
    }
    // An ECE on an ACK means nothing to a sender that did not negotiate ECN.
    s.on_packet(10 * MS, &ack(1, flags::ECE));
    assert_eq!(s.window().cwnd, 9000, "slow start as usual");
    assert!(!s.ecn_on());
}

#[test]
fn new_data_is_ect0_retransmissions_and_pure_acks_are_not() {
    // Sec. 6.1.5: retransmitted data packets MUST NOT be ECT; sec. 6.1.4: pure ACKs are not.
    let mut s = sender(cfg(true));
    let mut r = receiver(cfg(true));
    let sent = drain(&mut s, 0);
    assert!(sent.iter().all(|p| p.ecn == Ecn::Ect0 && p.ds_byte() == 0b10), "ECT(0) is 10 in the TOS byte");
    r.on_packet(5 * MS, &sent[0]);
    let a = r.poll_transmit(5 * MS).unwrap();
    assert_eq!((a.ecn, a.flags & flags::ECE), (Ecn::NotEct, 0));
    // Three duplicate ACKs: the fast retransmission of segment 0 is not ECT, new data still is.
    s.on_packet(10 * MS, &ack(0, 0));
    for _ in 0..3 {
        s.on_packet(10 * MS, &ack(0, 0));
    }
    let out = drain(&mut s, 10);
    assert_eq!(seg(&out[0]), 0);
    assert_eq!(out[0].ecn, Ecn::NotEct);
    assert!(out[0].retransmit);
}

#[test]
fn the_receiver_echoes_ce_on_every_ack_until_cwr() {
    // Sec. 6.1.3: after a CE packet, ECE on every ACK until a packet with CWR arrives.
    let mut s = sender(cfg(true));
    let mut r = receiver(cfg(true));
    let mut sent = drain(&mut s, 0);
    sent[1].ecn = Ecn::Ce;
    let mut echoes = vec![];
    for p in &sent[..6] {
        r.on_packet(5 * MS, p);
        let a = r.poll_transmit(5 * MS).unwrap();
        echoes.push(a.flags & flags::ECE != 0);
    }
    assert_eq!(echoes, [false, true, true, true, true, true]);
    assert_eq!(r.stats.ce_received, 1);
    // A segment with CWR ends the echo; if it is itself CE, the echo goes on.
    let mut cwr = sent[6];
    cwr.flags |= flags::CWR;
    r.on_packet(6 * MS, &cwr);
    assert_eq!(r.poll_transmit(6 * MS).unwrap().flags & flags::ECE, 0);
    let mut both = sent[7];
    both.flags |= flags::CWR;
    both.ecn = Ecn::Ce;
    r.on_packet(7 * MS, &both);
    assert_ne!(r.poll_transmit(7 * MS).unwrap().flags & flags::ECE, 0);
}

#[test]
fn a_ce_mark_is_acked_at_once_even_with_delayed_acks() {
    // Our choice where RFC 3168 is silent (Linux's quick ACK on CE): the echo is not delayed.
    let delack = DelayedAck { timeout: 200 * MS, aligned: false, immediate_on_out_of_order: true };
    let c = TcpConfig { delayed_ack: Some(delack), ..cfg(true) };
    let mut s = sender(c.clone());
    let mut r = receiver(c);
    let mut sent = drain(&mut s, 0);
    r.on_packet(5 * MS, &sent[0]);
    assert!(r.poll_transmit(5 * MS).is_none(), "one segment: the ACK is delayed");
    sent[1].ecn = Ecn::Ce;
    r.on_packet(6 * MS, &sent[1]);
    let a = r.poll_transmit(6 * MS).expect("CE: ACK at once");
    assert_ne!(a.flags & flags::ECE, 0);
}

#[test]
fn ece_halves_the_window_once_per_window_without_retransmitting_then_cwr_goes_out() {
    // Sec. 6.1.2: reduce as for a loss, at most once per window of data, no retransmission,
    // CWR on the next new data packet.
    let mut s = sender(cfg(true));
    let sent = drain(&mut s, 0);
    assert_eq!(sent.len(), 8);
    s.on_packet(10 * MS, &ack(1, flags::ECE));
    // Reno's reduction: half the window of 8 segments (the echoing ACK does not grow it).
    assert_eq!((s.window().cwnd, s.window().ssthresh), (4000, 4000));
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(s.stats.retransmits, 0);
    // 7 segments still out, cwnd 4: nothing leaves until the flight falls below the window.
    assert!(drain(&mut s, 10).is_empty());
    // More echoes for the same window: no second reduction.
    for n in 2..=5 {
        s.on_packet(11 * MS, &ack(n, flags::ECE));
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    let out = drain(&mut s, 11);
    assert!(!out.is_empty() && out.iter().all(|p| seg(p) >= 8), "new data only");
    assert_ne!(out[0].flags & flags::CWR, 0, "CWR on the first new segment");
    assert!(out[1..].iter().all(|p| p.flags & flags::CWR == 0), "and on that one only");
    assert_eq!(s.stats.retransmits, 0);
    // Past the data outstanding at the reduction (segment 8), an echo reduces again.
    s.on_packet(12 * MS, &ack(8, flags::ECE));
    assert_eq!(s.stats.ecn_reductions, 1, "ack 8 covers only data sent before the reduction");
    let cwnd = s.window().cwnd;
    s.on_packet(13 * MS, &ack(9, flags::ECE));
    assert_eq!(s.stats.ecn_reductions, 2);
    assert!(s.window().cwnd < cwnd);
}

#[test]
fn ece_during_loss_recovery_is_already_answered() {
    let mut s = sender(TcpConfig { recovery: RecoveryKind::NewReno, ..cfg(true) });
    drain(&mut s, 0);
    s.on_packet(10 * MS, &ack(0, 0));
    for _ in 0..3 {
        s.on_packet(10 * MS, &ack(0, 0));
    }
    let ssthresh = s.window().ssthresh;
    s.on_packet(11 * MS, &ack(0, flags::ECE));
    s.on_packet(12 * MS, &ack(3, flags::ECE)); // a partial ACK, still recovering
    assert_eq!((s.stats.ecn_reductions, s.window().ssthresh), (0, ssthresh));
    // The loss reduction is announced with CWR on the next new segment.
    let new: Vec<_> = drain(&mut s, 12).into_iter().filter(|p| !p.retransmit).collect();
    assert!(new.first().is_some_and(|p| p.flags & flags::CWR != 0));
}

#[test]
fn each_controller_reacts_through_its_loss_reaction_and_bbr_v1_ignores_ecn() {
    let reduce = |cc| {
        let mut s = sender(TcpConfig { cc, ..cfg(true) });
        drain(&mut s, 0);
        s.on_packet(10 * MS, &ack(1, flags::ECE));
        let out = drain(&mut s, 10);
        (s.window(), s.stats.ecn_reductions, out)
    };
    // CUBIC (RFC 9438 sec. 4.6): ssthresh = flight_size * beta_cubic (0.7 x 7 segments out
    // after the ACK), cwnd to it.
    let (w, n, _) = reduce(Congestion::Cubic);
    assert_eq!((w.ssthresh, w.cwnd, n), (4900, 4900, 1));
    // BBR v1 keeps its model's window, yet answers the echo with CWR.
    let before = {
        let mut s = sender(TcpConfig { cc: Congestion::Bbr, ..cfg(true) });
        drain(&mut s, 0);
        s.on_packet(10 * MS, &ack(1, 0));
        s.window()
    };
    let (w, n, out) = reduce(Congestion::Bbr);
    assert_eq!((w, n), (before, 1));
    assert!(out.first().is_some_and(|p| p.flags & flags::CWR != 0));
    // Vegas (Brakmo and Peterson 1995, Sec. 3.1): a cut to three quarters of the window.
    let (w, n, _) = reduce(Congestion::Vegas);
    assert_eq!((w.ssthresh, n), (6000, 1));
}

#[test]
fn the_handshake_negotiates_ecn_both_ways() {
    // Sec. 6.1.1: an ECN-setup SYN has ECE and CWR, an ECN-setup SYN-ACK ECE only.
    for opener in [Handshake::SenderOpens, Handshake::ReceiverOpens] {
        let c = TcpConfig { handshake: opener, ..cfg(true) };
        let mut s = sender(c.clone());
        let mut r = receiver(c);
        let (syn, syn_ack) = if opener == Handshake::SenderOpens {
            let syn = s.poll_transmit(0).unwrap();
            r.on_packet(MS, &syn);
            (syn, r.poll_transmit(MS).unwrap())
        } else {
            let syn = r.poll_transmit(0).unwrap();
            s.on_packet(MS, &syn);
            (syn, s.poll_transmit(MS).unwrap())
        };
        assert_eq!(syn.flags & (flags::ECE | flags::CWR), flags::ECE | flags::CWR, "{opener:?}");
        assert_eq!(syn_ack.flags & (flags::ECE | flags::CWR), flags::ECE, "{opener:?}");
        assert_eq!((syn.ecn, syn_ack.ecn), (Ecn::NotEct, Ecn::NotEct), "SYNs are not ECT");
        if opener == Handshake::SenderOpens {
            s.on_packet(2 * MS, &syn_ack);
        } else {
            r.on_packet(2 * MS, &syn_ack);
        }
        assert!(s.ecn_on(), "{opener:?}");
    }
    // A peer that does not answer with ECE: no ECN, and no ECT data.
    let mut s = sender(TcpConfig { handshake: Handshake::SenderOpens, ..cfg(true) });
    let syn = s.poll_transmit(0).unwrap();
    let mut plain_syn_ack = ack(0, 0);
    plain_syn_ack.flags |= flags::SYN;
    plain_syn_ack.seq = 0;
    plain_syn_ack.ack = syn.seq.wrapping_add(1);
    s.on_packet(MS, &plain_syn_ack);
    assert!(!s.ecn_on());
    assert!(drain(&mut s, 2).iter().filter(|p| p.payload > 0).all(|p| p.ecn == Ecn::NotEct));
}

#[test]
fn a_ce_mark_end_to_end_gives_one_reduction_and_no_retransmission() {
    // Sender and receiver wired back to back; one data packet is marked CE on the way.
    let mut s = TcpSender::new(cfg(true), 0, 0, Some(200_000), 0, false);
    let mut r = TcpReceiver::new(cfg(true), 0, 0, Some(200_000), 0);
    s.open(0);
    r.open(0);
    let mut marked = false;
    let mut cwr_seen = 0;
    for step in 0..200u64 {
        let t = step * 10;
        let data = drain(&mut s, t);
        for mut p in data {
            if !marked && seg(&p) == 20 {
                p.ecn = Ecn::Ce;
                marked = true;
            }
            cwr_seen += (p.flags & flags::CWR != 0) as u32;
            r.on_packet((t + 5) * MS, &p);
            while let Some(a) = r.poll_transmit((t + 5) * MS) {
                s.on_packet((t + 10) * MS, &a);
            }
        }
        if s.all_acked() {
            break;
        }
    }
    assert!(marked && s.all_acked());
    assert_eq!(r.stats.ce_received, 1);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(cwr_seen, 1);
    assert_eq!(s.stats.retransmits, 0);
}

/// A sender of `recovery` and `cc`: 8 segments out, an ECE on the ACK of segment 0, then
/// (`next_window`) ACKs up to segment 9, past the data outstanding at the reduction, with the
/// new data they let out; then three duplicate ACKs for the next segment, which is lost.
/// Returns (ssthresh after the ECE, the window after the loss, fast retransmits, what the
/// duplicates let out).
fn ece_then_loss(recovery: RecoveryKind, cc: Congestion, next_window: bool) -> (u64, Window, u64, Vec<Packet>) {
    let mut s = sender(TcpConfig { recovery, cc, ..cfg(true) });
    drain(&mut s, 0);
    s.on_packet(10 * MS, &ack(1, flags::ECE));
    let after_ece = s.window().ssthresh;
    assert_eq!(s.stats.ecn_reductions, 1);
    let mut una = 1;
    if next_window {
        for n in 2..=9 {
            s.on_packet(11 * MS, &ack(n, 0));
            drain(&mut s, 11);
        }
        una = 9;
    }
    for _ in 0..3 {
        s.on_packet(12 * MS, &ack(una, 0));
    }
    let out = drain(&mut s, 12);
    (after_ece, s.window(), s.stats.fast_retransmits, out)
}

#[test]
fn a_loss_in_a_window_already_reduced_for_ece_reduces_no_further() {
    // Sec. 6.1.2: "the congestion window should be reduced only once in response to a series
    // of dropped and/or CE packets from a single window of data". ECE on the ACK of segment
    // 0 halves the window (Reno's variant: the window of 8; the RFC variants: FlightSize, 7
    // after that ACK); three duplicate ACKs then report segment 1, sent before that
    // reduction, lost: it is retransmitted and recovered, with no second halving. (ns-2's
    // Reno and Tahoe did the same from 1998: dupack_action after CWND_ACTION_ECN retransmits
    // without slowdown's CLOSE_SSTHRESH_HALF.)
    for (recovery, ssthresh, cwnd) in [
        // Fast recovery from the ECE's ssthresh: + 3 segments (RFC 5681), or cwnd =
        // ssthresh (RFC 6675).
        (RecoveryKind::Reno, 4000, 7000),
        (RecoveryKind::NewReno, 3500, 6500),
        (RecoveryKind::Sack6675, 3500, 3500),
    ] {
        let (after_ece, w, fr, out) = ece_then_loss(recovery, Congestion::Reno, false);
        assert_eq!((after_ece, w.ssthresh, w.cwnd, fr), (ssthresh, ssthresh, cwnd, 1), "{recovery:?}");
        assert!(out.first().is_some_and(|p| p.retransmit && seg(p) == 1), "{recovery:?}: {out:?}");
        // The ECE's reduction was already announced: the retransmission carries no CWR.
        assert_eq!(out[0].flags & flags::CWR, 0);
    }
    // Tahoe slow-starts from one segment (its loss reaction) but keeps the ECE's ssthresh.
    let (_, w, _, _) = ece_then_loss(RecoveryKind::Tahoe, Congestion::Reno, false);
    assert_eq!((w.ssthresh, w.cwnd), (4000, 1000));
    // CUBIC: beta_cubic x 7 segments at the ECE (RFC 9438 sec. 4.6), and not again.
    let (after_ece, w, _, _) = ece_then_loss(RecoveryKind::Sack6675, Congestion::Cubic, false);
    assert_eq!((after_ece, w.ssthresh), (4900, 4900));
}

#[test]
fn a_loss_in_the_next_window_reduces_again() {
    // Once the ACKs pass the data outstanding at the ECE's reduction (segment 8), a loss is
    // a new congestion event: a second halving, of the window then in flight.
    for recovery in [RecoveryKind::Reno, RecoveryKind::NewReno, RecoveryKind::Sack6675] {
        let (after_ece, w, fr, out) = ece_then_loss(recovery, Congestion::Reno, true);
        assert_eq!(fr, 1, "{recovery:?}");
        assert!(w.ssthresh < after_ece, "{recovery:?}: a second reduction ({} after {after_ece})", w.ssthresh);
        assert!(out.first().is_some_and(|p| p.retransmit && seg(p) == 9), "{recovery:?}");
    }
}
