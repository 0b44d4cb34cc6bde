//! Loss-recovery policies: what the sender does about duplicate ACKs, partial ACKs and timeouts.
//!
//! The sender owns the mechanics (sequence space, timers, duplicate-ACK counting); a policy
//! decides window changes and which segment to resend. Each policy is one file; `Recovery` is
//! the closed set the sender dispatches over statically.

mod reno;

pub use reno::Reno;

use super::config::RecoveryKind;
use super::window::Window;

/// The sender state a policy may read and change during one ACK or timeout.
pub struct Ctx<'a> {
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
}

/// What an ACK of new data means to the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckVerdict {
    /// Grow the window as usual (slow start or congestion avoidance).
    Grow,
    /// The policy set the window itself; leave it.
    Hold,
}

pub trait LossRecovery {
    /// The `count`-th consecutive duplicate ACK; returns true if it triggered a fast retransmit.
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool;
    /// An ACK of new data up to `cx.snd_una`.
    fn on_new_ack(&mut self, cx: &mut Ctx) -> AckVerdict;
    /// The retransmission timer expired (the sender has already reset the window and snd_nxt).
    fn on_timeout(&mut self);
    fn in_recovery(&self) -> bool;
}

/// Calls a `LossRecovery` method on whichever policy is inside, without a vtable.
macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            Recovery::Reno($p) => $call,
        }
    };
}

/// The closed set of policies (static dispatch on the hot path).
#[derive(Debug, Clone)]
pub enum Recovery {
    Reno(Reno),
}

impl Recovery {
    pub fn new(kind: RecoveryKind) -> Self {
        match kind {
            RecoveryKind::Reno => Recovery::Reno(Reno::default()),
        }
    }

    pub fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        dispatch!(self, p => p.on_dupack(cx, count, threshold))
    }
    pub fn on_new_ack(&mut self, cx: &mut Ctx) -> AckVerdict {
        dispatch!(self, p => p.on_new_ack(cx))
    }
    pub fn on_timeout(&mut self) {
        dispatch!(self, p => p.on_timeout())
    }
    pub fn in_recovery(&self) -> bool {
        dispatch!(self, p => p.in_recovery())
    }
}

/// The shared first step of fast retransmit: halve, resend the first unacknowledged segment.
pub fn fast_retransmit(cx: &mut Ctx) {
    cx.win.ssthresh = cx.win.halved(cx.peer_wnd, cx.mss);
    *cx.retransmit = Some(cx.snd_una);
}
