//! FIFO queues limited in packets (or ATM cells) or in bytes, with their drop policy.
//!
//! The limit counts packets waiting, not the one being serialised (as in ns-2's DropTail).
//! Plain queues drop at the tail; cell queues ask their `CellDropper` (PPD, EPD, SD), which
//! also sees cells that go straight onto an idle link, so a frame being discarded stays
//! discarded.
//!
//! The queue holds packet ids (the records stay in the `PacketPool`) with the two facts it
//! needs when a packet leaves, so that serving a queue never reads the packet itself.

use std::collections::VecDeque;

use crate::atm::drop::{vc_of, CellDropper};
use crate::packet::Packet;

use super::pool::PacketId;

/// A waiting packet: its id, its size, and its virtual circuit (for cell policies).
#[derive(Debug, Clone, Copy)]
pub struct Waiting {
    pub id: PacketId,
    pub wire_bytes: u32,
    vc: u32,
}

impl Waiting {
    pub fn new(id: PacketId, pkt: &Packet) -> Self {
        Self { id, wire_bytes: pkt.wire_bytes, vc: vc_of(pkt) as u32 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    /// IP bytes (`wire_bytes`) waiting.
    Bytes(u64),
}

#[derive(Debug, Clone)]
pub struct Queue {
    buf: VecDeque<Waiting>,
    bytes: u64,
    limit: QueueLimit,
    /// Boxed: most queues are not cell queues, and a small queue keeps channels cache-friendly.
    cells: Option<Box<CellDropper>>,
    /// Largest number of packets ever waiting.
    pub peak_packets: usize,
}

impl Queue {
    pub fn new(limit: QueueLimit) -> Self {
        Self { buf: VecDeque::new(), bytes: 0, limit, cells: None, peak_packets: 0 }
    }

    /// A queue of ATM cells whose drops `dropper` decides.
    pub fn with_cell_policy(limit: QueueLimit, dropper: CellDropper) -> Self {
        Self { cells: Some(Box::new(dropper)), ..Self::new(limit) }
    }

    fn fits(&self, pkt: &Packet) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.buf.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + pkt.wire_bytes as u64 <= b,
        }
    }

    /// Whether an arriving packet may stay (on an idle link it goes straight on).
    pub fn accepts(&mut self, pkt: &Packet, link_idle: bool) -> bool {
        match &mut self.cells {
            Some(d) => {
                let occupancy = if link_idle { 0 } else { self.buf.len() };
                d.admit(pkt, occupancy) && (link_idle || self.fits(pkt))
            }
            None => link_idle || self.fits(pkt),
        }
    }

    /// Enqueue `pkt`, stored as `id`, after `accepts` let it in.
    pub fn push(&mut self, id: PacketId, pkt: &Packet) {
        let w = Waiting::new(id, pkt);
        if let Some(d) = &mut self.cells {
            d.on_enqueue(w.vc);
        }
        self.bytes += w.wire_bytes as u64;
        self.buf.push_back(w);
        self.peak_packets = self.peak_packets.max(self.buf.len());
    }

    pub fn pop(&mut self) -> Option<Waiting> {
        let w = self.buf.pop_front()?;
        self.bytes -= w.wire_bytes as u64;
        if let Some(d) = &mut self.cells {
            d.on_dequeue(w.vc);
        }
        Some(w)
    }

    /// The ids of the waiting packets, first to leave first.
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.buf.iter().map(|w| w.id)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
