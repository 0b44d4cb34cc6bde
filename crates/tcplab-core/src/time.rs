//! Simulated time: an integer count of nanoseconds since the start of the run.
//!
//! u64 nanoseconds cover 584 years, and integer arithmetic keeps runs bit-identical across
//! machines. Floating point appears only at the edges (reports, user input).

/// A point in simulated time, in nanoseconds since the start of the run.
pub type Time = u64;
/// A span of simulated time, in nanoseconds.
pub type Dur = u64;

pub const NS: Dur = 1;
pub const US: Dur = 1_000;
pub const MS: Dur = 1_000_000;
pub const SEC: Dur = 1_000_000_000;

/// Seconds as f64, for reports.
pub fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// The first tick boundary strictly after `now` on a clock ticking every `tick` ns from `phase`.
///
/// BSD's slow (500 ms) and fast (200 ms) timers fire on such boundaries; `phase` models a host
/// whose clock is not aligned with the start of the simulation.
pub fn next_tick_after(now: Time, tick: Dur, phase: Dur) -> Time {
    debug_assert!(tick > 0 && phase < tick);
    if now < phase {
        return phase;
    }
    let k = (now - phase) / tick + 1;
    phase + k * tick
}

/// Serialisation time of `bits` at `rate_bps`, carrying the sub-nanosecond remainder in `rem`
/// so that a long train of packets is timed at exactly the link rate on average.
#[inline]
pub fn serialization_ns(bits: u64, rate_bps: u64, rem: &mut u64) -> Dur {
    let num = bits as u128 * SEC as u128 + *rem as u128;
    if let Ok(small) = u64::try_from(num) {
        // The same quotient and remainder by the processor's own division, where a 128-bit
        // one is a library call (every packet of a few kB fits: issue 26).
        *rem = small % rate_bps;
        return small / rate_bps;
    }
    let d = num / rate_bps as u128;
    *rem = (num % rate_bps as u128) as u64;
    d as Dur
}

/// A link's serialisation time for the last packet size it sent, kept so that a train of
/// packets of one size (a link carries MSS segments or ACKs, nearly never a third size) costs
/// a compare instead of a 64-bit division each: the division stalls the run loop for tens of
/// cycles per packet and hop (issue 26). With `bytes * 8 * SEC = whole * rate + frac`
/// (`frac < rate`) and a carried `rem < rate`, `(bytes * 8 * SEC + rem) / rate` is `whole`
/// plus one exactly when `frac + rem` reaches the rate, and the new remainder is `frac + rem`
/// less the rate if it did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SizeCache {
    /// The size cached, in bytes; the default's 0 bytes take 0 ns, remainder 0, as cached.
    bytes: u32,
    /// The quotient, kept only when it fits (a packet taking under 4.29 s to serialise).
    whole: u32,
    /// The remainder, below the rate.
    frac: u64,
}

impl SizeCache {
    /// `serialization_ns(bytes * 8, rate_bps, rem)`, the same number and remainder bit for bit,
    /// dividing only when `bytes` is not the size cached. `rate_bps` must be the same on every
    /// call with one cache (a link's rate) and `*rem` below it, as `serialization_ns` leaves it.
    #[inline]
    pub fn serialization_ns(&mut self, bytes: u32, rate_bps: u64, rem: &mut u64) -> Dur {
        debug_assert!(*rem < rate_bps);
        if !self.holds(bytes) {
            return self.refill(bytes, rate_bps, rem);
        }
        self.cached_ns(rate_bps, rem)
    }

    /// Whether `bytes` is the size cached: its serialisation time is `cached_ns`.
    #[inline(always)]
    pub fn holds(&self, bytes: u32) -> bool {
        bytes == self.bytes
    }

    /// `serialization_ns` of the size cached (`holds`), with no division.
    #[inline(always)]
    pub fn cached_ns(&self, rate_bps: u64, rem: &mut u64) -> Dur {
        debug_assert!(*rem < rate_bps);
        // `frac < rate_bps`, so the compare cannot overflow; the sum can (a rate near 2^64),
        // but the remainder it leaves is below the rate, so the wrapped difference is exact.
        let sum = rem.wrapping_add(self.frac);
        let carry = *rem >= rate_bps - self.frac;
        *rem = if carry { sum.wrapping_sub(rate_bps) } else { sum };
        self.whole as Dur + carry as Dur
    }

