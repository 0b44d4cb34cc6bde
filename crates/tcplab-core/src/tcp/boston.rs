//! TCP Boston's segment management (Bestavros and Kim 1997, Secs. 2.3-2.5): the sender's choice of which
//! dispersal shards a packet carries, and the receiver's collection of shards until a
//! segment can be rebuilt.
//!
//! A segment of b payload bytes is m = ceil(b / 47) shards; the first transmission carries
//! n = m + redundancy of them. A partial ACK reports how many distinct shards the receiver
//! holds (r); the next retransmission of that segment carries m - r shards never sent before
//! ("fresh"), so every cell that gets through is useful. A partial ACK is a duplicate ACK to
//! the congestion control: it never grows the window, and three of them trigger fast
//! retransmit. The bitmap variant sends no coded shards: a retransmission carries exactly
//! the blocks the receiver reported missing.
//!
//! When those fresh shards leave is the `Partial` knob: at the next retransmission (Sec. 2.3:
//! "a single *new* packet that will be transmitted at the next retransmission time"), or at
//! once on the partial ACK for the first unacknowledged segment (Sec. 2.1: "to such an
//! acknowledgment, the sender would respond by sending a packet of (m - r) fresh cells").

use std::collections::BTreeMap;

use crate::atm::ida::Geometry;
use crate::packet::{Packet, Shards};

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
    /// Check the bytes of every k-th segment that needed coded shards by really decoding it
    /// (1: every one). Decoding a 196-shard segment costs milliseconds.
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
    /// How a segment of `len` payload bytes is dispersed (m, N, bytes per shard).
    pub fn geometry(&self, len: u32) -> Geometry {
        if self.bitmap {
            // No coding: the blocks are the data itself, named by a 1-byte id.
            return Geometry::for_segment(len, 1, 0);
        }
        Geometry::for_segment(len, self.dispersal_factor as usize, self.redundancy as usize)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct TxSeg {
    /// Shards the receiver last said it holds.
    held: u16,
    /// Next shard never sent.
    next_fresh: u16,
    /// The largest count r already answered with fresh shards at once (`Partial::Fresh`).
    answered: u16,
}

/// The sender's side: per unacknowledged segment, what the receiver holds.
#[derive(Debug, Clone, Default)]
pub struct BostonTx {
    segs: BTreeMap<u64, TxSeg>,
}

impl BostonTx {
    /// The shards a packet of segment [offset, offset + len) carries.
    pub fn shards(&mut self, cfg: &BostonConfig, offset: u64, len: u32, first: bool) -> Shards {
        let g = cfg.geometry(len);
        let (m, n) = (g.m as u16, g.n as u16);
        if first {
            let count = (m + if cfg.bitmap { 0 } else { cfg.redundancy }).min(n);
            self.segs.insert(offset, TxSeg { held: 0, next_fresh: count, answered: 0 });
            return Shards { m, start: 0, count, ..Shards::default() };
        }
        let seg = self.segs.entry(offset).or_insert(TxSeg { held: 0, next_fresh: m, answered: 0 });
        let need = m.saturating_sub(seg.held).max(1);
        if cfg.bitmap {
            return Shards { m, start: seg.held, count: need, relative: true, ..Shards::default() };
        }
        // Fresh shards while they last (N is twice m by default, so that takes many
        // rounds); then the coded shards again from the first, which the receiver holds only
        // if they got through before.
        let mut start = seg.next_fresh;
        if start as usize + need as usize > n as usize {
            start = if need <= n - m { m } else { 0 };
        }
        seg.next_fresh = start + need;
        Shards { m, start, count: need, ..Shards::default() }
    }

    pub fn on_partial_ack(&mut self, offset: u64, held: u16) {
        let seg = self.segs.entry(offset).or_default();
        seg.held = seg.held.max(held);
    }

    /// True the first time the receiver's count for segment `offset` reaches `held`: a
    /// partial ACK repeating a count already answered must not send the same shards' worth
    /// again (the receiver's count only grows).
    pub fn answer_partial(&mut self, offset: u64, held: u16) -> bool {
        let seg = self.segs.entry(offset).or_default();
        let new = held > seg.answered;
        seg.answered = seg.answered.max(held);
        new
    }

    /// Forget segments below the cumulative ACK.
    pub fn forget_below(&mut self, snd_una: u64) {
        while let Some((&off, _)) = self.segs.first_key_value() {
            if off >= snd_una {
                break;
            }
            self.segs.pop_first();
        }
    }
}

#[derive(Debug, Clone)]
struct RxSeg {
    m: u16,
    len: u32,
    /// Distinct shard ids, in the order they arrived (the bitmap variant reads the missing
    /// blocks the sender was told about from a prefix of it).
    arrivals: Vec<u16>,
    /// Bit set of the ids held.
    have: Vec<u64>,
}

impl RxSeg {
    fn has(&self, id: u16) -> bool {
        self.have.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
    fn add(&mut self, id: u16) {
        if !self.has(id) {
            let word = id as usize / 64;
            if self.have.len() <= word {
                self.have.resize(word + 1, 0);
            }
            self.have[word] |= 1 << (id % 64);
            self.arrivals.push(id);
        }
    }
    /// Data blocks missing after the first `after` arrivals, ascending.
    fn missing_after(&self, after: u16) -> Vec<u16> {
        let seen = &self.arrivals[..(after as usize).min(self.arrivals.len())];
        (0..self.m).filter(|b| !seen.contains(b)).collect()
    }
}

/// What one (possibly partial) Boston packet did for its segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// The segment can be rebuilt from these shard ids.
    Complete(Vec<u16>),
    /// Not yet: this many distinct shards are held.
    Partial(u16),
}

/// The receiver's side: shards collected per incomplete segment.
#[derive(Debug, Clone, Default)]
pub struct BostonRx {
    segs: BTreeMap<u64, RxSeg>,
}

impl BostonRx {
    /// Take the shards of a packet for segment `offset`; `positions` lists the cells that
    /// arrived (0 is the header cell), or None when the whole frame arrived.
    pub fn on_packet(&mut self, offset: u64, pkt: &Packet, positions: Option<&[u16]>) -> Progress {
        let sh = pkt.shards;
        let fresh = || RxSeg { m: sh.m, len: pkt.payload, arrivals: Vec::new(), have: Vec::new() };
        let seg = self.segs.entry(offset).or_insert_with(fresh);
        if seg.m != sh.m || seg.len != pkt.payload {
            // A different cut of the stream at this offset: its shards are another dispersal.
            *seg = fresh();
        }
        let missing = if sh.relative { seg.missing_after(sh.start) } else { Vec::new() };
        let id_of = |i: u16| -> Option<u16> {
            if sh.relative {
                missing.get(i as usize).copied()
            } else {
                Some(sh.start + i)
            }
        };
        match positions {
            None => (0..sh.count).filter_map(id_of).for_each(|id| seg.add(id)),
            Some(cells) => cells.iter().filter(|&&c| c > 0).filter_map(|&c| id_of(c - 1)).for_each(|id| seg.add(id)),
        }
        let held = seg.arrivals.len() as u16;
        if held >= seg.m {
            let seg = self.segs.remove(&offset).expect("present");
            Progress::Complete(seg.arrivals)
        } else {
            Progress::Partial(held)
        }
    }

    /// Forget segments below the cumulative ACK point.
    pub fn forget_below(&mut self, rcv_nxt: u64) {
        while let Some((&off, _)) = self.segs.first_key_value() {
            if off >= rcv_nxt {
                break;
            }
            self.segs.pop_first();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_packet;

    fn packet(sh: Shards) -> Packet {
        let mut p = test_packet();
        p.shards = sh;
        p
    }

    #[test]
    fn a_retransmission_carries_m_minus_r_fresh_shards() {
        let cfg = BostonConfig::default();
        let mut tx = BostonTx::default();
        let first = tx.shards(&cfg, 0, 470, true); // m = 10
        assert_eq!((first.m, first.start, first.count), (10, 0, 10));
        tx.on_partial_ack(0, 7);
        let again = tx.shards(&cfg, 0, 470, false);
        assert_eq!((again.start, again.count), (10, 3), "shards 10..13 were never sent");
        let third = tx.shards(&cfg, 0, 470, false);
        assert_eq!(third.start, 13);
    }

    #[test]
    fn the_receiver_rebuilds_from_any_m_distinct_shards() {
        let mut rx = BostonRx::default();
        let first = packet(Shards { m: 10, start: 0, count: 10, ..Shards::default() });
        // Cells 3, 5 and 9 of the 11 (header + 10 shards) were lost.
        let arrived: Vec<u16> = (0..11).filter(|c| ![3, 5, 9].contains(c)).collect();
        assert_eq!(rx.on_packet(0, &first, Some(&arrived)), Progress::Partial(7));
        let fresh = packet(Shards { m: 10, start: 10, count: 3, ..Shards::default() });
        match rx.on_packet(0, &fresh, None) {
            Progress::Complete(ids) => assert_eq!(ids.len(), 10),
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn redundancy_masks_losses_without_any_retransmission() {
        let cfg = BostonConfig { redundancy: 2, ..BostonConfig::default() };
        let mut tx = BostonTx::default();
        let sh = tx.shards(&cfg, 0, 470, true);
        assert_eq!(sh.count, 12);
        let mut rx = BostonRx::default();
        let arrived: Vec<u16> = (0..13).filter(|c| ![2, 8].contains(c)).collect();
        assert!(matches!(rx.on_packet(0, &packet(sh), Some(&arrived)), Progress::Complete(_)));
    }

    #[test]
    fn a_different_cut_at_the_same_offset_starts_a_new_dispersal() {
        let mut rx = BostonRx::default();
        let first = packet(Shards { m: 10, start: 0, count: 10, ..Shards::default() });
        assert_eq!(rx.on_packet(0, &first, Some(&[0, 1, 2, 3])), Progress::Partial(3));
        let mut other = packet(Shards { m: 4, start: 0, count: 4, ..Shards::default() });
        other.payload = 188;
        assert_eq!(rx.on_packet(0, &other, Some(&[0, 1])), Progress::Partial(1), "old shards were dropped");
    }

    #[test]
    fn the_bitmap_variant_resends_exactly_the_missing_blocks() {
        let cfg = BostonConfig { bitmap: true, ..BostonConfig::default() };
        let mut tx = BostonTx::default();
        let mut rx = BostonRx::default();
        let first = tx.shards(&cfg, 0, 470, true);
        let arrived: Vec<u16> = (0..11).filter(|c| ![2, 7].contains(c)).collect(); // blocks 1 and 6
        assert_eq!(rx.on_packet(0, &packet(first), Some(&arrived)), Progress::Partial(8));
        tx.on_partial_ack(0, 8);
        let again = tx.shards(&cfg, 0, 470, false);
        assert!(again.relative && again.start == 8 && again.count == 2);
        match rx.on_packet(0, &packet(again), None) {
            Progress::Complete(ids) => {
                let mut ids = ids;
                ids.sort();
                assert_eq!(ids, (0..10).collect::<Vec<u16>>());
            }
            p => panic!("{p:?}"),
        }
    }
}
