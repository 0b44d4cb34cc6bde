//! The "boston" codec: a segment's cells carry shards of its information dispersal (any m of
//! N rebuild it). The first transmission sends shards 0..m + redundancy, the data shards first
//! (the code is systematic); each retransmission sends m - r shards never sent before, so
//! every cell that gets through adds information (Sec. 2.3), for as long as N allows: N must
//! be large (the paper's N >> m; `dispersal_factor`) for no shard to be sent twice.

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
    (g.m + cfg.redundancy as usize).min(g.n) as u16
}

/// A retransmission of a segment the receiver holds `seg.held` shards of: m - r shards never
/// sent before, so that every cell that gets through is new to the receiver (Sec. 2.1: "every
/// cell that makes it through the network is used"). While fresh shards remain none is sent
/// twice: when fewer remain than the receiver asks for, the packet carries just those. Only
/// once all N have gone do shards go again (counted in `seg.repeated`): the coded ones in the
/// order they were first sent, the longest ago first, or, when more are asked for than there
/// are coded shards, all m data shards, the whole segment as plain TCP resends it. The sender
/// knows how many shards the receiver holds, not which: m - r shards picked again could be
/// ones it holds, every time (with N = m, `boston_dispersal = 1`, a flow that lost one cell
/// resent shard 0 for the rest of the run).
pub fn retransmission(seg: &mut TxSeg, g: Geometry) -> Shards {
    let (m, n) = (g.m as u32, g.n as u32);
    let need = m.saturating_sub(seg.held as u32).max(1);
    let (start, count) = if seg.next_fresh < n {
        let start = seg.next_fresh;
        let count = need.min(n - start);
        seg.next_fresh += count;
        (start, count)
    } else if need <= n - m {
        // All N were sent: cycle through the coded shards, oldest first.
        let start = m + seg.cycled % (n - m);
        let count = need.min(n - start);
        seg.cycled += count;
        seg.repeated += count as u64;
        (start, count)
    } else {
        seg.repeated += m as u64;
        (0, m)
    };
    Shards { m: m as u16, start: start as u16, count: count as u16, ..Shards::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_shards_follow_each_other_and_none_goes_twice_while_any_is_left() {
        let g = Geometry::for_segment(470, 2, 0); // m = 10, N = 20
        let mut seg = TxSeg { held: 7, next_fresh: 10, ..TxSeg::default() };
        let a = retransmission(&mut seg, g);
        assert_eq!((a.start, a.count), (10, 3), "shards 10..13 were never sent");
        seg.held = 2; // 8 asked for, 7 fresh left (13..20): those 7 and nothing sent before
        let b = retransmission(&mut seg, g);
        assert_eq!((b.start, b.count, seg.next_fresh, seg.repeated), (13, 7, 20, 0));
    }

    #[test]
    fn once_all_n_are_sent_the_coded_shards_go_again_oldest_first() {
        let g = Geometry::for_segment(470, 2, 0); // m = 10, N = 20
        let mut seg = TxSeg { held: 6, next_fresh: 20, ..TxSeg::default() };
        let a = retransmission(&mut seg, g);
        assert_eq!((a.start, a.count, seg.repeated), (10, 4, 4));
        let b = retransmission(&mut seg, g);
        assert_eq!((b.start, b.count, seg.repeated), (14, 4, 8));
        let c = retransmission(&mut seg, g);
        assert_eq!((c.start, c.count), (18, 2), "to the end of the coded shards");
        let d = retransmission(&mut seg, g);
        assert_eq!((d.start, d.count), (10, 4), "then from the oldest again");
    }

    #[test]
    fn a_large_dispersal_never_repeats_a_shard_in_many_lossy_rounds() {
        // A 9140-byte segment (m = 199, N = 8m) whose every retransmission loses half its
        // cells: the receiver never gets a shard it holds, so each round halves what it lacks.
        let g = Geometry::for_segment(9140, 8, 0);
        let mut seg = TxSeg { next_fresh: g.m as u32, ..TxSeg::default() };
        let mut sent = std::collections::BTreeSet::new();
        sent.extend(0..g.m as u32);
        for _ in 0..20 {
            let r = retransmission(&mut seg, g);
            for id in r.start as u32..(r.start + r.count) as u32 {
                assert!(sent.insert(id), "shard {id} sent twice");
            }
            seg.held += r.count.div_ceil(2);
            seg.held = seg.held.min(g.m as u16 - 1);
        }
        assert_eq!(seg.repeated, 0);
    }

    #[test]
    fn without_coded_shards_to_spare_the_whole_segment_goes_again() {
        // N = m: one shard lost of ten, and nothing was ever coded to replace it. Resending one
        // shard picked again could be one the receiver holds, at every retransmission.
        let g = Geometry::for_segment(470, 1, 0); // m = N = 10
        let mut seg = TxSeg { held: 9, next_fresh: 10, ..TxSeg::default() };
        for round in 1..=3u64 {
            let r = retransmission(&mut seg, g);
            assert_eq!((r.start, r.count, seg.repeated), (0, 10, 10 * round), "round {round}");
        }
        // Two coded shards, three lacking: the receiver may hold every shard a cycle would send.
        let g = Geometry::for_segment(470, 1, 2); // m = 10, N = 12
        let mut seg = TxSeg { held: 7, next_fresh: 12, ..TxSeg::default() };
        assert_eq!(retransmission(&mut seg, g).count, 10);
    }

    #[test]
    fn with_fewer_coded_shards_than_needed_the_data_shards_go_again() {
        let g = Geometry::for_segment(470, 1, 2); // m = 10, N = 12
        let cfg = BostonConfig { redundancy: 2, dispersal_factor: 1, ..BostonConfig::default() };
        assert_eq!(first(&cfg, g), 12);
        let mut seg = TxSeg { next_fresh: 12, ..TxSeg::default() };
        let r = retransmission(&mut seg, g);
        assert_eq!((r.start, r.count, seg.repeated), (0, 10, 10));
    }
}
