//! Spec tests of CoDel against RFC 8289's pseudocode (section 5) and its defaults (4.2-4.3).

use std::collections::VecDeque;

use super::*;
use crate::time::US;

const PKT: u64 = 1000;

/// A FIFO of (id, enqueue time) packets of PKT bytes, with CoDel in front.
struct Fifo {
    q: VecDeque<(u32, Time)>,
    codel: Codel,
    dropped: Vec<(Time, u32)>,
}

impl Fifo {
    fn new() -> Self {
        Self { q: VecDeque::new(), codel: Codel::new(CodelConfig::default()), dropped: Vec::new() }
    }

    fn push(&mut self, id: u32, at: Time) {
        self.codel.on_enqueue(PKT);
        self.q.push_back((id, at));
    }

    /// Dequeue at `now`: the id sent, if any; drops are logged with their time.
    fn dequeue(&mut self, now: Time) -> Option<u32> {
        let q = &mut self.q;
        let dropped = &mut self.dropped;
        let pop =
            || q.pop_front().map(|(id, at)| Head { packet: id, enqueued_at: at, bytes_left: PKT * q.len() as u64 });
        self.codel.dequeue(now, pop, |h| dropped.push((now, h.packet))).map(|h| h.packet)
    }
}

/// A queue of `n` packets all enqueued at time 0: every sojourn is the dequeue time.
fn standing_queue(n: u32) -> Fifo {
    let mut f = Fifo::new();
    for id in 0..n {
        f.push(id, 0);
    }
    f
}

#[test]
fn defaults_are_the_rfcs_target_and_interval() {
    let c = CodelConfig::default();
    assert_eq!((c.target, c.interval), (5 * MS, 100 * MS));
}

#[test]
fn control_law_spaces_drops_by_interval_over_sqrt_count() {
    // RFC 8289 5.5: control_law(t) = t + interval / sqrt(count).
    let c = Codel::new(CodelConfig::default());
    assert_eq!(c.control_law(0, 1), 100 * MS);
    assert_eq!(c.control_law(0, 4), 50 * MS);
    assert_eq!(c.control_law(7, 2), 7 + 70_710_678);
}

#[test]
fn no_drop_while_sojourn_stays_below_target() {
    let mut f = Fifo::new();
    // One packet in every 1 ms, served 4 ms later: sojourn 4 ms < 5 ms, for 2 s.
    let mut sent = 0;
    for k in 0..2000u64 {
        f.push(k as u32, k * MS);
        if k >= 4 {
            sent += f.dequeue(k * MS).is_some() as u32;
        }
    }
    assert!(f.dropped.is_empty(), "dropped {:?}", &f.dropped[..3.min(f.dropped.len())]);
    assert_eq!(sent, 1996);
    assert!(!f.codel.is_dropping());
}

#[test]
fn enters_dropping_only_after_sojourn_above_target_for_an_interval() {
    // RFC 8289 5.4: first_above_time = now + interval at the first dequeue above target;
    // ok_to_drop once now >= first_above_time.
    let mut f = standing_queue(1000);
    let t0 = 10 * MS;
    assert_eq!(f.dequeue(t0), Some(0));
    assert_eq!(f.dequeue(t0 + 100 * MS - 1), Some(1));
    assert!(f.dropped.is_empty() && !f.codel.is_dropping());
    // At first_above_time: drop the head, send the next, enter dropping with count 1.
    assert_eq!(f.dequeue(t0 + 100 * MS), Some(3));
    assert_eq!(f.dropped, vec![(t0 + 100 * MS, 2)]);
    assert!(f.codel.is_dropping());
    assert_eq!(f.codel.count(), 1);
    assert_eq!(f.codel.drop_next(), t0 + 200 * MS);
}

#[test]
fn a_dip_below_target_restarts_the_interval() {
    let mut f = Fifo::new();
    for id in 0..100 {
        f.push(id, 0);
    }
    assert_eq!(f.dequeue(10 * MS), Some(0)); // above target: first_above = 110 ms
    f.q.push_front((99_999, 60 * MS)); // a head with sojourn 1 ms at 61 ms
    assert_eq!(f.dequeue(61 * MS), Some(99_999));
    // The interval restarted at 62 ms: no drop at 110 ms, nor until 162 ms.
    assert!(f.dequeue(62 * MS).is_some());
    assert!(f.dequeue(161 * MS).is_some());
    assert!(f.dropped.is_empty());
    assert!(f.dequeue(162 * MS).is_some());
    assert_eq!(f.dropped.len(), 1);
}

