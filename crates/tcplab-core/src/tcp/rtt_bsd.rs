//! BSD's coarse retransmission timer (`TimerClock::Coarse`): samples and the timeout count
//! ticks of the slow timer (500 ms in 4.4BSD), and the timer fires on tick boundaries only.
//! The arithmetic is 4.4BSD-Lite `tcp_xmit_timer`'s, in its scaled integers (srtt in ticks
//! << 3, rttvar in ticks << 2); the timeout is TCP_REXMTVAL, (srtt >> 3) + rttvar ticks.
//!
//! With `with_bsd44_rules` (the `bsd44` stack) the start and the long backoff are 4.4BSD-Lite's
//! too (`bsd44_first_timeouts_are_6_then_24_then_48_seconds`); without them the timeout before
//! any sample is the configured initial one, as tcplab's coarse timer always had.

use crate::time::{next_tick_after, Dur, Time};

use super::rtt::{backoff_multiplier, ticks_crossed, RtoLimits, RttEstimator};

#[derive(Debug, Clone)]
pub struct BsdRtt {
    tick: Dur,
    /// Where this host's ticks fall: at `phase + k * tick`.
    phase: Dur,
    /// t_srtt: ticks << 3 (0: no estimate).
    srtt: u64,
    /// t_rttvar: ticks << 2.
    rttvar: u64,
    has_sample: bool,
    /// 4.4BSD-Lite's start and backoff rules.
    bsd44: bool,
    limits: RtoLimits,
}

impl BsdRtt {
    pub fn new(tick: Dur, phase: Dur, limits: RtoLimits) -> Self {
        Self { tick, phase, srtt: 0, rttvar: 0, has_sample: false, bsd44: false, limits }
    }

    /// 4.4BSD-Lite tcp_subr.c tcp_newtcpcb: t_srtt = 0 and t_rttvar = tcp_rttdflt (3 s)
    /// << 2 in ticks, with t_rxtcur = 6 s for the first transmission only. Any later timeout
    /// before the first sample uses TCP_REXMTVAL = 12 s times the backoff (tcp_timer.c), so a
    /// SYN goes out at 0, 6 and 30 s (intervals of 6, 24 and 48 s). Past t_rxtshift 3 a timeout
    /// folds srtt into rttvar and forgets it, so the next sample starts afresh.
    pub fn with_bsd44_rules(mut self) -> Self {
        self.bsd44 = true;
        self.rttvar = 2 * self.limits.initial / self.tick;
        self
    }

    fn sample_ticks(&mut self, rtt: i64) {
        // tcp_xmit_timer: `if (tp->t_srtt != 0)`; srtt is never 0 once set, except after
        // the 4.4BSD backoff rule cleared it.
        if self.srtt != 0 {
            let mut srtt = self.srtt as i64;
            let mut rttvar = self.rttvar as i64;
            let mut delta = rtt - 1 - (srtt >> 3);
            srtt += delta;
            if srtt <= 0 {
                srtt = 1;
            }
            delta = delta.abs() - (rttvar >> 2);
            rttvar += delta;
            if rttvar <= 0 {
                rttvar = 1;
            }
            self.srtt = srtt as u64;
            self.rttvar = rttvar as u64;
        } else {
            self.srtt = (rtt as u64) << 3;
            self.rttvar = (rtt as u64) << 1;
        }
    }
}

impl RttEstimator for BsdRtt {
    fn sample(&mut self, sent: Time, now: Time) {
        // BSD starts t_rtt at 1 and bumps it at every slow tick while the segment is
        // outstanding, so the sample is 1 + the tick boundaries crossed.
        let ticks = ticks_crossed(sent, now, self.tick, self.phase) + 1;
        self.sample_ticks(ticks as i64);
        self.has_sample = true;
    }

    #[inline]
    fn rto(&self) -> Dur {
        if !self.has_sample && !self.bsd44 {
            return self.limits.initial;
        }
        // TCP_REXMTVAL: (t_srtt >> 3) + t_rttvar, i.e. srtt + 4 rttvar, in ticks.
        (((self.srtt >> 3) + self.rttvar) * self.tick).clamp(self.limits.min, self.limits.max)
    }

    fn srtt_ns(&self) -> Dur {
        (self.srtt * self.tick) >> 3
    }

    fn deadline(&self, now: Time, backoff: u32) -> Time {
        let base = if self.bsd44 && !self.has_sample && backoff == 0 { self.limits.initial } else { self.rto() };
        let rto = base.saturating_mul(backoff_multiplier(backoff)).clamp(self.limits.min, self.limits.max);
        // The timer counts down once per tick: it fires on the rto_ticks-th boundary.
        let ticks = rto.div_ceil(self.tick).max(1);
        next_tick_after(now, self.tick, self.phase) + (ticks - 1) * self.tick
    }

