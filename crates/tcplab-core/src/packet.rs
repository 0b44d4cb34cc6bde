//! The packet record that moves through the network: a TCP/IP header summary, no payload.
//!
//! Packets are small `Copy` values moved between queues, so the hot path never allocates.
//! Payload bytes are not carried; instead each data segment carries `tag`, a digest of the
//! stream range it claims to hold, which the receiver checks to prove byte-exact delivery.

/// TCP flag bits, as in the TCP header.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    /// ECN-Echo (RFC 3168 sec. 6.1): on an ACK, congestion was experienced; on a SYN (with
    /// CWR), the opener asks for ECN; on a SYN-ACK (alone), the acceptor agrees.
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced (RFC 3168 sec. 6.1.2): the sender has reduced its window.
    pub const CWR: u8 = 0x80;
}

/// The IP header's ECN field (RFC 3168 sec. 5), with its codepoints as values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-Capable Transport (00): a queue drops it rather than marks it.
    #[default]
    NotEct = 0b00,
    /// ECT(1) (01): not sent by tcplab's TCP, listed for completeness.
    Ect1 = 0b01,
    /// ECT(0) (10): what an ECN-capable TCP sets on its new data segments.
    Ect0 = 0b10,
    /// Congestion Experienced (11): set by a queue instead of dropping an ECT packet.
    Ce = 0b11,
}

impl Ecn {
    /// ECN-capable: ECT(0), ECT(1) or already CE (a CE packet may be marked again).
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// Up to this many SACK blocks fit in a segment (with timestamps off; RFC 2018).
pub const MAX_SACK_BLOCKS: usize = 3;

/// One SACK block: wire sequence numbers [left, right).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub left: u32,
    pub right: u32,
}

/// Which end of a flow a packet is addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// From the data sender to the data receiver (data, SYN from the sender).
    Forward,
    /// From the data receiver back to the sender (ACKs, SYN from the receiver).
    Reverse,
}

/// ATM fields: set when this record is one cell of an AAL5 frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellInfo {
    /// Cells in the frame; 0 means this record is a whole packet, not a cell.
    pub cells: u16,
    /// This cell's position in its frame (0-based); the last one ends the frame.
    pub index: u16,
    /// The frame's id, unique in a run.
    pub pdu: u32,
}

impl CellInfo {
    /// A whole packet, not a cell (`Default`, as a constant).
    pub const NONE: CellInfo = CellInfo { cells: 0, index: 0, pdu: 0 };

    pub fn is_cell(&self) -> bool {
        self.cells > 0
    }
    pub fn is_last(&self) -> bool {
        self.index + 1 == self.cells
    }
}

/// TCP Boston fields (Bestavros and Kim 1997, Sec. 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shards {
    /// Shards per complete segment (m); 0 for a packet that is not Boston-coded.
    pub m: u16,
    /// This packet carries dispersal shards [start, start + count), one per cell after the
    /// header cell.
    pub start: u16,
    pub count: u16,
    /// On an ACK: the receiver holds `held` distinct shards of the segment starting at wire
    /// sequence number `seg` (a partial ACK); 0 otherwise.
    pub held: u16,
    pub seg: u32,
    /// Bitmap variant (Bestavros and Kim 1997, Sec. 2.5): the cells carry the first `count` blocks that were
    /// still missing after the receiver's first `start` arrivals, instead of shards
    /// [start, start + count).
    pub relative: bool,
}

/// A packet's record. `repr(C)`, in this order, so that its first 54 bytes are what every
/// hop and endpoint reads, laid out as the pool's 64-byte slot keeps them (`net/pool.rs`):
/// storing a packet and rebuilding it are then a few wide copies, not one per field, and the
/// rarely set SACK blocks and Boston shard fields come last, apart (issue 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct Packet {
    pub flow: u32,
    /// Position in the simulation's route arena of the next link to take.
    pub route_pos: u32,
    /// Wire sequence number of the first byte (or of the SYN).
    pub seq: u32,
    /// Wire acknowledgement number (meaningful with `flags::ACK`).
    pub ack: u32,
    /// Advertised receive window in bytes, before window scaling.
    pub wnd: u32,
    /// TCP payload bytes.
    pub payload: u32,
    /// Bytes on the wire at the IP layer: payload + IP/TCP headers (+ options).
    pub wire_bytes: u32,
    /// Digest of the stream range carried, checked at the receiver.
    pub tag: u32,
    /// ns's timestamp (hdr_tcp ts_): a data segment carries its send time, an ACK echoes the
    /// send time of the segment that triggered it, for senders that sample the RTT on every
    /// ACK (`rtt_sample = "timestamp"`, tcp/rtt_ns1.rs). Not counted in `wire_bytes`: ns
    /// carried it in its packet header at no cost.
    pub ts: crate::time::Time,
    pub cell: CellInfo,
    pub dir: Dir,
    pub flags: u8,
    pub n_sack: u8,
    /// True when this data segment resends bytes sent before (for counters and traces).
    pub retransmit: bool,
    /// Sent with tokens from its flow's token bucket (conformant to a reservation); carried in
    /// the IP header's DS field.
    pub marked: bool,
    /// The IP header's ECN field.
    pub ecn: Ecn,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub shards: Shards,
}