    /// A size not cached: divide, and cache it if its quotient fits. Cold, out of line: a
    /// link sends few sizes, and the miss's code would crowd the hit's callers' registers.
    #[cold]
    #[inline(never)]
    fn refill(&mut self, bytes: u32, rate_bps: u64, rem: &mut u64) -> Dur {
        let bits = bytes as u64 * 8;
        let mut frac = 0;
        if let Ok(whole) = u32::try_from(serialization_ns(bits, rate_bps, &mut frac)) {
            *self = SizeCache { bytes, whole, frac };
        }
        serialization_ns(bits, rate_bps, rem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_boundaries_are_strictly_after_now() {
        assert_eq!(next_tick_after(0, 500 * MS, 0), 500 * MS);
        assert_eq!(next_tick_after(499 * MS, 500 * MS, 0), 500 * MS);
        assert_eq!(next_tick_after(500 * MS, 500 * MS, 0), 1000 * MS);
        assert_eq!(next_tick_after(10, 500 * MS, 100 * MS), 100 * MS);
        assert_eq!(next_tick_after(100 * MS, 500 * MS, 100 * MS), 600 * MS);
    }

    #[test]
    fn serialization_carries_remainder() {
        // 424 bits (one ATM cell) at 149.76 Mb/s is 2831.19.. ns: the average must be exact.
        let mut rem = 0;
        let total: u64 = (0..1000).map(|_| serialization_ns(424, 149_760_000, &mut rem)).sum();
        let exact = 424.0 * 1000.0 * 1e9 / 149.76e6;
        assert!((total as f64 - exact).abs() < 1.0, "{total} vs {exact}");
    }

    #[test]
    fn serialization_is_the_exact_128_bit_division_on_both_sides_of_64_bits() {
        // bits * SEC crosses 2^64 at about 1.8e10 bits: packets, huge bursts, and rates from
        // 1 b/s to 400 Gb/s, with remainders up to rate - 1.
        let rates = [1, 7, 56_000, 149_760_000, 3_333_333_333, 10_000_000_000, 400_000_000_000];
        let bits = [1, 8, 424, 72_008, 18_446_744_073, 18_446_744_074, u32::MAX as u64 * 8, u64::MAX / 2];
        for &rate in &rates {
            for &b in &bits {
                for r0 in [0, 1, rate / 2, rate - 1] {
                    let num = b as u128 * SEC as u128 + r0 as u128;
                    let mut rem = r0;
                    let d = serialization_ns(b, rate, &mut rem);
                    let expected = ((num / rate as u128) as Dur, (num % rate as u128) as u64);
                    assert_eq!((d, rem), expected, "{b} bits at {rate}");
                }
            }
        }
    }

    use proptest::prelude::*;

    #[test]
    fn the_size_cache_carries_when_the_remainders_reach_the_rate_exactly() {
        // 8e9 = 2666666666 * 3 + 2: from a remainder of 0 the carried remainders go 2, 1, 0
        // (2 + 1 reaches the rate exactly) and the times 2666666666, 2666666667, 2666666667.
        let (mut cache, mut rem) = (SizeCache::default(), 0);
        let times: Vec<Dur> = (0..4).map(|_| cache.serialization_ns(1, 3, &mut rem)).collect();
        assert_eq!(times, [2_666_666_666, 2_666_666_667, 2_666_666_667, 2_666_666_666]);
        assert_eq!(rem, 2);
    }

    proptest! {
        /// The cache gives the plain division's quotient and remainder on every packet of a
        /// train of sizes drawn from a few (hits and misses), at any rate, from any remainder
        /// below the rate, on both sides of the 64-bit branch (bytes up to 2^32).
        #[test]
        fn the_size_cache_is_the_plain_division(
            rate in prop_oneof![1u64..16, 1u64..1_000, 1u64..=u64::MAX, u64::MAX - 16..=u64::MAX, 1_000_000u64..1_000_000_000_000],
            rem0 in 0u64..=u64::MAX,
            sizes in prop::collection::vec(prop_oneof![
                0u32..100, 40u32..41, 1500u32..1501, 0u32..=u32::MAX, u32::MAX - 2..=u32::MAX,
            ], 1..6),
            picks in prop::collection::vec(0usize..6, 1..100),
        ) {
            let (mut cache, mut rem, mut plain_rem) = (SizeCache::default(), rem0 % rate, rem0 % rate);
            for p in picks {
                let bytes = sizes[p % sizes.len()];
                let plain = serialization_ns(bytes as u64 * 8, rate, &mut plain_rem);
                prop_assert_eq!(cache.serialization_ns(bytes, rate, &mut rem), plain);
                prop_assert_eq!(rem, plain_rem);
            }
        }
    }
}
