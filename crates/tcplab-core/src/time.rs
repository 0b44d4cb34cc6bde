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
}