/// Where an end's poll writes the packet it sends. The simulation's sink writes it straight
/// into the pool slot it will live in (`sim/pump.rs`), so the record is stored once, from the
/// values the end computed: built on the stack field by field and then copied whole, each
/// 16-byte load of the copy waited for the narrow stores before it to retire (a failed store
/// forward: a third of a data segment's build and of an ACK's, issue 26). A unit test's sink
/// is an `Option` (`poll_transmit`).
pub trait PacketSink {
    fn send(&mut self, p: Packet);
}

impl PacketSink for Option<Packet> {
    #[inline(always)]
    fn send(&mut self, p: Packet) {
        *self = Some(p);
    }
}

/// What a hop reads of a packet to admit and route it: a queue's decision (size, flow,
/// direction, cell, mark, ECN) and the next step of its route. The pool hands this out read
/// in place from a packet's slot (`PacketPool::head`), so admission does not rebuild the
/// whole 96-byte `Packet` (issue 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketHead {
    pub flow: u32,
    pub dir: Dir,
    pub route_pos: u32,
    pub wire_bytes: u32,
    pub cell: CellInfo,
    pub marked: bool,
    pub ecn: Ecn,
}

impl PacketHead {
    /// No packet: a sink's head before anything is sent.
    pub const NONE: PacketHead = PacketHead {
        flow: 0,
        dir: Dir::Forward,
        route_pos: 0,
        wire_bytes: 0,
        cell: CellInfo::NONE,
        marked: false,
        ecn: Ecn::NotEct,
    };

    #[inline(always)]
    pub fn of(p: &Packet) -> Self {
        Self {
            flow: p.flow,
            dir: p.dir,
            route_pos: p.route_pos,
            wire_bytes: p.wire_bytes,
            cell: p.cell,
            marked: p.marked,
            ecn: p.ecn,
        }
    }
}

impl Packet {
    /// A bare 40-byte ACK of flow 0 acknowledging stream offset `off` with window `wnd`, as a
    /// receiver whose ISN is 0 sends it: the one packet sender tests feed segment by segment.
    pub fn test_ack(off: u64, wnd: u32) -> Packet {
        Packet {
            flow: 0,
            dir: Dir::Reverse,
            route_pos: 0,
            seq: 1,
            ack: (off as u32).wrapping_add(1),
            wnd,
            payload: 0,
            wire_bytes: 40,
            flags: flags::ACK,
            n_sack: 0,
            retransmit: false,
            marked: false,
            ecn: Ecn::NotEct,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            tag: 0,
            cell: Default::default(),
            shards: Default::default(),
            ts: 0,
        }
    }

    pub fn is_syn(&self) -> bool {
        self.flags & flags::SYN != 0
    }
    pub fn has_ack(&self) -> bool {
        self.flags & flags::ACK != 0
    }
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
    /// The IPv4 TOS/DS byte: a marked packet carries DSCP AF11 (001010, byte 0x28), the
    /// lowest-drop-precedence class of RFC 2597; an unmarked one the default 0. The low two
    /// bits are the ECN field (RFC 3168 sec. 5).
    pub fn ds_byte(&self) -> u8 {
        let ds = if self.marked { 0x28 } else { 0 };
        ds | self.ecn as u8
    }
}

/// Digest of stream bytes [offset, offset+len) of flow `flow`.
///
/// The simulated payload of byte i of a flow is a function of (flow, i); a segment's digest
/// depends only on its range, so a receiver that places a segment at the wrong offset, or
/// delivers a range that was never sent, fails the check.
pub fn payload_tag(flow: u32, offset: u64, len: u32) -> u32 {
    let mut z = (flow as u64) << 40 ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (len as u64) << 20;
    z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (z ^ (z >> 29)) as u32
}

/// A blank data packet for unit tests.
#[cfg(test)]
pub fn test_packet() -> Packet {
    Packet {
        flow: 0,
        dir: Dir::Forward,
        route_pos: 0,
        seq: 1,
        ack: 1,
        wnd: 65535,
        payload: 1000,
        wire_bytes: 1040,
        flags: flags::ACK,
        n_sack: 0,
        retransmit: false,
        marked: false,
        ecn: Ecn::NotEct,
        sack: [SackBlock::default(); MAX_SACK_BLOCKS],
        tag: 0,
        cell: CellInfo::default(),
        shards: Shards::default(),
        ts: 0,
    }
}
