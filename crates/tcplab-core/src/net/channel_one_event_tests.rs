use super::*;
use crate::csv::Rows;
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
    offer_queued(ch, pool, now, Queued::UNKNOWN, bytes, seq)
}

/// `offer` by an event queued at `queued`.
fn offer_queued(
    ch: &mut Channel,
    pool: &mut PacketPool,
    now: Time,
    queued: Queued,
    bytes: u32,
    seq: u32,
) -> Result<Next, u32> {
    let id = pool.put(&packet(bytes, seq));
    let (head, next) = (pool.head(id), crate::net::route::Onward::for_test(3));
    match ch.offer(now, Offering::ask(queued.by), id, &head, next, pool) {
        Ok(Next::Undecided) => ch.offer(now, ch.judge_tie(queued), id, &head, next, pool),
        other => other,
    }
    .map_err(|id| pool.take(id).seq)
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
    ch.finish_stats(10 * MS, &pool);
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
    lazy.finish_stats(3 * MS, &pool);
    two.finish_stats(3 * MS, &pool);
    assert_eq!(lazy.stats, two.stats);
    assert_eq!((lazy.stats.tx_packets, lazy.stats.delivered, lazy.stats.arrivals), (2, 1, 4));
    assert_eq!((lazy.queue.len(), lazy.busy), (1, true), "3 waits, 2 is on the wire");
}

const US: Time = MS / 1000;

/// A one-event channel and a two-event one, each with packet 0 on the wire from 100 us to
/// 1.1 ms and packet 1 waiting (room for one): the two-event one has run no `TxDone` yet.
fn full_at_a_departure() -> (PacketPool, Channel, Channel) {
    let mut pool = PacketPool::default();
    let mut lazy = channel(QueueLimit::Packets(1), MS / 2, true);
    let mut two = channel(QueueLimit::Packets(1), MS / 2, false);
    for seq in 0..2 {
        offer(&mut lazy, &mut pool, 100 * US, 1000, seq).unwrap();
        offer(&mut two, &mut pool, 100 * US, 1000, seq).unwrap();
    }
    (pool, lazy, two)
}

/// An offer at the departure instant by an event queued at `queued`: whether the one-event
/// channel admits it (`Ok`) or drops it (`Err`).
fn at_departure(queued: Queued) -> Result<(), ()> {
    let (mut pool, mut lazy, _) = full_at_a_departure();
    offer_queued(&mut lazy, &mut pool, MS + 100 * US, queued, 1000, 2).map(|_| ()).map_err(|_| ())
}

#[test]
fn an_offer_by_an_event_queued_before_the_start_sees_the_packet_on_the_wire() {
    // Two-event path: the offering event (queued at 50 us, or before the run) runs before the
    // TxDone queued at 100 us: packet 0 is still on the wire, 1 waits, the queue is full.
    let (mut pool, _, mut two) = full_at_a_departure();
    let now = MS + 100 * US;
    assert_eq!(offer(&mut two, &mut pool, now, 1000, 2).map(|_| ()), Err(2), "the two-event order drops");
    assert_eq!(at_departure(Queued::at(50 * US)), Err(()));
    assert_eq!(at_departure(Queued::at(100 * US - 1)), Err(()));
    assert_eq!(at_departure(Queued::BEFORE_RUN), Err(()));
}

#[test]
fn an_offer_by_an_event_queued_after_the_start_sees_the_packet_gone() {
    // Two-event path: the TxDone at 1.1 ms (queued at 100 us) runs first: 1 starts, 2 waits.
    let (mut pool, _, mut two) = full_at_a_departure();
    let now = MS + 100 * US;
    assert_eq!(two.tx_done(now, &[], &pool).next_tx, Some(2 * MS + 100 * US));
    assert!(offer(&mut two, &mut pool, now, 1000, 2).is_ok(), "the two-event order admits");
    assert_eq!(at_departure(Queued::at(100 * US + 1)), Ok(()));
    assert_eq!(at_departure(Queued::at(MS)), Ok(()));
    assert_eq!(at_departure(Queued::UNKNOWN), Ok(()), "an event of an unknown queue time: the old rule");
}

#[test]
fn an_offer_by_an_event_queued_at_the_very_start_sees_the_packet_gone() {
    // Queued at the instant the TxDone was: their order is not known, and the rule keeps the
    // old choice (gone).
    assert_eq!(at_departure(Queued::at(100 * US)), Ok(()));
}

