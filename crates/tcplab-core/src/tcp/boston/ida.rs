//! The "boston" codec: a segment's cells carry shards of its information dispersal (any m of
//! N rebuild it). The first transmission sends shards 0..m + redundancy, the data shards first
//! (the code is systematic); each retransmission sends m - r shards never sent before, so
//! every cell that gets through adds information (Sec. 2.3).

use crate::packet::Shards;

use super::dispersal::Geometry;
use super::tx::TxSeg;
use super::BostonConfig;

/// m data shards, about `dispersal_factor` x m in all (at least m + redundancy).
pub fn geometry(cfg: &BostonConfig, len: u32) -> Geometry {
    Geometry::for_segment(len, cfg.dispersal_factor as usize, cfg.redundancy as usize)
}

/// Shards of the first transmission: the data shards and `redundancy` more.
pub fn first(cfg: &BostonConfig, g: Geometry) -> u16 {
    (g.m as u16 + cfg.redundancy).min(g.n as u16)
}

/// A retransmission of a segment the receiver holds `seg.held` shards of: m - r fresh shards
/// while they last (N is twice m by default, so that takes many rounds); then the coded
/// shards again from the first, which the receiver holds only if they got through before.
pub fn retransmission(seg: &mut TxSeg, g: Geometry) -> Shards {
    let (m, n) = (g.m as u16, g.n as u16);
    let need = m.saturating_sub(seg.held).max(1);
    let mut start = seg.next_fresh;
    if start as usize + need as usize > n as usize {
        start = if need <= n - m { m } else { 0 };
    }
    seg.next_fresh = start + need;
    Shards { m, start, count: need, ..Shards::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_shards_follow_each_other_then_start_again_at_the_first_coded_one() {
        let g = Geometry::for_segment(470, 2, 0); // m = 10, N = 20
        let mut seg = TxSeg { held: 7, next_fresh: 10, answered: 0 };
        let a = retransmission(&mut seg, g);
        assert_eq!((a.start, a.count), (10, 3), "shards 10..13 were never sent");
        seg.held = 2; // 8 more: 13..21 would pass N, so the coded shards start again at m
        let b = retransmission(&mut seg, g);
        assert_eq!((b.start, b.count, seg.next_fresh), (10, 8, 18));
    }

    #[test]
    fn with_fewer_coded_shards_than_needed_the_data_shards_go_again() {
        let g = Geometry::for_segment(470, 1, 2); // m = 10, N = 12
        let cfg = BostonConfig { redundancy: 2, dispersal_factor: 1, ..BostonConfig::default() };
        assert_eq!(first(&cfg, g), 12);
        let mut seg = TxSeg { held: 0, next_fresh: 12, answered: 0 };
        let r = retransmission(&mut seg, g);
        assert_eq!((r.start, r.count), (0, 10));
    }
}
