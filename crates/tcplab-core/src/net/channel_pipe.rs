//! A channel's propagation pipe (`Channel::pipe`): the packets behind the pipe's head, in
//! arrival order, in a ring whose size is a power of two.
//!
//! Every packet goes through it at every hop (pushed at its departure, or at its admission on
//! a one-event channel; popped at the arrival before it), and a one-event channel reads its
//! last entry at each admission behind a busy link and its waiting packets' entries at their
//! starts. A `VecDeque` works out each position with a compare and a conditional subtraction
//! against its capacity, and checks bounds; here a position is a mask, and the counters are
//! 32 bits (issue 26: 17 instructions per packet at 100 flows).

use super::InFlight;

#[derive(Debug, Clone)]
pub(super) struct Pipe {
    /// The ring; its length is a power of two, `mask + 1` (one slot before the first
    /// growth: never empty, so that every masked position is in it).
    slots: Box<[InFlight]>,
    /// The position of the first packet, counted on without wrapping to the ring's size (the
    /// ring's position is the low bits: the size divides 2^32).
    first: u32,
    /// Packets in the pipe.
    len: u32,
    /// The ring's size less one.
    mask: u32,
}

impl Pipe {
    pub(super) fn new() -> Self {
        Pipe { slots: Box::new([InFlight::NONE]), first: 0, len: 0, mask: 0 }
    }

    /// Packets in the pipe.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The slot of the packet `i` places behind the first.
    #[inline(always)]
    fn slot(&self, i: u32) -> usize {
        (self.first.wrapping_add(i) & self.mask) as usize
    }

    /// The packet `i` places behind the first (`i < len`).
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> InFlight {
        assert!(i < self.len(), "pipe position {i} of {}", self.len);
        // SAFETY: the pipe holds a packet, so the ring is not empty: its length is `mask + 1`
        // and a slot (masked) is below it.
        unsafe { *self.slots.get_unchecked(self.slot(i as u32)) }
    }

    /// `get` with no bounds check (`i < len`, checked in debug builds): the one-event offer
    /// reads its first waiting packet with no panic to reach, and so with no frame to set
    /// up for one (issue 26).
    #[inline(always)]
    pub(super) fn get_masked(&self, i: usize) -> InFlight {
        debug_assert!(i < self.len(), "pipe position {i} of {}", self.len);
        // SAFETY: the ring is never empty: its length is `mask + 1`, and a slot (masked) is
        // below it.
        unsafe { *self.slots.get_unchecked(self.slot(i as u32)) }
    }

    /// The last packet.
    #[inline(always)]
    pub(super) fn back(&self) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: as `get`, of a pipe that holds a packet.
        Some(unsafe { *self.slots.get_unchecked(self.slot(self.len - 1)) })
    }

    /// Whether a `push_back` would grow the ring.
    #[inline(always)]
    pub(super) fn is_full(&self) -> bool {
        self.len() == self.slots.len()
    }

    /// `push_back` into a ring with room (`!is_full()`, checked in debug builds): no
    /// growth to call, so that the one-event offer, which checks for room before anything
    /// else, keeps nothing across a call (issue 26).
    #[inline(always)]
    pub(super) fn push_back_with_room(&mut self, f: InFlight) {
        debug_assert!(!self.is_full(), "a push into a full pipe of {}", self.len);
        let slot = self.slot(self.len);
        // SAFETY: the ring is never empty, and a slot (masked) is below its length.
        unsafe { *self.slots.get_unchecked_mut(slot) = f };
        self.len += 1;
    }

    /// Append `f`, growing the ring first if it is full.
    #[inline(always)]
    pub(super) fn push_back(&mut self, f: InFlight) {
        if self.is_full() {
            self.grow(1);
        }
        self.push_back_with_room(f);
    }

    #[inline(always)]
    pub(super) fn pop_front(&mut self) -> Option<InFlight> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: as `get`, of a pipe that holds a packet.
        let f = unsafe { *self.slots.get_unchecked(self.slot(0)) };
        (self.first, self.len) = (self.first.wrapping_add(1), self.len - 1);
        Some(f)
    }

    /// The packets, first to arrive first.
    pub(super) fn iter(&self) -> impl Iterator<Item = InFlight> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Room for `n` more packets without growing.
    pub(super) fn reserve(&mut self, n: usize) {
        if self.len() + n > self.slots.len() {
            self.grow(n);
        }
    }

    /// A ring of the next power of two with room for `n` more packets (at least twice the
    /// size), the packets moved to its start in order.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        let size = (self.len() + n).max(2 * self.slots.len()).max(4).next_power_of_two();
        assert!(size <= 1 << 31, "a channel's pipe of {size} packets");
        let mut slots = vec![InFlight::NONE; size].into_boxed_slice();
        for (i, f) in self.iter().enumerate() {
            slots[i] = f;
        }
        (self.slots, self.first, self.mask) = (slots, 0, size as u32 - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::pool::PacketId;
    use crate::net::route::Onward;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    fn packet(n: u32) -> InFlight {
        InFlight { at: n as u64 * 7, id: PacketId::for_test(n), next: Onward::for_test(n) }
    }

    fn key(f: InFlight) -> (u64, PacketId, Onward) {
        (f.at, f.id, f.next)
    }

    proptest! {
        /// The ring is a `VecDeque`: pushes (growing or into room), pops, reservations
        /// (growing with packets wrapped around the ring's end), the last packet and every
        /// position (checked or masked), against one.
        #[test]
        fn the_pipe_is_a_fifo(ops in prop::collection::vec((0u8..4, 0usize..40), 1..400), first in any::<u32>()) {
            let (mut pipe, mut model, mut n) = (Pipe::new(), VecDeque::new(), 0u32);
            pipe.first = first; // the counters wrap past 2^32
            for (op, k) in ops {
                match op {
                    0 | 1 => {
                        for _ in 0..k % 5 + 1 {
                            if op == 1 && !pipe.is_full() {
                                pipe.push_back_with_room(packet(n));
                            } else {
                                pipe.push_back(packet(n));
                            }
                            model.push_back(packet(n));
                            n += 1;
                        }
                    }
                    2 => {
                        for _ in 0..k % 4 + 1 {
                            prop_assert_eq!(pipe.pop_front().map(key), model.pop_front().map(key));
                        }
                    }
                    _ => pipe.reserve(k),
                }
                prop_assert_eq!(pipe.len(), model.len());
                prop_assert_eq!(pipe.back().map(key), model.back().copied().map(key));
                let all: Vec<_> = pipe.iter().map(key).collect();
                let expected: Vec<_> = model.iter().copied().map(key).collect();
                prop_assert_eq!(all, expected);
                for i in 0..pipe.len() {
                    prop_assert_eq!(key(pipe.get_masked(i)), key(pipe.get(i)));
                }
            }
        }
    }

    #[test]
    #[should_panic]
    fn a_position_past_the_last_packet_panics() {
        let mut pipe = Pipe::new();
        pipe.push_back(packet(1));
        pipe.get(1);
    }
}
