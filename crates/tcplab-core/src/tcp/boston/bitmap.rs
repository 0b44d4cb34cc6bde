//! The "boston_bitmap" codec, Sec. 2.5's alternate implementation: no coding. A segment's m
//! blocks are its own bytes, named by a 1-byte id; a retransmission carries exactly the blocks
//! the receiver reported missing, named relative to what it held (the k-th missing block), so
//! a cell that gets through is never a block the receiver already has.

use crate::packet::Shards;

use super::dispersal::Geometry;
use super::tx::TxSeg;

/// m blocks and no others.
pub fn geometry(len: u32) -> Geometry {
    Geometry::for_segment(len, 1, 0)
}

/// A retransmission of a segment the receiver holds `seg.held` blocks of: the m - r blocks
/// still missing after its first `held` arrivals, as `relative` ids.
pub fn retransmission(seg: &TxSeg, g: Geometry) -> Shards {
    let m = g.m as u16;
    let need = m.saturating_sub(seg.held).max(1);
    Shards { m, start: seg.held, count: need, relative: true, ..Shards::default() }
}

/// The blocks of a segment of `m` missing after the first `after` of `arrivals` (the ones the
/// sender was told of), ascending: what the relative ids of a retransmission name.
pub fn missing_after(arrivals: &[u16], after: u16, m: u16) -> Vec<u16> {
    let seen = &arrivals[..(after as usize).min(arrivals.len())];
    (0..m).filter(|b| !seen.contains(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retransmission_names_the_blocks_missing_after_what_the_receiver_reported() {
        let g = geometry(470); // 10 blocks
        let r = retransmission(&TxSeg { held: 8, next_fresh: 10, ..TxSeg::default() }, g);
        assert!(r.relative && (r.start, r.count) == (8, 2));
        // Blocks 1 and 6 were lost from the first copy; 4 more arrived after the report.
        let arrivals = [0, 2, 3, 4, 5, 7, 8, 9, 1];
        assert_eq!(missing_after(&arrivals, 8, 10), [1, 6]);
        assert_eq!(missing_after(&arrivals, 20, 10), [6], "a count past the arrivals is all of them");
    }
}
