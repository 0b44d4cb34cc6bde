//! ns-1's retransmission timer and the per-ACK RTT sample from echoed timestamps.
//!
//! The source is ns-1's `tcp.cc` as it was imported into the ns-2 tree (ns-2 `tcp.cc` rev.
//! 1.1.1.1, 1996/12/19, still with ns-1's Tcl names `agent/tcp`, `tcp-tick`, `bug-fix`), and
//! ns-1's defaults in `tcl/lib/ns-default.tcl` rev. 1.2 (1997/01/24). docs/stacks.md lists
//! where each rule comes from. Where ns-1 differs from ns-2.1b (`rtt_ns2.rs`):
//!
//! - `TcpAgent::newack` calls `rtt_update(now - ts)` on *every* ACK of new data, with the
//!   timestamp the sink echoed (`Acker::build_ack` copies the `ts_` of the packet that
//!   triggered the ACK; `TcpAgent::output` stamps every transmission with its send time).
//!   ns-2.1b does the same only with `timestamps_` on (rtt_update's `ts_option_` branch).
//! - `rtt_update` rounds: `t_rtt_ = int(tao / tcp_tick_ + 0.5)`, at least 1 (ns-2.1b without
//!   timestamps counts the tick boundaries crossed on the agent's own clock).
//! - `rtt_init`: `t_srtt_ = 0`, `t_rttvar_ = int(3 / tcp_tick_)`, so `rtt_timeout` =
//!   `((t_srtt_ >> 3) + t_rttvar_) * tcp_tick_` is 3 s before any sample; there is no separate
//!   `t_rtxcur_` (nor `rtxcur_init_`), and no `maxrto_`.
//! - `rtt_backoff`: `t_backoff_` doubles up to 64; past 8, `t_srtt_ = 0` and the variance is
//!   kept as it is (ns-2.1b adds srtt into it), so the timeout falls to `t_rttvar_` ticks.
//! - `reset_rtx_timer(mild)` calls `set_rtx_timer()` *before* `rtt_backoff()`, and is called
//!   on a timeout and on a fast retransmit alike (ns-1's Tahoe in `tcp.cc` and its Reno in
//!   `tcp-reno.cc` rev. 1.1, 1996/12/19): the timer armed then uses the backoff from before
//!   the doubling, and a fast retransmit doubles the backoff too (ns-2.1b backs off before
//!   re-arming, and only on a timeout). The knob `fast_retransmit_timer = "keep"` runs the
//!   other reading (re-armed without the doubling) on this timer.

use crate::time::{Dur, Time};

use super::rtt::{backoff_multiplier, rounded_ticks, RtoLimits, RttEstimator, MAX_BACKOFF};
use super::rtt_ns2::{rtxcur_ticks, timeout_at, update};

/// Where the sender's RTT samples come from (scenario knob `rtt_sample`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSample {
    /// One timed segment at a time, never a retransmission (Karn; 4.4BSD `t_rtt`, ns-2
    /// `rtt_active_`/`rtt_seq_` without `timestamps_`).
    Timed,
    /// Every ACK of new data, as now minus the timestamp it echoes (ns-1; ns-2 with
    /// `timestamps_ true`). A retransmission carries its own send time, so its ACK gives a
    /// true sample and Karn's rule is not needed; the backoff is still cleared only by the
    /// ACK of a segment sent after the last timeout (`rtt_active_`).
    Timestamp,
}

impl RttSample {
    pub const NAMES: &'static [&'static str] = &["timed", "timestamp"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "timed" => Self::Timed,
            "timestamp" => Self::Timestamp,
            _ => return None,
        })
    }
}

/// rtt_init: `t_rttvar_ = int(3 / tcp_tick_)` for ns-1's 3 s; generally the initial timeout in
/// whole ticks, so that `(0 >> 3) + t_rttvar_` ticks is the first timeout.
pub fn initial_rttvar(initial_rto: Dur, tick: Dur) -> u64 {
    (initial_rto / tick).max(1)
}

/// rtt_backoff: past a backoff of 8 the smoothed RTT is cleared and the variance kept.
pub fn clobber_on_backoff(srtt: &mut u64, backoff_mult: u64) {
    if backoff_mult > 8 {
        *srtt = 0;
    }
}

/// ns-1's estimator: ns-2's arithmetic (`rtt_ns2::update`) on rounded samples, no t_rtxcur_.
#[derive(Debug, Clone)]
pub struct Ns1Rtt {
    tick: Dur,
    /// t_srtt_: ticks << 3 (0: no estimate).
    srtt: u64,
    /// t_rttvar_: ticks << 2, starting at the initial timeout in ticks (rtt_init).
    rttvar: u64,
    limits: RtoLimits,
}

impl Ns1Rtt {
    pub fn new(tick: Dur, limits: RtoLimits) -> Self {
        // ns-1 rtt_init: t_rttvar_ = int(3 / tcp_tick_), the first timeout's whole source.
        Self { tick, srtt: 0, rttvar: initial_rttvar(limits.initial, tick), limits }
    }
}

