//! ns-2's round-trip estimator and retransmission timeout, as in ns-2.1b3's `tcp.cc` (rev.
//! 1.76, 1998/06/27: TcpAgent::rtt_init, rtt_update, rtt_timeout, rtt_backoff; ns-default.tcl
//! 1.122: T_SRTT_BITS 3, T_RTTVAR_BITS 2, rttvar_exp_ 2, rtxcur_init_ 6.0, srtt_init_ 0, and
//! maxrto_ 100000, so the backoff's 64 is the only bound). Everything counts `tcpTick_` ticks;
//! unlike 4.4BSD the timer is an ns event that fires exactly `rtt_timeout()` after it is set,
//! not on a tick boundary.
//!
//! Its timer rules: TcpAgent::newack calls newtimer() before rtt_update() and before the
//! backoff is cleared, so a timer restarted by an ACK uses the estimate from before it
//! (`deadline_before_update`); a timeout backs off before re-arming (the trait's default); a
//! fast retransmit re-arms the timer without backing off (`reset_rtx_timer(1, 0)` in Reno,
//! NewReno and Sack1 alike: the trait's default, the timer restarting as the resent segment
//! leaves).
//!
//! ns-2.35 changed two of these rules, each a knob: `timerfix_` (tcp.cc 1.120, 2001/05/11,
//! `rearm_after_sample`) moves newack's newtimer() after the sample and the backoff's reset, and
//! rtt_backoff with `rfc2988_` (tcp.cc 1.174, 2007/03/29; as released, 1.181, 2010/04/02,
//! `backoff_to_max_rto`) doubles t_backoff_ past 64 for as long as rtt_timeout() is below
//! maxrto_.

use crate::time::{Dur, Time};

use super::rtt::{backoff_multiplier, rounded_ticks, ticks_crossed, RtoLimits, RttEstimator, MAX_BACKOFF};

/// Doublings of t_backoff_ counted at most when it may pass 64: 2^40 times even a 1 ns
/// estimate passes any `max_rto` a scenario can set, so the count never reaches it in practice.
const MAX_BACKOFF_TO_MAX: u32 = 40;

#[derive(Debug, Clone)]
pub struct Ns2Rtt {
    tick: Dur,
    /// The agent's tick clock (boot_time_): ticks fall at `phase + k * tick`.
    phase: Dur,
    /// t_srtt_: ticks << 3 (0: no estimate).
    srtt: u64,
    /// t_rttvar_: ticks << 2.
    rttvar: u64,
    has_sample: bool,
    /// t_rtxcur_ kept from the last estimate after rtt_backoff cleared srtt.
    rtxcur: Option<Dur>,
    limits: RtoLimits,
    /// ns-2.35's `timerfix_`: an ACK of new data restarts the timer from the estimate after
    /// its sample and the backoff's reset (knob `rearm_after_sample`).
    pub rearm_after_sample: bool,
}

impl Ns2Rtt {
    pub fn new(tick: Dur, phase: Dur, limits: RtoLimits) -> Self {
        Self { tick, phase, srtt: 0, rttvar: 0, has_sample: false, rtxcur: None, limits, rearm_after_sample: false }
    }

    fn update_ticks(&mut self, ticks: u64) {
        update(&mut self.srtt, &mut self.rttvar, ticks);
        self.has_sample = true;
    }
}

impl RttEstimator for Ns2Rtt {
    fn sample(&mut self, sent: Time, now: Time) {
        // rtt_update without timestamps: int((tao + tickoff) / tcp_tick_), i.e. the tick
        // boundaries crossed, at least 1.
        self.update_ticks(ticks_crossed(sent, now, self.tick, self.phase).max(1));
    }

    /// ns-2's rtt_update with `ts_option_` rounds the sample to the nearest tick (as ns-1
    /// always did) instead of counting boundaries.
    fn sample_echo(&mut self, echoed: Time, now: Time) {
        self.update_ticks(rounded_ticks(echoed, now, self.tick));
    }

    #[inline]
    fn rto(&self) -> Dur {
        if !self.has_sample {
            return self.rtxcur.unwrap_or(self.limits.initial);
        }
        // rtt_timeout clamps only after the backoff multiplies t_rtxcur_.
        rtxcur_ticks(self.srtt, self.rttvar) * self.tick
    }

    fn srtt_ns(&self) -> Dur {
        (self.srtt * self.tick) >> 3
    }

    fn deadline(&self, now: Time, backoff: u32) -> Time {
        timeout_at(now, self.rto(), backoff, self.limits)
    }