#[test]
fn drops_in_the_dropping_state_follow_the_control_law() {
    // Dequeue every 100 us from a standing queue; the k-th drop falls on the first dequeue at
    // or after d_k, with d_1 = 110 ms and d_(k+1) = d_k + interval / sqrt(k) (RFC 8289 5.5:
    // the next drop is scheduled from the previous drop_next, not from the drop's time).
    let step = 100 * US;
    let mut f = standing_queue(100_000);
    let mut now = 10 * MS;
    while now < 2_000 * MS {
        f.dequeue(now);
        now += step;
    }
    let mut expected = 110.0e6_f64;
    assert!(f.dropped.len() > 20, "only {} drops", f.dropped.len());
    for (k, &(t, _)) in f.dropped.iter().enumerate() {
        let want = expected.ceil() as u64;
        let on_grid = (want - 10 * MS).div_ceil(step) * step + 10 * MS;
        assert_eq!(t, on_grid, "drop {} at {} ns, control law says {} ns", k + 1, t, want);
        expected += 100.0e6 / ((k + 1) as f64).sqrt();
    }
    assert_eq!(f.codel.count() as usize, f.dropped.len());
}

#[test]
fn leaves_dropping_when_sojourn_falls_below_target() {
    let mut f = standing_queue(50);
    f.dequeue(10 * MS);
    f.dequeue(110 * MS);
    assert!(f.codel.is_dropping());
    // A fresh head (sojourn 1 ms) ends the dropping state without a drop.
    f.q.push_front((7_777, 299 * MS));
    assert_eq!(f.dequeue(300 * MS), Some(7_777));
    assert!(!f.codel.is_dropping());
    assert_eq!(f.dropped.len(), 1);
}

#[test]
fn never_drops_with_at_most_one_maximal_packet_left() {
    // RFC 8289 5.4: below target OR queue bytes <= maxpacket resets first_above_time.
    let mut f = standing_queue(2);
    assert_eq!(f.dequeue(500 * MS), Some(0));
    assert_eq!(f.dequeue(900 * MS), Some(1));
    assert_eq!(f.dequeue(901 * MS), None);
    assert!(f.dropped.is_empty());
}

#[test]
fn reentry_soon_after_reuses_the_last_episodes_count() {
    // RFC 8289 5.5: on entering dropping, count = count - lastcount if that is > 1 and
    // now - drop_next < 16 intervals; else 1.
    let mut f = standing_queue(100_000);
    let mut now = 10 * MS;
    while now <= 600 * MS {
        f.dequeue(now);
        now += MS;
    }
    let episode = f.codel.count();
    assert!(episode >= 4, "count {episode}");
    // Empty the queue: the dropping state ends.
    f.q.clear();
    assert_eq!(f.dequeue(now), None);
    assert!(!f.codel.is_dropping());
    // A new standing queue soon after: the first drop re-enters with count = episode - 1.
    for id in 0..1000 {
        f.push(id, now);
    }
    let start = now + 10 * MS;
    f.dequeue(start);
    f.dequeue(start + 100 * MS);
    assert!(f.codel.is_dropping());
    assert_eq!(f.codel.count(), episode - 1);
    assert_eq!(f.codel.drop_next(), f.codel.control_law(start + 100 * MS, episode - 1));
}

#[test]
fn reentry_long_after_restarts_count_at_one() {
    let mut f = standing_queue(100_000);
    let mut now = 10 * MS;
    while now <= 600 * MS {
        f.dequeue(now);
        now += MS;
    }
    assert!(f.codel.count() >= 4);
    f.q.clear();
    f.dequeue(now);
    // More than 16 intervals after the last drop_next.
    let later = f.codel.drop_next() + 16 * 100 * MS + 20 * MS;
    for id in 0..1000 {
        f.push(id, later);
    }
    f.dequeue(later + 10 * MS);
    f.dequeue(later + 110 * MS);
    assert!(f.codel.is_dropping());
    assert_eq!(f.codel.count(), 1);
}
