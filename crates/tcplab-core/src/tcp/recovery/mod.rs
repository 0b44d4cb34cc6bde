//! Loss-recovery policies: what the sender does about duplicate ACKs, partial ACKs and timeouts.
//!
//! The sender owns the mechanics (sequence space, timers, duplicate-ACK counting, the SACK
//! scoreboard); a policy decides when a loss episode begins and ends, what to resend and how
//! the window moves meanwhile, and asks congestion control (`cc/`) how far the window falls
//! back (`Ctx::ssthresh_on_loss`). Each policy is one file; `Recovery` is the closed set the
//! sender dispatches over without a vtable.

mod newreno;
mod newreno_ns2;
mod reno;
mod sack;
mod sack6675;
mod tahoe;
mod vanilla;

pub use newreno::NewReno;
pub use newreno_ns2::NewRenoNs2;
pub use reno::Reno;
pub use sack::SackPipe;
pub use sack6675::Sack6675;
pub use tahoe::Tahoe;
pub use vanilla::Vanilla;

use super::cc::{Controller, LossState};
use super::config::{RecoveryKind, TcpConfig};
use super::growth::Deflation;
use super::knobs::SackPipeStart;
use super::scoreboard::Scoreboard;
use super::window::Window;

/// The sender state a policy may read and change during one event.
pub struct Ctx<'a> {
    /// ns-2.35's `bugfix_ss_` allows a fast retransmit here whatever `bug_fix` says (the ACK
    /// stands at ns-2's `highest_ack_ == 0`: the first data packet is the one missing).
    pub bugfix_ss_exempt: bool,
    pub win: &'a mut Window,
    pub mss: u64,
    /// Oldest unacknowledged byte (already advanced past the ACK being processed).
    pub snd_una: u64,
    /// Next byte to send; a policy moves it back to go back N.
    pub snd_nxt: &'a mut u64,
    /// Highest byte ever sent + 1.
    pub snd_max: u64,
    /// The receiver's advertised window, bytes.
    pub peer_wnd: u64,
    /// Set to resend the segment starting at this offset ahead of anything else.
    pub retransmit: &'a mut Option<u64>,
    /// New segments the sender may send beyond the window (Hoe's "flywheel").
    pub extra_new: &'a mut u32,
    pub scoreboard: &'a mut Scoreboard,
    /// Congestion control, which decides how far the window falls back on a loss.
    pub cc: &'a mut Controller,
    /// This window of data was already reduced for an ECN-Echo (RFC 3168 sec. 6.1.2: one
    /// reduction per window for drops and marks together): a loss detected in it still
    /// retransmits and recovers, but the window falls back no further. Only an ECN-capable
    /// sender ever sets it.
    pub window_reduced: bool,
}

impl Ctx<'_> {
    /// The slow-start threshold a fast retransmit falls back to, by congestion control; in a
    /// window already reduced for ECN, the current one (the controller is not asked, so its
    /// own loss state, such as CUBIC's W_max, is not cut twice either).
    pub fn ssthresh_on_loss(&mut self) -> u64 {
        if self.window_reduced {
            return self.win.ssthresh;
        }
        let loss = LossState {
            win: *self.win,
            peer_wnd: self.peer_wnd,
            flight: self.flight(),
            mss: self.mss,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
        };
        self.cc.on_congestion_event(&loss)
    }

    /// ns-2's window after a fast retransmit, slowdown(CLOSE_CWND_HALF) (closecwnd(1) before
    /// tcp.cc 1.66): `cwnd_ = int(window() / 2)` packets, where only `ssthresh_` is floored at
    /// 2, so it can be 1. Read before the fast retransmit changes cwnd.
    /// In a window already reduced for ECN, cwnd itself: ns-2's RenoTcpAgent::dupack_action
    /// after `last_cwnd_action_ == CWND_ACTION_ECN` retransmits and sets dupwnd_ without
    /// slowdown() (tcp-reno.cc, 1998-05-12).
    pub fn ns2_half_window(&self) -> u64 {
        if self.window_reduced {
            return self.win.cwnd;
        }
        (self.win.cwnd.min(self.peer_wnd) / self.mss / 2 * self.mss).max(self.mss)
    }

    /// The same with ns-2.35's `precisionReduce_` (tcp.cc 1.110, 2000/08/08; on from
    /// ns-default.tcl 1.358, 2006/01/24): `cwnd_ = windowd() / 2`, the fraction kept (the
    /// sender still uses whole packets of it).
    pub fn ns2_half_window_exact(&self) -> u64 {
        if self.window_reduced {
            return self.win.cwnd;
        }
        (self.win.cwnd.min(self.peer_wnd) / 2).max(self.mss)
    }

    /// ns-2's halving, whole packets or (`exact`) keeping the fraction.
    pub fn ns2_halving(&self, exact: bool) -> u64 {
        if exact {
            self.ns2_half_window_exact()
        } else {
            self.ns2_half_window()
        }
    }

    /// Bytes sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

