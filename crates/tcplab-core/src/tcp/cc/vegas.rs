//! TCP Vegas (Brakmo and Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), its congestion avoidance and modified slow start:
//!
//! - BaseRTT is the smallest RTT measured (every ACK gives one from the delivery log, for
//!   segments sent once);
//! - once per round trip, when the ACK of a distinguished segment (the first sent in the
//!   round) arrives: Expected = cwnd / BaseRTT, Actual = bytes sent between that segment and
//!   its ACK / its RTT, and Diff = (Expected - Actual) BaseRTT, the extra data queued in the
//!   path, in segments;
//! - in congestion avoidance, Diff < alpha grows the window by one segment over the next
//!   round trip, Diff > beta shrinks it by one segment, in between it stays (alpha = 1,
//!   beta = 3 segments by default: the knobs `vegas_alpha`, `vegas_beta`);
//! - slow start doubles the window only every other round trip, keeping it fixed in between
//!   so Expected and Actual can be compared; when Diff exceeds gamma = 1 segment, Vegas
//!   leaves slow start.
//!
//! The paper leaves some amounts to its x-kernel code; they are taken from ns-2's port of it
//! (tcp-vegas.cc, Kuo's port of 1997): leaving slow start cuts the window by an eighth, a
//! shrink is one segment at once, a fast retransmit cuts the window by a quarter, and only if
//! the lost segment was sent after the last cut (the paper's Sec. 3.1 rule), and a timeout
//! restarts from two segments with half the window as ssthresh. Vegas's new retransmission
//! mechanism (Sec. 3.1's fine-grained timeout checks on duplicate ACKs) is loss recovery, not
//! congestion control, and is not modelled: the `variant`'s recovery runs.

use crate::time::{Dur, Time};

use super::super::window::Window;
use super::{AckSample, CongestionControl, LossState};

/// gamma, segments: the Diff above which slow start ends (ns-2's v_gamma_ 1).
const GAMMA: u64 = 1;

/// How the window moves on each ACK of the current round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Increase {
    Hold,
    /// Slow start: one segment per ACK.
    Double,
    /// One segment per round trip.
    Linear,
}

#[derive(Debug, Clone)]
pub struct Vegas {
    /// alpha and beta, segments.
    alpha: u64,
    beta: u64,
    /// BaseRTT, ns.
    base_rtt: Option<Dur>,
    /// The distinguished segment of the round begins here (snd_max when the round began).
    round_seq: u64,
    /// How this round's ACKs grow the window.
    increase: Increase,
    /// Slow start grows in this round (it alternates).
    grow_round: bool,
    /// A fast retransmit cuts the window only for a segment sent at or after this offset.
    cut_seq: u64,
    /// Fraction of a byte of linear growth carried between ACKs (numerator over cwnd).
    carry: u64,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
}

impl Vegas {
    pub fn new(alpha: u64, beta: u64, cap: Option<u64>) -> Self {
        Self {
            alpha,
            beta,
            base_rtt: None,
            round_seq: 0,
            increase: Increase::Double,
            grow_round: true,
            cut_seq: 0,
            carry: 0,
            cap,
        }
    }

    /// Diff compared with `threshold` segments: the sign of (Expected - Actual) BaseRTT -
    /// threshold, from Expected = cwnd / base and Actual = sent / rtt, exactly (in integers).
    fn diff_vs(cwnd: u64, sent: u64, base: Dur, rtt: Dur, threshold: u64, mss: u64) -> std::cmp::Ordering {
        // (cwnd/base - sent/rtt) base vs threshold mss  <=>  cwnd rtt - sent base vs threshold mss rtt
        let lhs = cwnd as i128 * rtt as i128 - sent as i128 * base as i128;
        lhs.cmp(&(threshold as i128 * mss as i128 * rtt as i128))
    }

