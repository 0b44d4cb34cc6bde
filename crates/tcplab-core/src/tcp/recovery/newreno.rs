//! NewReno: stay in fast recovery until the ACK covers everything sent before the loss
//! (`recover`), resending one segment per partial ACK, so N losses take N round trips.
//!
//! Two flavours:
//! - `Rfc6582`: partial ACKs deflate the window by the bytes acknowledged (plus one segment),
//!   only the first partial ACK restarts the timer ("impatient"), and a fast retransmit needs
//!   the ACK to be past the previous `recover` (no repeated fast retransmits).
//! - `Ns2`: as Goyal et al. (1998) Sec. 3.1 describes ns-2.1b3: a partial ACK sets cwnd to ssthresh and
//!   restarts the timer every time; with Hoe's change, every second duplicate ACK in recovery
//!   sends one new segment beyond the window to keep the ACK clock ("flywheel") turning.
//!   (Hoe's other change, ssthresh from the path's bandwidth-delay product, is the
//!   `initial_ssthresh = "bdp"` knob.)

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewRenoFlavor {
    Rfc6582,
    Ns2,
}

#[derive(Debug, Clone)]
pub struct NewReno {
    flavor: NewRenoFlavor,
    in_recovery: bool,
    /// Highest byte sent when recovery began (or at the last timeout).
    recover: Option<u64>,
    /// Duplicate ACKs since recovery began or since the last partial ACK.
    dups: u32,
    partial_acks: u32,
    /// Ns2 flavour: newreno_changes_ (Hoe's flywheel) on.
    flywheel: bool,
    /// Ns2 flavour: smallest ssthresh after a loss, segments.
    floor: u64,
    /// Ns2 flavour: send from the window in recovery only as NewRenoTcpAgent::recv does.
    ns2_sends: bool,
    /// Ns2 flavour: bugFix_ (no fast retransmit after a timeout until the ACK passes recover).
    bug_fix: bool,
    /// Ns2 flavour: a timeout set `recover` and no ACK has passed it yet.
    after_timeout: bool,
    /// Ns2 flavour: duplicates after a timeout inflate the window without a fast retransmit.
    inflated_only: bool,
    /// Ns2 flavour: the inflation in cwnd (ns-2's dupwnd_), bytes.
    dupwnd: u64,
}

impl NewReno {
    pub fn new(flavor: NewRenoFlavor) -> Self {
        Self {
            flavor,
            in_recovery: false,
            recover: None,
            dups: 0,
            partial_acks: 0,
            flywheel: true,
            floor: 2,
            ns2_sends: false,
            bug_fix: false,
            after_timeout: false,
            inflated_only: false,
            dupwnd: 0,
        }
    }

    /// tcp-newreno.cc NewRenoTcpAgent::timeout: `if (bug_fix_) recover_ = maxseq_`; then no
    /// fast retransmit until `highest_ack_ > recover_` (recv's `recover_cause_ != 2` test in
    /// rev. 1.7, dupack_action's `bug_fix_` test in 1.44), though `dupwnd_` still inflates.
    pub fn with_bug_fix(mut self, on: bool) -> Self {
        self.bug_fix = on;
        self
    }

    /// The window inflation (ns-2's dupwnd_) a timeout leaves out of the window it halves:
    /// NewRenoTcpAgent::timeout zeroes dupwnd_ before TcpAgent::timeout's closecwnd(0).
    pub fn inflation(&self) -> u64 {
        if self.flavor == NewRenoFlavor::Ns2 {
            self.dupwnd
        } else {
            0
        }
    }

    /// tcp-newreno.cc NewRenoTcpAgent::recv ends with `if (dupacks_ == 0) send(0, 0,
    /// maxburst_); else if (dupacks_ > NUMDUPACKS - 1 && newreno_changes_ == 0) send(0, 0,
    /// 2);` (rev. 1.7, 1997, and still rev. 1.44, 2001). dupacks_ stays at 3 or more from the
    /// fast retransmit until the ACK that ends recovery (partialnewack leaves it), so in
    /// recovery at most 2 packets leave from the window per ACK, and none with
    /// newreno_changes_, whose only new packets are the flywheel's `output(t_seqno_++)`.
    pub fn with_ns2_sends(mut self, on: bool) -> Self {
        self.ns2_sends = on;
        self
    }

