//! The SACK scoreboard: which bytes above snd_una the receiver holds, and which the sender
//! has retransmitted in the current recovery episode. Ranges are stream offsets [start, end).

use super::receiver::insert_range;

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    /// SACKed ranges above snd_una, sorted and disjoint.
    sacked: Vec<(u64, u64)>,
    /// Ranges retransmitted since recovery began, sorted and disjoint.
    retransmitted: Vec<(u64, u64)>,
    /// `(from, to)`: every byte in [from, to) is SACKed or resent. A claim takes the first
    /// hole not yet resent, so the next search for one can start at `to` rather than walk
    /// every hole resent before it (RFC 6675 recovery over thousands of holes walked them all
    /// on every send). Coverage only grows until `clear`, which empties it.
    resent_through: (u64, u64),
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
        // Bytes below snd_una were just forgotten: the covered span starts at it at the lowest.
        let (from, to) = self.resent_through;
        self.resent_through = (from.max(snd_una), to);
    }

    /// Bytes SACKed above snd_una.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|&(s, e)| e - s).sum()
    }

    /// Forget all SACK information (after a timeout, as Goyal et al. (1998) Sec. 3.2 says).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.clear_retransmitted();
    }

    pub fn mark_retransmitted(&mut self, start: u64, end: u64) {
        insert_range(&mut self.retransmitted, start, end);
    }

    pub fn clear_retransmitted(&mut self) {
        self.retransmitted.clear();
        self.resent_through = (0, 0);
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
        let (covered_from, covered_to) = self.resent_through;
        let mut off = if skip_retransmitted && (covered_from..covered_to).contains(&from) { covered_to } else { from };
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
            let next_sacked = next_start(&self.sacked, off).unwrap_or(high);
            let next_rtx =
                if skip_retransmitted { next_start(&self.retransmitted, off).unwrap_or(u64::MAX) } else { u64::MAX };
            return Some((off, next_sacked.min(next_rtx) - off));
        }
        None
    }
}

impl Scoreboard {
    /// RFC 6675's SetPipe at segment granularity: over the segments [snd_una, snd_max) cut
    /// every `mss` bytes, the bytes of those not SACKed, once if not lost (more than
    /// `lost_over` bytes SACKed above its start) and once more if retransmitted. The segments
    /// are taken in runs that share all three answers, not one by one: per segment it cost
    /// the window in segments times the SACK blocks on every send, and a 64 KiB window of
    /// one-byte segments ran 0.5 ms of CPU per event (a hostile probe, stop 53).
    pub fn pipe(&self, snd_una: u64, snd_max: u64, mss: u64, lost_over: u64) -> u64 {
        let mss = mss.max(1);
        let lost_below = self.lost_below(lost_over);
        let (mut sacked, mut resent) = (Edges::new(&self.sacked, snd_una), Edges::new(&self.retransmitted, snd_una));
        let mut pipe = 0;
        let mut off = snd_una;
        while off < snd_max {
            let (is_sacked, sacked_ends) = sacked.at(off);
            let (is_resent, resent_ends) = resent.at(off);
            let lost = off < lost_below;
            let lost_ends = if lost { lost_below } else { u64::MAX };
            let run_ends = sacked_ends.min(resent_ends).min(lost_ends);
            // The segments starting in [off, run_ends), all alike; only the last of all may be short.
            let segments = (run_ends.min(snd_max) - off).div_ceil(mss);
            let end = off.saturating_add(segments * mss);
            let times = u64::from(!is_sacked && !lost) + u64::from(!is_sacked && is_resent);
            pipe += times * (end.min(snd_max) - off);
            off = end;
        }
        pipe
    }

    /// The lowest offset with at most `lost_over` bytes SACKed at or above it: segments
    /// starting below it are lost (`sacked_above` only falls as the offset rises, and only
    /// inside SACKed ranges).
    fn lost_below(&self, lost_over: u64) -> u64 {
        let mut above = 0;
        for &(s, e) in self.sacked.iter().rev() {
            if above + (e - s) > lost_over {
                return e - (lost_over - above);
            }
            above += e - s;
        }
        0
    }

    /// Claim the next hole at or above `from` not yet resent, at most `mss` bytes of it:
    /// marks it resent and returns (offset, length).
    pub fn claim_hole(&mut self, from: u64, mss: u64) -> Option<(u64, u64)> {
        let (off, gap) = self.next_hole(from, true)?;
        let len = gap.min(mss);
        self.mark_retransmitted(off, off + len);
        // Everything from `from` to the hole was SACKed or resent, and now the hole's start is.
        self.resent_through = (from, off + len);
        Some((off, len))
    }

    /// RFC 6675's IsLost: more than `lost_over` bytes SACKed at or above `off`.
    pub fn is_lost(&self, off: u64, lost_over: u64) -> bool {
        off < self.lost_below(lost_over)
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

/// A walk up sorted, disjoint ranges: offsets asked in rising order cost one step each past
/// a range, not a search (`pipe` asks at every run, before every send in recovery).
struct Edges<'a> {
    ranges: &'a [(u64, u64)],
    next: usize,
}

impl<'a> Edges<'a> {
    fn new(ranges: &'a [(u64, u64)], from: u64) -> Self {
        Edges { ranges, next: ranges.partition_point(|&(_, e)| e <= from) }
    }

