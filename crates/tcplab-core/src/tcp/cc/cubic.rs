//! CUBIC as RFC 9438 specifies it. The window is kept in bytes (`Window`), and the RFC's
//! formulas run in segments of the MSS, in seconds:
//!
//! - W_cubic(t) = C (t - K)^3 + W_max with C = 0.4 (Sec. 4.2, Fig. 1), t the time since the
//!   congestion-avoidance stage began (t_epoch), K = cbrt((W_max - cwnd_epoch) / C) (Fig. 2),
//!   which is cbrt(W_max (1 - beta_cubic) / C) when the stage starts from the reduced window;
//! - on every new ACK in congestion avoidance, target = W_cubic(t + RTT) with RTT the smoothed
//!   RTT, clamped to [cwnd, 1.5 cwnd] (Sec. 4.2), and cwnd += (target - cwnd) / cwnd (Secs.
//!   4.4, 4.5), the fractions of a byte carried to the next ACK;
//! - the Reno-friendly estimate W_est += alpha_cubic * segments_acked / cwnd, with alpha_cubic
//!   = 3 (1 - beta_cubic) / (1 + beta_cubic) until W_est reaches cwnd_prior, then 1; while
//!   W_cubic(t) < W_est, cwnd follows W_est (Sec. 4.3);
//! - a congestion event: fast convergence first (W_max = cwnd (1 + beta_cubic) / 2 if cwnd <
//!   W_max, else cwnd; Sec. 4.7), then ssthresh = max(FlightSize * beta_cubic, 2 SMSS) with
//!   beta_cubic = 0.7, cwnd_prior = cwnd (Sec. 4.6); the recovery policy sets cwnd from it;
//! - a timeout: Reno's loss window (one segment) with ssthresh as above (Sec. 4.8); the first
//!   congestion-avoidance stage after it, like one entered without any congestion event
//!   (the initial slow start reaching ssthresh), runs with K = 0 and W_max = W_est = the
//!   window the stage starts with (Secs. 4.8, 4.10);
//! - slow start is RFC 5681's (cwnd += min(acked, SMSS) per ACK while cwnd < ssthresh), which
//!   Sec. 4.10 allows; HyStart++ (RFC 9406, a SHOULD there) is left out, so the first slow
//!   start ends with a loss as Reno's does. Spurious-congestion undo (Sec. 4.9) is left out.
//!
//! All arithmetic is IEEE double with a deterministic cube root (`cube_root`), so runs are
//! byte-identical on every machine.

use crate::time::{Dur, Time, SEC};

use super::super::window::Window;
use super::{cube_root, CongestionControl, LossState};

/// C, segments per second cubed (Sec. 4.1.1).
pub const C: f64 = 0.4;
/// beta_cubic (Sec. 4.1.1).
pub const BETA: f64 = 0.7;
/// alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic) (Sec. 4.3).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// The current congestion-avoidance stage.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Epoch {
    /// t_epoch.
    start: Time,
    /// K, seconds.
    k: f64,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    /// W_max, segments: the window before the last reduction (after fast convergence).
    w_max: f64,
    /// cwnd_prior, segments: cwnd when ssthresh was last set (0: never).
    cwnd_prior: f64,
    /// W_est, segments.
    w_est: f64,
    /// The congestion-avoidance stage under way; None in slow start or after a reduction.
    epoch: Option<Epoch>,
    /// The next stage starts from a congestion event's W_max (else K = 0, W_max = cwnd_epoch).
    after_loss: bool,
    /// Smoothed RTT, ns (0 before the first sample).
    srtt: Dur,
    /// Fraction of a byte of growth carried to the next ACK.
    carry: f64,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
}

impl Cubic {
    pub fn new(cap: Option<u64>) -> Self {
        Self { w_max: 0.0, cwnd_prior: 0.0, w_est: 0.0, epoch: None, after_loss: false, srtt: 0, carry: 0.0, cap }
    }

    /// W_cubic(t), segments, `t` seconds into the stage.
    fn w_cubic(&self, k: f64, t: f64) -> f64 {
        let d = t - k;
        C * d * d * d + self.w_max
    }

    /// The stage that begins now with `cwnd` segments (Sec. 4.2; after a timeout or without a
    /// congestion event, Secs. 4.8 and 4.10).
    fn begin_stage(&mut self, now: Time, cwnd: f64) -> Epoch {
        let k = if self.after_loss && self.w_max > cwnd {
            cube_root((self.w_max - cwnd) / C)
        } else {
            self.w_max = cwnd;
            0.0
        };
        if self.cwnd_prior == 0.0 {
            self.cwnd_prior = cwnd;
        }
        self.after_loss = false;
        self.w_est = cwnd;
        self.carry = 0.0;
        let e = Epoch { start: now, k };
        self.epoch = Some(e);
        e
    }