/// `full_at_a_departure`'s one-event channel, packet 0 admitted to the idle link (at 100 us)
/// by an arrival over channel `by`.
fn full_at_a_departure_by(by: u32) -> (PacketPool, Channel) {
    let mut pool = PacketPool::default();
    let mut lazy = channel(QueueLimit::Packets(1), MS / 2, true);
    for seq in 0..2 {
        let id = pool.put(&packet(1000, seq));
        let (head, next) = (pool.head(id), crate::net::route::Onward::for_test(3));
        assert!(lazy.offer(100 * US, Offering::ask(by), id, &head, next, &mut pool).is_ok());
    }
    (pool, lazy)
}

/// An offer at `now` by the `Arrive` over channel `c` (of 2 ms delay, or `delay`) whose
/// previous arrival was at 100 us: whether the channel admits it.
fn offered_by_arrival(ch: &mut Channel, pool: &mut PacketPool, now: Time, c: u32, delay: Time, seq: u32) -> bool {
    let queued = Queued::of_arrival(now, delay, (100 * US) as u32, c);
    offer_queued(ch, pool, now, queued, 1000, seq).is_ok()
}

#[test]
fn an_offer_by_the_arrival_queued_first_by_the_one_that_started_the_packet_sees_it_on_the_wire() {
    // Two-event path: the arrival over channel 5 at 100 us queued the next `Arrive` over 5
    // before it offered packet 0, so before 0's `TxDone` (both at 1.1 ms): that `Arrive`'s
    // offer finds 0 on the wire and 1 waiting, and is refused. The old rule (a tie of queue
    // times: gone) admitted it.
    let end = MS + 100 * US;
    let (mut pool, mut ch) = full_at_a_departure_by(5);
    assert!(!offered_by_arrival(&mut ch, &mut pool, end, 5, 2 * MS, 2), "0 still on the wire");
    // An arrival over another channel at the same instant: its place is not known (gone).
    let (mut pool, mut ch) = full_at_a_departure_by(5);
    assert!(offered_by_arrival(&mut ch, &mut pool, end, 6, 2 * MS, 2));
    // Queued at its own departure (100 us, 1 ms of delay), as the arrival before it came:
    // whether by that arrival is not known (gone).
    let (mut pool, mut ch) = full_at_a_departure_by(5);
    assert!(offered_by_arrival(&mut ch, &mut pool, end, 5, MS, 2));
    // Admitted by an event that is not an arrival: gone.
    let (mut pool, mut ch) = full_at_a_departure_by(Queued::NO_CHANNEL);
    assert!(offered_by_arrival(&mut ch, &mut pool, end, 5, 2 * MS, 2));
}

#[test]
fn a_packet_started_by_a_departure_is_not_the_arrivals() {
    // Packet 1 starts at 1.1 ms as 0 leaves (a departure, not the arrival over 5 that
    // admitted 0): at its end (2.1 ms) an arrival over 5 queued at 1.1 ms sees it gone.
    let (mut pool, mut ch) = full_at_a_departure_by(5);
    let queued = Queued::of_arrival(MS + 100 * US, 2 * MS, (100 * US) as u32, 7);
    assert!(offer_queued(&mut ch, &mut pool, MS + 100 * US, queued, 1000, 2).is_ok(), "0 gone, 2 waits");
    let queued = Queued::of_arrival(2 * MS + 100 * US, 2 * MS, (MS + 100 * US) as u32, 5);
    assert!(queued.first_at);
    assert!(offer_queued(&mut ch, &mut pool, 2 * MS + 100 * US, queued, 1000, 3).is_ok(), "1 gone, 3 waits");
}

#[test]
fn a_packet_that_starts_as_another_leaves_started_then() {
    // Packet 1 starts at 1.1 ms, when 0 leaves, and finishes at 2.1 ms.
    let (mut pool, mut lazy, _) = full_at_a_departure();
    let gone = |lazy: &mut Channel, pool: &mut PacketPool, queued: Time, seq: u32| {
        let mut ch = lazy.clone();
        offer(&mut ch, pool, 2 * MS, 1000, 90).unwrap(); // 0 leaves, 1 starts, 90 waits
        offer_queued(&mut ch, pool, 2 * MS + 100 * US, Queued::at(queued), 1000, seq).is_ok()
    };
    assert!(!gone(&mut lazy, &mut pool, MS + 100 * US - 1, 3), "queued before 1 started");
    assert!(gone(&mut lazy, &mut pool, MS + 100 * US, 4), "queued as 1 started");
    assert!(gone(&mut lazy, &mut pool, 2 * MS, 5), "queued after 1 started");
}

