//! Round-trip time estimation and the retransmission timeout: one estimator per stack, each in
//! a file of its own, behind one trait (`RttEstimator`) and a closed enum (`Estimator`) that
//! the sender dispatches over without a vtable.
//!
//! - `rtt_bsd.rs`: BSD's coarse clock, where samples and the RTO are whole ticks and the timer
//!   only fires on tick boundaries (4.4BSD `tcp_xmit_timer`, with its exact integer scaling),
//!   with 4.4BSD-Lite's start and backoff rules for the `bsd44` stack;
//! - `rtt_ns2.rs`: ns-2.1b3's tick-counted estimator, whose timer fires exactly when due;
//! - `rtt_ns1.rs`: ns-1's, with per-ACK samples rounded to the nearest tick;
//! - `rtt_fine.rs`: RFC 6298 in nanoseconds.
//!
//! An estimator turns samples into a timeout and owns the stack's timer rules: when a timeout
//! backs off relative to re-arming the timer, whether a fast retransmit re-arms it, and which
//! estimate an ACK of new data restarts it with. Karn's rule and the backoff count live in the
//! sender.

use crate::time::{Dur, Time};

use super::config::TcpConfig;
use super::rtt_bsd::BsdRtt;
use super::rtt_fine::FineRtt;
use super::rtt_ns1::Ns1Rtt;
use super::rtt_ns2::Ns2Rtt;
use super::stack::Stack;

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

/// The bounds of the timeout, and its value before the first sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtoLimits {
    pub min: Dur,
    pub max: Dur,
    pub initial: Dur,
    /// `min` bounds the estimate before the backoff multiplies it (ns-2.35's rfc2988_), not
    /// the backed-off timeout; read by the ns-2 timer only.
    pub min_before_backoff: bool,
    /// The backoff doubles for as long as the timeout is below `max` (ns-2.35's rtt_backoff
    /// with rfc2988_), not only up to 64; read by the ns-2 timer only.
    pub backoff_to_max: bool,
}

/// Consecutive timeouts counted at most (BSD's TCP_MAXRXTSHIFT; ns-2's t_backoff_ stops at 64).
pub const MAX_BACKOFF: u32 = 12;

/// BSD's backoff multipliers (`tcp_backoff[]`), capped by max_rto.
const BACKOFF: [u64; MAX_BACKOFF as usize + 1] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

/// The timeout multiplier after `backoff` consecutive timeouts.
#[inline]
pub fn backoff_multiplier(backoff: u32) -> u64 {
    BACKOFF[(backoff as usize).min(BACKOFF.len() - 1)]
}

/// Tick boundaries of a clock ticking at `phase + k * tick` in (from, to].
#[inline]
pub fn ticks_crossed(from: Time, to: Time, tick: Dur, phase: Dur) -> u64 {
    let idx = |t: Time| (t + tick - phase) / tick;
    idx(to) - idx(from)
}

/// rtt_update with a timestamp (ns-1 always, ns-2 with `timestamps_`): `int(tao / tcp_tick_ +
/// 0.5)` ticks, at least 1.
#[inline]
pub fn rounded_ticks(echoed: Time, now: Time, tick: Dur) -> u64 {
    let tao = now.saturating_sub(echoed);
    ((tao + tick / 2) / tick).max(1)
}

/// One stack's RTT estimator and timer rules. The defaults of the timer-rule hooks are
/// 4.4BSD's and RFC 6298's order of events; ns-1 and ns-2 override them.
pub trait RttEstimator {
    /// A segment sent at `sent` (the timed segment, or the SYN) was acknowledged at `now`.
    fn sample(&mut self, sent: Time, now: Time);
    /// An ACK of new data echoes the send time `echoed` (`rtt_sample = "timestamp"`).
    fn sample_echo(&mut self, echoed: Time, now: Time) {
        self.sample(echoed, now);
    }
    /// The un-backed-off timeout in ns.
    fn rto(&self) -> Dur;
    /// Smoothed RTT in ns (for traces and reports).
    fn srtt_ns(&self) -> Dur;
    /// When a timer armed at `now` after `backoff` consecutive timeouts expires.
    fn deadline(&self, now: Time, backoff: u32) -> Time;
    /// The backoff just became `backoff` (a long run of timeouts may forget the estimate).
    fn on_backoff(&mut self, _backoff: u32) {}

