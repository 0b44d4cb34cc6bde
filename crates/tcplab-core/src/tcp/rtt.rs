//! Round-trip time estimation and the retransmission timeout (Jacobson/Karels).
//!
//! Two clocks: BSD's coarse one, where samples and the RTO are whole ticks and the timer only
//! fires on tick boundaries (4.4BSD `tcp_xmit_timer`, with its exact integer scaling), and a
//! fine-grained one in nanoseconds (RFC 6298). Karn's rule and backoff live in the sender;
//! this module only turns samples into a timeout.

use crate::time::{next_tick_after, Dur, Time};

/// How the retransmission timer measures time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerClock {
    /// BSD-style: everything in ticks of `tick` ns; the host's ticks fall at `phase + k*tick`.
    Coarse { tick: Dur },
    /// Nanosecond samples, timer fires exactly when due.
    Fine,
    /// ns-2 (`rtt_ns2.rs`): samples and the RTO in ticks of `tick` (tcpTick_), counted on
    /// the agent's own tick clock at `phase` (boot_time_), but the timer fires exactly when due.
    Ns2 { tick: Dur },
    /// ns-1 (`rtt_ns1.rs`): samples rounded to the nearest tick, no separate t_rtxcur_, the
    /// first timeout from the initial variance, srtt cleared without folding past backoff 8;
    /// the sender also arms the timer before the backoff doubles and backs off on a fast
    /// retransmit. The timer fires exactly when due, as in ns-2.
    Ns1 { tick: Dur },
}

#[derive(Debug, Clone)]
pub struct RttEstimator {
    clock: TimerClock,
    /// Phase of this host's tick clock (coarse mode).
    phase: Dur,
    /// Coarse: srtt in ticks << 3 (BSD `t_srtt`); fine: srtt in ns.
    srtt: u64,
    /// Coarse: rttvar in ticks << 2 (BSD `t_rttvar`); fine: rttvar in ns.
    rttvar: u64,
    has_sample: bool,
    /// ns-2: t_rtxcur_ kept from the last estimate after rtt_backoff cleared srtt.
    ns2_rtxcur: Option<Dur>,
    /// 4.4BSD's start and backoff rules on the coarse clock (`bsd44_rules`).
    bsd44: bool,
    min_rto: Dur,
    max_rto: Dur,
    initial_rto: Dur,
}

