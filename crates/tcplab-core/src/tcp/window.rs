//! The congestion window and its standard growth (slow start, congestion avoidance).

/// Congestion state in bytes: what the loss-recovery policies and the window rules change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
}

impl Window {
    /// Growth on an ACK of new data: one segment per ACK in slow start, about one segment per
    /// window in congestion avoidance (4.4BSD: maxseg * maxseg / cwnd per ACK).
    pub fn on_ack_growth(&mut self, mss: u64) {
        let incr = if self.cwnd < self.ssthresh { mss } else { (mss * mss / self.cwnd).max(1) };
        self.cwnd += incr;
    }

    /// The threshold after a loss: half the usable window, at least two segments
    /// (4.4BSD uses min(cwnd, snd_wnd)/2, rounded down to whole segments).
    pub fn halved(&self, peer_wnd: u64, mss: u64) -> u64 {
        self.halved_with_floor(peer_wnd, mss, 2)
    }

    /// `halved` with another floor (segments): the stacks disagree on it.
    pub fn halved_with_floor(&self, peer_wnd: u64, mss: u64, floor: u64) -> u64 {
        let win = self.cwnd.min(peer_wnd) / 2 / mss;
        win.max(floor) * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_linear() {
        let mut w = Window { cwnd: 1000, ssthresh: 4000 };
        for _ in 0..3 {
            w.on_ack_growth(1000);
        }
        assert_eq!(w.cwnd, 4000);
        w.on_ack_growth(1000);
        assert_eq!(w.cwnd, 4250);
    }

    #[test]
    fn halved_is_whole_segments_and_at_least_two() {
        let w = Window { cwnd: 9500, ssthresh: 0 };
        assert_eq!(w.halved(u64::MAX, 1000), 4000);
        assert_eq!(w.halved(3000, 1000), 2000);
    }
}
