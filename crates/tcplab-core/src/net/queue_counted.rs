//! A one-event channel's drop-tail queue (`channel_one_event.rs`): the packets waiting stay
//! in the channel's pipe, and the queue only counts them and their bytes; its admission is
//! the room check alone, unless the queue keeps counters or traces.

use crate::packet::{Packet, PacketHead};
use crate::time::Time;

use super::{Admission, Queue};

impl Queue {
    /// `admit` on a one-event channel's queue (drop-tail: it accepts or refuses, never
    /// marks), whether it accepts. The room check inline; a queue that keeps counters or
    /// traces out of line, so that its code does not crowd the offer's registers (issue 26).
    #[inline(always)]
    pub fn admits_drop_tail(
        &mut self,
        now: Time,
        pkt: &PacketHead,
        link_idle: bool,
        full: impl FnOnce() -> Packet,
    ) -> bool {
        debug_assert!(self.is_drop_tail());
        if self.plain {
            return link_idle || self.fits(pkt);
        }
        self.admits_watched(now, pkt, link_idle, full)
    }

    /// `admits_drop_tail` on a queue that keeps counters or traces.
    #[cold]
    #[inline(never)]
    fn admits_watched(&mut self, now: Time, pkt: &PacketHead, link_idle: bool, full: impl FnOnce() -> Packet) -> bool {
        self.admit(now, pkt, link_idle, full) != Admission::Refused
    }

    /// A packet of `wire_bytes` waits on a drop-tail queue, kept by the caller (a one-event
    /// channel's pipe) rather than in `buf`: counted for admission, `len`, the peak and the
    /// traces as `push_waiting` counts it, with no buffer to write (issue 26).
    #[inline]
    pub fn enter_counted(&mut self, wire_bytes: u32) {
        debug_assert!(self.is_drop_tail() && self.buf.is_empty());
        self.counted += 1;
        self.bytes += wire_bytes as u64;
        self.peak_packets = self.peak_packets.max(self.counted as usize);
    }

    /// The first of the packets `enter_counted` counted, of `wire_bytes`, leaves (it starts).
    #[inline]
    pub fn leave_counted(&mut self, wire_bytes: u32) {
        self.counted -= 1;
        self.bytes -= wire_bytes as u64;
    }

    /// How many packets `enter_counted` counts waiting.
    #[inline]
    pub fn counted(&self) -> u32 {
        self.counted
    }
}
