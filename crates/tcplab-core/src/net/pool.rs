//! Storage for the packets inside channels; queues, transmitters and pipes hold 4-byte ids.
//!
//! Why: with thousands of flows, a packet's record is written when it enters a channel and
//! read when it leaves the pipe milliseconds later, long after it left the cache. Moving the
//! record through a queue, the transmitter and the pipe by value cost a cache miss at every
//! step. Here the record is written once into a slot, when the packet enters the network, and
//! stays there hop after hop until it is delivered or dropped; an arrival reads it, one
//! 64-byte line (`Slot`: the SACK blocks and Boston's shard fields, rarely set, live apart).
//! Slots are reused last-freed-first, so the slot a new packet gets is usually the one the
//! packet just delivered was read from, still in the cache.

use crate::packet::{CellInfo, Dir, Ecn, Packet, PacketHead, SackBlock, Shards, MAX_SACK_BLOCKS};

/// A packet's place in the pool; valid from `put` until `take`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketId(u32);

impl PacketId {
    /// No packet (an idle transmitter's slot); never handed out by a pool.
    pub const NONE: PacketId = PacketId(u32::MAX);

    /// An id made up for a queue's unit tests, which hold ids without records.
    #[cfg(test)]
    pub(crate) fn for_test(n: u32) -> Self {
        Self(n)
    }

    /// The number behind an id, for a queue's unit tests.
    #[cfg(test)]
    pub(crate) fn raw(self) -> u32 {
        self.0
    }
}

/// A packet's record as the pool keeps it: what every hop and every endpoint reads, on one
/// 64-byte line (a `Packet` is 96 bytes and spans two). The SACK blocks and TCP Boston's shard
/// fields, which most packets leave at their defaults, live in `Cold` beside it, read only for
/// a packet that set them (`has_cold`). Fields in `Packet`'s order and at its offsets (both
/// `repr(C)`; tested below), so that `put` and `get` copy the first 54 bytes of a packet as a
/// few wide moves rather than field by field.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    flow: u32,
    route_pos: u32,
    seq: u32,
    ack: u32,
    wnd: u32,
    payload: u32,
    wire_bytes: u32,
    tag: u32,
    ts: crate::time::Time,
    cell: CellInfo,
    dir: Dir,
    flags: u8,
    n_sack: u8,
    retransmit: bool,
    marked: bool,
    ecn: Ecn,
    has_cold: bool,
}

/// The rarely set part of a packet's record (see `Slot`).
#[derive(Debug, Clone, Copy, Default)]
struct Cold {
    sack: [SackBlock; MAX_SACK_BLOCKS],
    shards: Shards,
}

const NO_SACK: [SackBlock; MAX_SACK_BLOCKS] = [SackBlock { left: 0, right: 0 }; MAX_SACK_BLOCKS];

impl Slot {
    const EMPTY: Slot = Slot {
        flow: 0,
        route_pos: 0,
        seq: 0,
        ack: 0,
        wnd: 0,
        payload: 0,
        wire_bytes: 0,
        tag: 0,
        ts: 0,
        cell: CellInfo { cells: 0, index: 0, pdu: 0 },
        dir: Dir::Forward,
        flags: 0,
        n_sack: 0,
        retransmit: false,
        marked: false,
        ecn: Ecn::NotEct,
        has_cold: false,
    };
}

#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Slot>,
    /// Indexed as `slots`; an entry is meaningful only where its slot `has_cold`.
    cold: Vec<Cold>,
    free: Vec<u32>,
    /// Whether the run prefetches the records an arrival leads to: the next channel, or the
    /// flow and the reply's channel (`cache::worth_prefetching`, set at build). A packet's
    /// own slot, one line, is prefetched either way.
    prefetch_onward: bool,
}

impl PacketPool {
    /// Store a packet. Inlined into its few callers: the call and the frame it needs cost
    /// more than the copy (issue 26); a full pool grows out of line. By reference, so the
    /// record is read where its end built it and written once, here (issue 26).
    #[inline(always)]
    pub fn put(&mut self, pkt: &Packet) -> PacketId {
        let i = match self.free.pop() {
            Some(i) => i,
            None => self.grow(),
        };
        let has_cold = pkt.sack != NO_SACK || pkt.shards != Shards::default();
        if has_cold {
            self.cold[i as usize] = Cold { sack: pkt.sack, shards: pkt.shards };
        }
        self.slots[i as usize] = Slot {
            flow: pkt.flow,
            route_pos: pkt.route_pos,
            seq: pkt.seq,
            ack: pkt.ack,
            wnd: pkt.wnd,
            payload: pkt.payload,
            wire_bytes: pkt.wire_bytes,
            tag: pkt.tag,
            ts: pkt.ts,
            cell: pkt.cell,
            dir: pkt.dir,
            flags: pkt.flags,
            n_sack: pkt.n_sack,
            retransmit: pkt.retransmit,
            marked: pkt.marked,
            ecn: pkt.ecn,
            has_cold,
        };
        PacketId(i)
    }

