//! tcplab's own window growth from before stacks existed: slow start while cwnd < ssthresh,
//! then maxseg * maxseg / cwnd per ACK, at least one byte. Not any real stack's rule (4.4BSD's
//! is `bsd44.rs`); kept as the default so results do not change.

use crate::time::Time;

use super::super::window::Window;
use super::{capped, CongestionControl, Decrease, LossState};

#[derive(Debug, Clone)]
pub struct TcplabAimd {
    decrease: Decrease,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
}

impl TcplabAimd {
    pub fn new(decrease: Decrease, cap: Option<u64>) -> Self {
        Self { decrease, cap }
    }
}

impl CongestionControl for TcplabAimd {
    #[inline]
    fn on_ack(&mut self, _now: Time, win: &mut Window, mss: u64) {
        let cw = win.cwnd.max(1);
        let incr = if cw < win.ssthresh { mss } else { (mss * mss / cw).max(1) };
        win.cwnd = cw + incr;
        capped(win, self.cap);
    }

    fn on_fast_retransmit(&mut self, loss: &LossState) -> u64 {
        self.decrease.on_fast_retransmit(loss)
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        self.decrease.on_timeout(loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grow(cwnd: u64, ssthresh: u64) -> u64 {
        let mut w = Window { cwnd, ssthresh };
        TcplabAimd::new(Decrease::window(2), None).on_ack(0, &mut w, 1000);
        w.cwnd
    }

    #[test]
    fn slow_start_below_ssthresh_then_a_segment_per_window() {
        assert_eq!(grow(1000, 4000), 2000);
        assert_eq!(grow(3000, 4000), 4000);
        assert_eq!(grow(4000, 4000), 4250, "cwnd == ssthresh is congestion avoidance");
        assert_eq!(grow(2_000_000, 1000), 2_000_001, "at least one byte");
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_with_half_the_window() {
        let mut c = TcplabAimd::new(Decrease::window(2), None);
        let l = LossState { win: Window { cwnd: 9500, ssthresh: 0 }, peer_wnd: u64::MAX, flight: 9500, mss: 1000 };
        assert_eq!(c.on_timeout(&l), Window { cwnd: 1000, ssthresh: 4000 });
        assert_eq!(c.on_fast_retransmit(&l), 4000);
    }
}