#[test]
fn an_arrival_leaves_a_departure_at_its_instant_to_the_next_offer() {
    // A delay of one serialisation: packet 0 arrives at 2 ms, as packet 1 finishes (it
    // started at 1 ms). An offer at 2 ms by an event queued before 1 ms sees 1 still on the
    // wire, as on the two-event path, whatever the arrival before it did.
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Packets(1), MS, true);
    for seq in 0..3 {
        let _ = offer(&mut ch, &mut pool, 0, 1000, seq);
    }
    assert_eq!(ch.stats.drops_queue, 1, "2 found 1 waiting");
    let head = ch.arriving();
    assert_eq!(ch.arrive(2 * MS, &pool), Some(3 * MS));
    assert_eq!(pool.take(head.id).seq, 0);
    let early = Queued::at(MS / 2);
    assert!(offer_queued(&mut ch, &mut pool, 2 * MS, early, 1000, 3).is_ok(), "3 waits behind 1");
    assert_eq!(offer_queued(&mut ch, &mut pool, 2 * MS, early, 1000, 4), Err(4), "1 on the wire, 3 waiting");
}

#[test]
fn an_arrival_was_queued_at_its_departure_or_at_the_arrival_before_it() {
    // 1 ms of delay: departed at 4 ms, the one before arrived at 3 ms (the pipe was empty as
    // it departed) or at 4.5 ms (it was not).
    let now = 5 * MS;
    let at = |t: Time| Queued::of_arrival(now, MS, t as u32, 7);
    assert_eq!(at(3 * MS).at, 4 * MS + 1);
    assert!(!at(3 * MS).first_at, "queued at its departure");
    assert_eq!(at(4 * MS + MS / 2).at, 4 * MS + MS / 2 + 1);
    assert!(at(4 * MS + MS / 2).first_at, "queued by the arrival before it");
    assert!(!at(4 * MS).first_at, "departed as the one before arrived: their order is not known");
    assert_eq!(at(now).at, now + 1, "two arrivals at one instant");
    assert_eq!(at(now).by, 7);
    // Only the low 32 bits of the previous arrival are kept: exact across a wrap of them.
    let late = (1 << 40) + 7;
    assert_eq!(Queued::of_arrival(late, MS, (late - 100) as u32, 7).at, late - 100 + 1);
    assert_eq!(Queued::of_arrival(late, 0, (late - 100) as u32, 7).at, late + 1);
}

/// A one-event channel as a list: each packet admitted, with its start and departure. At an
/// instant `t` the packets that started after `t` wait, and the link is idle if every
/// departure is at or before `t` (an offer by an event of unknown queue time counts a
/// departure at its instant as done).
#[derive(Default)]
struct Model {
    sent: Vec<(Time, Time, u32)>,
    peak: usize,
    /// What each offer saw waiting (a queue trace's sample): packets and bytes.
    samples: Vec<(u32, u64)>,
}

impl Model {
    /// Whether an offer of `bytes` at `t` is admitted, and the model's state after it.
    fn offer(&mut self, t: Time, bytes: u32, limit: QueueLimit) -> bool {
        let waiting = self.sent.iter().filter(|p| p.0 > t);
        let (packets, waiting_bytes) = waiting.fold((0, 0), |(n, b), p| (n + 1, b + p.2 as u64));
        self.samples.push((packets as u32, waiting_bytes));
        let last = self.sent.last().map_or(0, |p| p.1);
        let idle = last <= t;
        let room = match limit {
            QueueLimit::Packets(n) => packets < n as usize,
            QueueLimit::Bytes(b) => waiting_bytes + bytes as u64 <= b,
        };
        if !idle && !room {
            return false;
        }
        let start = if idle { t } else { last };
        self.sent.push((start, start + bytes as Time * 1000, bytes));
        if !idle {
            self.peak = self.peak.max(packets + 1);
        }
        true
    }
}

