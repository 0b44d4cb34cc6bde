//! tcplab's own window growth from before stacks existed: slow start while cwnd < ssthresh,
//! then maxseg * maxseg / cwnd per ACK, at least one byte. Not any real stack's rule (4.4BSD's
//! is `bsd44.rs`); kept as the default so results do not change.

use super::super::window::Window;
use super::Growth;

#[derive(Debug, Clone, Copy, Default)]
pub struct TcplabGrowth;

impl Growth for TcplabGrowth {
    #[inline]
    fn grow(&mut self, win: &mut Window, mss: u64) {
        let cw = win.cwnd.max(1);
        let incr = if cw < win.ssthresh { mss } else { (mss * mss / cw).max(1) };
        win.cwnd = cw + incr;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grow(cwnd: u64, ssthresh: u64) -> u64 {
        let mut w = Window { cwnd, ssthresh };
        TcplabGrowth.grow(&mut w, 1000);
        w.cwnd
    }

    #[test]
    fn slow_start_below_ssthresh_then_a_segment_per_window() {
        assert_eq!(grow(1000, 4000), 2000);
        assert_eq!(grow(3000, 4000), 4000);
        assert_eq!(grow(4000, 4000), 4250, "cwnd == ssthresh is congestion avoidance");
        assert_eq!(grow(2_000_000, 1000), 2_000_001, "at least one byte");
    }
}
