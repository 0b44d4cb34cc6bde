//! A one-event channel's drop-tail queue (`channel_one_event.rs`): the packets waiting stay
//! in the channel's pipe, and the queue only counts them and their bytes; its admission is
//! the room check alone, unless the queue keeps counters or traces.

use crate::packet::{Packet, PacketHead};
use crate::time::Time;

use super::{Admission, Queue};

impl Queue {
    /// `admit` on a one-event channel's queue (drop-tail: it accepts or refuses, never
    /// marks) of a packet of `wire_bytes`, whether it accepts. The room check inline, on the
    /// size alone; a queue that keeps counters or traces out of line, with the packet's record
    /// (`full`), so that its code does not crowd the offer's registers and the offer is passed
    /// no head (issue 26).
    #[inline(always)]
    pub fn admits_drop_tail(
        &mut self,
        now: Time,
        wire_bytes: u32,
        link_idle: bool,
        full: impl FnOnce() -> Packet,
    ) -> bool {
        debug_assert!(self.is_drop_tail());
        if self.plain {
            return self.admits_plain(wire_bytes, link_idle);
        }
        self.admits_watched(now, full(), link_idle)
    }

    /// Whether the queue keeps no counters or traces: `admits_drop_tail` is `admits_plain`.
    #[inline(always)]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// `admits_drop_tail` on a plain queue (`is_plain`), which needs no record of the packet.
    #[inline(always)]
    pub fn admits_plain(&self, wire_bytes: u32, link_idle: bool) -> bool {
        debug_assert!(self.is_drop_tail() && self.plain);
        link_idle || self.fits_size(wire_bytes)
    }

    /// `admits_drop_tail` on a queue that keeps counters or traces.
    #[cold]
    #[inline(never)]
    fn admits_watched(&mut self, now: Time, pkt: Packet, link_idle: bool) -> bool {
        self.admit(now, &PacketHead::of(&pkt), link_idle, || pkt) != Admission::Refused
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

#[cfg(test)]
mod tests {
    use super::super::QueueLimit;
    use super::*;
    use crate::packet::test_packet;
    use proptest::prelude::*;

    proptest! {
        /// `admits_drop_tail` is `admit`'s verdict on a drop-tail queue, plain or keeping a
        /// trace (its out-of-line path), limited in packets or bytes, with packets counted in
        /// and out between arrivals on a busy or an idle link.
        #[test]
        fn admits_drop_tail_is_admit(
            by_bytes in any::<bool>(),
            limit in 0u32..6_000,
            traced in any::<bool>(),
            arrivals in prop::collection::vec((1u32..1_600, any::<bool>(), 0u8..3), 1..60),
        ) {
            let limit = if by_bytes { QueueLimit::Bytes(limit as u64) } else { QueueLimit::Packets(limit % 8) };
            let (mut fast, mut model) = (Queue::new(limit), Queue::new(limit));
            if traced {
                fast.keep_trace();
                model.keep_trace();
            }
            prop_assert_eq!(fast.plain, !traced);
            let mut waiting = std::collections::VecDeque::new();
            for (t, (bytes, idle, step)) in arrivals.into_iter().enumerate() {
                let mut p = test_packet();
                p.wire_bytes = bytes;
                let head = PacketHead::of(&p);
                let now = t as Time;
                let ok = fast.admits_drop_tail(now, bytes, idle, || p);
                prop_assert_eq!(ok, model.admit(now, &head, idle, || p) != super::super::Admission::Refused);
                if ok && !idle {
                    fast.enter_counted(bytes);
                    model.enter_counted(bytes);
                    waiting.push_back(bytes);
                }
                if step == 0 {
                    if let Some(b) = waiting.pop_front() {
                        fast.leave_counted(b);
                        model.leave_counted(b);
                    }
                }
                prop_assert_eq!((fast.len(), fast.counted()), (waiting.len(), waiting.len() as u32));
            }
        }
    }
}