/// What an ACK of new data means to the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckVerdict {
    /// Grow the window as usual (slow start or congestion avoidance).
    pub grow: bool,
    /// Restart the retransmission timer (the sender's default on new data).
    pub restart_timer: bool,
}

impl AckVerdict {
    pub const GROW: Self = Self { grow: true, restart_timer: true };
    /// The policy set the window itself.
    pub const HOLD: Self = Self { grow: false, restart_timer: true };
}

/// What the sender should send next, when a policy takes over the send decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendChoice {
    /// The usual rule: new data (or go-back-N data) while flight < window.
    Window,
    /// Resend `len` bytes at this offset now.
    Retransmit(u64, u64),
    /// Send new data now if the receiver's window allows, whatever cwnd says.
    NewData,
    /// Send nothing now.
    Nothing,
}

pub trait LossRecovery {
    /// The `count`-th consecutive duplicate ACK; returns true if it triggered a fast retransmit.
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool;
    /// An ACK of new data up to `cx.snd_una`, which acknowledged `acked` bytes.
    fn on_new_ack(&mut self, cx: &mut Ctx, acked: u64) -> AckVerdict;
    /// Whether `on_new_ack` would now answer `AckVerdict::GROW` and change nothing, in itself
    /// or in the sender: the sender then skips the call and its `Ctx` (issue 26). The default,
    /// false, is always right. True promises `!in_recovery()`: the sender then does not ask.
    fn new_ack_is_plain(&self) -> bool {
        false
    }
    /// The retransmission timer expired (the sender has already reset the window and snd_nxt).
    fn on_timeout(&mut self, cx: &mut Ctx);
    fn in_recovery(&self) -> bool;
    /// Take over the send decision (SACK's pipe); the default leaves it to the window. A policy
    /// that overrides this or `on_sent` is listed in `Recovery::shapes_sends`.
    fn next_send(&mut self, _cx: &mut Ctx) -> SendChoice {
        SendChoice::Window
    }
    /// A segment chosen by `next_send` (or by the window) left the sender.
    fn on_sent(&mut self, _cx: &mut Ctx, _offset: u64, _len: u64) {}
    /// Window inflation in cwnd that a timeout must leave out when it halves the window (ns-2
    /// keeps it apart, as dupwnd_); the default: none, a timeout halves the inflated window.
    fn inflation(&self) -> u64 {
        0
    }
    /// Packets the window may send in answer to the ACK just processed (ns-2 NewReno's burst
    /// limits in recovery); None: only `max_burst` limits them.
    fn window_sends(&self) -> Option<u32> {
        None
    }
}

/// Calls a `LossRecovery` method on whichever policy is inside, without a vtable.
macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            Recovery::Vanilla($p) => $call,
            Recovery::Tahoe($p) => $call,
            Recovery::Reno($p) => $call,
            Recovery::NewReno($p) => $call,
            Recovery::NewRenoNs2($p) => $call,
            Recovery::Sack($p) => $call,
            Recovery::Sack6675($p) => $call,
        }
    };
}

/// The closed set of policies (static dispatch on the hot path).
#[derive(Debug, Clone)]
pub enum Recovery {
    Vanilla(Vanilla),
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    NewRenoNs2(NewRenoNs2),
    Sack(SackPipe),
    Sack6675(Sack6675),
}

