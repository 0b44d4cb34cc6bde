//! ns-2's window growth (`tcp.cc`, TcpAgent::opencwnd, windowOption_ 1): cwnd_ and ssthresh_
//! count packets; `cwnd_ += 1` while cwnd_ < ssthresh_, else `cwnd_ += 1 / cwnd_`. Here the
//! window is kept in bytes with one packet = one MSS, and the 1/cwnd_ step is done in integer
//! bytes with the remainder carried between ACKs, which stays within a byte of ns-2's double;
//! the sender uses only whole packets of it (TcpAgent::window() truncates cwnd_).

use crate::time::Time;

use super::super::window::Window;
use super::{capped, CongestionControl, Decrease, LossState};

#[derive(Debug, Clone)]
pub struct Ns2Aimd {
    decrease: Decrease,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
    /// The fractional bytes of `mss * mss / cwnd` carried to the next ACK (numerator over
    /// cwnd).
    rem: u64,
}

impl Ns2Aimd {
    pub fn new(decrease: Decrease, cap: Option<u64>) -> Self {
        Self { decrease, cap, rem: 0 }
    }
}

impl CongestionControl for Ns2Aimd {
    #[inline]
    fn on_ack(&mut self, _now: Time, win: &mut Window, mss: u64) {
        let cw = win.cwnd.max(1);
        let incr = if cw < win.ssthresh {
            self.rem = 0;
            mss
        } else {
            // cwnd_ += 1/cwnd_ packets = mss * mss / cwnd bytes, remainder kept.
            let num = mss * mss + self.rem;
            self.rem = num % cw;
            num / cw
        };
        win.cwnd = cw + incr;
        capped(win, self.cap);
    }

    fn on_fast_retransmit(&mut self, loss: &LossState) -> u64 {
        self.decrease.on_fast_retransmit(loss)
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        self.decrease.on_timeout(loss)
    }

    /// Whole packets only; at least one, also with a zero ssthresh floor (slowdown: cwnd_ >= 1).
    #[inline]
    fn usable(&self, cwnd: u64, mss: u64) -> u64 {
        (cwnd / mss).max(1) * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns2() -> Ns2Aimd {
        Ns2Aimd::new(Decrease::window(2), None)
    }

    #[test]
    fn ns2_avoidance_adds_one_packet_per_window_exactly() {
        // opencwnd: cwnd_ += 1/cwnd_. From 3 packets: 3 + 1/3 + 1/(3+1/3) + ..., to the byte.
        let (mut c, mut win) = (ns2(), Window { cwnd: 3000, ssthresh: 2000 });
        for _ in 0..3 {
            c.on_ack(0, &mut win, 1000);
        }
        // 3 + 1/3 = 3.3333, + 1/3.3333 = 3.6333, + 1/3.6333 = 3.9086 packets.
        assert_eq!(win.cwnd, 3908);
        assert_eq!(c.usable(win.cwnd, 1000), 3000, "window() = int(cwnd_)");
        c.on_ack(0, &mut win, 1000);
        assert_eq!(c.usable(win.cwnd, 1000), 4000);
    }

    #[test]
    fn ns2_slow_starts_by_whole_packets_below_ssthresh() {
        let (mut c, mut win) = (ns2(), Window { cwnd: 1000, ssthresh: 20_000 });
        for _ in 0..5 {
            c.on_ack(0, &mut win, 1000);
        }
        assert_eq!(win.cwnd, 6000);
    }

    #[test]
    fn the_usable_window_is_at_least_one_packet() {
        assert_eq!(ns2().usable(0, 1000), 1000);
        assert_eq!(ns2().usable(1999, 1000), 1000);
    }

    #[test]
    fn slow_start_forgets_the_carried_fraction() {
        let (mut c, mut win) = (ns2(), Window { cwnd: 3000, ssthresh: 2000 });
        c.on_ack(0, &mut win, 1000);
        assert_eq!((win.cwnd, c.rem), (3333, 1000));
        win = Window { cwnd: 1000, ssthresh: 20_000 };
        c.on_ack(0, &mut win, 1000);
        assert_eq!((win.cwnd, c.rem), (2000, 0));
    }
}