/// Arrivals at every instant before `t` (and at `t` too if `at_too`).
fn arrive_until(ch: &mut Channel, pool: &mut PacketPool, t: Time, at_too: bool) -> u64 {
    let mut arrived = 0;
    while ch.head.is_some() && (ch.head.at < t || at_too && ch.head.at == t) {
        let head = ch.arriving();
        ch.arrive(head.at, pool);
        pool.take(head.id);
        arrived += 1;
    }
    arrived
}

proptest::proptest! {
    /// Departures counted lazily (at an arrival only the arriving packet's, at an offer the
    /// ones due by then) leave admission, the peak and the counters exactly as the list of
    /// starts and departures has them, whatever the arrivals between the offers. The waiting
    /// packets are only counted (`Queue::enter_counted`), their bytes read from the pool at
    /// their start: a queue trace samples exactly the list's waiting packets and bytes.
    #[test]
    fn lazy_departures_keep_the_waiting_packets_and_bytes(
        delay in proptest::sample::select(vec![0, 250 * US, MS, 1100 * US]),
        by_bytes: bool,
        traced: bool,
        limit in 1u32..4,
        offers in proptest::collection::vec((0u64..5, 1u32..5, proptest::bool::ANY), 1..60),
        tail in 0u64..20,
    ) {
        let limit = if by_bytes { QueueLimit::Bytes(limit as u64 * 500) } else { QueueLimit::Packets(limit) };
        let mut pool = PacketPool::default();
        let mut ch = channel(limit, delay, true);
        if traced {
            ch.queue.keep_trace();
        }
        let (mut model, mut t, mut delivered) = (Model::default(), 0, 0);
        for (seq, (gap, quarters, at_too)) in offers.iter().copied().enumerate() {
            t += gap * 125 * US;
            delivered += arrive_until(&mut ch, &mut pool, t, at_too);
            let bytes = quarters * 250;
            let admitted = offer(&mut ch, &mut pool, t, bytes, seq as u32).is_ok();
            proptest::prop_assert_eq!(admitted, model.offer(t, bytes, limit), "offer {} at {}", seq, t);
            proptest::prop_assert_eq!(ch.queue.len(), model.sent.iter().filter(|p| p.0 > t).count());
        }
        if let Some(Rows::Memory(rows)) = ch.queue.trace.as_deref() {
            let samples: Vec<_> = rows.iter().map(|r| (r.packets, r.bytes)).collect();
            proptest::prop_assert_eq!(samples, model.samples.clone());
        }
        // After the last offer: one at the end itself may have counted a departure there.
        let end = t + 1 + tail * 125 * US;
        delivered += arrive_until(&mut ch, &mut pool, end, false);
        proptest::prop_assert_eq!(ch.ids().count(), model.sent.len() - delivered as usize);
        ch.finish_stats(end, &pool);
        let sent = model.sent.iter().filter(|p| p.1 < end);
        let s = &ch.stats;
        proptest::prop_assert_eq!((s.tx_packets, s.tx_bytes), sent.fold((0, 0), |(n, b), p| (n + 1, b + p.2 as u64)));
        proptest::prop_assert_eq!((s.arrivals, s.delivered), (offers.len() as u64, delivered));
        proptest::prop_assert_eq!(s.drops_queue as usize, offers.len() - model.sent.len());
        proptest::prop_assert_eq!(s.peak_queue_packets as usize, model.peak);
    }
}

#[test]
fn an_arrival_over_a_link_without_delay_starts_the_packet_behind_it() {
    // 0 on the wire, 1 and 2 waiting: 0's arrival at 1 ms (its departure) starts 1, which
    // leaves room for one more; 1's arrival at 2 ms starts 2.
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Packets(2), 0, true);
    for seq in 0..3 {
        offer(&mut ch, &mut pool, 0, 1000, seq).unwrap();
    }
    assert_eq!(offer(&mut ch, &mut pool, 0, 1000, 3), Err(3));
    assert_eq!(arrive_until(&mut ch, &mut pool, MS, true), 1);
    assert_eq!(ch.tx_start, 2 * MS, "1 departs at 2 ms");
    assert!(offer(&mut ch, &mut pool, MS, 1000, 4).is_ok(), "2 waits alone");
    assert_eq!(arrive_until(&mut ch, &mut pool, 2 * MS, true), 1);
    assert_eq!((ch.tx_start, ch.queue.len()), (3 * MS, 1), "2 on the wire, 4 waiting");
    ch.finish_stats(10 * MS, &pool);
    assert_eq!((ch.stats.tx_packets, ch.stats.tx_bytes, ch.stats.delivered), (4, 4000, 2));
}