impl Recovery {
    /// The policy `cfg.recovery` names, with the stack's rules from `cfg`.
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.recovery {
            RecoveryKind::Vanilla => Recovery::Vanilla(Vanilla),
            RecoveryKind::Tahoe => {
                let syn = cfg.ns_syn && cfg.handshake != super::config::Handshake::None;
                Recovery::Tahoe(Tahoe::new(cfg.bug_fix).with_recover_at_syn(syn))
            }
            RecoveryKind::Reno => Recovery::Reno(
                Reno::new(cfg.deflation, cfg.bug_fix)
                    .with_exit_fast_retrans(cfg.exit_fast_retrans)
                    .with_precision_reduce(cfg.precision_reduce),
            ),
            RecoveryKind::NewReno => Recovery::NewReno(NewReno::default()),
            RecoveryKind::NewRenoNs2 => Recovery::NewRenoNs2(
                NewRenoNs2::default()
                    .with_flywheel(cfg.newreno_changes)
                    .with_ns2_sends(cfg.recovery_send_ns2)
                    .with_bug_fix(cfg.bug_fix)
                    .with_ns2_halving(cfg.deflation == Deflation::Ns2)
                    .with_ns235_rules(cfg.exit_fast_retrans, cfg.newreno_changes1, cfg.partial_window_deflation)
                    .with_precision_reduce(cfg.precision_reduce),
            ),
            RecoveryKind::Sack => Recovery::Sack(
                SackPipe::new(cfg.bug_fix)
                    .with_flight_pipe(cfg.sack_pipe == SackPipeStart::Flight)
                    .with_precision_reduce(cfg.precision_reduce),
            ),
            RecoveryKind::Sack6675 => Recovery::Sack6675(Sack6675::default()),
        }
    }

    pub fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        dispatch!(self, p => p.on_dupack(cx, count, threshold))
    }
    pub fn on_new_ack(&mut self, cx: &mut Ctx, acked: u64) -> AckVerdict {
        dispatch!(self, p => p.on_new_ack(cx, acked))
    }
    #[inline]
    pub fn new_ack_is_plain(&self) -> bool {
        dispatch!(self, p => p.new_ack_is_plain())
    }
    pub fn on_timeout(&mut self, cx: &mut Ctx) {
        dispatch!(self, p => p.on_timeout(cx))
    }
    pub fn in_recovery(&self) -> bool {
        dispatch!(self, p => p.in_recovery())
    }
    pub fn inflation(&self) -> u64 {
        dispatch!(self, p => p.inflation())
    }
    pub fn window_sends(&self) -> Option<u32> {
        dispatch!(self, p => p.window_sends())
    }
    /// Whether `window_sends` can ever answer Some: only ns-2's NewReno overrides it.
    pub fn may_cap_window_sends(&self) -> bool {
        matches!(self, Recovery::NewRenoNs2(_))
    }
    /// Whether the policy has a say in what is sent (its own `next_send` or `on_sent`): the
    /// SACK policies. The others always answer `Window` and ignore sends, so the sender skips
    /// building their `Ctx` for every segment it polls or sends (issue 26).
    #[inline]
    pub fn shapes_sends(&self) -> bool {
        matches!(self, Recovery::Sack(_) | Recovery::Sack6675(_))
    }
    pub fn next_send(&mut self, cx: &mut Ctx) -> SendChoice {
        dispatch!(self, p => p.next_send(cx))
    }
    pub fn on_sent(&mut self, cx: &mut Ctx, offset: u64, len: u64) {
        dispatch!(self, p => p.on_sent(cx, offset, len))
    }
}

/// The shared first step of fast retransmit: fall back, resend the first unacknowledged segment.
pub fn fast_retransmit(cx: &mut Ctx) {
    cx.win.ssthresh = cx.ssthresh_on_loss();
    *cx.retransmit = Some(cx.snd_una);
}

/// A policy test fixture: a sender 8 segments into a window (snd_una 5000, snd_max 13000),
/// whose congestion control halves the window with a floor of 2 segments.
#[cfg(test)]
pub(crate) mod fixture {
    use super::super::cc::{Aimd, Decrease, Halving, TcplabGrowth};
    use super::*;

    pub struct State {
        pub bugfix_ss_exempt: bool,
        pub win: Window,
        pub snd_una: u64,
        pub snd_nxt: u64,
        pub snd_max: u64,
        pub retransmit: Option<u64>,
        pub extra_new: u32,
        pub scoreboard: Scoreboard,
        pub cc: Controller,
    }

    impl State {
        pub fn new(cwnd: u64) -> Self {
            Self {
                bugfix_ss_exempt: false,
                win: Window { cwnd, ssthresh: 64_000 },
                snd_una: 5000,
                snd_nxt: 13_000,
                snd_max: 13_000,
                retransmit: None,
                extra_new: 0,
                scoreboard: Scoreboard::default(),
                cc: Controller::Tcplab(Aimd::new(TcplabGrowth, Decrease::window(2), None)),
            }
        }

        /// Congestion control that halves FlightSize at a fast retransmit (the RFC variants).
        pub fn halving_flight(mut self) -> Self {
            let d = Decrease { fast_retransmit: Halving::Flight, ..Decrease::window(2) };
            self.cc = Controller::Tcplab(Aimd::new(TcplabGrowth, d, None));
            self
        }

