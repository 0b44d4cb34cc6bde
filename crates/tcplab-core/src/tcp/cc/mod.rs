//! Congestion control: how fast the window grows and how far it falls back on a loss. Loss
//! recovery (`recovery/`) decides when a loss episode begins and ends, what to resend and how
//! the window is inflated meanwhile; it asks congestion control for the threshold to fall back
//! to. quinn-proto and ns-3 split them the same way.
//!
//! Each controller is a file with its `CongestionControl` impl and its tests; `Controller` is
//! the closed set the sender dispatches over without a vtable. The `cc` knob picks one:
//! - `reno`: the classic AIMD (additive increase, multiplicative decrease, `aimd.rs`), with
//!   the increase of each stack whose window arithmetic differs (the `window_rule` knob):
//!   `tcplab.rs`, `bsd44.rs`, `ns2.rs`;
//! - `cubic`: CUBIC as RFC 9438 specifies it (`cubic.rs`);
//! - `vegas`: TCP Vegas (Brakmo and Peterson, 1995; `vegas.rs`);
//! - `bbr`: BBR v1 (Cardwell et al., 2016/2017; `bbr.rs`, with `bbr_model.rs`).
//!
//! Vegas and BBR learn from every ACK what was delivered and when (the sender's delivery log,
//! `tcp/delivery.rs`, hands them an `AckSample`), and BBR paces (`pacing_rate`): the sender
//! keeps that log only for a controller that `samples_delivery`, so the classic controllers
//! pay nothing for it.

mod aimd;
mod bbr;
mod bbr_model;
mod bsd44;
mod cubic;
mod ns2;
mod tcplab;
mod vegas;

pub use aimd::{Aimd, Decrease, Growth, Halving};
pub use bbr::Bbr;
pub use bsd44::Bsd44Growth;
pub use cubic::Cubic;
pub use ns2::Ns2Growth;
pub use tcplab::TcplabGrowth;
pub use vegas::Vegas;

use crate::time::{Dur, Time};

use super::config::TcpConfig;
use super::growth::WindowRule;
use super::knobs::Congestion;
use super::window::Window;

/// What the sender knows when it detects congestion: a fast retransmit today (and, once ECN
/// exists, an ECN echo, at most once per window as the sender decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossState {
    /// The window before the loss, without any inflation by duplicate ACKs a timeout drops.
    pub win: Window,
    /// The receiver's advertised window, bytes.
    pub peer_wnd: u64,
    /// Bytes sent and not yet cumulatively acknowledged (FlightSize).
    pub flight: u64,
    pub mss: u64,
    /// Oldest unacknowledged byte (stream offset).
    pub snd_una: u64,
    /// Highest byte ever sent + 1.
    pub snd_max: u64,
}

/// What one ACK (new or duplicate) told a controller that samples delivery, from the sender's
/// delivery log (`tcp/delivery.rs`, after draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckSample {
    pub now: Time,
    /// Bytes this ACK newly reported delivered: cumulatively acknowledged, SACKed, or one
    /// segment for a duplicate ACK without SACK.
    pub delivered: u64,
    /// Bytes delivered over the connection so far (the draft's C.delivered), this ACK included.
    pub total_delivered: u64,
    /// Bytes newly marked lost: those resent since the previous ACK.
    pub lost: u64,
    /// Bytes in the network after this ACK: sent and neither acknowledged, SACKed, counted by
    /// a duplicate ACK, nor given up for lost by a timeout.
    pub in_flight: u64,
    /// `in_flight` before this ACK (the draft's rs.prior_in_flight).
    pub prior_in_flight: u64,
    /// Bytes above snd_una known to have left the network (SACKed, or counted by duplicate
    /// ACKs): what the sender's cumulative window test counts but `in_flight` does not.
    pub out_of_order: u64,
    /// Round-trip time of the newest segment this ACK delivered that was sent only once (Karn).
    pub rtt: Option<Dur>,
    /// C.delivered when the newest segment this ACK delivered was sent (P.delivered), if the
    /// ACK delivered a segment it can name (not a duplicate ACK without SACK).
    pub prior_delivered: Option<u64>,
    /// The delivery-rate sample of this ACK, if it gives a valid one.
    pub rate: Option<RateSample>,
    pub mss: u64,
    /// The cumulative ACK (snd_una after it) and the highest byte sent + 1.
    pub snd_una: u64,
    pub snd_max: u64,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-00, Sec. 3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RateSample {
    /// Bytes delivered over the sample's interval (rs.delivered).
    pub delivered: u64,
    /// The interval, ns: the longer of the send and the ACK phases (rs.interval).
    pub interval: Dur,
    /// C.delivered when the newest delivered segment was sent (rs.prior_delivered).
    pub prior_delivered: u64,
    /// The newest delivered segment was sent while the application had nothing more to send.
    pub app_limited: bool,
}