#[test]
fn an_arrival_departs_a_packet_of_no_serialisation_time_behind_it() {
    // 0 bytes take no time: on a link without delay, 1 departs as 0 arrives, and an offer at
    // that instant finds the link idle, as before departures were left to the offers.
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Packets(1), 0, true);
    offer(&mut ch, &mut pool, 0, 1000, 0).unwrap();
    offer(&mut ch, &mut pool, 0, 0, 1).unwrap();
    let head = ch.arriving();
    assert_eq!(ch.arrive(MS, &pool), Some(MS), "1 arrives at 1 ms too");
    pool.take(head.id);
    assert!(!ch.busy, "1 departed at 1 ms too");
    let at_start = Queued::BEFORE_RUN;
    assert_eq!(offer_queued(&mut ch, &mut pool, MS, at_start, 1000, 2), Ok(Next::Nothing));
    assert!(ch.busy);
}

/// An offer to a channel whose pipe's ring is full, with a departure due that starts the
/// next waiting packet, goes to the full offer (the common one pushes with no growth): the
/// ring grows, and it is admitted behind the new packet on the wire.
#[test]
fn an_offer_at_a_departure_into_a_full_ring_grows_it() {
    let mut pool = PacketPool::default();
    let mut ch = channel(QueueLimit::Packets(10), 10 * MS, true);
    // The head and four behind it: a ring of 4, full.
    for seq in 0..5 {
        offer(&mut ch, &mut pool, 0, 1000, seq).unwrap();
    }
    assert!(ch.pipe.is_full());
    assert_eq!((ch.pipe.len(), ch.queue.counted()), (4, 4));
    // Packet 0 departed at 1 ms; packet 1 departs at 2 ms.
    assert_eq!(offer(&mut ch, &mut pool, MS + MS / 2, 1000, 5), Ok(Next::Nothing));
    assert_eq!((ch.pipe.len(), ch.queue.counted(), ch.on_wire.id), (5, 4, ch.pipe.get(0).id));
    assert_eq!((ch.tx_start, ch.pipe.back().unwrap().at), (2 * MS, 6 * MS + 10 * MS));
    assert_eq!(seqs(&ch, &pool), [0, 1, 2, 3, 4, 5]);
}

proptest::proptest! {
    /// The common offer (`offer_one_event`: a cached size, a plain queue, one departure done
    /// inline, leaving the link idle or starting the next packet) answers and leaves the
    /// channel exactly as the full one, whatever the sizes, the departures due (none, one,
    /// several, one at the offer's instant), the queue (its limit in packets or bytes) and
    /// the pipe's growth: run side by side on two channels, offer by offer.
    #[test]
    fn the_common_offer_is_the_full_offer(
        delay in proptest::sample::select(vec![0, 250 * US, MS]),
        traced: bool,
        limit in 1u32..6,
        in_bytes: bool,
        offers in proptest::collection::vec((0u64..9, 1u32..3, 0u32..3), 1..80),
    ) {
        let mut pool = PacketPool::default();
        let limit = if in_bytes { QueueLimit::Bytes(limit as u64 * 600) } else { QueueLimit::Packets(limit) };
        let (mut fast, mut full) = (channel(limit, delay, true), channel(limit, delay, true));
        if traced {
            fast.queue.keep_trace();
            full.queue.keep_trace();
        }
        let mut t = 0;
        for (seq, (gap, quarters, tie)) in offers.iter().copied().enumerate() {
            t += gap * 125 * US;
            let id = pool.put(&packet(quarters * 500, seq as u32));
            let next = crate::net::route::Onward::for_test(3);
            let offering = match tie {
                0 => Offering::ask(Queued::NO_CHANNEL),
                1 => Offering(Offering::LEFT | Queued::NO_CHANNEL as u64),
                _ => Offering(Offering::ON_WIRE | 7),
            };
            let a = fast.offer_one_event(t, offering, Headed { id, next }, quarters * 500, &mut pool);
            let b = full.offer_one_event_full(t, offering, Headed { id, next }, quarters * 500, &mut pool);
            proptest::prop_assert_eq!(a, b, "offer {} at {}", seq, t);
            proptest::prop_assert_eq!(format!("{fast:?}"), format!("{full:?}"), "offer {} at {}", seq, t);
        }
    }
}