        pub fn cx(&mut self) -> Ctx<'_> {
            Ctx {
                bugfix_ss_exempt: self.bugfix_ss_exempt,
                win: &mut self.win,
                mss: 1000,
                snd_una: self.snd_una,
                snd_nxt: &mut self.snd_nxt,
                snd_max: self.snd_max,
                peer_wnd: u64::MAX,
                retransmit: &mut self.retransmit,
                extra_new: &mut self.extra_new,
                scoreboard: &mut self.scoreboard,
                cc: &mut self.cc,
                window_reduced: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::State;
    use super::*;

    /// The fixture's fields a policy may change, and the policy itself, as one comparable value.
    fn seen(p: &Recovery, s: &State) -> String {
        format!("{p:?} {:?} {} {:?} {}", s.win, s.snd_nxt, s.retransmit, s.extra_new)
    }

    /// `new_ack_is_plain` lets the sender skip `on_new_ack`: whenever a policy says so, under
    /// every stack's rules and at every step of a loss episode, the call must answer GROW and
    /// change nothing.
    #[test]
    fn a_plain_new_ack_grows_and_changes_nothing() {
        use super::super::stack::Stack;
        let mut plain_seen = 0;
        for stack in [Stack::Tcplab, Stack::Bsd44, Stack::Ns2, Stack::Ns1, Stack::Ns235] {
            for name in RecoveryKind::NAMES {
                let cfg = TcpConfig { recovery: RecoveryKind::parse(name).expect("listed"), ..stack.preset() };
                let mut p = Recovery::new(&cfg);
                let mut s = State::new(8000).halving_flight();
                let mut check = |p: &mut Recovery, s: &mut State, step: &str| {
                    if p.new_ack_is_plain() {
                        plain_seen += 1;
                        assert!(!p.in_recovery(), "{stack:?} {name} {step}: a plain new ACK in recovery");
                        let before = seen(p, s);
                        assert_eq!(p.on_new_ack(&mut s.cx(), 1000), AckVerdict::GROW, "{stack:?} {name} {step}");
                        assert_eq!(seen(p, s), before, "{stack:?} {name} {step}");
                    }
                };
                check(&mut p, &mut s, "fresh");
                for count in 1..=4 {
                    p.on_dupack(&mut s.cx(), count, 3);
                    check(&mut p, &mut s, "after a duplicate");
                }
                s.snd_una += 1000;
                p.on_new_ack(&mut s.cx(), 1000);
                check(&mut p, &mut s, "after a partial ACK");
                s.snd_una = s.snd_max;
                p.on_new_ack(&mut s.cx(), 7000);
                check(&mut p, &mut s, "after the full ACK");
                p.on_timeout(&mut s.cx());
                check(&mut p, &mut s, "after a timeout");
                s.snd_una += 1000;
                s.snd_max += 2000;
                p.on_new_ack(&mut s.cx(), 1000);
                check(&mut p, &mut s, "after the timeout's ACK");
            }
        }
        assert!(plain_seen > 50, "the walk reached plain states: {plain_seen}");
    }

    /// `shapes_sends` lets the sender skip `next_send` and `on_sent` for the other policies:
    /// it must list every policy that answers anything but `Window` or changes on a send,
    /// in recovery or out of it (a new policy has to be placed here: the match is exhaustive).
    #[test]
    fn policies_left_out_of_shapes_sends_never_shape_a_send() {
        for name in RecoveryKind::NAMES {
            let kind = RecoveryKind::parse(name).expect("a listed name");
            let listed = match kind {
                RecoveryKind::Sack | RecoveryKind::Sack6675 => true,
                RecoveryKind::Vanilla
                | RecoveryKind::Tahoe
                | RecoveryKind::Reno
                | RecoveryKind::NewReno
                | RecoveryKind::NewRenoNs2 => false,
            };
            let cfg = TcpConfig { recovery: kind, ..TcpConfig::default() };
            let mut p = Recovery::new(&cfg);
            assert_eq!(p.shapes_sends(), listed, "{name}");
            if listed {
                continue;
            }
            let mut s = State::new(8000).halving_flight();
            for step in 0..3 {
                // Out of recovery, then after a fast retransmit, then after a partial ACK.
                let before = (format!("{p:?}"), s.win, s.snd_nxt, s.retransmit, s.extra_new);
                assert_eq!(p.next_send(&mut s.cx()), SendChoice::Window, "{name} step {step}");
                let next = s.snd_nxt;
                p.on_sent(&mut s.cx(), next, 1000);
                let after = (format!("{p:?}"), s.win, s.snd_nxt, s.retransmit, s.extra_new);
                assert_eq!(before, after, "{name} step {step}");
                if step == 0 {
                    for count in 1..=3 {
                        p.on_dupack(&mut s.cx(), count, 3);
                    }
                } else {
                    s.snd_una += 1000;
                    p.on_new_ack(&mut s.cx(), 1000);
                }
            }
        }
    }
}
