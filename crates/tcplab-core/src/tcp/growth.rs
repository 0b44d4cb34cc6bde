//! How the congestion window grows on an ACK of new data, one rule per stack.
//!
//! - `Tcplab`: tcplab's own rule before stacks existed (slow start while cwnd < ssthresh,
//!   then maxseg * maxseg / cwnd per ACK, at least one byte). Not any real stack's rule.
//! - `Bsd44`: 4.4BSD-Lite `tcp_input.c` (tcp_input, "open the congestion window"): bytes;
//!   slow start unless `cw > snd_ssthresh`, so cwnd == ssthresh still slow-starts; in
//!   congestion avoidance `incr = maxseg * maxseg / cw + maxseg / 8`.
//! - `Ns2`: ns-2 `tcp.cc` (TcpAgent::opencwnd, windowOption_ 1): cwnd_ and ssthresh_ count
//!   packets; `cwnd_ += 1` while cwnd_ < ssthresh_, else `cwnd_ += 1 / cwnd_`. Here the window
//!   is kept in bytes with one packet = one MSS, and the 1/cwnd_ step is done in integer
//!   bytes with the remainder carried between ACKs, which stays within a byte of ns-2's
//!   double; the sender uses only whole packets of it (TcpAgent::window() truncates cwnd_).

use super::window::Window;

/// Which rule grows the window (scenario knob `window_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowRule {
    Tcplab,
    Bsd44,
    Ns2,
}

impl WindowRule {
    pub const NAMES: &'static [&'static str] = &["tcplab", "bsd44", "ns2"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "tcplab" => Self::Tcplab,
            "bsd44" => Self::Bsd44,
            "ns2" => Self::Ns2,
            _ => return None,
        })
    }

    /// Grow `w` for one ACK of new data. `rem` carries the ns-2 rule's fractional bytes
    /// (numerator over cwnd) between calls; the other rules leave it alone.
    #[inline]
    pub fn grow(self, w: &mut Window, mss: u64, rem: &mut u64) {
        let cw = w.cwnd.max(1);
        let incr = match self {
            Self::Tcplab => {
                if cw < w.ssthresh {
                    mss
                } else {
                    (mss * mss / cw).max(1)
                }
            }
            Self::Bsd44 => {
                if cw > w.ssthresh {
                    mss * mss / cw + mss / 8
                } else {
                    mss
                }
            }
            Self::Ns2 => {
                if cw < w.ssthresh {
                    *rem = 0;
                    mss
                } else {
                    // cwnd_ += 1/cwnd_ packets = mss * mss / cwnd bytes, remainder kept.
                    let num = mss * mss + *rem;
                    *rem = num % cw;
                    num / cw
                }
            }
        };
        w.cwnd = cw + incr;
    }

    /// The part of cwnd the sender may use: ns-2 counts whole packets only.
    #[inline]
    pub fn usable(self, cwnd: u64, mss: u64) -> u64 {
        if self == Self::Ns2 {
            // At least one packet, also with a zero ssthresh floor (slowdown: cwnd_ >= 1).
            (cwnd / mss).max(1) * mss
        } else {
            cwnd
        }
    }
}

/// Reno's window deflation when fast recovery ends (scenario knob `deflation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deflation {
    /// Always set cwnd to min(cwnd, ssthresh) on the first new ACK (tcplab, ns-2
    /// tcp-reno.cc RenoTcpAgent::recv: `if (dupwnd_ > 0) ... cwnd_ = ssthresh_`).
    Always,
    /// 4.4BSD-Lite tcp_input: only when `t_dupacks > tcprexmtthresh` (more duplicate ACKs
    /// than the threshold arrived) and cwnd > ssthresh.
    PastThreshold,
    /// ns-2 tcp-reno.cc: the inflation is a separate dupwnd_, removed on the first new ACK
    /// and left out of the window a timeout halves.
    Ns2,
}

impl Deflation {
    pub const NAMES: &'static [&'static str] = &["always", "bsd44", "ns2"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "always" => Self::Always,
            "bsd44" => Self::PastThreshold,
            "ns2" => Self::Ns2,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd: u64, ssthresh: u64) -> Window {
        Window { cwnd, ssthresh }
    }

    #[test]
    fn bsd44_at_ssthresh_still_slow_starts() {
        // tcp_input.c: `if (cw > tp->snd_ssthresh)` is the congestion-avoidance test.
        let (mut win, mut r) = (w(4000, 4000), 0);
        WindowRule::Bsd44.grow(&mut win, 1000, &mut r);
        assert_eq!(win.cwnd, 5000);
        let mut t = w(4000, 4000);
        WindowRule::Tcplab.grow(&mut t, 1000, &mut r);
        assert_eq!(t.cwnd, 4250, "tcplab treats cwnd == ssthresh as avoidance");
    }

    #[test]
    fn bsd44_avoidance_adds_an_eighth_segment() {
        // maxseg*maxseg/cw + maxseg/8 = 1000*1000/5000 + 125 = 325 bytes.
        let (mut win, mut r) = (w(5000, 4000), 0);
        WindowRule::Bsd44.grow(&mut win, 1000, &mut r);
        assert_eq!(win.cwnd, 5325);
    }

    #[test]
    fn ns2_avoidance_adds_one_packet_per_window_exactly() {
        // opencwnd: cwnd_ += 1/cwnd_. From 3 packets: 3 + 1/3 + 1/(3+1/3) + ..., to the
        // byte.
        let (mut win, mut r) = (w(3000, 2000), 0);
        for _ in 0..3 {
            WindowRule::Ns2.grow(&mut win, 1000, &mut r);
        }
        // 3 + 1/3 = 3.3333, + 1/3.3333 = 3.6333, + 1/3.6333 = 3.9086 packets.
        assert_eq!(win.cwnd, 3908);
        assert_eq!(WindowRule::Ns2.usable(win.cwnd, 1000), 3000, "window() = int(cwnd_)");
        WindowRule::Ns2.grow(&mut win, 1000, &mut r);
        assert_eq!(WindowRule::Ns2.usable(win.cwnd, 1000), 4000);
    }

    #[test]
    fn ns2_slow_starts_by_whole_packets_below_ssthresh() {
        let (mut win, mut r) = (w(1000, 20_000), 0);
        for _ in 0..5 {
            WindowRule::Ns2.grow(&mut win, 1000, &mut r);
        }
        assert_eq!(win.cwnd, 6000);
    }
}
