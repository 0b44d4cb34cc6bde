//! TCP Boston (Bestavros and Kim 1997, Secs. 2.3-2.5): the codec that turns a segment into
//! ATM-cell shards at the sender and rebuilds it from whichever shards arrive at the receiver.
//! Its rules all live here; the sender, the receiver and the simulation only call in.
//!
//! A segment of b payload bytes is m = ceil(b / 47) shards; the first transmission carries
//! n = m + redundancy of them. A partial ACK reports how many distinct shards the receiver
//! holds (r); the next retransmission of that segment carries m - r shards never sent before
//! ("fresh"), so every cell that gets through is useful. A partial ACK is a duplicate ACK to
//! the congestion control: it never grows the window, and three of them trigger fast
//! retransmit. Segments are the MSS-aligned pieces of the stream, always sent whole.
//!
//! When those fresh shards leave is the `Partial` knob: at the next retransmission (Sec. 2.3:
//! "a single *new* packet that will be transmitted at the next retransmission time"), or at
//! once on the partial ACK for the first unacknowledged segment (Sec. 2.1: "to such an
//! acknowledgment, the sender would respond by sending a packet of (m - r) fresh cells").
//!
//! Two codecs (the `codec` knob; "plain" is no Boston at all):
//! - `ida.rs`, "boston": the shards are the Information Dispersal Algorithm's, any m of N
//!   rebuild the segment (`dispersal.rs` has the GF(2^8) arithmetic);
//! - `bitmap.rs`, "boston_bitmap" (Sec. 2.5): no coding, the shards are the segment's own
//!   blocks and a retransmission carries exactly the blocks the receiver reported missing.
//!
//! `tx.rs` is the sender's half (which shards a packet carries, what a partial ACK asks for),
//! `rx.rs` the receiver's (collecting shards until a segment is rebuilt, and checking that a
//! segment rebuilt from coded shards decodes to the bytes sent).

mod bitmap;
pub mod dispersal;
mod ida;
mod rx;
mod tx;

pub use rx::{BostonRx, Progress};
pub use tx::{BostonCounters, BostonTx};

use std::collections::BTreeMap;

use dispersal::Geometry;

/// What a partial ACK makes the sender do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Partial {
    /// Nothing at once: it is a duplicate ACK, and the fresh shards go out with the next
    /// retransmission (fast retransmit or the timer).
    #[default]
    Wait,
    /// Send the first unacknowledged segment's m - r fresh shards at once, once per count r.
    Fresh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BostonConfig {
    /// Extra shards sent with each segment's first transmission (n - m); 0 in the paper.
    pub redundancy: u16,
    /// N as a multiple of m: how many distinct shards a segment has.
    pub dispersal_factor: u16,
    /// The alternate implementation of Sec. 2.5: block bitmaps instead of coding.
    pub bitmap: bool,
    /// Check the bytes of every k-th segment of a flow that needed coded shards by really
    /// decoding it (1: every one). Decoding a 196-shard segment costs milliseconds.
    pub verify_every: u32,
    /// When the fresh shards a partial ACK asks for leave.
    pub partial: Partial,
}

impl Default for BostonConfig {
    fn default() -> Self {
        Self { redundancy: 0, dispersal_factor: 2, bitmap: false, verify_every: 1, partial: Partial::Wait }
    }
}

impl BostonConfig {
    /// The codec this configuration runs.
    pub fn codec(&self) -> Codec {
        if self.bitmap {
            Codec::Bitmap
        } else {
            Codec::Ida
        }
    }

    /// How a segment of `len` payload bytes is dispersed (m, N, bytes per shard).
    pub fn geometry(&self, len: u32) -> Geometry {
        match self.codec() {
            Codec::Ida => ida::geometry(self, len),
            Codec::Bitmap => bitmap::geometry(len),
        }
    }
}

/// The closed set of Boston codecs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// Information dispersal: any m of N shards rebuild a segment (`ida.rs`).
    Ida,
    /// Block bitmaps: a segment's own m blocks, resent by name (`bitmap.rs`).
    Bitmap,
}

/// Drop the segments (keyed by stream offset) that start below `offset`.
fn forget_below<V>(segs: &mut BTreeMap<u64, V>, offset: u64) {
    while segs.first_key_value().is_some_and(|(&off, _)| off < offset) {
        segs.pop_first();
    }
}