    /// Room for `n` packets before the pool reallocates its arrays: the run then grows its pool
    /// one slot at a time into memory it already has, instead of reallocating and copying the
    /// arrays as it warms up (issue 26; `budget::pool_reserve` picks `n`).
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve_exact(n);
        self.cold.reserve_exact(n);
        self.free.reserve_exact(n);
    }

    /// One more slot, at the end; its index.
    #[cold]
    fn grow(&mut self) -> u32 {
        let grows = self.slots.len() == self.slots.capacity();
        self.slots.push(Slot::EMPTY);
        self.cold.push(Cold::default());
        // The free list can hold every slot: `take_live` pushes without a capacity check.
        self.free.reserve(self.slots.len() - self.free.len());
        if grows {
            // Read at random once it holds many flows' packets: huge pages, if any.
            crate::cache::advise_huge_pages(&self.slots);
        }
        self.slots.len() as u32 - 1
    }

    /// A copy of the packet's record.
    #[inline]
    pub fn get(&self, id: PacketId) -> Packet {
        self.record(&self.slots[id.0 as usize], id)
    }

    /// The record of packet `id` in slot `s`, with its cold part if it has one.
    #[inline(always)]
    fn record(&self, s: &Slot, id: PacketId) -> Packet {
        let mut p = Packet {
            flow: s.flow,
            route_pos: s.route_pos,
            seq: s.seq,
            ack: s.ack,
            wnd: s.wnd,
            payload: s.payload,
            wire_bytes: s.wire_bytes,
            tag: s.tag,
            ts: s.ts,
            cell: s.cell,
            dir: s.dir,
            flags: s.flags,
            n_sack: s.n_sack,
            retransmit: s.retransmit,
            marked: s.marked,
            ecn: s.ecn,
            sack: NO_SACK,
            shards: Shards::default(),
        };
        if s.has_cold {
            let c = &self.cold[id.0 as usize];
            (p.sack, p.shards) = (c.sack, c.shards);
        }
        p
    }

    /// The slot of a live packet, looked up without a bounds check: the run's arrivals and
    /// hops hold only live ids, and each bounds check cost a load, a compare and a branch per
    /// hop and per delivery (issue 26).
    ///
    /// # Safety
    /// `id` is live in this pool: handed out by its `put` and not taken since. Its index is
    /// then below `slots.len()`, as slots are only ever added.
    #[inline(always)]
    unsafe fn live_slot(&self, id: PacketId) -> &Slot {
        debug_assert!((id.0 as usize) < self.slots.len(), "packet {id:?} is not in the pool");
        // SAFETY: `id` is live (this function's precondition), so in bounds.
        unsafe { self.slots.get_unchecked(id.0 as usize) }
    }

    /// `live_slot`, to write.
    ///
    /// # Safety
    /// As `live_slot`.
    #[inline(always)]
    unsafe fn live_slot_mut(&mut self, id: PacketId) -> &mut Slot {
        debug_assert!((id.0 as usize) < self.slots.len(), "packet {id:?} is not in the pool");
        // SAFETY: `id` is live (this function's precondition), so in bounds.
        unsafe { self.slots.get_unchecked_mut(id.0 as usize) }
    }

    /// What a hop reads of the packet (its queue's decision, its route), read in place: a
    /// channel admits a packet on this, not on `get`'s rebuilt record.
    #[inline]
    pub fn head(&self, id: PacketId) -> PacketHead {
        Self::head_of(&self.slots[id.0 as usize])
    }

    /// `head` of a live packet, without a bounds check (`live_slot`).
    ///
    /// # Safety
    /// `id` is live in this pool (`live_slot`).
    #[inline]
    pub unsafe fn head_live(&self, id: PacketId) -> PacketHead {
        // SAFETY: the same precondition.
        Self::head_of(unsafe { self.live_slot(id) })
    }

    #[inline(always)]
    fn head_of(s: &Slot) -> PacketHead {
        PacketHead {
            flow: s.flow,
            dir: s.dir,
            route_pos: s.route_pos,
            wire_bytes: s.wire_bytes,
            cell: s.cell,
            marked: s.marked,
            ecn: s.ecn,
        }
    }

    /// Mark the packet Congestion Experienced (a queue marking it at enqueue or dequeue).
    pub fn mark_ce(&mut self, id: PacketId) {
        self.slots[id.0 as usize].ecn = Ecn::Ce;
    }

    /// Whether the live packet `id` is a cell, read without a bounds check (`live_slot`).
    ///
    /// # Safety
    /// `id` is live in this pool (`live_slot`).
    #[inline]
    pub unsafe fn is_cell_live(&self, id: PacketId) -> bool {
        // SAFETY: the same precondition.
        unsafe { self.live_slot(id) }.cell.is_cell()
    }

    /// The packet has crossed a channel and goes on: its route position moves to the next
    /// hop. Returns its head so moved on, read before the store: read back after it, the
    /// wider loads of the head (or of the whole record) would wait for the 4-byte store to
    /// retire, as a store buffer forwards only to loads it covers. A delivered packet's slot
    /// is not written at all (`take_live`, then its position moved on in the copy).
    ///
    /// # Safety
    /// `id` is live in this pool (`live_slot`).
    #[inline]
    pub unsafe fn advance(&mut self, id: PacketId) -> PacketHead {
        // SAFETY: the same precondition.
        let s = unsafe { self.live_slot_mut(id) };
        let mut head = Self::head_of(s);
        head.route_pos += 1;
        s.route_pos = head.route_pos;
        head
    }

    /// Start loading the packet into the cache: it will be read soon. Any id, even `NONE`:
    /// a prefetch needs no bounds check (`cache::prefetch_item`).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        crate::cache::prefetch_item(&self.slots, id.0 as usize, 1);
    }

    /// Whether the run prefetches the records its arrivals lead to (`prefetch_onward`).
    pub fn prefetches_onward(&self) -> bool {
        self.prefetch_onward
    }

    /// Prefetch them from now on, or not (`prefetches_onward`).
    pub fn set_prefetch_onward(&mut self, on: bool) {
        self.prefetch_onward = on;
    }

    /// Remove the packet; its id may be handed out again.
    #[inline]
    pub fn take(&mut self, id: PacketId) -> Packet {
        self.free.push(id.0);
        self.get(id)
    }

    /// `take` of a live packet, without a bounds check (`live_slot`): a delivery's.
    ///
    /// # Safety
    /// `id` is live in this pool (`live_slot`).
    #[inline]
    pub unsafe fn take_live(&mut self, id: PacketId) -> Packet {
        // SAFETY: the same precondition.
        let p = self.record(unsafe { self.live_slot(id) }, id);
        // SAFETY: `free` holds only ids not live, all below `slots.len()`, so fewer than
        // `slots.len()` of them with `id` live; `grow` keeps its capacity at `slots.len()` or
        // more. The push needs no capacity check (issue 26: 2 per delivery).
        debug_assert!(self.free.len() < self.free.capacity());
        unsafe {
            self.free.as_mut_ptr().add(self.free.len()).write(id.0);
            self.free.set_len(self.free.len() + 1);
        }
        p
    }

    /// Packets stored now (the simulation checks this against the channels' contents).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The most packets ever stored at once: slots are reused, never released.
    pub fn peak(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_packet;

    #[test]
    fn ids_are_reused_last_freed_first_and_live_counts_stored_packets() {
        let mut pool = PacketPool::default();
        let mut p = test_packet();
        let a = pool.put(&p);
        p.seq = 7;
        let b = pool.put(&p);
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.get(b).seq, 7);
        assert_eq!(pool.take(a).seq, 1);
        assert_eq!(pool.live(), 1);
        p.seq = 9;
        let c = pool.put(&p);
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(pool.get(c).seq, 9);
        assert_eq!(pool.get(b).seq, 7, "other packets are untouched");
    }

    #[test]
    fn take_live_reads_and_frees_as_take_does() {
        let (mut pool, mut twin) = (PacketPool::default(), PacketPool::default());
        let mut p = test_packet();
        (p.seq, p.n_sack, p.sack[0]) = (5, 1, SackBlock { left: 10, right: 20 });
        let q = test_packet();
        let ids = [p, q].map(|x| (pool.put(&x), twin.put(&x)));
        for (id, twin_id) in ids {
            // SAFETY: `id` is live: put above, taken only here.
            assert_eq!(unsafe { pool.take_live(id) }, twin.take(twin_id));
        }
        assert_eq!((pool.live(), pool.free.clone()), (twin.live(), twin.free.clone()));
        assert_eq!(pool.put(&q), twin.put(&q), "the same slot is reused next");
    }

    #[test]
    fn advance_moves_the_route_on_and_returns_the_head_it_left_in_the_slot() {
        let mut pool = PacketPool::default();
        let mut p = test_packet();
        let cell = pool.put(&p);
        (p.route_pos, p.cell) = (3, CellInfo { cells: 2, index: 1, pdu: 9 });
        let cell_id = pool.put(&p);
        let other = pool.put(&test_packet());
        for (id, is_cell) in [(cell, false), (cell_id, true)] {
            let before = pool.head(id);
            // SAFETY: both ids are live: put above, never taken.
            let head = unsafe { pool.advance(id) };
            assert_eq!(head, PacketHead { route_pos: before.route_pos + 1, ..before });
            assert_eq!(pool.head(id), head, "the slot holds the head returned");
            // SAFETY: as above.
            assert_eq!(unsafe { pool.is_cell_live(id) }, is_cell);
        }
        assert_eq!(pool.get(other), test_packet(), "other packets are untouched");
    }

    #[test]
    fn the_free_list_has_room_for_every_slot_when_all_are_taken_live() {
        let mut pool = PacketPool::default();
        let p = test_packet();
        for n in [1, 5, 33, 100] {
            let ids: Vec<_> = (0..n).map(|_| pool.put(&p)).collect();
            assert!(pool.free.capacity() >= pool.slots.len(), "`grow` reserves the free list");
            for id in ids.into_iter().rev() {
                // SAFETY: `id` is live: put above, taken only here.
                unsafe { pool.take_live(id) };
            }
            assert_eq!((pool.live(), pool.free.len()), (0, pool.slots.len()));
            assert_eq!(pool.free.last(), Some(&0), "the last freed slot is reused first");
        }
    }

    #[test]
    fn a_slot_is_one_line_and_keeps_every_field_of_a_packet() {
        assert_eq!(std::mem::size_of::<Slot>(), 64);
        // Same offsets, so that `put` and `get` are a few wide copies (see `Slot`).
        use std::mem::offset_of;
        let packet = [offset_of!(Packet, flow), offset_of!(Packet, tag), offset_of!(Packet, ts)];
        assert_eq!(packet, [offset_of!(Slot, flow), offset_of!(Slot, tag), offset_of!(Slot, ts)]);
        let packet = [offset_of!(Packet, cell), offset_of!(Packet, dir), offset_of!(Packet, ecn)];
        assert_eq!(packet, [offset_of!(Slot, cell), offset_of!(Slot, dir), offset_of!(Slot, ecn)]);
        let mut pool = PacketPool::default();
        let mut p = test_packet();
        (p.flow, p.route_pos, p.seq, p.ack, p.wnd, p.tag, p.ts) = (3, 4, 5, 6, 7, 8, 9);
        (p.dir, p.flags, p.retransmit, p.marked, p.ecn) = (Dir::Reverse, 0x12, true, true, Ecn::Ect0);
        p.cell = CellInfo { cells: 3, index: 1, pdu: 77 };
        let plain = pool.put(&p);
        assert_eq!(pool.get(plain), p);
        assert_eq!(pool.head(plain), PacketHead::of(&p));
        // A packet with SACK blocks, shard fields, or only a stale SACK block past n_sack.
        let mut sacked = p;
        (sacked.n_sack, sacked.sack[0]) = (1, SackBlock { left: 10, right: 20 });
        let mut coded = p;
        coded.shards = Shards { m: 8, start: 2, count: 3, held: 1, seg: 99, relative: true };
        let mut stale = p;
        stale.sack[2] = SackBlock { left: 1, right: 2 };
        let ids = [sacked, coded, stale].map(|q| pool.put(&q));
        for (id, q) in ids.iter().zip([sacked, coded, stale]) {
            assert_eq!(pool.get(*id), q);
        }
        assert_eq!(pool.get(plain), p, "a plain packet reads no other packet's cold part");
        pool.take(ids[0]);
        let reused = pool.put(&p);
        assert_eq!((reused, pool.get(reused)), (ids[0], p), "a reused slot forgets its SACK blocks");
        pool.mark_ce(reused);
        // SAFETY: `reused` is live (put above, not taken).
        assert!(unsafe { pool.is_cell_live(reused) }, "p is a cell of a 3-cell frame");
        // SAFETY: as above.
        unsafe { pool.advance(reused) };
        // SAFETY: `reused` is still live.
        assert_eq!(unsafe { pool.head_live(reused) }, pool.head(reused));
        let q = pool.get(reused);
        assert_eq!((q.ecn, q.route_pos), (Ecn::Ce, p.route_pos + 1));
    }
}
