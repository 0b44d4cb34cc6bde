//! ns-2's window growth (`tcp.cc`, TcpAgent::opencwnd, windowOption_ 1): cwnd_ and ssthresh_
//! count packets; `cwnd_ += 1` while cwnd_ < ssthresh_, else `cwnd_ += 1 / cwnd_`. Here the
//! window is kept in bytes with one packet = one MSS, and the 1/cwnd_ step is done in integer
//! bytes with the remainder carried between ACKs, which stays within a byte of ns-2's double;
//! the sender uses only whole packets of it (TcpAgent::window() truncates cwnd_).

use super::super::window::Window;
use super::Growth;

#[derive(Debug, Clone, Copy, Default)]
pub struct Ns2Growth {
    /// The fractional bytes of `mss * mss / cwnd` carried to the next ACK (numerator over
    /// cwnd).
    rem: u64,
}

impl Growth for Ns2Growth {
    #[inline]
    fn grow(&mut self, win: &mut Window, mss: u64) {
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

    fn ns2() -> Ns2Growth {
        Ns2Growth::default()
    }

    #[test]
    fn ns2_avoidance_adds_one_packet_per_window_exactly() {
        // opencwnd: cwnd_ += 1/cwnd_. From 3 packets: 3 + 1/3 + 1/(3+1/3) + ..., to the byte.
        let (mut c, mut win) = (ns2(), Window { cwnd: 3000, ssthresh: 2000 });
        for _ in 0..3 {
            c.grow(&mut win, 1000);
        }
        // 3 + 1/3 = 3.3333, + 1/3.3333 = 3.6333, + 1/3.6333 = 3.9086 packets.
        assert_eq!(win.cwnd, 3908);
        assert_eq!(c.usable(win.cwnd, 1000), 3000, "window() = int(cwnd_)");
        c.grow(&mut win, 1000);
        assert_eq!(c.usable(win.cwnd, 1000), 4000);
    }

    #[test]
    fn ns2_slow_starts_by_whole_packets_below_ssthresh() {
        let (mut c, mut win) = (ns2(), Window { cwnd: 1000, ssthresh: 20_000 });
        for _ in 0..5 {
            c.grow(&mut win, 1000);
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
        c.grow(&mut win, 1000);
        assert_eq!((win.cwnd, c.rem), (3333, 1000));
        win = Window { cwnd: 1000, ssthresh: 20_000 };
        c.grow(&mut win, 1000);
        assert_eq!((win.cwnd, c.rem), (2000, 0));
    }
}
