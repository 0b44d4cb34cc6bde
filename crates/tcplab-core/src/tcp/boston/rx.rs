//! The receiver's half of the codec: shards collected per incomplete segment until any m of
//! them rebuild it, and the check that a segment rebuilt from coded shards decodes to the
//! bytes the application wrote (every `verify_every`-th such segment of the flow).

use std::collections::BTreeMap;

use crate::packet::Packet;

use super::{bitmap, dispersal, forget_below, BostonConfig};

#[derive(Debug, Clone)]
struct RxSeg {
    m: u16,
    len: u32,
    /// Distinct shard ids, in the order they arrived (the bitmap codec reads the missing
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
}

/// What one (possibly partial) Boston packet did for its segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The segment is rebuilt: the packet's bytes are delivered.
    Complete,
    /// Not yet: this many distinct shards are held (the partial ACK's count).
    Partial(u16),
}

/// The receiver's side: shards collected per incomplete segment.
#[derive(Debug, Clone)]
pub struct BostonRx {
    cfg: BostonConfig,
    flow: u32,
    segs: BTreeMap<u64, RxSeg>,
    /// Segments rebuilt with coded shards (not all data shards), and how many were decoded.
    coded: u64,
    decoded: u64,
    /// The first segment that did not decode to the bytes sent (a broken invariant).
    failure: Option<String>,
}

impl BostonRx {
    pub fn new(cfg: BostonConfig, flow: u32) -> Self {
        Self { cfg, flow, segs: BTreeMap::new(), coded: 0, decoded: 0, failure: None }
    }

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
        let missing = if sh.relative { bitmap::missing_after(&seg.arrivals, sh.start, seg.m) } else { Vec::new() };
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
        if held < seg.m {
            return Progress::Partial(held);
        }
        let seg = self.segs.remove(&offset).expect("present");
        self.check(offset, &seg);
        Progress::Complete
    }

    /// Decode a segment rebuilt with coded shards, if it is the one in `verify_every` to check.
    fn check(&mut self, offset: u64, seg: &RxSeg) {
        if seg.arrivals.iter().all(|&id| id < seg.m) {
            return; // all data shards: the segment is its own bytes, nothing to decode
        }
        self.coded += 1;
        if !(self.coded - 1).is_multiple_of(self.cfg.verify_every as u64) {
            return;
        }
        self.decoded += 1;
        let geometry = self.cfg.geometry(seg.len);
        debug_assert_eq!(geometry.m, seg.m as usize);
        if let Err(problem) = dispersal::check_segment(self.flow, offset, seg.len, geometry, &seg.arrivals) {
            self.failure.get_or_insert(problem);
        }
    }

    /// The first segment that decoded to other bytes than were sent, once.
    pub fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    /// Forget segments below the cumulative ACK point.
    pub fn forget_below(&mut self, rcv_nxt: u64) {
        forget_below(&mut self.segs, rcv_nxt);
    }
}

#[cfg(test)]
mod tests {
    use super::super::BostonTx;
    use super::*;
    use crate::packet::{test_packet, Shards};

    fn packet(sh: Shards) -> Packet {
        let mut p = test_packet();
        p.shards = sh;
        p.payload = 470;
        p
    }

    fn rx(cfg: BostonConfig) -> BostonRx {
        BostonRx::new(cfg, 3)
    }

    #[test]
    fn the_receiver_rebuilds_from_any_m_distinct_shards_and_decodes_them() {
        let mut rx = rx(BostonConfig::default());
        let first = packet(Shards { m: 10, start: 0, count: 10, ..Shards::default() });
        // Cells 3, 5 and 9 of the 11 (header + 10 shards) were lost.
        let arrived: Vec<u16> = (0..11).filter(|c| ![3, 5, 9].contains(c)).collect();
        assert_eq!(rx.on_packet(0, &first, Some(&arrived)), Progress::Partial(7));
        let fresh = packet(Shards { m: 10, start: 10, count: 3, ..Shards::default() });
        assert_eq!(rx.on_packet(0, &fresh, None), Progress::Complete);
        assert_eq!((rx.coded, rx.decoded, rx.take_failure()), (1, 1, None));
    }

    #[test]
    fn redundancy_masks_losses_without_any_retransmission() {
        let cfg = BostonConfig { redundancy: 2, ..BostonConfig::default() };
        let sh = BostonTx::new(cfg).shards(0, 470, true);
        assert_eq!(sh.count, 12);
        let arrived: Vec<u16> = (0..13).filter(|c| ![2, 8].contains(c)).collect();
        assert_eq!(rx(cfg).on_packet(0, &packet(sh), Some(&arrived)), Progress::Complete);
    }

    #[test]
    fn a_different_cut_at_the_same_offset_starts_a_new_dispersal() {
        let mut rx = rx(BostonConfig::default());
        let first = packet(Shards { m: 10, start: 0, count: 10, ..Shards::default() });
        assert_eq!(rx.on_packet(0, &first, Some(&[0, 1, 2, 3])), Progress::Partial(3));
        let mut other = packet(Shards { m: 4, start: 0, count: 4, ..Shards::default() });
        other.payload = 188;
        assert_eq!(rx.on_packet(0, &other, Some(&[0, 1])), Progress::Partial(1), "old shards were dropped");
    }

    #[test]
    fn the_bitmap_codec_resends_exactly_the_missing_blocks() {
        let cfg = BostonConfig { bitmap: true, ..BostonConfig::default() };
        let (mut tx, mut rx) = (BostonTx::new(cfg), rx(cfg));
        let first = tx.shards(0, 470, true);
        let arrived: Vec<u16> = (0..11).filter(|c| ![2, 7].contains(c)).collect(); // blocks 1 and 6
        assert_eq!(rx.on_packet(0, &packet(first), Some(&arrived)), Progress::Partial(8));
        tx.on_partial_ack(0, 8);
        let again = tx.shards(0, 470, false);
        assert!(again.relative && again.start == 8 && again.count == 2);
        assert_eq!(rx.on_packet(0, &packet(again), None), Progress::Complete);
        assert_eq!(rx.coded, 0, "data blocks only: nothing to decode");
    }

    #[test]
    fn one_coded_segment_in_verify_every_is_decoded() {
        let mut rx = rx(BostonConfig { verify_every: 3, ..BostonConfig::default() });
        for k in 0..7u64 {
            let off = k * 470;
            let coded = packet(Shards { m: 10, start: 5, count: 10, ..Shards::default() });
            assert_eq!(rx.on_packet(off, &coded, None), Progress::Complete);
        }
        assert_eq!((rx.coded, rx.decoded), (7, 3), "the 1st, 4th and 7th");
        assert_eq!(rx.take_failure(), None);
    }

    #[test]
    fn a_segment_rebuilt_from_too_few_shards_is_reported_once() {
        // Only a broken codec could complete a segment short of m distinct shards; the check
        // must catch it. Ids past N make the dispersal's ids and the receiver's disagree.
        let mut rx = rx(BostonConfig::default());
        let seg = RxSeg { m: 10, len: 470, arrivals: (5..14).chain([60]).collect(), have: Vec::new() };
        rx.check(940, &seg);
        let e = rx.take_failure().expect("reported");
        assert!(e.starts_with("flow 3: Boston segment at 940"), "{e}");
        assert_eq!(rx.take_failure(), None);
    }
}
