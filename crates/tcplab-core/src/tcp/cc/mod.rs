//! Congestion control: how fast the window grows and how far it falls back on a loss. Loss
//! recovery (`recovery/`) decides when a loss episode begins and ends, what to resend and how
//! the window is inflated meanwhile; it asks congestion control for the threshold to fall back
//! to. quinn-proto and ns-3 split them the same way.
//!
//! Each controller is a file with its `CongestionControl` impl and its tests; `Controller` is
//! the closed set the sender dispatches over without a vtable. Today's is the classic AIMD
//! (additive increase, multiplicative decrease, `aimd.rs`), with the increase of each stack
//! whose window arithmetic differs (the `window_rule` knob): `tcplab.rs`, `bsd44.rs`,
//! `ns2.rs`.
//!
//! To add one (CUBIC, say): a file here with a state struct and its `CongestionControl` impl,
//! an arm in `Controller` (and in `dispatch!`), and the knob value that picks it in
//! `Controller::new`.

mod aimd;
mod bsd44;
mod ns2;
mod tcplab;

pub use aimd::{Aimd, Decrease, Growth, Halving};
pub use bsd44::Bsd44Growth;
pub use ns2::Ns2Growth;
pub use tcplab::TcplabGrowth;

use crate::time::Time;

use super::config::TcpConfig;
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
    Tcplab(Aimd<TcplabGrowth>),
    Bsd44(Aimd<Bsd44Growth>),
    Ns2(Aimd<Ns2Growth>),
}

impl Controller {
    /// The controller `cfg` asks for: its stack's window rule with the variant's decrease,
    /// capped at `max_cwnd` segments.
    pub fn new(cfg: &TcpConfig) -> Self {
        let decrease = Decrease::for_config(cfg);
        let cap = cfg.max_cwnd.map(|m| m as u64 * cfg.mss as u64);
        match cfg.window_rule {
            WindowRule::Tcplab => Controller::Tcplab(Aimd::new(TcplabGrowth, decrease, cap)),
            WindowRule::Bsd44 => Controller::Bsd44(Aimd::new(Bsd44Growth, decrease, cap)),
            WindowRule::Ns2 => Controller::Ns2(Aimd::new(Ns2Growth::default(), decrease, cap)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::RecoveryKind;

    fn loss(cwnd: u64, peer_wnd: u64, flight: u64) -> LossState {
        LossState { win: Window { cwnd, ssthresh: 0 }, peer_wnd, flight, mss: 1000 }
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