impl RttEstimator for Ns1Rtt {
    /// rtt_update: `t_rtt_ = int(tao / tcp_tick_ + 0.5)`, at least 1, for timed and echoed
    /// samples alike.
    fn sample(&mut self, sent: Time, now: Time) {
        update(&mut self.srtt, &mut self.rttvar, rounded_ticks(sent, now, self.tick));
    }

    /// rtt_timeout: ((t_srtt_ >> 3) + t_rttvar_) * tcp_tick_, from rtt_init's values before
    /// any sample; clamped only after the backoff multiplies it.
    #[inline]
    fn rto(&self) -> Dur {
        rtxcur_ticks(self.srtt, self.rttvar) * self.tick
    }

    fn srtt_ns(&self) -> Dur {
        (self.srtt * self.tick) >> 3
    }

    /// rtt_timeout: as ns-2's, with no maxrto_ (the preset's max_rto is its 2000 s overflow
    /// guard).
    fn deadline(&self, now: Time, backoff: u32) -> Time {
        timeout_at(now, self.rto(), backoff, self.limits)
    }

    fn on_backoff(&mut self, backoff: u32) {
        clobber_on_backoff(&mut self.srtt, backoff_multiplier(backoff));
    }

    /// reset_rtx_timer: set_rtx_timer() before rtt_backoff(), so the retransmission is timed
    /// with the backoff (and the estimate) from before this timeout.
    fn on_timeout(&mut self, now: Time, backoff: &mut u32) -> Time {
        let deadline = self.deadline(now, *backoff);
        *backoff = (*backoff + 1).min(MAX_BACKOFF);
        self.on_backoff(*backoff);
        deadline
    }

    /// ns-1's fast retransmit calls reset_rtx_timer (tcp.cc's Tahoe recv, tcp-reno.cc 1.1's
    /// RenoTcpAgent::recv, tcp-newreno.cc 1.7's `reset_rtx_timer(1)`): the timer is re-armed
    /// with the current backoff, which then doubles.
    fn on_fast_retransmit(&mut self, now: Time, backoff: &mut u32) -> Option<Time> {
        Some(self.on_timeout(now, backoff))
    }

    /// newack: newtimer() before rtt_update(), as in ns-2.
    fn deadline_before_update(&self, now: Time, backoff: u32) -> Option<Time> {
        Some(self.deadline(now, backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn ns1() -> Ns1Rtt {
        Ns1Rtt::new(
            100 * MS,
            RtoLimits {
                min: 200 * MS,
                max: 2000 * SEC,
                initial: 3 * SEC,
                min_before_backoff: false,
                backoff_to_max: false,
            },
        )
    }

    #[test]
    fn ns1_starts_at_three_seconds_and_keeps_no_rtxcur_after_clobbering_srtt() {
        // ns-1 tcp.cc rtt_init: srtt 0, rttvar int(3 / 0.1) = 30 ticks; rtt_backoff past 8
        // clears srtt only, so rtt_timeout falls to rttvar ticks at once.
        let mut r = ns1();
        assert_eq!(r.rto(), 3 * SEC);
        r.sample(0, 1000 * MS); // 10 ticks: srtt 80, rttvar 20 -> 10 + 20 = 30 ticks
        assert_eq!(r.rto(), 3 * SEC);
        r.on_backoff(3); // t_backoff_ 8: kept
        assert_eq!(r.rto(), 3 * SEC);
        r.on_backoff(4); // 16: srtt cleared, rttvar 20 stays
        assert_eq!(r.rto(), 2 * SEC);
        assert_eq!(r.deadline(0, 4), 32 * SEC);
    }

    #[test]
    fn ns1_rearms_before_it_backs_off_on_a_timeout_and_on_a_fast_retransmit() {
        // reset_rtx_timer: set_rtx_timer() with the old backoff, then rtt_backoff().
        let mut r = ns1();
        let mut backoff = 0;
        assert_eq!(r.on_timeout(SEC, &mut backoff), 4 * SEC, "3 s, not 6");
        assert_eq!(backoff, 1);
        assert_eq!(r.on_fast_retransmit(10 * SEC, &mut backoff), Some(16 * SEC), "6 s, then it doubles");
        assert_eq!(backoff, 2);
        assert_eq!(r.deadline_before_update(0, 0), Some(3 * SEC));
    }

    #[test]
    fn three_seconds_are_thirty_ticks_of_rttvar() {
        assert_eq!(initial_rttvar(3000 * MS, 100 * MS), 30);
        assert_eq!(initial_rttvar(3000 * MS, 500 * MS), 6);
    }

    #[test]
    fn backoff_past_eight_clears_srtt_but_keeps_the_variance() {
        let mut s = 80;
        clobber_on_backoff(&mut s, 8);
        assert_eq!(s, 80);
        clobber_on_backoff(&mut s, 16);
        assert_eq!(s, 0);
    }
}