    /// Congestion avoidance on one new ACK: the new cwnd, segments.
    fn avoid(&mut self, now: Time, cwnd: f64, acked_segments: f64) -> f64 {
        let e = match self.epoch {
            Some(e) => e,
            None => self.begin_stage(now, cwnd),
        };
        let t = (now - e.start) as f64 / SEC as f64;
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { ALPHA };
        self.w_est += alpha * acked_segments / cwnd;
        if self.w_cubic(e.k, t) < self.w_est {
            // Reno-friendly region (Sec. 4.3); an ACK never shrinks the window.
            return self.w_est.max(cwnd);
        }
        let rtt = self.srtt as f64 / SEC as f64;
        let target = self.w_cubic(e.k, t + rtt).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, now: Time, win: &mut Window, acked: u64, mss: u64) {
        if win.cwnd < win.ssthresh {
            win.cwnd += acked.min(mss);
            self.epoch = None;
        } else {
            let m = mss as f64;
            let cwnd = win.cwnd as f64 / m;
            let grown = (self.avoid(now, cwnd, acked as f64 / m) - cwnd) * m + self.carry;
            let whole = grown.floor();
            self.carry = grown - whole;
            win.cwnd += whole as u64;
        }
        if let Some(max) = self.cap {
            win.cwnd = win.cwnd.min(max);
        }
    }

    fn on_rtt(&mut self, _now: Time, srtt: Dur) {
        self.srtt = srtt;
    }

