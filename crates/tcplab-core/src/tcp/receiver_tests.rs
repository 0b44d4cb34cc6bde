//! The receiver's unit tests (`receiver.rs`).

use super::*;
use crate::tcp::config::DelayedAck;
use crate::time::MS;
use proptest::prelude::*;

fn receiver(delack: Option<DelayedAck>, total: Option<u64>) -> TcpReceiver {
    let cfg = TcpConfig { mss: 1000, delayed_ack: delack, ..TcpConfig::default() };
    let mut r = TcpReceiver::new(cfg, 0, 0, total, 0);
    r.open(0);
    r
}

fn data(off: u64, len: u32) -> Packet {
    Packet {
        flow: 0,
        dir: Dir::Forward,
        route_pos: 0,
        seq: (off as u32).wrapping_add(1),
        ack: 1,
        wnd: 65535,
        payload: len,
        wire_bytes: len + 40,
        flags: flags::ACK,
        n_sack: 0,
        retransmit: false,
        marked: false,
        ecn: crate::packet::Ecn::NotEct,
        sack: [SackBlock::default(); MAX_SACK_BLOCKS],
        tag: payload_tag(0, off, len),
        cell: Default::default(),
        shards: Default::default(),
        ts: 0,
    }
}

/// The cumulative ACK offsets sent at `t` ms.
fn acks(r: &mut TcpReceiver, t: u64) -> Vec<u64> {
    std::iter::from_fn(|| r.poll_transmit(t * MS)).map(|p| p.ack.wrapping_sub(1) as u64).collect()
}

const BSD: DelayedAck = DelayedAck { timeout: 200 * MS, aligned: true, immediate_on_out_of_order: true };

#[test]
fn every_segment_is_acked_at_once_without_delayed_acks() {
    let mut r = receiver(None, None);
    r.on_packet(0, &data(0, 1000));
    assert_eq!(acks(&mut r, 0), vec![1000]);
}

#[test]
fn delayed_ack_waits_for_the_next_200ms_tick_or_a_second_full_segment() {
    let mut r = receiver(Some(BSD), None);
    r.on_packet(50 * MS, &data(0, 1000));
    assert_eq!(acks(&mut r, 50), Vec::<u64>::new());
    assert_eq!(r.next_deadline(), Some(200 * MS)); // the free-running clock, not 50 + 200
    r.on_timer(200 * MS);
    assert_eq!(acks(&mut r, 200), vec![1000]);
    r.on_packet(210 * MS, &data(1000, 1000));
    r.on_packet(211 * MS, &data(2000, 1000));
    assert_eq!(acks(&mut r, 211), vec![3000]);
    assert_eq!(r.next_deadline(), None);
}

#[test]
fn a_small_segment_and_a_full_one_are_not_two_full_segments() {
    // The HTTP header case of Cohen and Ramanathan (1998) Sec. VI: header + one MSS leaves the ACK delayed.
    let mut r = receiver(Some(BSD), None);
    r.on_packet(10 * MS, &data(0, 200));
    r.on_packet(11 * MS, &data(200, 1000));
    assert_eq!(acks(&mut r, 11), Vec::<u64>::new());
}

#[test]
fn out_of_order_data_is_acked_at_once_by_reno_era_receivers_only() {
    let mut reno = receiver(Some(BSD), None);
    reno.on_packet(10 * MS, &data(1000, 1000));
    assert_eq!(acks(&mut reno, 10), vec![0]);
    let tahoe = DelayedAck { immediate_on_out_of_order: false, ..BSD };
    let mut old = receiver(Some(tahoe), None);
    old.on_packet(10 * MS, &data(1000, 1000));
    assert_eq!(acks(&mut old, 10), Vec::<u64>::new());
    assert_eq!(old.next_deadline(), Some(200 * MS));
}

#[test]
fn in_order_data_across_the_wire_wrap_is_delivered_and_acked() {
    // The in-order fast path compares wire values: the stream's 32-bit sequence numbers
    // wrap after its second segment here.
    let peer_isn = u32::MAX - 1500;
    let mut r = TcpReceiver::new(TcpConfig { mss: 1000, ..TcpConfig::default() }, 0, 0, Some(3000), 0);
    r.open(peer_isn);
    for off in [0, 1000, 2000] {
        let p = Packet { seq: peer_isn.wrapping_add(1).wrapping_add(off as u32), ..data(off, 1000) };
        r.on_packet(MS, &p);
    }
    assert_eq!((r.delivered(), r.completed_at(), r.stats.out_of_order), (3000, Some(MS), 0));
    let ack = r.poll_transmit(MS).unwrap();
    assert_eq!(ack.ack, peer_isn.wrapping_add(3001));
}

