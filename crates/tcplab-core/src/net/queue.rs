//! Drop-tail FIFO queues limited in packets or in bytes.
//!
//! The limit counts packets waiting, not the one being serialised (as in ns-2's DropTail).

use std::collections::VecDeque;

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
    /// Largest number of packets ever waiting.
    pub peak_packets: usize,
}

impl Queue {
    pub fn new(limit: QueueLimit) -> Self {
        Self { buf: VecDeque::new(), bytes: 0, limit, peak_packets: 0 }
    }

    /// Enqueue, or hand the packet back if the queue is full.
    pub fn admit(&mut self, pkt: Packet) -> Result<(), Packet> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.buf.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + pkt.wire_bytes as u64 <= b,
        };
        if !fits {
            return Err(pkt);
        }
        self.bytes += pkt.wire_bytes as u64;
        self.buf.push_back(pkt);
        self.peak_packets = self.peak_packets.max(self.buf.len());
        Ok(())
    }

    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.buf.pop_front()?;
        self.bytes -= p.wire_bytes as u64;
        Some(p)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