    fn on_backoff(&mut self, backoff: u32) {
        if self.bsd44 && backoff > 3 && self.srtt != 0 {
            // tcp_timer.c: t_rxtshift > TCP_MAXRXTSHIFT / 4.
            self.rttvar += self.srtt >> 3;
            self.srtt = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn bsd(tick: Dur) -> BsdRtt {
        BsdRtt::new(
            tick,
            0,
            RtoLimits {
                min: 2 * tick,
                max: 64 * SEC,
                initial: 3 * SEC,
                min_before_backoff: false,
                backoff_to_max: false,
            },
        )
    }

    #[test]
    fn bsd_first_sample_of_one_tick_gives_three_ticks() {
        let mut r = bsd(500 * MS);
        r.sample(100 * MS, 120 * MS); // 20 ms RTT, no boundary crossed: t_rtt = 1
                                      // srtt = 1<<3, rttvar = 1<<1: REXMTVAL = 1 + 2 = 3 ticks
        assert_eq!(r.rto(), 1500 * MS);
    }

    #[test]
    fn bsd_rto_settles_at_three_ticks_on_a_short_path() {
        // srtt decays to 7/8 of a tick, but rttvar's integer floor keeps 3 (scaled) so
        // REXMTVAL stays at 0 + 3 ticks: 4.4BSD's well-known 1-1.5 s LAN timeout.
        let mut r = bsd(500 * MS);
        for i in 0..50 {
            let t = i * 40 * MS;
            r.sample(t, t + 20 * MS);
        }
        assert_eq!(r.rto(), 1500 * MS);
    }

    #[test]
    fn bsd_rto_rounds_up_to_tick_boundaries() {
        let mut r = bsd(500 * MS);
        r.sample(0, 20 * MS); // rto 3 ticks
                              // Armed at 0.7 s: first boundary 1.0 s, then two more ticks: fires at 2.0 s.
        assert_eq!(r.deadline(700 * MS, 0), 2000 * MS);
        // Backoff doubles the tick count: 6 ticks -> 1.0 s + 5 * 0.5 s.
        assert_eq!(r.deadline(700 * MS, 1), 3500 * MS);
    }

    #[test]
    fn bsd44_first_timeouts_are_6_then_24_then_48_seconds() {
        // tcp_subr.c tcp_newtcpcb: t_rxtcur 12 ticks for the first send; tcp_timer.c then
        // uses TCP_REXMTVAL (t_rttvar = 24 ticks) times tcp_backoff[t_rxtshift].
        let limits =
            RtoLimits { min: SEC, max: 64 * SEC, initial: 6 * SEC, min_before_backoff: false, backoff_to_max: false };
        let r = BsdRtt::new(500 * MS, 0, limits).with_bsd44_rules();
        assert_eq!(r.deadline(0, 0), 6 * SEC);
        assert_eq!(r.deadline(6 * SEC, 1), 30 * SEC);
        assert_eq!(r.deadline(30 * SEC, 2), 78 * SEC);
    }

    #[test]
    fn bsd44_forgets_srtt_past_the_third_backoff_and_the_timeout_keeps_the_variance() {
        // tcp_timer.c: past t_rxtshift TCP_MAXRXTSHIFT / 4 (3), rttvar += srtt >> 3, srtt = 0.
        let limits =
            RtoLimits { min: SEC, max: 64 * SEC, initial: 6 * SEC, min_before_backoff: false, backoff_to_max: false };
        let mut r = BsdRtt::new(500 * MS, 0, limits).with_bsd44_rules();
        r.sample(0, 1200 * MS); // boundaries at 0.5 and 1.0 s: t_rtt 3 -> srtt 24, rttvar 6
        assert_eq!((r.srtt, r.rttvar, r.rto()), (24, 6, 4500 * MS));
        r.on_backoff(3);
        assert_eq!(r.srtt, 24, "kept up to the third backoff");
        r.on_backoff(4);
        assert_eq!((r.srtt, r.rttvar, r.rto()), (0, 9, 4500 * MS));
        // Without 4.4BSD's rules the estimate stays.
        let mut plain = BsdRtt::new(500 * MS, 0, limits);
        plain.sample(0, 1200 * MS);
        plain.on_backoff(6);
        assert_eq!(plain.srtt, 24);
    }
}
