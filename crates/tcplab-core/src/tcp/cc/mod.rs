//! Congestion control: how fast the window grows and how far it falls back on a loss. Loss
//! recovery (`recovery/`) decides when a loss episode begins and ends, what to resend and how
//! the window is inflated meanwhile; it asks congestion control for the threshold to fall back
//! to. quinn-proto and ns-3 split them the same way.
//!
//! Each controller is a file with its `CongestionControl` impl and its tests; `Controller` is
//! the closed set the sender dispatches over without a vtable. Today's are the classic AIMD
//! (additive increase, multiplicative decrease) rules of the three stacks whose window
//! arithmetic differs (the `window_rule` knob): `tcplab.rs`, `bsd44.rs` and `ns2.rs`. They
//! share the decrease (`Decrease`).
//!
//! To add one (CUBIC, say): a file here with a state struct and its `CongestionControl` impl,
//! an arm in `Controller` (and in `dispatch!`), and the knob value that picks it in
//! `Controller::new`.

mod bsd44;
mod ns2;
mod tcplab;

pub use bsd44::Bsd44Aimd;
pub use ns2::Ns2Aimd;
pub use tcplab::TcplabAimd;

use crate::time::Time;

use super::config::{RecoveryKind, TcpConfig};
use super::growth::WindowRule;
use super::window::Window;

/// What the sender knows when a loss is detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossState {
    /// The window before the loss, without any inflation by duplicate ACKs a timeout drops.
    pub win: Window,
    /// The receiver's advertised window, bytes.
    pub peer_wnd: u64,
    /// Bytes sent and not yet cumulatively acknowledged (FlightSize).
    pub flight: u64,
    pub mss: u64,
}

pub trait CongestionControl {
    /// An ACK of new data at `now` that the loss recovery lets grow the window: open it.
    fn on_ack(&mut self, now: Time, win: &mut Window, mss: u64);
    /// A fast retransmit begins a loss episode: the new slow-start threshold (the recovery
    /// policy sets cwnd from it).
    fn on_fast_retransmit(&mut self, loss: &LossState) -> u64;
    /// The retransmission timer expired: the new window (the sender goes back N from it).
    fn on_timeout(&mut self, loss: &LossState) -> Window;
    /// The part of cwnd the sender may use.
    fn usable(&self, cwnd: u64, _mss: u64) -> u64 {
        cwnd
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

    pub fn on_fast_retransmit(self, loss: &LossState) -> u64 {
        self.fast_retransmit.ssthresh(loss)
    }

    pub fn on_timeout(self, loss: &LossState) -> Window {
        Window { cwnd: loss.mss, ssthresh: self.timeout.ssthresh(loss) }
    }
}

/// Calls a `CongestionControl` method on whichever controller is inside, without a vtable.
macro_rules! dispatch {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            Controller::Tcplab($c) => $call,
            Controller::Bsd44($c) => $call,
            Controller::Ns2($c) => $call,
        }
    };
}

/// The closed set of controllers (static dispatch on the hot path).
#[derive(Debug, Clone)]
pub enum Controller {
    Tcplab(TcplabAimd),
    Bsd44(Bsd44Aimd),
    Ns2(Ns2Aimd),
}

impl Controller {
    /// The controller `cfg` asks for: its stack's window rule with the variant's decrease,
    /// capped at `max_cwnd` segments.
    pub fn new(cfg: &TcpConfig) -> Self {
        let decrease = Decrease::for_config(cfg);
        let cap = cfg.max_cwnd.map(|m| m as u64 * cfg.mss as u64);
        match cfg.window_rule {
            WindowRule::Tcplab => Controller::Tcplab(TcplabAimd::new(decrease, cap)),
            WindowRule::Bsd44 => Controller::Bsd44(Bsd44Aimd::new(decrease, cap)),
            WindowRule::Ns2 => Controller::Ns2(Ns2Aimd::new(decrease, cap)),
        }
    }

    #[inline]
    pub fn on_ack(&mut self, now: Time, win: &mut Window, mss: u64) {
        dispatch!(self, c => c.on_ack(now, win, mss))
    }
    pub fn on_fast_retransmit(&mut self, loss: &LossState) -> u64 {
        dispatch!(self, c => c.on_fast_retransmit(loss))
    }
    pub fn on_timeout(&mut self, loss: &LossState) -> Window {
        dispatch!(self, c => c.on_timeout(loss))
    }
    #[inline]
    pub fn usable(&self, cwnd: u64, mss: u64) -> u64 {
        dispatch!(self, c => c.usable(cwnd, mss))
    }
}

/// ns-2's maxcwnd_: the window never grows past `cap` bytes.
#[inline]
fn capped(win: &mut Window, cap: Option<u64>) {
    if let Some(max) = cap {
        win.cwnd = win.cwnd.min(max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(cwnd: u64, peer_wnd: u64, flight: u64) -> LossState {
        LossState { win: Window { cwnd, ssthresh: 0 }, peer_wnd, flight, mss: 1000 }
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
    fn rfc_variants_halve_the_flight_at_a_fast_retransmit_and_every_variant_the_window_at_a_timeout() {
        let cfg = |recovery| TcpConfig { recovery, ssthresh_floor: 2, ..TcpConfig::default() };
        let l = loss(8000, u64::MAX, 5000);
        for (kind, fast) in [
            (RecoveryKind::Reno, 4000),
            (RecoveryKind::NewRenoNs2, 4000),
            (RecoveryKind::Sack, 4000),
            (RecoveryKind::NewReno, 2500),
            (RecoveryKind::Sack6675, 2500),
        ] {
            let mut c = Controller::new(&cfg(kind));
            assert_eq!(c.on_fast_retransmit(&l), fast, "{kind:?}");
            assert_eq!(c.on_timeout(&l), Window { cwnd: 1000, ssthresh: 4000 }, "{kind:?}");
        }
    }

    #[test]
    fn the_window_rule_picks_the_controller_and_max_cwnd_caps_it() {
        let cfg = TcpConfig { window_rule: WindowRule::Ns2, mss: 1000, max_cwnd: Some(4), ..TcpConfig::default() };
        let mut c = Controller::new(&cfg);
        assert!(matches!(c, Controller::Ns2(_)));
        let mut w = Window { cwnd: 4000, ssthresh: 100_000 };
        c.on_ack(0, &mut w, 1000);
        assert_eq!(w.cwnd, 4000, "maxcwnd_ 4 packets");
        let bsd = TcpConfig { window_rule: WindowRule::Bsd44, ..TcpConfig::default() };
        assert!(matches!(Controller::new(&bsd), Controller::Bsd44(_)));
        assert!(matches!(Controller::new(&TcpConfig::default()), Controller::Tcplab(_)));
    }
}
