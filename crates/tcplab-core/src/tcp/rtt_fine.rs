//! The fine-grained retransmission timer of RFC 6298 (`TimerClock::Fine`): samples in
//! nanoseconds, SRTT and RTTVAR with gains 1/8 and 1/4, RTO = SRTT + max(G, 4 RTTVAR) (G is one
//! nanosecond), clamped to [min_rto, max_rto]; the timer fires exactly when due.

use crate::time::{Dur, Time};

use super::rtt::{backoff_multiplier, RtoLimits, RttEstimator};

#[derive(Debug, Clone)]
pub struct FineRtt {
    /// SRTT, ns.
    srtt: u64,
    /// RTTVAR, ns.
    rttvar: u64,
    has_sample: bool,
    limits: RtoLimits,
    /// The timeout before backoff, clamped to the limits: it changes only with a sample, and
    /// the sender re-arms its timer from it on every ACK of new data (issue 26).
    timeout: Dur,
}

impl FineRtt {
    pub fn new(limits: RtoLimits) -> Self {
        Self { srtt: 0, rttvar: 0, has_sample: false, limits, timeout: limits.initial.clamp(limits.min, limits.max) }
    }

    /// The timeout before backoff: `deadline(now, 0)` is `now + timeout()`.
    #[inline(always)]
    pub fn timeout(&self) -> Dur {
        self.timeout
    }
}

impl RttEstimator for FineRtt {
    fn sample(&mut self, sent: Time, now: Time) {
        let r = now.saturating_sub(sent);
        if self.has_sample {
            // RFC 6298 (2.3): RTTVAR first, from the SRTT before this sample.
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        } else {
            self.srtt = r;
            self.rttvar = r / 2;
        }
        self.has_sample = true;
        self.timeout = self.rto();
    }

    #[inline]
    fn rto(&self) -> Dur {
        if !self.has_sample {
            return self.limits.initial;
        }
        (self.srtt + (4 * self.rttvar).max(1)).clamp(self.limits.min, self.limits.max)
    }

    fn srtt_ns(&self) -> Dur {
        self.srtt
    }

    #[inline]
    fn deadline(&self, now: Time, backoff: u32) -> Time {
        if backoff == 0 {
            return now + self.timeout;
        }
        now + self.rto().saturating_mul(backoff_multiplier(backoff)).clamp(self.limits.min, self.limits.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn fine_rto_follows_rfc6298() {
        let mut r = FineRtt::new(RtoLimits {
            min: 200 * MS,
            max: 60 * SEC,
            initial: SEC,
            min_before_backoff: false,
            backoff_to_max: false,
        });
        assert_eq!(r.rto(), SEC);
        r.sample(0, 100 * MS);
        assert_eq!(r.rto(), 300 * MS); // 100 + 4 * 50
        r.sample(0, 100 * MS);
        assert_eq!(r.rto(), 250 * MS); // rttvar 37.5 -> 100 + 150
        assert_eq!(r.deadline(SEC, 2), SEC + SEC); // 250 * 4
    }

    #[test]
    fn the_backed_off_timeout_is_clamped_to_max_rto() {
        let mut r = FineRtt::new(RtoLimits {
            min: 200 * MS,
            max: 5 * SEC,
            initial: SEC,
            min_before_backoff: false,
            backoff_to_max: false,
        });
        r.sample(0, 500 * MS); // 500 + 4 * 250 = 1.5 s
        assert_eq!(r.deadline(0, 1), 3 * SEC);
        assert_eq!(r.deadline(0, 2), 5 * SEC, "6 s capped");
        assert_eq!(r.srtt_ns(), 500 * MS);
    }

    #[test]
    fn the_unbacked_timeout_follows_each_sample_and_the_limits() {
        let limits =
            RtoLimits { min: 2 * SEC, max: 5 * SEC, initial: SEC, min_before_backoff: false, backoff_to_max: false };
        let mut r = FineRtt::new(limits);
        assert_eq!(r.deadline(SEC, 0), 3 * SEC, "the initial RTO is clamped to min_rto too");
        r.sample(0, 100 * MS);
        assert_eq!(r.deadline(SEC, 0), 3 * SEC, "300 ms raised to min_rto");
        r.sample(0, 2 * SEC);
        // srtt 337.5 ms, rttvar 512.5 ms: 2.3875 s, inside the limits.
        assert_eq!(r.deadline(SEC, 0), SEC + r.rto());
        assert_eq!(r.rto(), 2_387_500 * crate::time::US);
    }
}
