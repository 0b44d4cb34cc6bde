//! The sending end of a UDP flow: its source's packets, cut off at the flow's stop time or
//! byte count, as datagrams. Sans-IO like the TCP sender: it says when its next packet is
//! due and hands packets out; the simulation does the rest.

use super::source::Source;
use super::UdpConfig;
use crate::packet::{Dir, Packet, SackBlock, MAX_SACK_BLOCKS};
use crate::rng::Rng;
use crate::time::Time;

#[derive(Debug, Clone)]
pub struct UdpSender {
    source: Source,
    flow: u32,
    header_bytes: u32,
    start: Time,
    /// No packet leaves at or after this time.
    stop: Option<Time>,
    /// Payload bytes still allowed (a byte count); None: no limit.
    bytes_left: Option<u64>,
    /// The next packet: (time, payload bytes); None before the start and once the source is
    /// spent.
    next: Option<(Time, u32)>,
    started: bool,
    /// Packets and payload bytes sent.
    pub packets: u64,
    pub bytes: u64,
}

impl UdpSender {
    /// Flow `flow`'s sender, starting at `start`, stopping at `stop` or after `bytes` payload
    /// bytes, drawing from `rng`.
    pub fn new(cfg: &UdpConfig, flow: u32, start: Time, stop: Option<Time>, bytes: Option<u64>, rng: Rng) -> Self {
        Self {
            source: Source::new(cfg.source.clone(), rng),
            flow,
            header_bytes: cfg.header_bytes,
            start,
            stop,
            bytes_left: bytes,
            next: None,
            started: false,
            packets: 0,
            bytes: 0,
        }
    }

    /// The flow starts: draw its first packet.
    pub fn start(&mut self) {
        self.started = true;
        self.next = self.draw();
    }

    /// True once the source has sent everything it ever will.
    pub fn finished(&self) -> bool {
        self.started && self.next.is_none()
    }

    pub fn next_deadline(&self) -> Option<Time> {
        self.next.map(|(t, _)| t)
    }

    /// The next packet, if it is due by `now`.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let (at, size) = self.next.filter(|&(at, _)| at <= now)?;
        let pkt = datagram(self.flow, self.bytes, size, self.header_bytes, at);
        self.packets += 1;
        self.bytes += size as u64;
        if let Some(left) = &mut self.bytes_left {
            *left -= size as u64;
        }
        self.next = self.draw();
        Some(pkt)
    }

    /// The source's next packet, unless the stop time or the byte count ends the flow first;
    /// a byte count cuts the last packet to what is left.
    fn draw(&mut self) -> Option<(Time, u32)> {
        if self.bytes_left == Some(0) {
            return None;
        }
        let (after, size) = self.source.next()?;
        let at = self.start.saturating_add(after);
        if self.stop.is_some_and(|s| at >= s) {
            return None;
        }
        let size = self.bytes_left.map_or(size, |left| left.min(size as u64) as u32);
        Some((at, size))
    }

    /// The source's kind, for the report.
    pub fn kind(&self) -> &'static str {
        self.source.config().kind()
    }
}

/// A datagram of flow `flow` carrying payload bytes [offset, offset + size) of its stream,
/// sent at `now`. Its sequence number is the offset (mod 2^32): UDP has none on the wire, but
/// drop lists by offset or segment read it, and its send time rides in `ts` for the one-way
/// delay.
fn datagram(flow: u32, offset: u64, size: u32, header_bytes: u32, now: Time) -> Packet {
    Packet {
        flow,
        dir: Dir::Forward,
        route_pos: 0,
        seq: offset as u32,
        ack: 0,
        wnd: 0,
        payload: size,
        wire_bytes: size + header_bytes,
        flags: 0,
        n_sack: 0,
        retransmit: false,
        marked: false,
        ecn: crate::packet::Ecn::NotEct,
        sack: [SackBlock::default(); MAX_SACK_BLOCKS],
        tag: 0,
        cell: Default::default(),
        shards: Default::default(),
        ts: now,
    }
}
