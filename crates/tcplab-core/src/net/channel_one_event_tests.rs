use super::*;
use crate::net::loss::LossModel;
use crate::net::pool::PacketPool;
use crate::net::{Queue, QueueLimit};
use crate::packet::Packet;
use crate::time::MS;

/// A channel of 8 Mb/s (1000 bytes take 1 ms) with a queue of `limit` and a delay of `delay`.
fn channel(limit: QueueLimit, delay: Time, one_event: bool) -> Channel {
    let mut ch = Channel::new(0, 1, 8_000_000, delay, Queue::new(limit), LossModel::None);
    assert!(ch.may_be_one_event());
    if one_event {
        ch.set_one_event();
    }
    ch
}

fn packet(bytes: u32, seq: u32) -> Packet {
    let mut p = crate::packet::test_packet();
    (p.wire_bytes, p.seq) = (bytes, seq);
    p
}

fn offer(ch: &mut Channel, pool: &mut PacketPool, now: Time, bytes: u32, seq: u32) -> Result<Next, u32> {
    let id = pool.put(&packet(bytes, seq));
    ch.offer(now, id, &pool.head(id), crate::net::route::Onward::for_test(3), pool).map_err(|id| pool.take(id).seq)
}

/// The sequence numbers of the records inside a channel, sorted.
fn seqs(ch: &Channel, pool: &PacketPool) -> Vec<u32> {
    let mut v: Vec<u32> = ch.ids().map(|id| pool.get(id).seq).collect();
    v.sort();
    v
}

#[test]
fn the_departure_is_fixed_at_admission_and_only_the_head_is_scheduled() {
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Packets(10), MS / 2, true);
    assert_eq!(offer(&mut ch, &mut pool, 0, 1000, 0), Ok(Next::ArriveAt(MS + MS / 2)));
    assert_eq!(offer(&mut ch, &mut pool, 0, 1000, 1), Ok(Next::Nothing));
    // Offered after the link went idle: it starts when offered.
    let mut arrivals = Vec::new();
    let mut at = Some(MS + MS / 2);
    while let Some(t) = at {
        let head = ch.arriving();
        assert_eq!(head.at, t);
        at = ch.arrive(t, &pool);
        arrivals.push((t, pool.take(head.id).seq));
    }
    assert_eq!(arrivals, [(MS + MS / 2, 0), (2 * MS + MS / 2, 1)]);
    assert_eq!(offer(&mut ch, &mut pool, 5 * MS, 500, 2), Ok(Next::ArriveAt(5 * MS + MS / 2 + MS / 2)));
    ch.finish_stats(10 * MS);
    assert_eq!((ch.stats.tx_packets, ch.stats.tx_bytes, ch.stats.delivered, ch.stats.arrivals), (3, 2500, 2, 3));
}

#[test]
fn an_offer_at_a_departure_instant_sees_the_departure_done() {
    // One waiting packet at most. Two-event path: the TxDone at 1 ms runs before the offer
    // at 1 ms; the one-event channel must admit what that order admits.
    let mut pool = PacketPool::default();
    let mut lazy = channel(QueueLimit::Packets(1), MS / 2, true);
    let mut two = channel(QueueLimit::Packets(1), MS / 2, false);
    for seq in 0..3 {
        let one = offer(&mut lazy, &mut pool, 0, 1000, seq).map(|_| ());
        assert_eq!(one, offer(&mut two, &mut pool, 0, 1000, seq).map(|_| ()));
    }
    assert_eq!(lazy.stats.drops_queue, 1, "packet 2 found packet 1 waiting");
    let out = two.tx_done(MS, &[], &pool);
    assert_eq!(out.next_tx, Some(2 * MS));
    for seq in 3..5 {
        let one = offer(&mut lazy, &mut pool, MS, 1000, seq).map(|_| ());
        assert_eq!(one, offer(&mut two, &mut pool, MS, 1000, seq).map(|_| ()), "packet {seq} at 1 ms");
    }
    assert_eq!((lazy.queue.len(), lazy.stats.drops_queue), (1, 2), "3 waits behind 1, 4 is dropped");
    assert_eq!(lazy.queue.peak_packets, two.queue.peak_packets);
}

#[test]
fn a_byte_limit_counts_the_bytes_still_waiting() {
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Bytes(2500), 0, true);
    assert!(offer(&mut ch, &mut pool, 0, 1000, 0).is_ok(), "onto the idle link");
    assert!(offer(&mut ch, &mut pool, 0, 1000, 1).is_ok());
    assert!(offer(&mut ch, &mut pool, 0, 1000, 2).is_ok(), "2000 bytes waiting");
    assert_eq!(offer(&mut ch, &mut pool, 0, 600, 3), Err(3), "2600 > 2500");
    assert_eq!(offer(&mut ch, &mut pool, MS - 1, 600, 4), Err(4), "packet 0 has not left yet");
    // At 1 ms packet 0 leaves and packet 1 starts: 1000 bytes wait.
    assert!(offer(&mut ch, &mut pool, MS, 1000, 5).is_ok());
    assert_eq!(offer(&mut ch, &mut pool, MS, 600, 6), Err(6), "2000 + 600 > 2500");
    assert!(offer(&mut ch, &mut pool, MS, 500, 7).is_ok(), "exactly 2500");
    // At 2.5 ms packet 1 has left (2 ms): 2 (1000), 5 (1000) and 7 (500) wait or serialise.
    assert!(offer(&mut ch, &mut pool, 2 * MS + MS / 2, 1000, 8).is_ok(), "1500 + 1000 waiting");
    assert_eq!(ch.queue.len(), 3);
    assert_eq!(ch.stats.drops_queue, 3);
}

#[test]
fn packets_still_waiting_at_the_end_are_counted_as_the_two_event_path_counts_them() {
    let mut pool = PacketPool::default();
    let mut lazy = channel(QueueLimit::Packets(10), MS, true);
    let mut two = channel(QueueLimit::Packets(10), MS, false);
    for seq in 0..4 {
        offer(&mut lazy, &mut pool, 0, 1000, seq).unwrap();
        offer(&mut two, &mut pool, 0, 1000, seq).unwrap();
    }
    // The two-event path's events up to the end at 3 ms: TxDones at 1 and 2 ms, the first
    // arrival at 2 ms (after the TxDone, queued before it); the TxDone at 3 ms would come
    // after the run's Stop.
    two.tx_done(MS, &[], &pool);
    two.tx_done(2 * MS, &[], &pool);
    let head = two.arriving();
    two.arrive(2 * MS, &pool);
    let lazy_head = lazy.arriving();
    assert_eq!(lazy.arrive(2 * MS, &pool), Some(3 * MS));
    assert_eq!((pool.take(head.id).seq, pool.take(lazy_head.id).seq), (0, 0));
    assert_eq!(seqs(&lazy, &pool), seqs(&two, &pool), "the same packets are inside both channels");
    assert_eq!(seqs(&lazy, &pool), [1, 2, 3]);
    lazy.finish_stats(3 * MS);
    two.finish_stats(3 * MS);
    assert_eq!(lazy.stats, two.stats);
    assert_eq!((lazy.stats.tx_packets, lazy.stats.delivered, lazy.stats.arrivals), (2, 1, 4));
    assert_eq!((lazy.queue.len(), lazy.busy), (1, true), "3 waits, 2 is on the wire");
}
