//! FIFO queues limited in packets (or ATM cells) or in bytes, with their drop policy.
//!
//! The limit counts packets waiting, not the one being serialised (as in ns-2's DropTail).
//! Plain queues drop at the tail; cell queues ask their `CellDropper` (PPD, EPD, SD), which
//! also sees cells that go straight onto an idle link, so a frame being discarded stays
//! discarded.

use std::collections::VecDeque;

use crate::atm::drop::CellDropper;
use crate::packet::Packet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    /// IP bytes (`wire_bytes`) waiting.
    Bytes(u64),
}

#[derive(Debug, Clone)]
pub struct Queue {
    buf: VecDeque<Packet>,
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

    /// Enqueue a packet that `accepts` let in.
    pub fn push(&mut self, pkt: Packet) {
        if let Some(d) = &mut self.cells {
            d.on_enqueue(&pkt);
        }
        self.bytes += pkt.wire_bytes as u64;
        self.buf.push_back(pkt);
        self.peak_packets = self.peak_packets.max(self.buf.len());
    }

    /// Enqueue if there is room, or hand the packet back.
    pub fn admit(&mut self, pkt: Packet) -> Result<(), Packet> {
        if !self.accepts(&pkt, false) {
            return Err(pkt);
        }
        self.push(pkt);
        Ok(())
    }

    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.buf.pop_front()?;
        self.bytes -= p.wire_bytes as u64;
        if let Some(d) = &mut self.cells {
            d.on_dequeue(&p);
        }
        Some(p)
    }

    /// Waiting records that are ATM cells, and that are whole packets.
    pub fn split_counts(&self) -> (u64, u64) {
        let cells = self.buf.iter().filter(|p| p.cell.is_cell()).count() as u64;
        (self.buf.len() as u64 - cells, cells)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
