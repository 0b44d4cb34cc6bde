//! The sender's half of the codec: which shards a packet carries, and what a partial ACK asks
//! for.

use std::collections::BTreeMap;

use crate::packet::{Packet, Shards};

use super::{bitmap, forget_below, ida, BostonConfig, Codec, Partial};

/// What the sender knows of one unacknowledged segment.
#[derive(Debug, Clone, Copy, Default)]
pub struct TxSeg {
    /// Shards the receiver last said it holds.
    pub held: u16,
    /// Next shard never sent (N when all were).
    pub next_fresh: u32,
    /// Coded shards sent again after all N had gone (IDA's last resort).
    pub cycled: u32,
    /// Shards sent again: cells the receiver may already hold.
    pub repeated: u64,
    /// The largest count r already answered with fresh shards at once (`Partial::Fresh`).
    pub answered: u16,
}

/// What a Boston sender put on the wire over the flow's life, in cells (a header cell and a
/// cell per shard, whatever link the packet crosses first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BostonCounters {
    /// Cells of every data packet sent.
    pub cells_sent: u64,
    /// Of those, the cells of retransmissions (Sec. 4.1's retransmission rate counts cells).
    pub cells_retransmitted: u64,
    /// Shards sent again because all N of their segment had gone: cells the receiver may
    /// already hold (0 while the dispersal is large enough).
    pub repeated_shards: u64,
}

/// The sender's side: per unacknowledged segment, what the receiver holds.
#[derive(Debug, Clone)]
pub struct BostonTx {
    cfg: BostonConfig,
    segs: BTreeMap<u64, TxSeg>,
    counters: BostonCounters,
}

impl BostonTx {
    pub fn new(cfg: BostonConfig) -> Self {
        Self { cfg, segs: BTreeMap::new(), counters: BostonCounters::default() }
    }

    /// The shards a packet of segment [offset, offset + len) carries.
    pub fn shards(&mut self, offset: u64, len: u32, first: bool) -> Shards {
        let g = self.cfg.geometry(len);
        let codec = self.cfg.codec();
        if first {
            let count = match codec {
                Codec::Ida => ida::first(&self.cfg, g),
                Codec::Bitmap => g.m as u16,
            };
            self.segs.insert(offset, TxSeg { next_fresh: count as u32, ..TxSeg::default() });
            return Shards { m: g.m as u16, start: 0, count, ..Shards::default() };
        }
        let seg = self.segs.entry(offset).or_insert(TxSeg { next_fresh: g.m as u32, ..TxSeg::default() });
        let before = seg.repeated;
        let shards = match codec {
            Codec::Ida => ida::retransmission(seg, g),
            Codec::Bitmap => bitmap::retransmission(seg, g),
        };
        self.counters.repeated_shards += seg.repeated - before;
        shards
    }

    /// What the flow sent so far (see `BostonCounters`).
    pub fn counters(&self) -> BostonCounters {
        self.counters
    }

    /// Code data packet `p` (segment `offset`, first sent or not): its shards, each riding in a
    /// cell of its own (47 data bytes and its id), after a header cell of `header_bytes`.
    pub fn encode(&mut self, p: &mut Packet, offset: u64, first: bool, header_bytes: u32) {
        p.shards = self.shards(offset, p.payload, first);
        p.wire_bytes = header_bytes + crate::atm::CELL_PAYLOAD * p.shards.count as u32;
        let cells = 1 + p.shards.count as u64;
        self.counters.cells_sent += cells;
        if !first {
            self.counters.cells_retransmitted += cells;
        }
    }

    /// A partial ACK: the receiver holds `held` shards of segment `offset`. True if its fresh
    /// shards go out at once (`Partial::Fresh`), which is only for the first unacknowledged
    /// segment (`snd_una`, if still outstanding below `snd_max`) and once per count.
    ///
    /// The partial ACK is also counted as a duplicate ACK, so it still feeds fast retransmit
    /// (and its window cut) as under `Wait`; if it was the ACK that fired fast retransmit, that
    /// retransmission is this segment's fresh shards and nothing more goes. The fresh shards
    /// replace cells of a segment already in flight, so they go out whatever the window says
    /// (like fast retransmit's one segment) and do not grow it. The partial ACK acknowledges no
    /// new data (Bestavros and Kim 1997, Sec. 2.3: it "does not result in updating the
    /// received-segment number" and does not open the window), so the RTO backoff is kept; as
    /// for any retransmission, the timer restarts when the shards leave and Karn's rule drops
    /// the RTT measurement.
    pub fn on_partial_ack(&mut self, offset: u64, held: u16) {
        let seg = self.segs.entry(offset).or_default();
        seg.held = seg.held.max(held);
    }

    /// After `on_partial_ack` and the duplicate-ACK processing: true if segment `offset`'s
    /// fresh shards leave now. A repeated count asks for nothing new (the receiver's count
    /// only grows).
    pub fn answers_at_once(&mut self, offset: u64, held: u16, snd_una: u64, snd_max: u64) -> bool {
        if self.cfg.partial != Partial::Fresh || offset != snd_una || offset >= snd_max {
            return false;
        }
        let seg = self.segs.entry(offset).or_default();
        let new = held > seg.answered;
        seg.answered = seg.answered.max(held);
        new
    }

    /// Forget segments below the cumulative ACK.
    pub fn forget_below(&mut self, snd_una: u64) {
        forget_below(&mut self.segs, snd_una);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retransmission_carries_m_minus_r_fresh_shards() {
        let mut tx = BostonTx::new(BostonConfig::default());
        let first = tx.shards(0, 470, true); // m = 10
        assert_eq!((first.m, first.start, first.count), (10, 0, 10));
        tx.on_partial_ack(0, 7);
        let again = tx.shards(0, 470, false);
        assert_eq!((again.start, again.count), (10, 3), "shards 10..13 were never sent");
        let third = tx.shards(0, 470, false);
        assert_eq!(third.start, 13);
    }

    #[test]
    fn a_packet_is_a_header_cell_and_a_cell_per_shard() {
        let mut tx = BostonTx::new(BostonConfig { redundancy: 2, ..BostonConfig::default() });
        let mut p = crate::packet::test_packet();
        p.payload = 470;
        tx.encode(&mut p, 0, true, 40);
        assert_eq!((p.shards.count, p.wire_bytes), (12, 40 + 48 * 12));
    }

    #[test]
    fn fresh_answers_only_the_first_unacknowledged_segment_once_per_count() {
        let mut tx = BostonTx::new(BostonConfig { partial: Partial::Fresh, ..BostonConfig::default() });
        tx.shards(0, 470, true);
        tx.on_partial_ack(0, 7);
        assert!(!tx.answers_at_once(470, 7, 0, 940), "not the first unacknowledged segment");
        assert!(tx.answers_at_once(0, 7, 0, 940));
        assert!(!tx.answers_at_once(0, 7, 0, 940), "the same count again");
        assert!(tx.answers_at_once(0, 8, 0, 940), "a larger count");
        assert!(!tx.answers_at_once(0, 9, 0, 0), "nothing outstanding");
        let mut wait = BostonTx::new(BostonConfig::default());
        assert!(!wait.answers_at_once(0, 7, 0, 940), "under Wait the next retransmission carries them");
    }

    #[test]
    fn acknowledged_segments_are_forgotten() {
        let mut tx = BostonTx::new(BostonConfig::default());
        for off in [0, 470, 940] {
            tx.shards(off, 470, true);
        }
        tx.forget_below(940);
        assert_eq!(tx.segs.keys().copied().collect::<Vec<_>>(), [940]);
    }
}
