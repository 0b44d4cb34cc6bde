//! The event queue: one binary heap keyed by (time, insertion number).
//!
//! Ties in time break by insertion order, which makes every run deterministic. Components keep
//! the pending set small (at most one event per link stage, lazily cancelled timers), because
//! heap operations slow down sharply once the heap outgrows the cache.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Time;

/// What happens at an event. Components are indices, never pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of channel `0`'s transmitter has been serialised.
    TxDone(u32),
    /// The packet at the head of channel `0`'s propagation pipe reaches the far end.
    Arrive(u32),
    /// Flow `0` starts (opens its connection).
    FlowStart(u32),
    /// A timer of flow `0` may be due; the flow checks its own deadlines (lazy cancellation).
    FlowTimer(u32),
    /// Cells that reached ATM switch `0` at this instant go to their output buffers, inputs
    /// served round robin.
    SwitchService(u32),
    /// The end of the simulated interval.
    Stop,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (time, seq) pops first.
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn schedule(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Events handled so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::Arrive(1));
        q.schedule(3, Event::Arrive(2));
        q.schedule(5, Event::Arrive(3));
        q.schedule(5, Event::Arrive(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(3, Event::Arrive(2)), (5, Event::Arrive(1)), (5, Event::Arrive(3)), (5, Event::Arrive(4))]
        );
    }
}