#[test]
fn a_segment_with_the_wrong_payload_is_counted_as_corrupt() {
    let mut r = receiver(None, None);
    let mut p = data(0, 1000);
    p.tag ^= 1;
    r.on_packet(0, &p);
    assert_eq!((r.stats.corrupt, r.delivered()), (1, 0));
}

#[test]
fn sack_blocks_put_the_newest_segment_first() {
    let cfg = TcpConfig { mss: 1000, recovery: crate::tcp::config::RecoveryKind::Sack, ..TcpConfig::default() };
    let mut r = TcpReceiver::new(cfg, 0, 0, None, 0);
    r.open(0);
    r.on_packet(0, &data(0, 1000));
    r.poll_transmit(0);
    for seg in [2, 3, 6, 4, 9] {
        r.on_packet(0, &data(seg * 1000, 1000));
    }
    let ack = r.poll_transmit(0).unwrap();
    let blocks: Vec<(u32, u32)> = ack.sack_blocks().iter().map(|b| (b.left - 1, b.right - 1)).collect();
    // Newest: 9000; then 4000 (merged into 2000-5000); then 6000.
    assert_eq!(blocks, vec![(9000, 10_000), (2000, 5000), (6000, 7000)]);
    assert_eq!(ack.wire_bytes, 40 + 28);
}

#[test]
fn without_sack_an_ack_behind_a_hole_is_the_plain_one_and_no_sack_order_is_kept() {
    // NewReno (the default recovery) uses no SACK: the ACK behind a hole is the plain ACK
    // (`has_sack_or_partial`), and `recent`, read only for SACK blocks, stays empty.
    let mut r = receiver(None, None);
    r.on_packet(0, &data(0, 1000));
    let plain = r.poll_transmit(0).unwrap();
    for seg in [2, 3, 5] {
        r.on_packet(0, &data(seg * 1000, 1000));
    }
    let behind = r.poll_transmit(0).unwrap();
    assert_eq!((behind.n_sack, behind.wire_bytes, behind.sack_blocks().len()), (0, plain.wire_bytes, 0));
    assert_eq!(behind.ack, plain.ack);
    assert!(r.recent.is_empty());
    assert_eq!(r.ooo, vec![(2000, 4000), (5000, 6000)]);
}

proptest! {
    #[test]
    fn any_arrival_order_with_duplicates_delivers_the_stream_exactly(
        order in Just((0u64..40).collect::<Vec<_>>()).prop_shuffle(),
        dups in proptest::collection::vec(0u64..40, 0..20),
    ) {
        let mut r = receiver(Some(BSD), Some(40_000));
        for (i, seg) in order.iter().chain(dups.iter()).enumerate() {
            r.on_packet(i as u64 * MS, &data(seg * 1000, 1000));
        }
        prop_assert_eq!(r.delivered(), 40_000);
        prop_assert_eq!(r.stats.corrupt, 0);
        prop_assert!(r.completed_at().is_some());
        prop_assert!(r.ooo.is_empty());
    }
}

proptest! {
    #[test]
    fn insert_range_keeps_sorted_disjoint_union(segs in proptest::collection::vec((0u64..200, 1u64..20), 0..40)) {
        let mut ranges = Vec::new();
        let mut covered = [false; 220];
        for (s, l) in segs {
            insert_range(&mut ranges, s, s + l);
            for c in covered.iter_mut().take((s + l) as usize).skip(s as usize) { *c = true; }
        }
        for w in ranges.windows(2) {
            prop_assert!(w[0].1 < w[1].0, "not disjoint/merged: {:?}", ranges);
        }
        for (i, c) in covered.iter().enumerate() {
            let inside = ranges.iter().any(|&(s, e)| (i as u64) >= s && (i as u64) < e);
            prop_assert_eq!(*c, inside);
        }
    }
}
