//! ATM: AAL5 framing of packets into 53-byte cells, output-buffer drop policies and reassembly
//! (which hands on what arrived of a TCP Boston packet; its coding is `tcp::boston`).
//!
//! A packet that enters a cell link is cut into cells (each a `Packet` record with `cell`
//! set, carrying a copy of the header); cells cross switches one by one; where a cell link
//! ends at a node that is not a switch, AAL5 reassembles them into the packet again.

pub mod aal5;
pub mod drop;
pub mod runtime;

use crate::packet::Packet;

/// A hash map keyed by small integers (frame and VC numbers) with a multiplicative hash:
/// SipHash cost about 5% of a cell-level run (Goyal et al.'s satellite network), and these keys
/// come from the simulation, not from an adversary. Only lookups and order-free sums use
/// these maps, so the hasher cannot change a result.
pub type IntMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<IntHasher>>;

#[derive(Debug, Default, Clone, Copy)]
pub struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        // Fibonacci hashing: an odd multiplier spreads consecutive keys over high and low bits.
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Bytes of an ATM cell on the wire, and of its payload.
pub const CELL_BYTES: u32 = 53;
pub const CELL_PAYLOAD: u32 = 48;

/// How the receiving end finds a frame's end and tells a spoiled frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// Real AAL5: the last cell is marked in its header and carries the trailer, whose length
    /// and CRC-32 reject a frame that lost cells or swallowed another frame's cells.
    #[default]
    Aal5,
    /// Bestavros and Kim (1997), Sec. 3: "a special flag in the cell header is used to mark
    /// the last cell in a packet", with no trailer, hence no AAL length or CRC. The receiver
    /// reads the IP header in the frame's first cell (Sec. 2.4's AAL reads and rewrites IP
    /// headers) and checks the cell count its length gives; the TCP checksum rejects what
    /// that count cannot (another frame's cells in the right number).
    Flag,
}

/// AAL5 framing options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtmConfig {
    /// The 8-byte AAL5 trailer in the last cell (Bestavros and Kim (1997)'s simulator leaves it out).
    pub trailer: bool,
    /// The 8-byte LLC/SNAP encapsulation header (RFC 1483, counted by Goyal et al. (1998) Sec. 7).
    pub llc_snap: bool,
    /// Judge each frame alone, as a simulator that knows packet boundaries does; real AAL5
    /// (false) appends the cells after a lost last cell to the next frame and loses both.
    pub per_packet_frames: bool,
    /// Where the frame's end and integrity are read (the trailer is off under `Flag`).
    pub framing: Framing,
    /// Largest frame (bytes before padding and trailer) a reassembly buffer may hold; a
    /// buffer that grows past it is thrown away (ITU-T I.363.5's 65535-byte CPCS-SDU).
    pub max_frame: u32,
    /// A frame not complete this long after its first cell is thrown away (I.363.5's
    /// optional reassembly timer); None: no timer.
    pub reassembly_timeout: Option<crate::time::Dur>,
}

/// ITU-T I.363.5: the CPCS-SDU of AAL5 is at most 65535 bytes (its length field has 16 bits).
pub const AAL5_MAX_FRAME: u32 = 65535;

impl Default for AtmConfig {
    fn default() -> Self {
        Self {
            trailer: true,
            llc_snap: true,
            per_packet_frames: false,
            framing: Framing::Aal5,
            max_frame: AAL5_MAX_FRAME,
            reassembly_timeout: None,
        }
    }
}

impl AtmConfig {
    /// The most cells a frame of `max_frame` bytes fills, with its padding and trailer.
    pub fn max_cells(&self) -> u32 {
        (self.max_frame as u64 + 8 * self.trailer as u64).div_ceil(CELL_PAYLOAD as u64).min(u32::MAX as u64) as u32
    }

    /// Cells needed for one packet: a Boston packet is a header cell plus one cell per
    /// dispersal shard; any other packet is its bytes plus overheads, padded to 48.
    pub fn cells_for(&self, pkt: &Packet) -> u16 {
        if pkt.shards.m > 0 && pkt.payload > 0 {
            return 1 + pkt.shards.count;
        }
        let bytes = pkt.wire_bytes + 8 * self.trailer as u32 + 8 * self.llc_snap as u32;
        bytes.div_ceil(CELL_PAYLOAD).max(1) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(wire: u32) -> Packet {
        let mut p = crate::packet::test_packet();
        p.wire_bytes = wire;
        p
    }

    #[test]
    fn aal5_pads_to_whole_cells_with_optional_overheads() {
        let bare = AtmConfig { trailer: false, llc_snap: false, ..AtmConfig::default() };
        assert_eq!(bare.cells_for(&pkt(9180)), 192); // 191.25 -> 192
        assert_eq!(bare.cells_for(&pkt(40)), 1);
        let full = AtmConfig::default();
        assert_eq!(full.cells_for(&pkt(40)), 2); // 56 bytes
        assert_eq!(full.cells_for(&pkt(1064)), 23); // Goyal et al. (1998): 1024 + 40 + 16 = 1080 -> 23 cells
        assert_eq!(full.max_cells(), 1366); // 65535 + 8 = 65543 bytes -> 1365.5 cells
        assert_eq!(bare.max_cells(), 1366);
        assert_eq!(AtmConfig { max_frame: 960, ..bare }.max_cells(), 20);
    }
}