    /// Whether `off` is inside a range, and the first start or end above it (`u64::MAX` if
    /// none): where that can next change. `off` must not fall between calls.
    fn at(&mut self, off: u64) -> (bool, u64) {
        while self.ranges.get(self.next).is_some_and(|&(_, e)| e <= off) {
            self.next += 1;
        }
        match self.ranges.get(self.next) {
            Some(&(s, e)) if s <= off => (true, e),
            Some(&(s, _)) => (false, s),
            None => (false, u64::MAX),
        }
    }
}

/// The first start of a range above `off`.
fn next_start(ranges: &[(u64, u64)], off: u64) -> Option<u64> {
    let i = ranges.partition_point(|&(s, _)| s <= off);
    ranges.get(i).map(|&(s, _)| s)
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
    use proptest::prelude::*;

    /// `pipe` segment by segment, as it was computed before (the reference).
    fn pipe_by_segment(sb: &Scoreboard, snd_una: u64, snd_max: u64, mss: u64, lost_over: u64) -> u64 {
        let (mut pipe, mut off) = (0, snd_una);
        while off < snd_max {
            let len = mss.min(snd_max - off);
            if !sb.is_sacked(off) {
                pipe += len * u64::from(sb.sacked_above(off) <= lost_over);
                pipe += len * u64::from(sb.is_retransmitted(off));
            }
            off += len;
        }
        pipe
    }

    #[test]
    fn a_segment_with_exactly_the_threshold_sacked_above_it_is_not_lost() {
        let mut sb = Scoreboard::default();
        sb.update(0, [(10, 20), (30, 40)]);
        // 10 bytes SACKed above byte 20 and above byte 40's 0: at the threshold, in the pipe.
        for lost_over in [0, 10, 20] {
            assert_eq!(sb.pipe(0, 50, 1, lost_over), pipe_by_segment(&sb, 0, 50, 1, lost_over), "{lost_over}");
        }
        assert_eq!(sb.pipe(0, 50, 1, 10), 20); // bytes 20..30 and 40..50
    }

    proptest! {
        #[test]
        fn pipe_in_runs_is_pipe_segment_by_segment(
            una in 0u64..50,
            len in 0u64..400,
            // One-byte segments half the time: every offset is a segment's start, so a run's
            // edge one byte off shows.
            mss in prop_oneof![Just(1u64), 1u64..40],
            lost_over in 0u64..120,
            sacked in proptest::collection::vec((0u64..450, 1u64..30), 0..6),
            resent in proptest::collection::vec((0u64..450, 1u64..30), 0..6),
        ) {
            let mut sb = Scoreboard::default();
            sb.update(una, sacked.iter().map(|&(s, l)| (s, s + l)));
            for &(s, l) in &resent {
                sb.mark_retransmitted(s.max(una), s.max(una) + l);
            }
            let max = una + len;
            prop_assert_eq!(sb.pipe(una, max, mss, lost_over), pipe_by_segment(&sb, una, max, mss, lost_over));
        }
    }

    /// One step of a recovery episode, as the senders take them.
    #[derive(Debug, Clone)]
    enum Step {
        /// The cumulative ACK moves up by this much, with these SACK blocks (offset, length).
        Ack(u64, Vec<(u64, u64)>),
        /// The first hole not yet resent from snd_una is claimed (at most this many bytes).
        Claim(u64),
        /// A range resent outside a claim (an episode's first retransmission).
        Mark(u64, u64),
        /// A new episode (or a timeout).
        ClearResent,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u64..20, proptest::collection::vec((0u64..300, 1u64..30), 0..3)).prop_map(|(a, b)| Step::Ack(a, b)),
            (1u64..25).prop_map(Step::Claim),
            (0u64..300, 1u64..20).prop_map(|(s, l)| Step::Mark(s, l)),
            Just(Step::ClearResent),
        ]
    }

    proptest! {
        #[test]
        fn lost_below_is_the_sacked_bytes_above_a_segment(
            sacked in proptest::collection::vec((0u64..300, 1u64..30), 0..8),
            lost_over in 0u64..120,
        ) {
            let mut sb = Scoreboard::default();
            sb.update(0, sacked.iter().map(|&(s, l)| (s, s + l)));
            for off in 0..340 {
                prop_assert_eq!(sb.is_lost(off, lost_over), sb.sacked_above(off) > lost_over, "{}", off);
            }
        }

        /// The span known SACKed or resent only saves a walk: every search finds what a walk
        /// from its start over the same ranges finds, whatever came before it.
        #[test]
        fn a_search_past_the_resent_span_finds_what_a_walk_finds(steps in proptest::collection::vec(step(), 1..40)) {
            let (mut sb, mut una) = (Scoreboard::default(), 0);
            for step in steps {
                match step {
                    Step::Ack(up, blocks) => {
                        una += up;
                        sb.update(una, blocks.iter().map(|&(s, l)| (s, s + l)));
                    }
                    Step::Claim(mss) => {
                        let walked = sb.clone().without_resent_span().next_hole(una, true);
                        let claimed = sb.claim_hole(una, mss);
                        prop_assert_eq!(claimed, walked.map(|(off, gap)| (off, gap.min(mss))));
                    }
                    Step::Mark(s, l) => sb.mark_retransmitted(s.max(una), s.max(una) + l),
                    Step::ClearResent => sb.clear_retransmitted(),
                }
                let walk = sb.clone().without_resent_span();
                for from in una.saturating_sub(3)..una + 40 {
                    prop_assert_eq!(sb.next_hole(from, true), walk.next_hole(from, true), "from {}", from);
                }
            }
        }
    }

    impl Scoreboard {
        fn without_resent_span(mut self) -> Self {
            self.resent_through = (0, 0);
            self
        }
    }

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
