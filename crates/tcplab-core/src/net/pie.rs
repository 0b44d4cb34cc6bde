//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker and White, RFC 8033,
//! 2017).
//!
//! PIE drops at enqueue with a probability it updates every `tupdate` from the queueing delay
//! (section 4.2): p = alpha (qdelay - target) + beta (qdelay - qdelay_old), scaled down while
//! the drop probability is small (the auto-tuning of section 4.2's pseudocode: /2048 below
//! 10^-6, /512, /128, /32, /8, /2 below 0.1, unscaled above), the increase capped at 2% once
//! the probability is 10% or more, and decayed by 0.98 per update when the queue stayed empty
//! (both delay samples 0). A burst allowance (section 4.4), `max_burst` at the start and again
//! whenever congestion has gone (probability 0 and both samples below target / 2), lets
//! bursts through; it shrinks by `tupdate` per update. The drop decision (section 4.1, "drop
//! early") never drops while the allowance lasts, while the old delay is below target / 2
//! with a probability below 20%, or with at most two mean packets waiting.
//!
//! Queue delay (section 4.3 allows either): the timestamp variant, the sojourn time of the
//! last packet dequeued, 0 once the queue is empty (as Linux's PIE has done by default since
//! 2019). A simulator knows every packet's enqueue time exactly, so the departure-rate
//! estimate (Little's law over a measured dequeue rate) would only add an estimator's lag and
//! its own parameters (dq_threshold) to what is being measured.
//!
//! The periodic update runs lazily: before each enqueue or dequeue, every update due since the
//! last one runs in turn with the delay the queue had (it changes only at dequeues, so this is
//! exactly a timer's result); once an update changes nothing (an idle queue at rest) the rest
//! are skipped. With `ecn`, an arrival PIE chose is marked CE instead of dropped when it is
//! ECN-capable and the drop probability is below `mark_ecnth` (section 5.1). The 250 ms
//! rule of Linux's implementation (+2% when the delay exceeds 250 ms) is not in the RFC's
//! pseudocode and is not modelled.

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::{Dur, Time, MS};

/// PIE's settings (RFC 8033 section 4.2 and 5: QDELAY_REF 15 ms, T_UPDATE 15 ms, alpha 0.125
/// Hz, beta 1.25 Hz, MAX_BURST 150 ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieConfig {
    /// QDELAY_REF: the queueing delay PIE steers to.
    pub target: Dur,
    /// T_UPDATE: the period of the probability update.
    pub tupdate: Dur,
    /// Weight of the delay's distance from target, per second of delay.
    pub alpha: f64,
    /// Weight of the delay's change since the last update, per second of delay.
    pub beta: f64,
    /// MAX_BURST: the burst allowance.
    pub max_burst: Dur,
    /// MEAN_PKTSIZE, bytes: with at most two waiting, no drop (section 4.1).
    pub mean_pkt_bytes: u64,
    /// The optional derandomisation of section 5.1 (accumulated probability).
    pub derandomize: bool,
    /// Mark ECN-capable packets CE instead of dropping them while the drop probability is
    /// below `mark_ecnth` (section 5.1, "ECN Support").
    pub ecn: bool,
    /// mark_ecnth: at or above this drop probability ECN-capable packets are dropped too
    /// (section 5.1: SHOULD be 0.1).
    pub mark_ecnth: f64,
}

impl Default for PieConfig {
    fn default() -> Self {
        Self {
            target: 15 * MS,
            tupdate: 15 * MS,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150 * MS,
            mean_pkt_bytes: 1500,
            derandomize: false,
            ecn: false,
            mark_ecnth: 0.1,
        }
    }
}

/// PIE's state for one queue.
#[derive(Debug, Clone)]
pub struct Pie {
    cfg: PieConfig,
    drop_prob: f64,
    /// The delay sample of the last update.
    qdelay_old: Dur,
    /// The current delay sample: the last dequeued packet's sojourn, 0 once the queue is empty.
    qdelay: Dur,
    burst_allowance: Dur,
    /// When the next periodic update is due.
    next_update: Time,
    /// Section 5.1's accumulated probability (derandomisation only).
    accu_prob: f64,
    rng: Rng,
}

/// The auto-tuning of alpha and beta (RFC 8033 section 4.2's pseudocode): the divisor of the
/// update at drop probability `p`.
pub fn tuning_divisor(p: f64) -> f64 {
    match p {
        p if p < 0.000_001 => 2048.0,
        p if p < 0.000_01 => 512.0,
        p if p < 0.000_1 => 128.0,
        p if p < 0.001 => 32.0,
        p if p < 0.01 => 8.0,
        p if p < 0.1 => 2.0,
        _ => 1.0,
    }
}