    /// The timer expired: count the timeout in `backoff` and say when the retransmission's
    /// timer fires. 4.4BSD (tcp_timer.c) and ns-2 (`rtt_backoff` before `set_rtx_timer`)
    /// back off first.
    fn on_timeout(&mut self, now: Time, backoff: &mut u32) -> Time {
        *backoff = (*backoff + 1).min(MAX_BACKOFF);
        self.on_backoff(*backoff);
        self.deadline(now, *backoff)
    }
    /// A fast retransmit goes out: the deadline to re-arm the timer with now, or None to stop
    /// it until the retransmission leaves (4.4BSD stops the timer and the RTT measurement).
    fn on_fast_retransmit(&mut self, _now: Time, _backoff: &mut u32) -> Option<Time> {
        None
    }
    /// An ACK of new data is about to update the estimate and clear the backoff: the deadline
    /// a timer restarted by this ACK gets, if the stack takes it from the estimate before the
    /// update (ns); None: after it.
    fn deadline_before_update(&self, _now: Time, _backoff: u32) -> Option<Time> {
        None
    }
}

/// Calls an `RttEstimator` method on whichever estimator is inside, without a vtable.
macro_rules! dispatch_mut {
    ($self:expr, $e:ident => $call:expr) => {
        match &mut $self.kind {
            EstimatorKind::Bsd($e) => $call,
            EstimatorKind::Fine($e) => $call,
            EstimatorKind::Ns2($e) => $call,
            EstimatorKind::Ns1($e) => $call,
        }
    };
}

/// `dispatch_mut` for the methods that only read the estimator.
macro_rules! dispatch {
    ($self:expr, $e:ident => $call:expr) => {
        match &$self.kind {
            EstimatorKind::Bsd($e) => $call,
            EstimatorKind::Fine($e) => $call,
            EstimatorKind::Ns2($e) => $call,
            EstimatorKind::Ns1($e) => $call,
        }
    };
}

/// The closed set of estimators (static dispatch on the hot path).
#[derive(Debug, Clone)]
pub enum EstimatorKind {
    Bsd(BsdRtt),
    Fine(FineRtt),
    Ns2(Ns2Rtt),
    Ns1(Ns1Rtt),
}

/// A connection's estimator, and the last round trip it measured until a trace row takes it
/// (the flow trace's `rtt_sample_s`).
#[derive(Debug, Clone)]
pub struct Estimator {
    pub kind: EstimatorKind,
    last_sample: Option<Dur>,
}

impl Estimator {
    /// The estimator of `clock`, on a host whose coarse ticks fall at `phase` (ignored by the
    /// fine clock and by ns-1's rounded samples).
    pub fn new(clock: TimerClock, phase: Dur, limits: RtoLimits) -> Self {
        let kind = match clock {
            TimerClock::Coarse { tick } => EstimatorKind::Bsd(BsdRtt::new(tick, phase, limits)),
            TimerClock::Fine => EstimatorKind::Fine(FineRtt::new(limits)),
            TimerClock::Ns2 { tick } => EstimatorKind::Ns2(Ns2Rtt::new(tick, phase, limits)),
            TimerClock::Ns1 { tick } => EstimatorKind::Ns1(Ns1Rtt::new(tick, limits)),
        };
        Self { kind, last_sample: None }
    }

    /// The round trip measured by the last sample (the interval itself, before the estimator
    /// rounds it to its clock), once: None until the next sample.
    #[inline]
    pub fn take_sample(&mut self) -> Option<Dur> {
        self.last_sample.take()
    }

