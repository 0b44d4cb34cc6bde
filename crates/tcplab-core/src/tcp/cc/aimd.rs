//! The classic AIMD congestion control: the window grows by a stack's increase rule (`Growth`:
//! `tcplab.rs`, `bsd44.rs`, `ns2.rs`) and falls back by halving (`Decrease`), never past
//! ns-2's maxcwnd_.

use crate::time::Time;

use super::super::config::{RecoveryKind, TcpConfig};
use super::super::window::Window;
use super::{CongestionControl, LossState};

/// A stack's window increase on one ACK of new data.
pub trait Growth {
    fn grow(&mut self, win: &mut Window, mss: u64);
    /// The part of cwnd the sender may use.
    fn usable(&self, cwnd: u64, _mss: u64) -> u64 {
        cwnd
    }
}

/// Additive increase by `G`, multiplicative decrease by `Decrease`.
#[derive(Debug, Clone)]
pub struct Aimd<G> {
    growth: G,
    decrease: Decrease,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
}

impl<G: Growth> Aimd<G> {
    pub fn new(growth: G, decrease: Decrease, cap: Option<u64>) -> Self {
        Self { growth, decrease, cap }
    }
}

impl<G: Growth> CongestionControl for Aimd<G> {
    #[inline]
    fn on_ack(&mut self, _now: Time, win: &mut Window, _acked: u64, mss: u64) {
        self.growth.grow(win, mss);
        if let Some(max) = self.cap {
            win.cwnd = win.cwnd.min(max);
        }
    }

    fn on_congestion_event(&mut self, loss: &LossState) -> u64 {
        self.decrease.fast_retransmit.ssthresh(loss)
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        Window { cwnd: loss.mss, ssthresh: self.decrease.timeout.ssthresh(loss) }
    }

    #[inline]
    fn usable(&self, cwnd: u64, mss: u64) -> u64 {
        self.growth.usable(cwnd, mss)
    }
}

/// How far the classic window falls back: the slow-start threshold a loss leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halving {
    /// Half the usable window, min(cwnd, rwnd), rounded down to whole segments and at least
    /// `floor` segments (4.4BSD tcp_input and tcp_timer: 2; ns-2 closecwnd: 2; ns-1: none).
    Window { floor: u64 },
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2 SMSS), which RFC 6582 (NewReno, Sec. 3.2 step
    /// 2) and RFC 6675 (SACK, Sec. 5 step 4.2) apply at a fast retransmit.
    Flight,
}

impl Halving {
    pub fn ssthresh(self, loss: &LossState) -> u64 {
        match self {
            Halving::Window { floor } => {
                let segments = loss.win.cwnd.min(loss.peer_wnd) / 2 / loss.mss;
                segments.max(floor) * loss.mss
            }
            Halving::Flight => (loss.flight / 2).max(2 * loss.mss),
        }
    }
}

/// The classic decrease: a fast retransmit halves by the variant's rule; a timeout halves the
/// window and restarts from one segment (RFC 5681's loss window). tcplab's RFC variants halve
/// the flight at a fast retransmit, as their RFCs say, and the window at a timeout, as the
/// sender always has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decrease {
    pub fast_retransmit: Halving,
    pub timeout: Halving,
}

impl Decrease {
    /// Both events halve the window, at least `floor` segments.
    pub fn window(floor: u64) -> Self {
        Self { fast_retransmit: Halving::Window { floor }, timeout: Halving::Window { floor } }
    }

    /// The decrease of `cfg`: the stack's floor, and RFC 5681's FlightSize rule at a fast
    /// retransmit for the variants specified by RFC (RFC 6582's NewReno, RFC 6675's SACK).
    pub fn for_config(cfg: &TcpConfig) -> Self {
        let d = Self::window(cfg.ssthresh_floor as u64);
        match cfg.recovery {
            RecoveryKind::NewReno | RecoveryKind::Sack6675 => Self { fast_retransmit: Halving::Flight, ..d },
            _ => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::TcplabGrowth;
    use super::*;

    fn loss(cwnd: u64, peer_wnd: u64, flight: u64) -> LossState {
        LossState { win: Window { cwnd, ssthresh: 0 }, peer_wnd, flight, mss: 1000, snd_una: 0, snd_max: flight }
    }

    #[test]
    fn window_halving_is_whole_segments_of_the_usable_window_and_at_least_the_floor() {
        let two = Halving::Window { floor: 2 };
        assert_eq!(two.ssthresh(&loss(9500, u64::MAX, 0)), 4000);
        assert_eq!(two.ssthresh(&loss(9500, 3000, 0)), 2000, "min(cwnd, rwnd) = 3000: 1 segment, floor 2");
        assert_eq!(Halving::Window { floor: 0 }.ssthresh(&loss(1000, u64::MAX, 0)), 0, "ns-1: no floor");
    }

    #[test]
    fn flight_halving_follows_rfc5681() {
        assert_eq!(Halving::Flight.ssthresh(&loss(20_000, u64::MAX, 9000)), 4500, "not whole segments");
        assert_eq!(Halving::Flight.ssthresh(&loss(20_000, u64::MAX, 3000)), 2000, "at least 2 SMSS");
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_with_half_the_window() {
        let mut c = Aimd::new(TcplabGrowth, Decrease::window(2), None);
        let l = loss(9500, u64::MAX, 9500);
        assert_eq!(c.on_timeout(&l), Window { cwnd: 1000, ssthresh: 4000 });
        assert_eq!(c.on_congestion_event(&l), 4000);
    }

    #[test]
    fn max_cwnd_caps_the_growth() {
        let mut c = Aimd::new(TcplabGrowth, Decrease::window(2), Some(4000));
        let mut w = Window { cwnd: 3500, ssthresh: 100_000 };
        c.on_ack(0, &mut w, 1000, 1000);
        assert_eq!(w.cwnd, 4000);
    }
}
