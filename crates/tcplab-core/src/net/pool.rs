//! Storage for the packets inside channels; queues, transmitters and pipes hold 4-byte ids.
//!
//! Why: with thousands of flows, a packet's record is written when it enters a channel and
//! read when it leaves the pipe milliseconds later, long after it left the cache. Moving the
//! 84-byte record through a queue, the transmitter and the pipe by value cost a cache miss at
//! every step. Here the record is written once into a slot and read once on arrival; slots are
//! reused last-freed-first, so the slot a new packet gets is usually the one the packet that
//! just arrived was read from, still in the cache.

use crate::packet::Packet;

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

/// A slot spans whole 32-byte halves of cache lines, so a record touches two lines, not three.
#[derive(Debug, Clone, Copy)]
#[repr(align(32))]
struct Slot(Packet);

#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl PacketPool {
    pub fn put(&mut self, pkt: Packet) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Slot(pkt);
                PacketId(i)
            }
            None => {
                let grows = self.slots.len() == self.slots.capacity();
                self.slots.push(Slot(pkt));
                if grows {
                    // Read at random once it holds many flows' packets: huge pages, if any.
                    crate::cache::advise_huge_pages(&self.slots);
                }
                PacketId(self.slots.len() as u32 - 1)
            }
        }
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize].0
    }

    /// The record, to change in place (a queue marking it ECN CE at dequeue).
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize].0
    }

    /// Start loading the packet into the cache: it will be read soon.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        crate::cache::prefetch(&self.slots[id.0 as usize]);
    }

    /// Remove the packet; its id may be handed out again.
    pub fn take(&mut self, id: PacketId) -> Packet {
        self.free.push(id.0);
        self.slots[id.0 as usize].0
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
        let a = pool.put(p);
        p.seq = 7;
        let b = pool.put(p);
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.get(b).seq, 7);
        assert_eq!(pool.take(a).seq, 1);
        assert_eq!(pool.live(), 1);
        p.seq = 9;
        let c = pool.put(p);
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(pool.get(c).seq, 9);
        assert_eq!(pool.get(b).seq, 7, "other packets are untouched");
    }

    #[test]
    fn a_slot_stays_three_32_byte_halves() {
        // The packet grew from 84 to 88 bytes with its reservation mark and to 96 with ns's
        // timestamp; the slot it lives in on the hot path must not grow with it.
        assert!(std::mem::size_of::<crate::packet::Packet>() <= 96);
        assert_eq!(std::mem::size_of::<Slot>(), 96);
    }
}
