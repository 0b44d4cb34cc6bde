//! One-way delays of a flow's delivered packets, kept in a fixed-size log-bucketed histogram:
//! recording a packet is an index computation and an increment, with no allocation, however
//! long the run.
//!
//! Buckets: every value below 128 ns has a bucket of its own (exact); above, each power of two
//! [2^k, 2^(k+1)) is cut into 64 equal buckets of width 2^(k-6), whose lower edge is at least
//! 64 widths. A bucket is reported by its midpoint, so a reported value is within half a width,
//! at most 1/128 (0.79%) of the true value ([`RELATIVE_ERROR`]); the smallest and largest
//! samples and the mean are kept exactly. Values of 2^46 ns (about 19.5 hours) and more share
//! the last bucket. This is the layout of HdrHistogram (Tene) with two significant binary
//! digits short of three decimal ones, sized for delays in nanoseconds.

use crate::time::Dur;

/// Sub-buckets per power of two, as a shift: 64 buckets per octave.
const SUB_BITS: u32 = 6;
/// Values below this have exact buckets.
const LINEAR: u64 = 2 << SUB_BITS;
/// The highest octave with buckets of its own: [2^45, 2^46).
const TOP_OCTAVE: u32 = 45;
/// Buckets in all: 128 exact ones, then 64 per octave from 2^7 to 2^45.
pub const BUCKETS: usize = LINEAR as usize + ((TOP_OCTAVE - SUB_BITS) as usize) * (1 << SUB_BITS);

/// The largest relative error of a reported percentile (half a bucket over its lower edge).
pub const RELATIVE_ERROR: f64 = 1.0 / 128.0;

/// A delay histogram: counts per bucket, and the exact count, sum, minimum and maximum.
#[derive(Debug, Clone)]
pub struct DelayHistogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    sum: u128,
    min: Dur,
    max: Dur,
}

impl Default for DelayHistogram {
    fn default() -> Self {
        Self { counts: Box::new([0; BUCKETS]), count: 0, sum: 0, min: Dur::MAX, max: 0 }
    }
}

/// The bucket of value `v`.
fn bucket(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let octave = (63 - v.leading_zeros()).min(TOP_OCTAVE);
    let shift = octave - SUB_BITS;
    // The value's top seven bits (1 then six sub-bucket bits), capped at the top bucket.
    let top = (v >> shift).min(LINEAR - 1);
    LINEAR as usize + (shift as usize - 1) * (1 << SUB_BITS) + (top as usize - (1 << SUB_BITS))
}

/// The lowest value and the width of bucket `b`.
fn bucket_range(b: usize) -> (u64, u64) {
    if b < LINEAR as usize {
        return (b as u64, 1);
    }
    let i = b - LINEAR as usize;
    let shift = (i >> SUB_BITS) as u32 + 1;
    let top = (i & ((1 << SUB_BITS) - 1)) as u64 + (1 << SUB_BITS);
    (top << shift, 1 << shift)
}

impl DelayHistogram {
    /// Record one packet's delay.
    #[inline]
    pub fn record(&mut self, d: Dur) {
        self.counts[bucket(d)] += 1;
        self.count += 1;
        self.sum += d as u128;
        self.min = self.min.min(d);
        self.max = self.max.max(d);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn min(&self) -> Option<Dur> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<Dur> {
        (self.count > 0).then_some(self.max)
    }

    /// The mean delay in nanoseconds (exact up to the division).
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    /// The `p`-th percentile (0 < p <= 100) by the nearest-rank rule: the smallest recorded
    /// value with at least p% of the samples at or below it, i.e. the sample of rank
    /// ceil(p/100 * n). Reported as its bucket's midpoint, kept within the exact minimum and
    /// maximum; None without samples.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((p / 100.0 * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bucket_range(b);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_the_range() {
        let mut next = 0u64;
        for b in 0..BUCKETS {
            let (low, width) = bucket_range(b);
            assert_eq!(low, next, "bucket {b}");
            assert_eq!(bucket(low), b);
            assert_eq!(bucket(low + width - 1), b);
            // Width over the lower edge: the relative error bound.
            if low >= LINEAR {
                assert!(width as f64 / low as f64 <= 2.0 * RELATIVE_ERROR + 1e-12);
            }
            next = low + width;
        }
        assert_eq!(next, 1 << (TOP_OCTAVE + 1));
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn every_value_reports_within_the_stated_error() {
        let mut v = 1u64;
        while v < 1 << 46 {
            let mut h = DelayHistogram::default();
            h.record(0);
            h.record(v);
            h.record(u64::MAX >> 17);
            let got = h.percentile(50.0).unwrap();
            assert!((got - v as f64).abs() <= v as f64 * RELATIVE_ERROR, "{v}: {got}");
            v = v * 3 / 2 + 1;
        }
    }

    #[test]
    fn nearest_rank_percentiles_of_a_hand_computed_case() {
        // 100 delays of 1 ms, 2 ms, ..., 100 ms: the nearest-rank p-th percentile is p ms.
        let mut h = DelayHistogram::default();
        for i in 1..=100u64 {
            h.record(i * 1_000_000);
        }
        for p in [50.0, 95.0, 99.0, 100.0] {
            let got = h.percentile(p).unwrap();
            let want = p * 1e6;
            assert!((got - want).abs() <= want * RELATIVE_ERROR, "p{p}: {got} vs {want}");
        }
        // Rank ceil(0.5 * 100) = 50; a 50.5th value would need interpolation, which this rule
        // never does.
        assert_eq!(h.count(), 100);
        assert_eq!(h.min(), Some(1_000_000));
        assert_eq!(h.max(), Some(100_000_000));
        assert_eq!(h.mean(), Some(50.5e6));
        // Exact buckets below 128 ns: 3 samples of 5, 7, 9 ns.
        let mut small = DelayHistogram::default();
        for d in [9, 5, 7] {
            small.record(d);
        }
        assert_eq!(small.percentile(50.0), Some(7.0));
        assert_eq!(small.percentile(34.0), Some(7.0));
        assert_eq!(small.percentile(33.0), Some(5.0));
        assert_eq!(small.percentile(99.0), Some(9.0));
        assert_eq!(DelayHistogram::default().percentile(50.0), None);
    }
}