/// BSD's backoff multipliers (`tcp_backoff[]`), capped by max_rto.
const BACKOFF: [u64; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

impl RttEstimator {
    pub fn new(clock: TimerClock, phase: Dur, min_rto: Dur, max_rto: Dur, initial_rto: Dur) -> Self {
        Self {
            clock,
            phase,
            srtt: 0,
            // ns-1 rtt_init: t_rttvar_ = int(3 / tcp_tick_), the first timeout's whole source.
            rttvar: match clock {
                TimerClock::Ns1 { tick } => super::rtt_ns1::initial_rttvar(initial_rto, tick),
                _ => 0,
            },
            has_sample: false,
            ns2_rtxcur: None,
            bsd44: false,
            min_rto,
            max_rto,
            initial_rto,
        }
    }

    /// 4.4BSD-Lite tcp_subr.c tcp_newtcpcb: t_srtt = 0 and t_rttvar = tcp_rttdflt (3 s)
    /// << 2 in ticks, with t_rxtcur = 6 s for the first transmission only. Any later timeout
    /// before the first sample uses TCP_REXMTVAL = 12 s times the backoff (tcp_timer.c), so a
    /// SYN goes out at 0, 6 and 30 s (intervals of 6, 24 and 48 s). Past t_rxtshift 3 a timeout folds
    /// srtt into rttvar and forgets it, so the next sample starts afresh.
    pub fn bsd44_rules(mut self) -> Self {
        if let TimerClock::Coarse { tick } = self.clock {
            self.bsd44 = true;
            self.rttvar = 2 * self.initial_rto / tick;
        }
        self
    }

    pub fn clock(&self) -> TimerClock {
        self.clock
    }

    /// Record a round-trip sample for a segment sent at `sent` and acknowledged at `now`.
    pub fn sample(&mut self, sent: Time, now: Time) {
        match self.clock {
            TimerClock::Coarse { tick } => {
                // BSD starts t_rtt at 1 and bumps it at every slow tick while the segment is
                // outstanding, so the sample is 1 + the tick boundaries crossed.
                let ticks = self.boundaries_between(sent, now, tick) + 1;
                self.sample_bsd_ticks(ticks as i64);
            }
            TimerClock::Ns2 { tick } => {
                // rtt_update without timestamps: int((tao + tickoff) / tcp_tick_), i.e. the
                // tick boundaries crossed, at least 1.
                let ticks = self.boundaries_between(sent, now, tick).max(1);
                super::rtt_ns2::update(&mut self.srtt, &mut self.rttvar, ticks);
            }
            TimerClock::Ns1 { tick } => {
                let ticks = super::rtt_ns1::rounded_ticks(sent, now, tick);
                super::rtt_ns2::update(&mut self.srtt, &mut self.rttvar, ticks);
            }
            TimerClock::Fine => self.sample_rfc6298(now.saturating_sub(sent)),
        }
        self.has_sample = true;
    }

    /// Record the sample an ACK gives by echoing the send time `echoed` of the segment that
    /// triggered it (`rtt_sample = "timestamp"`). ns-2's rtt_update with `ts_option_` rounds
    /// the sample to the nearest tick (as ns-1 always did) instead of counting boundaries.
    pub fn sample_echo(&mut self, echoed: Time, now: Time) {
        if let TimerClock::Ns2 { tick } = self.clock {
            let ticks = super::rtt_ns1::rounded_ticks(echoed, now, tick);
            super::rtt_ns2::update(&mut self.srtt, &mut self.rttvar, ticks);
            self.has_sample = true;
        } else {
            self.sample(echoed, now);
        }
    }

    fn boundaries_between(&self, from: Time, to: Time, tick: Dur) -> u64 {
        let idx = |t: Time| (t + tick - self.phase) / tick;
        idx(to) - idx(from)
    }

    fn sample_bsd_ticks(&mut self, rtt: i64) {
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

    fn sample_rfc6298(&mut self, r: Dur) {
        if self.has_sample {
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        } else {
            self.srtt = r;
            self.rttvar = r / 2;
        }
    }

    /// ns-2's rtt_backoff: a long run of timeouts forgets the smoothed RTT.
    pub fn on_backoff(&mut self, backoff: u32) {
        if self.bsd44 && backoff > 3 && self.srtt != 0 {
            // tcp_timer.c: t_rxtshift > TCP_MAXRXTSHIFT / 4.
            self.rttvar += self.srtt >> 3;
            self.srtt = 0;
        }
        let mult = BACKOFF[(backoff as usize).min(BACKOFF.len() - 1)];
        if matches!(self.clock, TimerClock::Ns1 { .. }) {
            super::rtt_ns1::clobber_on_backoff(&mut self.srtt, mult);
            return;
        }
        if matches!(self.clock, TimerClock::Ns2 { .. }) && mult > 8 && self.has_sample {
            // t_rtxcur_ is not recomputed until the next sample: keep the current value.
            let cur = self.rto();
            super::rtt_ns2::clobber_on_backoff(&mut self.srtt, &mut self.rttvar, mult);
            self.has_sample = false;
            self.ns2_rtxcur = Some(cur);
        }
    }

    /// Smoothed RTT in ns (for traces and reports).
    pub fn srtt_ns(&self) -> Dur {
        match self.clock {
            TimerClock::Coarse { tick } | TimerClock::Ns2 { tick } | TimerClock::Ns1 { tick } => {
                (self.srtt * tick) >> 3
            }
            TimerClock::Fine => self.srtt,
        }
    }

    /// The un-backed-off timeout in ns, clamped to [min_rto, max_rto].
    #[inline(always)]
    pub fn rto(&self) -> Dur {
        if let TimerClock::Ns1 { tick } = self.clock {
            // rtt_timeout: ((t_srtt_ >> 3) + t_rttvar_) * tcp_tick_, from rtt_init's values
            // before any sample; clamped only after the backoff multiplies it.
            return super::rtt_ns2::rtxcur_ticks(self.srtt, self.rttvar) * tick;
        }
        if !self.has_sample && !self.bsd44 {
            return self.ns2_rtxcur.unwrap_or(self.initial_rto);
        }
        match self.clock {
            // TCP_REXMTVAL: (t_srtt >> 3) + t_rttvar, i.e. srtt + 4 rttvar, in ticks.
            TimerClock::Coarse { tick } => (((self.srtt >> 3) + self.rttvar) * tick).clamp(self.min_rto, self.max_rto),
            TimerClock::Fine => (self.srtt + (4 * self.rttvar).max(1)).clamp(self.min_rto, self.max_rto),
            // rtt_timeout clamps only after the backoff multiplies t_rtxcur_.
            TimerClock::Ns2 { tick } => super::rtt_ns2::rtxcur_ticks(self.srtt, self.rttvar) * tick,
            TimerClock::Ns1 { .. } => unreachable!("returned above"),
        }
    }

    /// When a timer armed at `now` after `backoff` consecutive timeouts expires.
    pub fn deadline(&self, now: Time, backoff: u32) -> Time {
        let mult = BACKOFF[(backoff as usize).min(BACKOFF.len() - 1)];
        match self.clock {
            TimerClock::Coarse { tick } => {
                let base = if self.bsd44 && !self.has_sample && backoff == 0 { self.initial_rto } else { self.rto() };
                let rto = base.saturating_mul(mult).clamp(self.min_rto, self.max_rto);
                // The timer counts down once per tick: it fires on the rto_ticks-th boundary.
                let ticks = rto.div_ceil(tick).max(1);
                next_tick_after(now, tick, self.phase) + (ticks - 1) * tick
            }
            TimerClock::Fine => now + self.rto().saturating_mul(mult).clamp(self.min_rto, self.max_rto),
            // rtt_timeout: t_rtxcur_ * t_backoff_, capped at maxrto_, at least 2 ticks
            // (min_rto), and the ns timer fires exactly then.
            // ns-1 rtt_timeout: the same, with no maxrto_ (the preset's max_rto is its 2000 s
            // overflow guard).
            TimerClock::Ns2 { .. } | TimerClock::Ns1 { .. } => {
                now + self.rto().saturating_mul(mult).min(self.max_rto).max(self.min_rto)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    fn bsd(tick: Dur) -> RttEstimator {
        RttEstimator::new(TimerClock::Coarse { tick }, 0, 2 * tick, 64 * SEC, 3 * SEC)
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
    fn fine_rto_follows_rfc6298() {
        let mut r = RttEstimator::new(TimerClock::Fine, 0, 200 * MS, 60 * SEC, SEC);
        assert_eq!(r.rto(), SEC);
        r.sample(0, 100 * MS);
        assert_eq!(r.rto(), 300 * MS); // 100 + 4 * 50
        r.sample(0, 100 * MS);
        assert_eq!(r.rto(), 250 * MS); // rttvar 37.5 -> 100 + 150
        assert_eq!(r.deadline(SEC, 2), SEC + SEC); // 250 * 4
    }

    #[test]
    fn bsd44_first_timeouts_are_6_then_24_then_48_seconds() {
        // tcp_subr.c tcp_newtcpcb: t_rxtcur 12 ticks for the first send; tcp_timer.c then
        // uses TCP_REXMTVAL (t_rttvar = 24 ticks) times tcp_backoff[t_rxtshift].
        let r = RttEstimator::new(TimerClock::Coarse { tick: 500 * MS }, 0, SEC, 64 * SEC, 6 * SEC).bsd44_rules();
        assert_eq!(r.deadline(0, 0), 6 * SEC);
        assert_eq!(r.deadline(6 * SEC, 1), 30 * SEC);
        assert_eq!(r.deadline(30 * SEC, 2), 78 * SEC);
    }

    #[test]
    fn ns2_timestamp_samples_round_where_timed_ones_count_boundaries() {
        // tcp.cc 1.59 rtt_update: with ts_option_, t_rtt_ = int(tao / tcp_tick_ + 0.5);
        // without, the tick boundaries crossed on the agent's clock (here at 0, 100, ...).
        let ns2 = || RttEstimator::new(TimerClock::Ns2 { tick: 100 * MS }, 0, 200 * MS, 64 * SEC, 6 * SEC);
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
    fn ns1_starts_at_three_seconds_and_keeps_no_rtxcur_after_clobbering_srtt() {
        // ns-1 tcp.cc rtt_init: srtt 0, rttvar int(3 / 0.1) = 30 ticks; rtt_backoff past 8
        // clears srtt only, so rtt_timeout falls to rttvar ticks at once.
        let mut r = RttEstimator::new(TimerClock::Ns1 { tick: 100 * MS }, 0, 200 * MS, 2000 * SEC, 3 * SEC);
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
    fn ns2_timer_fires_exactly_and_counts_ticks_without_bsds_extra_one() {
        // tcp.cc rtt_update: t_rtt_ = tick boundaries crossed (>= 1); rtt_timeout:
        // t_rtxcur_ * t_backoff_, capped at maxrto_, at least 2 ticks; fired by an ns event.
        let mut r = RttEstimator::new(TimerClock::Ns2 { tick: 100 * MS }, 0, 200 * MS, 64 * SEC, 6 * SEC);
        assert_eq!(r.deadline(50 * MS, 0), 50 * MS + 6 * SEC, "rtxcur_init_ before any sample");
        r.sample(50 * MS, 320 * MS); // boundaries at 100, 200, 300 ms: 3 ticks
        assert_eq!(r.rto(), 900 * MS, "3 ticks * 3");
        assert_eq!(r.deadline(333 * MS, 0), 1233 * MS, "not rounded to a tick");
        assert_eq!(r.deadline(333 * MS, 6), 333 * MS + 57_600 * MS, "t_backoff_ 64");
        r.sample(0, 2 * SEC); // 20 ticks: t_rtxcur_ = (22 << 3 + 41) >> 3 = 27 ticks
        assert_eq!(r.deadline(0, 6), 64 * SEC, "capped at maxrto_");
    }
}