    /// The estimator a connection with `cfg` runs: its clock, with 4.4BSD-Lite's start and
    /// backoff rules on the coarse clock of the `bsd44` stack.
    pub fn for_config(cfg: &TcpConfig, phase: Dur) -> Self {
        let limits = RtoLimits {
            min: cfg.min_rto,
            max: cfg.max_rto,
            initial: cfg.initial_rto,
            min_before_backoff: cfg.min_rto_before_backoff,
            backoff_to_max: cfg.backoff_to_max_rto,
        };
        let mut e = Self::new(cfg.clock, phase, limits);
        match (&mut e.kind, cfg.stack) {
            (EstimatorKind::Bsd(b), Stack::Bsd44) => e.kind = EstimatorKind::Bsd(b.clone().with_bsd44_rules()),
            (EstimatorKind::Ns2(n), _) => n.rearm_after_sample = cfg.rearm_after_sample,
            _ => {}
        }
        e
    }

    #[inline]
    pub fn sample(&mut self, sent: Time, now: Time) {
        self.last_sample = Some(now.saturating_sub(sent));
        dispatch_mut!(self, e => e.sample(sent, now))
    }
    /// Every ACK of new data with timestamps takes a sample: the fine estimator's is taken
    /// inline, the tick-based ones are called (as `deadline`; issue 26).
    #[inline]
    pub fn sample_echo(&mut self, echoed: Time, now: Time) {
        self.last_sample = Some(now.saturating_sub(echoed));
        match &mut self.kind {
            EstimatorKind::Fine(e) => e.sample_echo(echoed, now),
            _ => self.tick_sample_echo(echoed, now),
        }
    }
    #[inline(never)]
    fn tick_sample_echo(&mut self, echoed: Time, now: Time) {
        dispatch_mut!(self, e => e.sample_echo(echoed, now))
    }
    #[inline]
    pub fn rto(&self) -> Dur {
        dispatch!(self, e => e.rto())
    }
    #[inline]
    pub fn srtt_ns(&self) -> Dur {
        dispatch!(self, e => e.srtt_ns())
    }
    /// The fine timer's deadline is an addition (`rtt_fine.rs`), taken inline: the sender
    /// re-arms its timer on every ACK of new data (issue 26); the tick-based ones are called.
    #[inline]
    pub fn deadline(&self, now: Time, backoff: u32) -> Time {
        match &self.kind {
            EstimatorKind::Fine(e) => e.deadline(now, backoff),
            _ => self.tick_deadline(now, backoff),
        }
    }
    /// `deadline` for the timer an ACK of new data restarts, inlined into that one site: on
    /// the fine clock without backoff (every such ACK in a run without timeouts) it is one
    /// addition (`FineRtt::timeout`); anything else takes `deadline`'s call (issue 26).
    #[inline(always)]
    pub fn restart_deadline(&self, now: Time, backoff: u32) -> Time {
        match &self.kind {
            EstimatorKind::Fine(e) if backoff == 0 => now + e.timeout(),
            _ => self.deadline_out_of_line(now, backoff),
        }
    }
    #[inline(never)]
    fn deadline_out_of_line(&self, now: Time, backoff: u32) -> Time {
        self.deadline(now, backoff)
    }
    #[inline(never)]
    fn tick_deadline(&self, now: Time, backoff: u32) -> Time {
        dispatch!(self, e => e.deadline(now, backoff))
    }
    #[inline]
    pub fn on_backoff(&mut self, backoff: u32) {
        dispatch_mut!(self, e => e.on_backoff(backoff))
    }
    pub fn on_timeout(&mut self, now: Time, backoff: &mut u32) -> Time {
        dispatch_mut!(self, e => e.on_timeout(now, backoff))
    }
    pub fn on_fast_retransmit(&mut self, now: Time, backoff: &mut u32) -> Option<Time> {
        dispatch_mut!(self, e => e.on_fast_retransmit(now, backoff))
    }
    /// Asked on every ACK of new data: the fine estimator's answer (None) is taken inline.
    #[inline]
    pub fn deadline_before_update(&self, now: Time, backoff: u32) -> Option<Time> {
        match &self.kind {
            EstimatorKind::Fine(e) => e.deadline_before_update(now, backoff),
            _ => self.tick_deadline_before_update(now, backoff),
        }
    }
    #[inline(never)]
    fn tick_deadline_before_update(&self, now: Time, backoff: u32) -> Option<Time> {
        dispatch!(self, e => e.deadline_before_update(now, backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{MS, SEC};

    #[test]
    fn each_clock_gets_its_estimator_and_only_bsd44_gets_the_44bsd_rules() {
        let coarse = TimerClock::Coarse { tick: 500 * MS };
        let cfg = |stack, clock| TcpConfig { stack, clock, initial_rto: 6 * SEC, ..TcpConfig::default() };
        // 4.4BSD-Lite: the first timeout before any sample is the initial 6 s, the second
        // TCP_REXMTVAL (12 s) doubled; without its rules every timeout starts from 6 s.
        let bsd44 = Estimator::for_config(&cfg(Stack::Bsd44, coarse), 0);
        let plain = Estimator::for_config(&cfg(Stack::Tcplab, coarse), 0);
        assert_eq!((bsd44.deadline(0, 0), bsd44.deadline(0, 1)), (6 * SEC, 24 * SEC));
        assert_eq!((plain.deadline(0, 0), plain.deadline(0, 1)), (6 * SEC, 12 * SEC));
        let kind = |clock| match Estimator::for_config(&cfg(Stack::Tcplab, clock), 0).kind {
            EstimatorKind::Bsd(_) => "bsd",
            EstimatorKind::Fine(_) => "fine",
            EstimatorKind::Ns2(_) => "ns2",
            EstimatorKind::Ns1(_) => "ns1",
        };
        assert_eq!(kind(TimerClock::Fine), "fine");
        assert_eq!(kind(TimerClock::Ns2 { tick: 100 * MS }), "ns2");
        assert_eq!(kind(TimerClock::Ns1 { tick: 100 * MS }), "ns1");
    }

    #[test]
    fn timestamps_round_and_tick_counts_count_boundaries() {
        // 149 ms -> 1 tick, 150 ms -> 2; at least 1.
        assert_eq!(rounded_ticks(1000 * MS, 1149 * MS, 100 * MS), 1);
        assert_eq!(rounded_ticks(1000 * MS, 1150 * MS, 100 * MS), 2);
        assert_eq!(rounded_ticks(1000 * MS, 1020 * MS, 100 * MS), 1);
        assert_eq!(rounded_ticks(0, 2049 * MS, 100 * MS), 20);
        // Boundaries at 30, 130, 230 ms: (20, 240] crosses 3 of them, (40, 120] none.
        assert_eq!(ticks_crossed(20 * MS, 240 * MS, 100 * MS, 30 * MS), 3);
        assert_eq!(ticks_crossed(40 * MS, 120 * MS, 100 * MS, 30 * MS), 0);
    }

    #[test]
    fn the_default_timeout_backs_off_before_rearming_and_stops_at_the_cap() {
        let mut e = Estimator::new(
            TimerClock::Fine,
            0,
            RtoLimits { min: 0, max: 1000 * SEC, initial: SEC, min_before_backoff: false, backoff_to_max: false },
        );
        let mut backoff = 0;
        assert_eq!(e.on_timeout(0, &mut backoff), 2 * SEC);
        assert_eq!(backoff, 1);
        for _ in 0..20 {
            e.on_timeout(0, &mut backoff);
        }
        assert_eq!((backoff, backoff_multiplier(backoff)), (MAX_BACKOFF, 64));
        assert_eq!(e.on_fast_retransmit(0, &mut backoff), None, "the timer stops until the resend");
        assert_eq!(e.deadline_before_update(0, 0), None);
    }
}