    fn on_congestion_event(&mut self, loss: &LossState) -> u64 {
        let cwnd = loss.win.cwnd as f64 / loss.mss as f64;
        // Sec. 4.7: fast convergence, before the reduction.
        self.w_max = if cwnd < self.w_max { cwnd * (1.0 + BETA) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        self.after_loss = true;
        self.epoch = None;
        self.ssthresh(loss)
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        // Sec. 4.8: Reno's loss window, ssthresh by beta_cubic; the next stage starts afresh.
        self.cwnd_prior = loss.win.cwnd as f64 / loss.mss as f64;
        self.after_loss = false;
        self.epoch = None;
        Window { cwnd: loss.mss, ssthresh: self.ssthresh(loss) }
    }
}

impl Cubic {
    /// Sec. 4.6: ssthresh = max(flight_size * beta_cubic, 2 SMSS), bytes.
    fn ssthresh(&self, loss: &LossState) -> u64 {
        ((loss.flight as f64 * BETA) as u64).max(2 * loss.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    const MSS: u64 = 1000;

    fn loss(cwnd_segments: u64) -> LossState {
        let b = cwnd_segments * MSS;
        LossState {
            win: Window { cwnd: b, ssthresh: 0 },
            peer_wnd: u64::MAX,
            flight: b,
            mss: MSS,
            snd_una: 0,
            snd_max: b,
        }
    }

    /// A CUBIC that saw one loss at a window of `w_max` segments, now at ssthresh = the
    /// reduced window, with `srtt`.
    fn after_one_loss(w_max: u64, srtt: Dur) -> (Cubic, Window) {
        let mut c = Cubic::new(None);
        c.on_rtt(0, srtt);
        let ssthresh = c.on_congestion_event(&loss(w_max));
        (c, Window { cwnd: ssthresh, ssthresh })
    }

    /// ACKs of one segment each, `per_rtt` of them spread evenly over every RTT, up to `until`.
    fn ack_until(c: &mut Cubic, w: &mut Window, from: Time, until: Time, srtt: Dur) {
        let mut now = from;
        while now < until {
            c.on_ack(now, w, MSS, MSS);
            now += srtt * MSS / w.cwnd;
        }
    }

    #[test]
    fn a_loss_sets_ssthresh_to_beta_times_the_flight_and_w_max_to_the_window() {
        let (c, w) = after_one_loss(100, 100 * MS);
        assert_eq!(w.ssthresh, 70_000, "0.7 * 100 segments");
        assert_eq!((c.w_max, c.cwnd_prior), (100.0, 100.0));
        let mut small = Cubic::new(None);
        assert_eq!(small.on_congestion_event(&loss(2)), 2 * MSS, "at least 2 SMSS");
    }

    #[test]
    fn k_is_the_cube_root_of_w_max_times_one_minus_beta_over_c() {
        let (mut c, mut w) = after_one_loss(100, 100 * MS);
        c.on_ack(0, &mut w, MSS, MSS);
        let k = c.epoch.unwrap().k;
        assert!((k - (100.0 * 0.3 / 0.4f64).powf(1.0 / 3.0)).abs() < 1e-12, "K = {k}");
        assert_eq!(c.w_cubic(k, k), 100.0, "W_cubic(K) = W_max exactly");
        assert!(c.w_cubic(k, 0.0) - 70.0 < 1e-9, "W_cubic(0) = the reduced window");
    }

    #[test]
    fn the_window_reaches_w_max_at_t_equals_k() {
        // A large window, so CUBIC's curve (not the Reno-friendly one) governs: W_max 1000,
        // K = cbrt(750) = 9.09 s. The per-ACK step towards W_cubic(t + RTT) keeps cwnd within
        // a segment or so of the curve.
        let srtt = 100 * MS;
        let (mut c, mut w) = after_one_loss(1000, srtt);
        c.on_ack(0, &mut w, MSS, MSS);
        let k_ns = (c.epoch.unwrap().k * SEC as f64) as Time;
        ack_until(&mut c, &mut w, 1, k_ns, srtt);
        let cwnd = w.cwnd as f64 / MSS as f64;
        assert!((cwnd - 1000.0).abs() < 1.0, "cwnd at t = K: {cwnd} segments, W_max 1000");
        // Half way to K the window is on the concave curve, between W_cubic(t) and the
        // target W_cubic(t + RTT) it steps towards.
        let (mut c2, mut w2) = after_one_loss(1000, srtt);
        ack_until(&mut c2, &mut w2, 0, k_ns / 2, srtt);
        let (k, t) = (c2.epoch.unwrap().k, (k_ns / 2) as f64 / 1e9);
        let cwnd = w2.cwnd as f64 / 1000.0;
        assert!(cwnd > c2.w_cubic(k, t) - 1.0 && cwnd < c2.w_cubic(k, t + 0.1), "{cwnd}");
    }

    #[test]
    fn the_target_is_clamped_to_one_and_a_half_windows() {
        // Far beyond K the cubic target explodes; one ACK may add at most 0.5 segment.
        let (mut c, mut w) = after_one_loss(100, 100 * MS);
        c.on_ack(0, &mut w, MSS, MSS);
        w.cwnd = 200_000;
        c.on_ack(1000 * SEC, &mut w, MSS, MSS);
        assert_eq!(w.cwnd, 200_000 + 500, "(1.5 cwnd - cwnd) / cwnd = 0.5 segment");
    }

    #[test]
    fn in_the_reno_friendly_region_the_window_follows_w_est() {
        // A small window on a short RTT: W_cubic grows slower than Reno would. W_max 10, so the
        // reduced window is 7 and K = cbrt(7.5) = 1.96 s; over one 10 ms RTT the curve rises
        // by 0.05 segment, W_est by alpha_cubic * 7 / cwnd = 0.51, and cwnd follows W_est.
        let srtt = 10 * MS;
        let (mut c, mut w) = after_one_loss(10, srtt);
        for i in 0..7 {
            c.on_ack(i * srtt / 7, &mut w, MSS, MSS);
        }
        let w_est = c.w_est;
        assert!(w_est > 7.5 && w_est < 7.53, "W_est after one window of ACKs: {w_est}");
        assert!(c.w_cubic(c.epoch.unwrap().k, 0.01) < 7.1, "the friendly region");
        assert!(w.cwnd.abs_diff((w_est * 1000.0) as u64) <= 1, "cwnd {} = W_est", w.cwnd);
    }

    #[test]
    fn alpha_becomes_one_once_w_est_reaches_cwnd_prior() {
        let (mut c, mut w) = after_one_loss(10, SEC);
        c.on_ack(0, &mut w, MSS, MSS);
        assert_eq!(c.w_est, 7.0 + ALPHA / 7.0, "alpha_cubic per window of ACKs below cwnd_prior");
        c.w_est = 10.0; // = cwnd_prior
        let cwnd = w.cwnd as f64 / 1000.0;
        c.on_ack(1, &mut w, MSS, MSS);
        assert_eq!(c.w_est, 10.0 + 1.0 / cwnd, "alpha 1 from cwnd_prior on");
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_a_loss_comes_below_the_last_one() {
        let mut c = Cubic::new(None);
        c.on_congestion_event(&loss(100));
        assert_eq!(c.w_max, 100.0);
        c.on_congestion_event(&loss(80));
        assert_eq!(c.w_max, 80.0 * 1.7 / 2.0, "80 < 100: W_max = cwnd (1 + beta) / 2 = 68");
        c.on_congestion_event(&loss(90));
        assert_eq!(c.w_max, 90.0, "90 >= 68: W_max = cwnd");
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_and_the_next_stage_has_k_zero() {
        let mut c = Cubic::new(None);
        c.on_congestion_event(&loss(100));
        let w = c.on_timeout(&loss(60));
        assert_eq!(w, Window { cwnd: MSS, ssthresh: 42_000 }, "one segment; 0.7 * 60 segments");
        let mut w = Window { cwnd: 42_000, ssthresh: 42_000 };
        c.on_ack(5 * SEC, &mut w, MSS, MSS);
        let e = c.epoch.unwrap();
        assert_eq!((e.k, c.w_max), (0.0, 42.0), "K = 0, W_max = the window at the stage's start");
        assert_eq!(c.cwnd_prior, 60.0);
    }

    #[test]
    fn slow_start_is_rfc5681s_and_max_cwnd_caps_the_window() {
        let mut c = Cubic::new(Some(3500));
        let mut w = Window { cwnd: 1000, ssthresh: 100_000 };
        c.on_ack(0, &mut w, 1000, MSS);
        assert_eq!(w.cwnd, 2000);
        c.on_ack(0, &mut w, 3000, MSS);
        assert_eq!(w.cwnd, 3000, "at most one SMSS per ACK");
        c.on_ack(0, &mut w, 1000, MSS);
        assert_eq!(w.cwnd, 3500, "capped");
    }
}