impl Pie {
    pub fn new(cfg: PieConfig, rng: Rng) -> Self {
        Self {
            cfg,
            drop_prob: 0.0,
            qdelay_old: 0,
            qdelay: 0,
            burst_allowance: cfg.max_burst,
            next_update: cfg.tupdate,
            accu_prob: 0.0,
            rng,
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    pub fn burst_allowance(&self) -> Dur {
        self.burst_allowance
    }

    /// Set the drop probability (tests of one update from a given state).
    #[cfg(test)]
    pub(crate) fn set_drop_prob(&mut self, p: f64) {
        self.drop_prob = p;
    }

    /// Run every periodic update due at or before `now`, in order.
    pub fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let before = (self.drop_prob, self.qdelay_old, self.burst_allowance);
            self.update();
            self.next_update += self.cfg.tupdate;
            if before == (self.drop_prob, self.qdelay_old, self.burst_allowance) && self.next_update <= now {
                // At rest: the same input gives the same state; skip to the last update due.
                let periods = (now - self.next_update) / self.cfg.tupdate + 1;
                self.next_update += periods * self.cfg.tupdate;
            }
        }
    }

    /// One periodic update (RFC 8033 section 4.2, 4.4): `calculate_drop_prob`.
    fn update(&mut self) {
        let secs = |d: Dur| d as f64 / 1e9;
        let (cur, old, target) = (secs(self.qdelay), secs(self.qdelay_old), secs(self.cfg.target));
        let mut p = self.cfg.alpha * (cur - target) + self.cfg.beta * (cur - old);
        p /= tuning_divisor(self.drop_prob);
        // Cap the adjustment: no jump of more than 2% once the probability is 10% or more.
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // Decay exponentially once the queue has been empty at two updates in a row.
        if self.qdelay == 0 && self.qdelay_old == 0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // Congestion gone: the burst allowance is whole again (section 4.4).
        if self.drop_prob == 0.0 && 2 * self.qdelay < self.cfg.target && 2 * self.qdelay_old < self.cfg.target {
            self.burst_allowance = self.cfg.max_burst;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.tupdate);
        self.qdelay_old = self.qdelay;
    }

    /// A packet left at `now` after waiting `sojourn`; `queue_empty` when none is left
    /// (the timestamp variant's delay sample, section 4.3).
    pub fn on_dequeue(&mut self, now: Time, sojourn: Dur, queue_empty: bool) {
        self.catch_up(now);
        self.qdelay = if queue_empty { 0 } else { sojourn };
    }

    /// Whether PIE drops an arrival at `now`, with `queue_bytes` waiting: the one place it
    /// decides a congestion drop (section 4.1's `drop_early` under the burst allowance).
    pub fn drop_early(&mut self, now: Time, queue_bytes: u64) -> bool {
        self.catch_up(now);
        if self.burst_allowance > 0 {
            return false;
        }
        // Work-conserving safeguards: a low, calm delay, or a queue of two packets at most.
        if (2 * self.qdelay_old < self.cfg.target && self.drop_prob < 0.2) || queue_bytes <= 2 * self.cfg.mean_pkt_bytes
        {
            return false;
        }
        if self.cfg.derandomize {
            return self.derandomized_drop();
        }
        self.rng.random::<f64>() < self.drop_prob
    }

    /// Whether an arrival that `drop_early` chose is marked CE instead of dropped: with `ecn`,
    /// an ECN-capable (`ect`) packet while the drop probability is below mark_ecnth (section
    /// 5.1: "if drop_prob_ < mark_ecnth && ecn_capable_packet == TRUE: mark packet"). Above
    /// it PIE drops them too, the safeguard against flows that ignore marks. Linux's sch_pie
    /// marks at a probability up to and including 10%; the RFC's strict comparison is kept.
    pub fn marks_instead(&self, ect: bool) -> bool {
        self.cfg.ecn && ect && self.drop_prob < self.cfg.mark_ecnth
    }

    /// Section 5.1's derandomisation: no drop until the accumulated probability reaches 0.85,
    /// a sure drop at 8.5, a random one between; a drop resets the accumulator.
    fn derandomized_drop(&mut self) -> bool {
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        self.accu_prob += self.drop_prob;
        if self.accu_prob < 0.85 {
            return false;
        }
        let drop = self.accu_prob >= 8.5 || self.rng.random::<f64>() < self.drop_prob;
        if drop {
            self.accu_prob = 0.0;
        }
        drop
    }
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
