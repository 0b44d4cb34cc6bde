//! The event queue: events keyed by (time, insertion number).
//!
//! Ties in time break by insertion order, which makes every run deterministic. Components keep
//! the pending set small (at most one event per link stage, lazily cancelled timers), because
//! heap operations slow down sharply once the heap outgrows the cache.

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
    /// The application of flow `0` stops (a TCP flow's `stop`: no new data from now on).
    FlowStop(u32),
    /// Cells that reached ATM switch `0` at this instant go to their output buffers, inputs
    /// served round robin. Queued only when other events share the instant: a lone cell is
    /// served inline on arrival (`EventQueue::has_event_at`).
    SwitchService(u32),
    /// A timer of application `0` may be due (lazy cancellation, as for flows).
    AppTimer(u32),
    /// Reassembly buffer slot `0` is to be looked at: its frame may have ended by a drop
    /// (per-packet rules) or its AAL5 reassembly timer may have run out (lazy: the buffer
    /// checks its own age).
    Reassembly(u32),
    /// The end of the simulated interval.
    Stop,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl Entry {
    #[inline]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// The simulation's event queue: (time, insertion order), earliest first, ties first-in
/// first-out. Two exact implementations with the same order, chosen by what the run is (so the
/// choice never changes a result, only the speed): a 4-ary heap for small runs (it stays in
/// L1), a radix heap for the rest (`for_run`). Both are fields, the one the run does not use
/// left empty, so that code compiled for one kind (`QueueKind`, the event loop) reaches it by
/// a plain field access: no test of the kind, and nothing unsafe.
#[derive(Debug, Clone)]
pub struct EventQueue {
    /// Whether the run's events are in `radix` (else in `heap`); fixed for the queue's life.
    uses_radix: bool,
    heap: QuadHeap,
    /// Held inline (1.5 kB of bucket headers in every simulation): boxed, every schedule
    /// first loaded the box's pointer, then `last` and the bucket's length through it, a
    /// chain of three dependent loads before the store (issue 26: the profile-guided loop
    /// 2-9% faster at 10 flows without the box, about 1% at 100).
    radix: RadixQueue,
}

/// Above this many possible pending events a packet-level run gets the radix heap (a dumbbell
/// of n flows allows 11n + 7: the heap up to 5 flows, the radix heap from 6).
const RADIX_ABOVE_PACKETS: usize = 64;
/// Above this many a run with a cell-level (ATM) link gets the radix heap.
const RADIX_ABOVE_CELLS: usize = 200;

impl Default for EventQueue {
    fn default() -> Self {
        Self::of_kind(false)
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    fn of_kind(uses_radix: bool) -> Self {
        Self { uses_radix, heap: QuadHeap::default(), radix: RadixQueue::default() }
    }

    /// The queue for a run with at most about `pending` events at once, `cells` if it has a
    /// cell-level (ATM) link. The radix heap runs fewer instructions at every size (callgrind,
    /// 2026-11-26: htsim's 10-flow dumbbell 2,380 -> 1,818 per injected packet, the example
    /// 4-flow dumbbell 541 -> 449 per event, the 16-source ATM star 621 -> 472), but on the
    /// smallest runs it takes more CPU time. Part of it is store forwarding: a push writes the
    /// time, the event's tag and its payload as three stores, read back by wider loads, which
    /// stall while the stores are young, as in a small run where an event is soon popped (the
    /// event packed into one u64 recovered a quarter to two fifths of the gap, at 25 more
    /// instructions per packet). CPU time of 60 s NewReno dumbbells, radix against heap,
    /// alternating, load 4-5: 1 flow +13%, 2 +5%, 3 +4%, 4 +2%, 5 +2%, 6 -1%, 7 -2%, 8 -5%,
    /// 10 -6%, 14 -7%; the ATM star (a bound of about 100) +7%, so cell-level runs keep the
    /// heap up to 200 (as TCP Boston's star, also about 100, measured before); satellite_meo
    /// (about 1,200) is faster on the radix heap. The choice never changes a result.
    pub fn for_run(pending: usize, cells: bool) -> Self {
        let radix_above = if cells { RADIX_ABOVE_CELLS } else { RADIX_ABOVE_PACKETS };
        let mut q = Self::of_kind(pending > radix_above);
        if q.uses_radix {
            q.radix.reserve(pending);
        }
        q
    }

    /// Whether the run's events are in the radix heap (else in the 4-ary heap).
    pub fn uses_radix(&self) -> bool {
        self.uses_radix
    }

    /// The queue as kind `Q`, which must be the kind it uses (`uses_radix`): for code compiled
    /// for one kind, chosen by asking once (`Simulation::run_loop_sized`). A wrong `Q` would
    /// be a bug, not unsound: its events would go to the empty other one and never pop.
    #[inline(always)]
    pub fn kind<Q: QueueKind>(&mut self) -> &mut Q {
        debug_assert_eq!(Q::RADIX, self.uses_radix, "the run's queue is of the other kind");
        Q::field(self)
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        if self.uses_radix {
            self.radix.schedule(time, event)
        } else {
            self.heap.schedule(time, event)
        }
    }

    /// The next event, asking the kind. The event loop does not come here: it pops through
    /// `kind::<Q>()`, compiled for the run's kind (`sim/run_loop.rs`).
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if self.uses_radix {
            self.radix.pop()
        } else {
            self.heap.pop()
        }
    }

    /// Whether an event is queued at `now`, the time of the last event popped (or 0 before the
    /// first): if not, an event scheduled at `now` would be the very next one popped, so a
    /// handler may do that work at once instead: the same steps in the same order, one event
    /// fewer (the ATM switch's service and zero-delay arrivals, `sim.rs`).
    #[inline]
    pub fn has_event_at(&self, now: Time) -> bool {
        if self.uses_radix {
            self.radix.has_event_at(now)
        } else {
            self.heap.has_event_at(now)
        }
    }
}

/// One of `EventQueue`'s two kinds, for code compiled for it: the event loop and the
/// handlers of a packet's crossing (`sim/run_loop.rs`) reach the run's queue as a plain field
/// (`EventQueue::kind`) instead of testing the kind at every schedule, pop and
/// `has_event_at` (issue 26: 16 to 21 fewer instructions per packet on htsim's dumbbells).
/// The methods are `EventQueue`'s, on one kind.
pub trait QueueKind {
    /// Whether this is the radix heap (`EventQueue::uses_radix`).
    const RADIX: bool;
    /// This kind's field of `q` (used or not: `EventQueue::kind` checks).
    fn field(q: &mut EventQueue) -> &mut Self;
    fn schedule(&mut self, time: Time, event: Event);
    fn pop(&mut self) -> Option<(Time, Event)>;
    fn has_event_at(&self, now: Time) -> bool;
}

impl QueueKind for QuadHeap {
    const RADIX: bool = false;
    #[inline(always)]
    fn field(q: &mut EventQueue) -> &mut Self {
        &mut q.heap
    }
    #[inline(always)]
    fn schedule(&mut self, time: Time, event: Event) {
        QuadHeap::schedule(self, time, event)
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(Time, Event)> {
        QuadHeap::pop(self)
    }
    #[inline(always)]
    fn has_event_at(&self, now: Time) -> bool {
        QuadHeap::has_event_at(self, now)
    }
}

impl QueueKind for RadixQueue {
    const RADIX: bool = true;
    #[inline(always)]
    fn field(q: &mut EventQueue) -> &mut Self {
        &mut q.radix
    }
    #[inline(always)]
    fn schedule(&mut self, time: Time, event: Event) {
        RadixQueue::schedule(self, time, event)
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(Time, Event)> {
        RadixQueue::pop(self)
    }
    #[inline(always)]
    fn has_event_at(&self, now: Time) -> bool {
        RadixQueue::has_event_at(self, now)
    }
}

/// A 4-ary min-heap on (time, insertion number). Against a binary heap it halves the depth,
/// and a node's four children share one or two cache lines.
#[derive(Debug, Default, Clone)]
pub struct QuadHeap {
    heap: Vec<Entry>,
    next_seq: u64,
}

const ARITY: usize = 4;

impl QuadHeap {
    pub fn schedule(&mut self, time: Time, event: Event) {
        let e = Entry { time, seq: self.next_seq, event };
        self.next_seq += 1;
        // Sift up: move parents down until e's place is found.
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !e.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }

    /// Inlined into the event loop, as the radix heap's pop is: called, it returned its result
    /// through the stack, and the loop stored the radix heap's result there as well to meet it
    /// (two stores per pop on every run: callgrind, 8 to 10 fewer instructions per packet on
    /// htsim's dumbbells with one event per crossing, 4 to 5 by default).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("not empty");
        let n = self.heap.len();
        if n > 0 {
            // Sift the last entry down from the root: move the smallest child up each level.
            let mut i = 0;
            loop {
                let first = ARITY * i + 1;
                if first >= n {
                    break;
                }
                let mut best = first;
                for c in first + 1..(first + ARITY).min(n) {
                    if self.heap[c].before(&self.heap[best]) {
                        best = c;
                    }
                }
                if !self.heap[best].before(&last) {
                    break;
                }
                self.heap[i] = self.heap[best];
                i = best;
            }
            self.heap[i] = last;
        }
        Some((top.time, top.event))
    }

    /// `EventQueue::has_event_at`: the earliest event is at `now`.
    #[inline]
    pub fn has_event_at(&self, now: Time) -> bool {
        self.heap.first().is_some_and(|e| e.time == now)
    }
}

const BUCKETS: usize = 65;

/// A radix heap: 65 buckets by the highest bit in which an event's time differs from the
/// last time popped. Simulated time never goes backwards, so events only move towards
/// bucket 0, each in sequential memory; beyond a couple of hundred pending events this beats
/// the heap. Equal times share a bucket and keep their insertion order through
/// every move, and bucket 0 is read front to back: ties pop first-in first-out.
#[derive(Debug, Clone)]
pub struct RadixQueue {
    buckets: [Vec<Slot>; BUCKETS],
    /// Bit i is set when bucket i (1 to 63) holds events: the next bucket to refill from is
    /// found with one instruction instead of a scan of 64 vectors. Bit 0 means nothing (it is
    /// set for bucket 0 and for bucket 64, see `occupied_bit`, and `pop` masks it).
    occupied: u64,
    /// Read position in bucket 0 (its events all have time `last`).
    head: usize,
    /// The time of the last event popped: no event may be scheduled before it.
    last: Time,
}

impl Default for RadixQueue {
    fn default() -> Self {
        Self { buckets: std::array::from_fn(|_| Vec::new()), occupied: 0, head: 0, last: 0 }
    }
}

/// An event in a bucket, aligned so that moving it is one 16-byte load and one 16-byte store.
/// As a plain (Time, Event) tuple it was written as two 8-byte stores and read back at once
/// as one 16-byte load, which cannot be forwarded from the store buffer: that stall was a
/// sixth of the 10,000-flow benchmark's time (23.4 s -> 18.9 s with this layout).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    time: Time,
    event: Event,
}

fn bucket_of(time: Time, last: Time) -> usize {
    (64 - (time ^ last).leading_zeros()) as usize
}

/// Bucket `b`'s bit in `RadixQueue::occupied`: bit `b`, and bit 0 for bucket 0 and 64, which
/// `pop` masks (`RadixQueue::schedule` says why 64 needs no bit). `wrapping_shl` shifts by
/// `b mod 64`: for 64 that is `1 << 0`. One shift per schedule: bit `b - 1` took two (issue
/// 26).
#[inline(always)]
fn occupied_bit(b: usize) -> u64 {
    1u64.wrapping_shl(b as u32)
}

/// Bit 0 of `RadixQueue::occupied`, which stands for no bucket `pop` refills from.
const NO_BUCKET: u64 = 1;

/// Every run stops below 2^63 ns, so no event the run pops is ever in bucket 64
/// (`RadixQueue::schedule`): the longest duration a scenario may ask for is below it.
const _: () = assert!(crate::units::MAX_SECONDS * 1e9 < (1u64 << 63) as f64);

/// No bucket of the radix heap is sized at build for more events than this (65 of them: 2 MiB
/// at most, not written until used); a bucket that needs more grows from here.
const BUCKET_MOST: usize = 1024;

impl RadixQueue {
    /// Room in every bucket for an eighth of the `pending` events the run can hold at once, a
    /// power of two up to `BUCKET_MOST`, so that the run does not grow its buckets while it
    /// warms up (issue 26). The events of htsim's dumbbells at 10, 100 and 1,000 flows (a bound
    /// of 117, 1,107 and 11,007) spread over 30 to 34 buckets, the fullest grown to 16, 256 and
    /// 2,048: 48, 120 and 202 allocations in the loop, each a few hundred instructions with its
    /// copy, and fresh pages touched twice.
    pub fn reserve(&mut self, pending: usize) {
        let room = (pending / 8).min(BUCKET_MOST).next_power_of_two();
        for b in &mut self.buckets {
            b.reserve_exact(room);
        }
    }

    /// Schedule `event` at `time`, which must not be before the last event popped.
    ///
    /// Both checks this once made per schedule are settled before the run (issue 26: about 8
    /// instructions per schedule). A time in the past is a handler's bug (every handler
    /// schedules at `now` or later, as the 4-ary heap, which cannot tell, assumes too): a
    /// `debug_assert!`, which the tests' proptests and runs exercise. And the occupied bit
    /// of bucket `b` is set without a branch on `b > 0`: bit `b`, bit 0 (for bucket 0) masked
    /// by `pop`. Bucket 64 (only for a time at or past 2^63 ns, as `last` is below it) gets
    /// the same masked bit 0, so its events never pop: they would all come after the run's
    /// `Stop`, which is below 2^63 ns because every duration is (`units::MAX_SECONDS`, checked
    /// where a scenario's duration is read, `config::Scenario::validate`; asserted at compile
    /// time below `occupied_bit`).
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        debug_assert!(time >= self.last, "event scheduled in the past: {time} < {}", self.last);
        self.file(Slot { time, event });
    }

    /// Put `slot` (not before `last`) in its bucket, by its time against `last`.
    #[inline(always)]
    fn file(&mut self, slot: Slot) {
        let b = bucket_of(slot.time, self.last);
        self.buckets[b].push(slot);
        self.occupied |= occupied_bit(b);
    }

    /// The next event, inlined into the event loop whole. The common cases come first: the
    /// next event already in bucket 0 (at the last time popped), or alone in the earliest
    /// other bucket (most instants of a packet-level run have one event: 33 k of the 100-flow
    /// htsim dumbbell's 82 k pops), or one of two or three there (nine in ten of the rest:
    /// 11.8 k and 9.3 k of the 23.5 k refills at 100 flows, each handled without the refill's
    /// two loops, 3.5 to 4% fewer instructions per packet at 10 and 100 flows, issue 26);
    /// then the refill (`refill`). Out of line, each of these
    /// paid a six-register prologue and epilogue (about 17 instructions), more than the loop
    /// pays for holding the inlined code (callgrind: 20 to 28 fewer instructions per packet
    /// with the refill inlined too, the loop's time level). `always`: the loop has two
    /// instantiations (`run_loop`), and the compiler then kept this apart.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if let Some(e) = self.buckets[0].get(self.head) {
            self.head += 1;
            return Some((e.time, e.event));
        }
        // Bucket 0 is used up: the next event is the earliest of the first non-empty bucket.
        self.buckets[0].clear();
        self.head = 0;
        let occupied = self.occupied & !NO_BUCKET;
        if occupied == 0 {
            return None;
        }
        let i = occupied.trailing_zeros() as usize;
        self.occupied = occupied & !(1 << i);
        if let [e] = self.buckets[i][..] {
            // The next event, and alone at its time (equal times share a bucket): it pops
            // straight from there, bucket 0 left empty. Most pops of a cell-level run are
            // such (issue 26).
            self.buckets[i].clear();
            self.last = e.time;
            return Some((e.time, e.event));
        }
        if let [a, b] = self.buckets[i][..] {
            // Two events (about half of the refills on htsim's dumbbells): the earlier pops
            // (the first inserted, on a tie), the other goes down to its bucket below it
            // (bucket 0 on a tie, to pop next), with no loop (issue 26).
            let (first, other) = if b.time < a.time { (b, a) } else { (a, b) };
            self.buckets[i].clear();
            self.last = first.time;
            self.file(other);
            return Some((first.time, first.event));
        }
        if let [a, b, c] = self.buckets[i][..] {
            // Three (about a third): the earliest pops (the first inserted among ties), the
            // other two go down in their order, as for two.
            let (first, x, y) = if b.time < a.time {
                if c.time < b.time {
                    (c, a, b)
                } else {
                    (b, a, c)
                }
            } else if c.time < a.time {
                (c, a, b)
            } else {
                (a, b, c)
            };
            self.buckets[i].clear();
            self.last = first.time;
            self.file(x);
            self.file(y);
            return Some((first.time, first.event));
        }
        self.refill(i)
    }

    /// `EventQueue::has_event_at`: bucket 0 holds exactly the events at the last time popped;
    /// every other bucket holds later ones.
    #[inline]
    pub fn has_event_at(&self, now: Time) -> bool {
        debug_assert_eq!(self.last, now);
        self.head < self.buckets[0].len()
    }

    /// Bucket `i` (its occupied bit already cleared), the first non-empty one, holds several
    /// events: move them down around their earliest, which pops. Inlined into `pop`, hence
    /// the loop (see `pop`): `always`, as the compiler would keep a function this size apart.
    #[inline(always)]
    fn refill(&mut self, i: usize) -> Option<(Time, Event)> {
        let (lower, from_i) = self.buckets.split_at_mut(i);
        let moving = &mut from_i[0];
        // Move bucket i's events down around their minimum: each now differs from it only
        // below bit i - 1 (the minimum itself, and its ties, to bucket 0, in their order).
        let last = moving.iter().map(|s| s.time).min().expect("bucket is not empty");
        // `file`'s steps, on the split borrow: the bucket taken out to call `file` cost 1 to
        // 1.7% more instructions per packet on htsim's dumbbells (callgrind).
        for &slot in moving.iter() {
            let b = bucket_of(slot.time, last);
            lower[b].push(slot);
            self.occupied |= occupied_bit(b);
        }
        moving.clear();
        self.last = last;
        self.head = 1;
        let e = lower[0][0];
        Some((e.time, e.event))
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