    fn on_backoff(&mut self, backoff: u32) {
        let mult = multiplier(backoff, self.limits);
        if mult > 8 && self.has_sample {
            // t_rtxcur_ is not recomputed until the next sample: keep the current value.
            let cur = self.rto();
            clobber_on_backoff(&mut self.srtt, &mut self.rttvar, mult);
            self.has_sample = false;
            self.rtxcur = Some(cur);
        }
    }

    /// rtt_backoff before set_rtx_timer. ns-2.1b's t_backoff_ stops at 64; ns-2.35's goes on
    /// doubling while the timeout it gives (rtt_timeout(), with the bounds) is below maxrto_.
    fn on_timeout(&mut self, now: Time, backoff: &mut u32) -> Time {
        if !self.limits.backoff_to_max {
            *backoff = (*backoff + 1).min(MAX_BACKOFF);
        } else if multiplier(*backoff, self.limits) < 64 || self.deadline(now, *backoff) - now < self.limits.max {
            *backoff = (*backoff + 1).min(MAX_BACKOFF_TO_MAX);
        }
        self.on_backoff(*backoff);
        self.deadline(now, *backoff)
    }

    fn deadline_before_update(&self, now: Time, backoff: u32) -> Option<Time> {
        (!self.rearm_after_sample).then(|| self.deadline(now, backoff))
    }
}

/// t_backoff_ after `backoff` doublings: at most 64 unless the limits let it reach `max`.
#[inline]
fn multiplier(backoff: u32, limits: RtoLimits) -> u64 {
    if limits.backoff_to_max {
        1u64 << backoff.min(MAX_BACKOFF_TO_MAX)
    } else {
        backoff_multiplier(backoff)
    }
}

/// rtt_timeout: t_rtxcur_ (`rto`) * t_backoff_, capped at maxrto_, at least 2 ticks (min_rto),
/// and the ns timer fires exactly then, `now` plus that. With rfc2988_ (ns-2.35, tcp.cc 1.131,
/// 2002/03/08) a t_rtxcur_ below minrto_ is raised to it first: `minrto_ * t_backoff_`.
pub fn timeout_at(now: Time, rto: Dur, backoff: u32, limits: RtoLimits) -> Time {
    let base = if limits.min_before_backoff { rto.max(limits.min) } else { rto };
    now + base.saturating_mul(multiplier(backoff, limits)).min(limits.max).max(limits.min)
}

/// One sample of `ticks` (already at least 1) folded into `srtt` (ticks << 3) and
/// `rttvar` (ticks << 2); `srtt == 0` means "no estimate yet" (rtt_update's else branch).
pub fn update(srtt: &mut u64, rttvar: &mut u64, ticks: u64) {
    if *srtt != 0 {
        // delta = t_rtt_ - (t_srtt_ >> 3): no "- 1" here, ns-2's sample is not BSD's
        // t_rtt that starts counting at 1.
        let mut s = *srtt as i64;
        let mut v = *rttvar as i64;
        let mut delta = ticks as i64 - (s >> 3);
        s += delta;
        if s <= 0 {
            s = 1;
        }
        delta = delta.abs() - (v >> 2);
        v += delta;
        if v <= 0 {
            v = 1;
        }
        *srtt = s as u64;
        *rttvar = v as u64;
    } else {
        *srtt = ticks << 3;
        *rttvar = ticks << 1;
    }
}

/// t_rtxcur_ in ticks: ((t_rttvar_ << (rttvar_exp_ + 1)) + t_srtt_) >> 3, i.e. srtt plus
/// four times rttvar, rounded down once at the end.
pub fn rtxcur_ticks(srtt: u64, rttvar: u64) -> u64 {
    ((rttvar << 3) + srtt) >> 3
}

