//! 4.4BSD-Lite's window growth (`tcp_input.c`, tcp_input, "open the congestion window"), in
//! bytes: slow start unless `cw > snd_ssthresh`, so cwnd == ssthresh still slow-starts; in
//! congestion avoidance `incr = maxseg * maxseg / cw + maxseg / 8` per ACK.

use super::super::window::Window;
use super::Growth;

#[derive(Debug, Clone, Copy, Default)]
pub struct Bsd44Growth;

impl Growth for Bsd44Growth {
    #[inline]
    fn grow(&mut self, win: &mut Window, mss: u64) {
        let cw = win.cwnd.max(1);
        let incr = if cw > win.ssthresh { mss * mss / cw + mss / 8 } else { mss };
        win.cwnd = cw + incr;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Aimd, CongestionControl, Decrease, LossState};
    use super::*;

    fn grow(cwnd: u64, ssthresh: u64) -> u64 {
        let mut w = Window { cwnd, ssthresh };
        Bsd44Growth.grow(&mut w, 1000);
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
        let mut c = Aimd::new(Bsd44Growth, Decrease::window(2), None);
        let l = LossState {
            win: Window { cwnd: 16_000, ssthresh: 0 },
            peer_wnd: 8192,
            flight: 8000,
            mss: 1000,
            snd_una: 0,
            snd_max: 8000,
        };
        assert_eq!(c.on_congestion_event(&l), 4000);
    }
}