impl RateSample {
    /// Bytes per second.
    pub fn rate(&self) -> u64 {
        (self.delivered as u128 * crate::time::SEC as u128 / self.interval.max(1) as u128) as u64
    }
}

pub trait CongestionControl {
    /// An ACK of new data at `now`, acknowledging `acked` bytes, that the loss recovery lets
    /// grow the window: open it.
    fn on_ack(&mut self, now: Time, win: &mut Window, acked: u64, mss: u64);
    /// The RTT estimator took a sample; `srtt` is its smoothed RTT after it.
    fn on_rtt(&mut self, _now: Time, _srtt: Dur) {}
    /// Congestion was detected (a fast retransmit begins a loss episode): the new slow-start
    /// threshold (the recovery policy sets cwnd from it).
    fn on_congestion_event(&mut self, loss: &LossState) -> u64;
    /// The retransmission timer expired: the new window (the sender goes back N from it).
    fn on_timeout(&mut self, loss: &LossState) -> Window;
    /// The part of cwnd the sender may use.
    fn usable(&self, cwnd: u64, _mss: u64) -> u64 {
        cwnd
    }
    /// What an ACK delivered, before loss recovery sees the ACK (controllers that
    /// `samples_delivery` only).
    fn on_sample(&mut self, _s: &AckSample) {}
    /// After loss recovery and window growth handled the ACK: a controller that decides once
    /// per round trip (Vegas) or owns cwnd (BBR) sets it here. `in_recovery`: the recovery
    /// policy is in a loss episode.
    fn set_window(&mut self, _s: &AckSample, _in_recovery: bool, _win: &mut Window) {}
    /// The rate the sender paces at, bytes per second; None: no pacing.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// The controller holds the sender below what the path carries (BBR's PROBE_RTT): the
    /// delivery samples taken meanwhile are marked application-limited.
    fn holds_back(&self) -> bool {
        false
    }
}

/// Calls a `CongestionControl` method on whichever controller is inside, without a vtable.
macro_rules! dispatch {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            Controller::Tcplab($c) => $call,
            Controller::Bsd44($c) => $call,
            Controller::Ns2($c) => $call,
            Controller::Cubic($c) => $call,
            Controller::Vegas($c) => $call,
            Controller::Bbr($c) => $call,
        }
    };
}

/// The closed set of controllers (static dispatch on the hot path). The newer ones are boxed
/// so a classic flow's sender stays as small as before.
#[derive(Debug, Clone)]
pub enum Controller {
    Tcplab(Aimd<TcplabGrowth>),
    Bsd44(Aimd<Bsd44Growth>),
    Ns2(Aimd<Ns2Growth>),
    Cubic(Box<Cubic>),
    Vegas(Box<Vegas>),
    Bbr(Box<Bbr>),
}

impl Controller {
    /// The controller `cfg` asks for (`cc`; for `reno`, its stack's window rule with the
    /// variant's decrease), capped at `max_cwnd` segments. `seed` seeds BBR's one random draw.
    pub fn new(cfg: &TcpConfig, seed: u64) -> Self {
        let mss = cfg.mss as u64;
        let cap = cfg.max_cwnd.map(|m| m as u64 * mss);
        match cfg.cc {
            Congestion::Reno => {
                let decrease = Decrease::for_config(cfg);
                match cfg.window_rule {
                    WindowRule::Tcplab => Controller::Tcplab(Aimd::new(TcplabGrowth, decrease, cap)),
                    WindowRule::Bsd44 => Controller::Bsd44(Aimd::new(Bsd44Growth, decrease, cap)),
                    WindowRule::Ns2 => Controller::Ns2(Aimd::new(Ns2Growth::default(), decrease, cap)),
                }
            }
            Congestion::Cubic => Controller::Cubic(Box::new(Cubic::new(cap))),
            Congestion::Vegas => {
                Controller::Vegas(Box::new(Vegas::new(cfg.vegas_alpha as u64, cfg.vegas_beta as u64, cap)))
            }
            Congestion::Bbr => Controller::Bbr(Box::new(Bbr::new(cfg.initial_cwnd as u64 * mss, mss, cap, seed))),
        }
    }