/// rtt_backoff: past a backoff of 8 the smoothed RTT is folded into the variance and
/// forgotten, so the next sample starts the estimate afresh.
pub fn clobber_on_backoff(srtt: &mut u64, rttvar: &mut u64, backoff_mult: u64) {
    if backoff_mult > 8 {
        *rttvar += *srtt >> 3;
        *srtt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn ns2() -> Ns2Rtt {
        Ns2Rtt::new(
            100 * MS,
            0,
            RtoLimits {
                min: 200 * MS,
                max: 64 * SEC,
                initial: 6 * SEC,
                min_before_backoff: false,
                backoff_to_max: false,
            },
        )
    }

    #[test]
    fn ns2_timestamp_samples_round_where_timed_ones_count_boundaries() {
        // tcp.cc 1.76 rtt_update: with ts_option_, t_rtt_ = int(tao / tcp_tick_ + 0.5);
        // without, the tick boundaries crossed on the agent's clock (here at 0, 100, ...).
        let (mut echo, mut timed) = (ns2(), ns2());
        echo.sample_echo(90 * MS, 240 * MS); // 150 ms: 2 ticks -> 3 * 2 ticks
        timed.sample(90 * MS, 240 * MS); // boundaries at 100 and 200 ms: 2 ticks
        assert_eq!((echo.rto(), timed.rto()), (600 * MS, 600 * MS));
        let (mut echo, mut timed) = (ns2(), ns2());
        echo.sample_echo(10 * MS, 150 * MS); // 140 ms: 1 tick
        timed.sample(10 * MS, 150 * MS); // boundary at 100 ms only: 1 tick
        assert_eq!((echo.rto(), timed.rto()), (300 * MS, 300 * MS));
        let (mut echo, mut timed) = (ns2(), ns2());
        echo.sample_echo(95 * MS, 205 * MS); // 110 ms: 1 tick
        timed.sample(95 * MS, 205 * MS); // boundaries at 100 and 200 ms: 2 ticks
        assert_eq!((echo.rto(), timed.rto()), (300 * MS, 600 * MS));
    }

    #[test]
    fn ns2_timer_fires_exactly_and_counts_ticks_without_bsds_extra_one() {
        // tcp.cc rtt_update: t_rtt_ = tick boundaries crossed (>= 1); rtt_timeout:
        // t_rtxcur_ * t_backoff_, capped at maxrto_, at least 2 ticks; fired by an ns event.
        let mut r = ns2();
        assert_eq!(r.deadline(50 * MS, 0), 50 * MS + 6 * SEC, "rtxcur_init_ before any sample");
        r.sample(50 * MS, 320 * MS); // boundaries at 100, 200, 300 ms: 3 ticks
        assert_eq!(r.rto(), 900 * MS, "3 ticks * 3");
        assert_eq!(r.deadline(333 * MS, 0), 1233 * MS, "not rounded to a tick");
        assert_eq!(r.deadline(333 * MS, 6), 333 * MS + 57_600 * MS, "t_backoff_ 64");
        r.sample(0, 2 * SEC); // 20 ticks: t_rtxcur_ = (22 << 3 + 41) >> 3 = 27 ticks
        assert_eq!(r.deadline(0, 6), 64 * SEC, "capped at maxrto_");
    }

    #[test]
    fn ns2_keeps_rtxcur_when_a_long_backoff_clears_srtt_and_rearms_from_the_old_estimate() {
        let mut r = ns2();
        r.sample(0, 250 * MS); // 2 ticks: t_rtxcur_ 6 ticks
        assert_eq!(r.rto(), 600 * MS);
        r.on_backoff(3); // t_backoff_ 8: nothing forgotten
        assert_eq!(r.srtt, 16);
        r.on_backoff(4); // 16: srtt folded into rttvar and cleared, t_rtxcur_ kept
        assert_eq!((r.srtt, r.rto()), (0, 600 * MS));
        // newack's newtimer() precedes rtt_update: the restarted timer uses the old estimate.
        assert_eq!(r.deadline_before_update(SEC, 0), Some(1600 * MS));
        r.sample(SEC, SEC + 450 * MS); // 4 boundaries: a fresh estimate of 3 * 4 ticks
        assert_eq!(r.rto(), 1200 * MS);
    }

    #[test]
    fn first_sample_gives_three_times_the_rtt() {
        // rtt_update else-branch: srtt = rtt << 3, rttvar = rtt << 1, so
        // rtxcur = (rtt*2*8 + rtt*8) >> 3 = 3 rtt.
        let (mut s, mut v) = (0, 0);
        update(&mut s, &mut v, 2);
        assert_eq!((s, v), (16, 4));
        assert_eq!(rtxcur_ticks(s, v), 6);
    }

    #[test]
    fn steady_samples_decay_rttvar_to_three() {
        // A constant 4-tick RTT: srtt stays 32 (4 << 3); rttvar loses (rttvar >> 2) per
        // sample, 8 -> 6 -> 5 -> 4 -> 3, and stops at 3 where the shift gives 0:
        // rtxcur = (3 << 3 + 32) >> 3 = 7 ticks, not the 4 a real-valued estimator reaches.
        let (mut s, mut v) = (0, 0);
        for _ in 0..40 {
            update(&mut s, &mut v, 4);
        }
        assert_eq!((s, v), (32, 3));
        assert_eq!(rtxcur_ticks(s, v), 7);
    }

    #[test]
    fn backoff_past_eight_forgets_srtt() {
        let (mut s, mut v) = (80, 8);
        clobber_on_backoff(&mut s, &mut v, 8);
        assert_eq!((s, v), (80, 8));
        clobber_on_backoff(&mut s, &mut v, 16);
        assert_eq!((s, v), (0, 18));
    }
}