    /// Packets the window may send in answer to the ACK just processed; None: no limit.
    pub fn window_sends(&self) -> Option<u32> {
        let ns2 = self.flavor == NewRenoFlavor::Ns2 && self.ns2_sends && (self.in_recovery || self.inflated_only);
        ns2.then_some(if self.flywheel { 0 } else { 2 })
    }

    /// tcp-newreno.cc NewRenoTcpAgent::recv: `if (newreno_changes_ > 0 && ...)`.
    pub fn with_flywheel(mut self, on: bool) -> Self {
        self.flywheel = on;
        self
    }

    pub fn with_floor(mut self, floor: u64) -> Self {
        self.floor = floor;
        self
    }
}

impl LossRecovery for NewReno {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if self.in_recovery || (self.inflated_only && count > threshold) {
            cx.win.cwnd += cx.mss;
            self.dupwnd += cx.mss;
            self.dups += 1;
            if self.flavor == NewRenoFlavor::Ns2 && self.flywheel && self.dups.is_multiple_of(2) {
                *cx.extra_new += 1;
            }
            return false;
        }
        if count != threshold {
            return false;
        }
        let past_recover = self.recover.is_none_or(|r| cx.snd_una > r);
        if self.flavor == NewRenoFlavor::Rfc6582 && !past_recover {
            return false;
        }
        if self.flavor == NewRenoFlavor::Ns2 && self.bug_fix && self.after_timeout && !past_recover {
            // recv: dupack_action does nothing, then `dupwnd_ = NUMDUPACKS` all the same.
            cx.win.cwnd += threshold as u64 * cx.mss;
            self.dupwnd = threshold as u64 * cx.mss;
            self.inflated_only = true;
            self.dups = 0;
            return false;
        }
        cx.win.ssthresh = match self.flavor {
            NewRenoFlavor::Rfc6582 => (cx.flight() / 2).max(2 * cx.mss),
            NewRenoFlavor::Ns2 => cx.halved(self.floor),
        };
        cx.win.cwnd = cx.win.ssthresh + threshold as u64 * cx.mss;
        *cx.retransmit = Some(cx.snd_una);
        self.recover = Some(cx.snd_max);
        self.in_recovery = true;
        self.after_timeout = false;
        self.dupwnd = threshold as u64 * cx.mss;
        self.dups = 0;
        self.partial_acks = 0;
        true
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, acked: u64) -> AckVerdict {
        if self.after_timeout && self.recover.is_some_and(|r| cx.snd_una > r) {
            self.after_timeout = false;
        }
        if self.inflated_only {
            // rev. 1.44 recv: after a timeout (last_cwnd_action_ is not a dupack) a new ACK
            // is a new ACK: dupwnd_ = 0, newack, opencwnd.
            cx.win.cwnd = cx.win.cwnd.saturating_sub(self.dupwnd).max(cx.mss);
            self.dupwnd = 0;
            self.inflated_only = false;
        }
        if !self.in_recovery {
            return AckVerdict::GROW;
        }
        let recover = self.recover.expect("recover is set in recovery");
        self.dupwnd = 0;
        if cx.snd_una >= recover {
            self.in_recovery = false;
            cx.win.cwnd = match self.flavor {
                NewRenoFlavor::Rfc6582 => cx.win.ssthresh.min(cx.flight().max(cx.mss) + cx.mss),
                NewRenoFlavor::Ns2 => cx.win.ssthresh,
            };
            return AckVerdict::HOLD;
        }
        // A partial ACK: the next hole is lost too; resend it now.
        *cx.retransmit = Some(cx.snd_una);
        self.partial_acks += 1;
        self.dups = 0;
        match self.flavor {
            NewRenoFlavor::Rfc6582 => {
                let back = if acked >= cx.mss { cx.mss } else { 0 };
                cx.win.cwnd = (cx.win.cwnd.saturating_sub(acked) + back).max(cx.mss);
                AckVerdict { grow: false, restart_timer: self.partial_acks == 1 }
            }
            NewRenoFlavor::Ns2 => {
                cx.win.cwnd = cx.win.ssthresh;
                AckVerdict::HOLD
            }
        }
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.recover = Some(cx.snd_max);
        self.after_timeout = self.bug_fix;
        self.inflated_only = false;
        self.dupwnd = 0;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    fn enter(flavor: NewRenoFlavor) -> (NewReno, State) {
        let mut s = State::new(8000);
        let mut n = NewReno::new(flavor);
        assert!(n.on_dupack(&mut s.cx(), 3, 3));
        (n, s)
    }

    #[test]
    fn partial_ack_resends_the_next_hole_and_stays_in_recovery() {
        for flavor in [NewRenoFlavor::Rfc6582, NewRenoFlavor::Ns2] {
            let (mut n, mut s) = enter(flavor);
            assert_eq!(s.retransmit.take(), Some(5000));
            s.snd_una = 7000; // acknowledges the resent segment and one more
            let v = n.on_new_ack(&mut s.cx(), 2000);
            assert!(n.in_recovery());
            assert_eq!(s.retransmit, Some(7000));
            assert!(!v.grow && v.restart_timer);
            s.snd_una = 13_000;
            n.on_new_ack(&mut s.cx(), 6000);
            assert!(!n.in_recovery());
            // ns-2.1b3: cwnd = ssthresh; RFC 6582 option 1: min(ssthresh, max(flight, mss) + mss).
            let expected = if flavor == NewRenoFlavor::Ns2 { 4000 } else { 2000 };
            assert_eq!(s.win.cwnd, expected);
        }
    }

    #[test]
    fn rfc6582_restarts_the_timer_only_on_the_first_partial_ack() {
        let (mut n, mut s) = enter(NewRenoFlavor::Rfc6582);
        s.snd_una = 6000;
        assert!(n.on_new_ack(&mut s.cx(), 1000).restart_timer);
        s.snd_una = 7000;
        assert!(!n.on_new_ack(&mut s.cx(), 1000).restart_timer);
    }

    #[test]
    fn ns2_flavour_sends_one_new_segment_per_two_duplicate_acks() {
        let (mut n, mut s) = enter(NewRenoFlavor::Ns2);
        for c in 4..8 {
            n.on_dupack(&mut s.cx(), c, 3);
        }
        assert_eq!(s.extra_new, 2);
        s.snd_una = 6000;
        n.on_new_ack(&mut s.cx(), 1000);
        assert_eq!(s.win.cwnd, s.win.ssthresh, "ns-2.1b3 resets cwnd to ssthresh on a partial ACK");
    }

    #[test]
    fn ns2_window_sends_in_recovery_are_two_or_none_with_the_flywheel() {
        // NewRenoTcpAgent::recv: send(0, 0, 2) while dupacks_ >= 3 only without
        // newreno_changes_; no limit outside recovery (send(0, 0, maxburst_)).
        for (flywheel, cap) in [(false, 2), (true, 0)] {
            let mut s = State::new(8000);
            let mut n = NewReno::new(NewRenoFlavor::Ns2).with_flywheel(flywheel).with_ns2_sends(true);
            assert_eq!(n.window_sends(), None);
            assert!(n.on_dupack(&mut s.cx(), 3, 3));
            assert_eq!(n.window_sends(), Some(cap));
            s.snd_una = 13_000;
            n.on_new_ack(&mut s.cx(), 8000);
            assert_eq!(n.window_sends(), None);
        }
        let (n, _) = enter(NewRenoFlavor::Rfc6582);
        assert_eq!(n.with_ns2_sends(true).window_sends(), None);
    }

    #[test]
    fn rfc6582_does_not_fast_retransmit_twice_for_one_window() {
        let (mut n, mut s) = enter(NewRenoFlavor::Rfc6582);
        n.on_timeout(&mut s.cx());
        assert!(!n.on_dupack(&mut s.cx(), 3, 3), "duplicates from before the timeout");
        s.snd_max = 20_000;
        s.snd_una = 14_000;
        assert!(n.on_dupack(&mut s.cx(), 3, 3), "a new window, past recover");
    }
}