    /// Whether the sender must keep its delivery log for this controller (`on_sample`,
    /// `set_window`, `pacing_rate`).
    pub fn samples_delivery(&self) -> bool {
        matches!(self, Controller::Vegas(_) | Controller::Bbr(_))
    }

    /// Every ACK of new data calls this: the classic controllers' few instructions are
    /// inlined into the sender (a monomorphic call each), the boxed ones stay out of line, so
    /// the sender does not pay a call and a frame per ACK for the common case (issue 26).
    #[inline]
    pub fn on_ack(&mut self, now: Time, win: &mut Window, acked: u64, mss: u64) {
        match self {
            Controller::Tcplab(c) => c.on_ack(now, win, acked, mss),
            Controller::Bsd44(c) => c.on_ack(now, win, acked, mss),
            Controller::Ns2(c) => c.on_ack(now, win, acked, mss),
            _ => self.on_ack_boxed(now, win, acked, mss),
        }
    }
    #[inline(never)]
    fn on_ack_boxed(&mut self, now: Time, win: &mut Window, acked: u64, mss: u64) {
        dispatch!(self, c => c.on_ack(now, win, acked, mss))
    }
    /// Every RTT sample calls this: split as `on_ack` is (the classic controllers ignore it).
    #[inline]
    pub fn on_rtt(&mut self, now: Time, srtt: Dur) {
        match self {
            Controller::Tcplab(c) => c.on_rtt(now, srtt),
            Controller::Bsd44(c) => c.on_rtt(now, srtt),
            Controller::Ns2(c) => c.on_rtt(now, srtt),
            _ => self.on_rtt_boxed(now, srtt),
        }
    }
    #[inline(never)]
    fn on_rtt_boxed(&mut self, now: Time, srtt: Dur) {
        dispatch!(self, c => c.on_rtt(now, srtt))
    }
    pub fn on_congestion_event(&mut self, loss: &LossState) -> u64 {
        dispatch!(self, c => c.on_congestion_event(loss))
    }
    pub fn on_timeout(&mut self, loss: &LossState) -> Window {
        dispatch!(self, c => c.on_timeout(loss))
    }
    #[inline]
    pub fn usable(&self, cwnd: u64, mss: u64) -> u64 {
        dispatch!(self, c => c.usable(cwnd, mss))
    }
    /// Whether `usable(cwnd, mss)` is `cwnd` itself, whatever the controller's state: all but
    /// ns-2's whole packets and BBR's added-back bytes. Fixed for the connection, so the
    /// sender takes it once (`TcpSender::usable_is_cwnd`) instead of decoding the controller's
    /// variant on every poll (issue 26).
    pub fn usable_is_cwnd(&self) -> bool {
        !matches!(self, Controller::Ns2(_) | Controller::Bbr(_))
    }
    pub fn on_sample(&mut self, s: &AckSample) {
        dispatch!(self, c => c.on_sample(s))
    }
    pub fn set_window(&mut self, s: &AckSample, in_recovery: bool, win: &mut Window) {
        dispatch!(self, c => c.set_window(s, in_recovery, win))
    }
    pub fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    pub fn holds_back(&self) -> bool {
        dispatch!(self, c => c.holds_back())
    }
}

