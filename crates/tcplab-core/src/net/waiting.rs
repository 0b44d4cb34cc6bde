//! A packet waiting in a channel's queue or on its wire: the 16-byte record a channel moves
//! per packet (`queue.rs`, `channel.rs`).

use crate::atm::drop::vc_of_flow;
use crate::packet::PacketHead;

use super::pool::PacketId;
use super::route::Onward;

/// A waiting packet: its id, its size, its virtual circuit (for cell policies), and where it
/// goes after this channel (`Onward`: the next channel, or its flow's end). The far end reads
/// that from the pipe, so it can load the next channel's record or the flow's state while the
/// packet's own record is still on its way from memory (`Simulation::on_arrive`).
///
/// Built from registers where it is stored (the queue's buffer, the transmitter's slot):
/// never passed by reference to a call that is not inlined. A 16-byte record passed so is
/// built on the stack with four 4-byte stores and copied on with one 16-byte load, which
/// cannot be forwarded from them and waits until they reach the cache: a stall on every
/// packet offered (`Queue::push_waiting` passes the fields instead; issue 26).
#[derive(Debug, Clone, Copy)]
pub struct Waiting {
    pub id: PacketId,
    pub wire_bytes: u32,
    pub(super) vc: u32,
    pub next: Onward,
}

impl Waiting {
    /// The transmitter's slot when it sends nothing.
    pub const NONE: Waiting = Waiting { id: PacketId::NONE, wire_bytes: 0, vc: 0, next: Onward::NONE };

    pub fn new(id: PacketId, pkt: &PacketHead, next: Onward) -> Self {
        Self { id, wire_bytes: pkt.wire_bytes, vc: vc_of_flow(pkt.flow, pkt.dir) as u32, next }
    }

    /// A waiting packet of `bytes` with made-up id `n`, for a discipline's unit tests.
    #[cfg(test)]
    pub(crate) fn for_test(n: u32, bytes: u32) -> Self {
        Self { id: PacketId::for_test(n), wire_bytes: bytes, vc: 0, next: Onward::NONE }
    }
}