    /// The once-per-round decision, at the ACK of the round's distinguished segment.
    fn end_round(&mut self, s: &AckSample, rtt: Dur, win: &mut Window) {
        let base = self.base_rtt.unwrap_or(rtt);
        let sent = s.snd_max - self.round_seq;
        let mss = s.mss;
        let floor = 2 * mss;
        let above = |t| Self::diff_vs(win.cwnd, sent, base, rtt, t, mss).is_gt();
        if win.cwnd < win.ssthresh {
            self.grow_round = !self.grow_round;
            self.increase = if !self.grow_round {
                Increase::Hold
            } else if above(GAMMA) {
                // The network is filling: leave slow start a little below the window.
                win.cwnd = (win.cwnd - win.cwnd / 8).max(floor);
                win.ssthresh = floor;
                Increase::Hold
            } else {
                Increase::Double
            };
        } else if above(self.beta) {
            win.cwnd = win.cwnd.saturating_sub(mss).max(floor);
            self.increase = Increase::Hold;
        } else if Self::diff_vs(win.cwnd, sent, base, rtt, self.alpha, mss).is_lt() {
            self.increase = Increase::Linear;
        } else {
            self.increase = Increase::Hold;
        }
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, _now: Time, win: &mut Window, _acked: u64, mss: u64) {
        match self.increase {
            Increase::Double if win.cwnd < win.ssthresh => win.cwnd += mss,
            Increase::Linear => {
                // One segment per window of ACKs, in bytes, the remainder carried.
                let num = mss * mss + self.carry;
                self.carry = num % win.cwnd.max(1);
                win.cwnd += num / win.cwnd.max(1);
            }
            _ => {}
        }
        if let Some(max) = self.cap {
            win.cwnd = win.cwnd.min(max);
        }
    }

    fn on_sample(&mut self, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
    }

    fn set_window(&mut self, s: &AckSample, in_recovery: bool, win: &mut Window) {
        if s.snd_una <= self.round_seq {
            return;
        }
        if in_recovery {
            // The window is inflated meanwhile: no comparison, a new round after recovery.
            self.round_seq = s.snd_max;
            return;
        }
        if let Some(rtt) = s.rtt {
            self.end_round(s, rtt, win);
        }
        self.round_seq = s.snd_max;
    }

