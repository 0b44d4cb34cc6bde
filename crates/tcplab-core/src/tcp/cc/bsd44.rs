//! 4.4BSD-Lite's window growth (`tcp_input.c`, tcp_input, "open the congestion window"), in
//! bytes: slow start unless `cw > snd_ssthresh`, so cwnd == ssthresh still slow-starts; in
//! congestion avoidance `incr = maxseg * maxseg / cw + maxseg / 8` per ACK.

use crate::time::Time;

use super::super::window::Window;
use super::{capped, CongestionControl, Decrease, LossState};

#[derive(Debug, Clone)]
pub struct Bsd44Aimd {
    decrease: Decrease,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
}

impl Bsd44Aimd {
    pub fn new(decrease: Decrease, cap: Option<u64>) -> Self {
        Self { decrease, cap }
    }
}

impl CongestionControl for Bsd44Aimd {
    #[inline]
    fn on_ack(&mut self, _now: Time, win: &mut Window, mss: u64) {
        let cw = win.cwnd.max(1);
        let incr = if cw > win.ssthresh { mss * mss / cw + mss / 8 } else { mss };
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
        Bsd44Aimd::new(Decrease::window(2), None).on_ack(0, &mut w, 1000);
        w.cwnd
    }

    #[test]
    fn bsd44_at_ssthresh_still_slow_starts() {
        // tcp_input.c: `if (cw > tp->snd_ssthresh)` is the congestion-avoidance test.
        assert_eq!(grow(4000, 4000), 5000);
    }

    #[test]
    fn bsd44_avoidance_adds_an_eighth_segment() {
        // maxseg*maxseg/cw + maxseg/8 = 1000*1000/5000 + 125 = 325 bytes.
        assert_eq!(grow(5000, 4000), 5325);
    }

    #[test]
    fn a_fast_retransmit_halves_min_of_cwnd_and_the_send_window() {
        // tcp_input.c: win = min(snd_wnd, snd_cwnd) / 2 / t_maxseg, at least 2 segments.
        let mut c = Bsd44Aimd::new(Decrease::window(2), None);
        let l = LossState { win: Window { cwnd: 16_000, ssthresh: 0 }, peer_wnd: 8192, flight: 8000, mss: 1000 };
        assert_eq!(c.on_fast_retransmit(&l), 4000);
    }
}
