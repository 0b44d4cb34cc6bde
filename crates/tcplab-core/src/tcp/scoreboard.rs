//! The SACK scoreboard: which bytes above snd_una the receiver holds, and which the sender
//! has retransmitted in the current recovery episode. Ranges are stream offsets [start, end).

use super::receiver::insert_range;

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    /// SACKed ranges above snd_una, sorted and disjoint.
    sacked: Vec<(u64, u64)>,
    /// Ranges retransmitted since recovery began, sorted and disjoint.
    retransmitted: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// Record SACK blocks (offsets) and forget everything below the cumulative ACK.
    pub fn update(&mut self, snd_una: u64, blocks: impl IntoIterator<Item = (u64, u64)>) {
        for (s, e) in blocks {
            let s = s.max(snd_una);
            if e > s {
                insert_range(&mut self.sacked, s, e);
            }
        }
        trim_below(&mut self.sacked, snd_una);
        trim_below(&mut self.retransmitted, snd_una);
    }

    /// Bytes SACKed above snd_una.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|&(s, e)| e - s).sum()
    }

    /// Forget all SACK information (after a timeout, as Goyal et al. (1998) Sec. 3.2 says).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.retransmitted.clear();
    }

    pub fn mark_retransmitted(&mut self, start: u64, end: u64) {
        insert_range(&mut self.retransmitted, start, end);
    }

    pub fn clear_retransmitted(&mut self) {
        self.retransmitted.clear();
    }

    /// One past the highest SACKed byte, if any.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|&(_, e)| e)
    }

    pub fn is_sacked(&self, off: u64) -> bool {
        covered(&self.sacked, off)
    }

    pub fn is_retransmitted(&self, off: u64) -> bool {
        covered(&self.retransmitted, off)
    }

    /// SACKed bytes at or above `off`.
    pub fn sacked_above(&self, off: u64) -> u64 {
        self.sacked.iter().filter(|&&(_, e)| e > off).map(|&(s, e)| e - s.max(off)).sum()
    }

    /// The first byte at or above `from` and below the highest SACKed byte that is neither
    /// SACKed nor (with `skip_retransmitted`) already resent; with the length of its gap.
    pub fn next_hole(&self, from: u64, skip_retransmitted: bool) -> Option<(u64, u64)> {
        let high = self.highest_sacked()?;
        let mut off = from;
        while off < high {
            if let Some(end) = range_end(&self.sacked, off) {
                off = end;
                continue;
            }
            if skip_retransmitted {
                if let Some(end) = range_end(&self.retransmitted, off) {
                    off = end;
                    continue;
                }
            }
            // The hole runs to the next SACKed (or retransmitted) byte.
            let next_sacked = self.sacked.iter().map(|&(s, _)| s).find(|&s| s > off).unwrap_or(high);
            let next_rtx = if skip_retransmitted {
                self.retransmitted.iter().map(|&(s, _)| s).find(|&s| s > off).unwrap_or(u64::MAX)
            } else {
                u64::MAX
            };
            return Some((off, next_sacked.min(next_rtx) - off));
        }
        None
    }
}

impl Scoreboard {
    /// Claim the next hole at or above `from` not yet resent, at most `mss` bytes of it:
    /// marks it resent and returns (offset, length).
    pub fn claim_hole(&mut self, from: u64, mss: u64) -> Option<(u64, u64)> {
        let (off, gap) = self.next_hole(from, true)?;
        let len = gap.min(mss);
        self.mark_retransmitted(off, off + len);
        Some((off, len))
    }
}

fn covered(ranges: &[(u64, u64)], off: u64) -> bool {
    range_end(ranges, off).is_some()
}

/// The end of the range containing `off`.
fn range_end(ranges: &[(u64, u64)], off: u64) -> Option<u64> {
    let i = ranges.partition_point(|&(_, e)| e <= off);
    ranges.get(i).filter(|&&(s, _)| s <= off).map(|&(_, e)| e)
}

fn trim_below(ranges: &mut Vec<(u64, u64)>, floor: u64) {
    ranges.retain(|&(_, e)| e > floor);
    if let Some(first) = ranges.first_mut() {
        first.0 = first.0.max(floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_are_found_between_sacked_blocks_and_skipped_once_resent() {
        let mut sb = Scoreboard::default();
        sb.update(1000, [(3000, 4000), (6000, 8000)]);
        assert_eq!(sb.next_hole(1000, true), Some((1000, 2000)));
        sb.mark_retransmitted(1000, 2000);
        assert_eq!(sb.next_hole(1000, true), Some((2000, 1000)));
        sb.mark_retransmitted(2000, 3000);
        assert_eq!(sb.next_hole(1000, true), Some((4000, 2000)));
        assert_eq!(sb.next_hole(1000, false), Some((1000, 2000)));
        assert_eq!(sb.sacked_above(3500), 2500);
        sb.update(4000, []);
        assert_eq!(sb.next_hole(4000, true), Some((4000, 2000)));
        assert!(!sb.is_retransmitted(2000));
        sb.update(8000, []);
        assert_eq!(sb.highest_sacked(), None);
    }
}