/// A deterministic cube root (Newton's method in IEEE double arithmetic, which every machine
/// rounds alike; the platform's `cbrt` may differ in the last bit between C libraries).
pub fn cube_root(x: f64) -> f64 {
    if x <= 0.0 {
        return if x == 0.0 { 0.0 } else { -cube_root(-x) };
    }
    // Start above the root (x^(1/3) <= max(x, 1)), so the iteration falls monotonically.
    let mut r = x.max(1.0);
    loop {
        let next = (2.0 * r + x / (r * r)) / 3.0;
        if next >= r {
            return r;
        }
        r = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::RecoveryKind;

    fn loss(cwnd: u64, peer_wnd: u64, flight: u64) -> LossState {
        LossState { win: Window { cwnd, ssthresh: 0 }, peer_wnd, flight, mss: 1000, snd_una: 0, snd_max: flight }
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
            let mut c = Controller::new(&cfg(kind), 0);
            assert_eq!(c.on_congestion_event(&l), fast, "{kind:?}");
            assert_eq!(c.on_timeout(&l), Window { cwnd: 1000, ssthresh: 4000 }, "{kind:?}");
        }
    }

    proptest::proptest! {
        /// `usable_is_cwnd` promises `usable(cwnd, mss) == cwnd` in every state: each
        /// controller, grown by a run of ACKs and RTT samples, then asked at any window.
        #[test]
        fn usable_is_cwnd_holds_whatever_the_state(
            acks in 0usize..40, acked in 1u64..5000, cwnd in 0u64..1 << 40, mss in 1u64..10_000,
        ) {
            let cfgs = [
                TcpConfig { window_rule: WindowRule::Tcplab, ..TcpConfig::default() },
                TcpConfig { window_rule: WindowRule::Bsd44, ..TcpConfig::default() },
                TcpConfig { window_rule: WindowRule::Ns2, ..TcpConfig::default() },
                TcpConfig { cc: Congestion::Cubic, ..TcpConfig::default() },
                TcpConfig { cc: Congestion::Vegas, ..TcpConfig::default() },
                TcpConfig { cc: Congestion::Bbr, ..TcpConfig::default() },
            ];
            for cfg in cfgs {
                let mut c = Controller::new(&cfg, 7);
                let mut win = Window { cwnd: 10 * mss, ssthresh: 40 * mss };
                for k in 0..acks as u64 {
                    c.on_rtt(k * 1_000_000, 20_000_000 + k * 1000);
                    c.on_ack(k * 1_000_000, &mut win, acked, mss);
                }
                if c.usable_is_cwnd() {
                    proptest::prop_assert_eq!(c.usable(cwnd, mss), cwnd, "{:?}", cfg.cc);
                }
            }
        }
    }

    #[test]
    fn usable_is_cwnd_is_false_where_usable_differs() {
        let ns2 = Controller::new(&TcpConfig { window_rule: WindowRule::Ns2, ..TcpConfig::default() }, 0);
        assert!(!ns2.usable_is_cwnd());
        assert_eq!(ns2.usable(2500, 1000), 2000, "ns-2 uses whole packets");
        let bbr = Controller::new(&TcpConfig { cc: Congestion::Bbr, ..TcpConfig::default() }, 0);
        assert!(!bbr.usable_is_cwnd());
    }

    #[test]
    fn the_window_rule_picks_the_classic_controller_and_max_cwnd_caps_it() {
        let cfg = TcpConfig { window_rule: WindowRule::Ns2, mss: 1000, max_cwnd: Some(4), ..TcpConfig::default() };
        let mut c = Controller::new(&cfg, 0);
        assert!(matches!(c, Controller::Ns2(_)));
        let mut w = Window { cwnd: 4000, ssthresh: 100_000 };
        c.on_ack(0, &mut w, 1000, 1000);
        assert_eq!(w.cwnd, 4000, "maxcwnd_ 4 packets");
        let bsd = TcpConfig { window_rule: WindowRule::Bsd44, ..TcpConfig::default() };
        assert!(matches!(Controller::new(&bsd, 0), Controller::Bsd44(_)));
        assert!(matches!(Controller::new(&TcpConfig::default(), 0), Controller::Tcplab(_)));
    }

    #[test]
    fn the_cc_knob_picks_the_controller_and_only_vegas_and_bbr_sample_delivery() {
        for (cc, samples) in
            [(Congestion::Reno, false), (Congestion::Cubic, false), (Congestion::Vegas, true), (Congestion::Bbr, true)]
        {
            let c = Controller::new(&TcpConfig { cc, ..TcpConfig::default() }, 0);
            assert_eq!(c.samples_delivery(), samples, "{cc:?}");
            assert_eq!(cc.samples_delivery(), samples, "{cc:?}: the knob's answer, for the memory estimate");
            assert_eq!(c.pacing_rate().is_some(), cc == Congestion::Bbr, "{cc:?}: only BBR paces");
        }
    }

    #[test]
    fn a_classic_flow_keeps_its_small_controller() {
        assert!(std::mem::size_of::<Controller>() <= 64, "{}", std::mem::size_of::<Controller>());
    }

    #[test]
    fn the_cube_root_is_exact_on_cubes_and_close_elsewhere() {
        for k in [0.0, 1.0, 2.0, 3.0, 10.0, 123.0] {
            assert_eq!(cube_root(k * k * k), k);
        }
        assert_eq!(cube_root(-8.0), -2.0);
        for x in [0.001, 0.5, 7.0, 1e6, 3.7e12] {
            let r = cube_root(x);
            assert!((r * r * r - x).abs() <= 1e-12 * x.max(1.0), "{x}: {r}");
        }
    }
}