    fn on_congestion_event(&mut self, loss: &LossState) -> u64 {
        let win = loss.win.cwnd.min(loss.peer_wnd);
        if loss.snd_una < self.cut_seq {
            // Lost before the last cut: that cut already answered it (Sec. 3.1).
            return win;
        }
        self.cut_seq = loss.snd_max;
        self.increase = Increase::Hold;
        let segments = win / loss.mss;
        let cut = if segments <= 3 { 2 } else { segments - segments / 4 };
        cut * loss.mss
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        self.cut_seq = loss.snd_max;
        self.increase = Increase::Double;
        self.grow_round = true;
        let half = (loss.win.cwnd.min(loss.peer_wnd) / loss.mss / 2).max(2);
        Window { cwnd: 2 * loss.mss, ssthresh: half * loss.mss }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    const MSS: u64 = 1000;

    /// The ACK ending a round that began at `round_seq`: `sent` bytes went out since the
    /// distinguished segment, whose RTT was `rtt`.
    fn round_end(v: &Vegas, sent: u64, rtt: Dur) -> AckSample {
        AckSample {
            rtt: Some(rtt),
            mss: MSS,
            snd_una: v.round_seq + MSS,
            snd_max: v.round_seq + sent,
            ..AckSample::default()
        }
    }

    /// A Vegas in congestion avoidance with BaseRTT 100 ms.
    fn avoiding() -> (Vegas, Window) {
        let mut v = Vegas::new(1, 3, None);
        v.on_sample(&AckSample { rtt: Some(100 * MS), ..AckSample::default() });
        (v, Window { cwnd: 20_000, ssthresh: 10_000 })
    }

    /// Diff in segments for cwnd 20 segments, BaseRTT 100 ms, `sent` segments over `rtt` ms:
    /// 20 - sent * 100 / rtt.
    fn decide(sent: u64, rtt_ms: u64) -> (Vegas, Window) {
        let (mut v, mut w) = avoiding();
        let s = round_end(&v, sent * MSS, rtt_ms * MS);
        v.set_window(&s, false, &mut w);
        (v, w)
    }

    #[test]
    fn below_alpha_the_window_grows_one_segment_over_the_next_round_trip() {
        // 20 segments over 105 ms: Actual 190.5/s, Expected 200/s, Diff 0.95 segment < alpha 1.
        let (mut v, mut w) = decide(20, 105);
        assert_eq!(v.increase, Increase::Linear);
        for _ in 0..20 {
            v.on_ack(0, &mut w, MSS, MSS);
        }
        assert!((20_950..=21_000).contains(&w.cwnd), "about one segment more: {}", w.cwnd);
    }

    #[test]
    fn between_alpha_and_beta_the_window_holds() {
        // 20 segments over 110 ms: Diff = 20 - 18.2 = 1.8 segments.
        let (mut v, mut w) = decide(20, 110);
        assert_eq!((v.increase, w.cwnd), (Increase::Hold, 20_000));
        v.on_ack(0, &mut w, MSS, MSS);
        assert_eq!(w.cwnd, 20_000);
    }

    #[test]
    fn above_beta_the_window_shrinks_one_segment() {
        // 20 segments over 125 ms: Diff = 20 - 16 = 4 > beta 3.
        let (v, w) = decide(20, 125);
        assert_eq!((v.increase, w.cwnd), (Increase::Hold, 19_000));
        // Diff exactly beta (20 over 20 * 100 / 17 ms would be 3): not above, so it holds.
        let (_, w) = decide(17, 100);
        assert_eq!(w.cwnd, 20_000);
    }

    #[test]
    fn diff_is_held_between_alpha_and_beta_over_rounds() {
        // A path that queues exactly what exceeds the BDP (20 segments at 100 ms): Actual is
        // capped at 200 segments/s, so Diff = cwnd - 20. From 18 segments Vegas grows to 21
        // (Diff 1 is not below alpha) and stays there.
        let mut v = Vegas::new(1, 3, None);
        v.on_sample(&AckSample { rtt: Some(100 * MS), ..AckSample::default() });
        let mut w = Window { cwnd: 18_000, ssthresh: 1000 };
        for _ in 0..10 {
            let cwnd = w.cwnd;
            let rtt = (100 * MS).max(cwnd * 100 * MS / 20_000);
            let s = round_end(&v, cwnd, rtt);
            v.set_window(&s, false, &mut w);
            for _ in 0..cwnd / MSS {
                v.on_ack(0, &mut w, MSS, MSS);
            }
        }
        assert!((21_000..22_000).contains(&w.cwnd), "{}", w.cwnd);
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_ends_when_diff_passes_gamma() {
        let mut v = Vegas::new(1, 3, None);
        v.on_sample(&AckSample { rtt: Some(100 * MS), ..AckSample::default() });
        let mut w = Window { cwnd: 4000, ssthresh: u64::MAX };
        // A round with no queueing: the next round holds, the one after doubles.
        let s = round_end(&v, 4000, 100 * MS);
        v.set_window(&s, false, &mut w);
        assert_eq!(v.increase, Increase::Hold, "every other round");
        let s = round_end(&v, 4000, 100 * MS);
        v.set_window(&s, false, &mut w);
        assert_eq!(v.increase, Increase::Double);
        for _ in 0..4 {
            v.on_ack(0, &mut w, MSS, MSS);
        }
        assert_eq!(w.cwnd, 8000, "doubled in one round");
        // Two rounds later, 8 segments took 150 ms: Diff = 8 - 5.33 > gamma.
        let s = round_end(&v, 8000, 150 * MS);
        v.set_window(&s, false, &mut w);
        let s = round_end(&v, 8000, 150 * MS);
        v.set_window(&s, false, &mut w);
        assert_eq!((w.cwnd, w.ssthresh), (7000, 2000), "cwnd - cwnd/8, out of slow start");
    }

    #[test]
    fn base_rtt_is_the_smallest_rtt_seen() {
        let mut v = Vegas::new(1, 3, None);
        for r in [120, 90, 110] {
            v.on_sample(&AckSample { rtt: Some(r * MS), ..AckSample::default() });
        }
        assert_eq!(v.base_rtt, Some(90 * MS));
    }

    #[test]
    fn a_fast_retransmit_cuts_a_quarter_once_per_window_and_a_timeout_restarts_from_two() {
        let mut v = Vegas::new(1, 3, None);
        let l = |una, max| LossState {
            win: Window { cwnd: 20_000, ssthresh: 0 },
            peer_wnd: u64::MAX,
            flight: max - una,
            mss: MSS,
            snd_una: una,
            snd_max: max,
        };
        assert_eq!(v.on_congestion_event(&l(0, 20_000)), 15_000);
        assert_eq!(v.on_congestion_event(&l(5000, 25_000)), 20_000, "sent before the cut: no new cut");
        assert_eq!(v.on_congestion_event(&l(20_000, 40_000)), 15_000, "sent after it");
        assert_eq!(v.on_timeout(&l(40_000, 60_000)), Window { cwnd: 2000, ssthresh: 10_000 });
    }
}
