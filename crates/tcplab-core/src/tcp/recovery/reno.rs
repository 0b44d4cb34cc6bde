//! Reno: fast retransmit on the third duplicate ACK, then fast recovery: the window is
//! inflated by one segment per further duplicate ACK and deflated on the first ACK of new
//! data, which ends recovery even if it acknowledges only part of the window (the weakness
//! Fall and Floyd 1996 show with several drops per window).
//!
//! The stacks differ in the details (`Deflation`, `bug_fix`):
//! - 4.4BSD tcp_input deflates only after more than tcprexmtthresh duplicates, and a timeout
//!   halves the inflated window.
//! - ns-2 tcp-reno.cc (RenoTcpAgent::recv, window, timeout) keeps the inflation apart in
//!   dupwnd_, drops it on the first new ACK and leaves it out when a timeout halves the
//!   window; with bugFix_ a third duplicate ACK after a timeout, before the ACK passes
//!   recover_, retransmits nothing but still sets dupwnd_ = NUMDUPACKS.
//! - ns-2.35 (`exit_fast_retrans`: tcp-reno.cc 1.40 `exitFastRetrans_`, 2003/07/29, working
//!   from 1.42, 2005/07/13) ends the fast retransmit on its first new ACK
//!   (`last_cwnd_action_` DUPACK -> EXITED), so with bugFix_ a second one waits until an ACK
//!   passes recover_, which the fast retransmit sets too; and dupwnd_ inflates only after a
//!   fast retransmit, never after a timeout.

use super::super::growth::Deflation;
use super::{fast_retransmit, AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone)]
pub struct Reno {
    in_recovery: bool,
    deflation: Deflation,
    /// More duplicate ACKs than the threshold arrived in this recovery (4.4BSD's
    /// `t_dupacks > tcprexmtthresh`).
    past_threshold: bool,
    /// ns-2 bugFix_: no fast retransmit after a timeout until the ACK passes `recover`.
    bug_fix: bool,
    /// The last loss episode ended in a timeout (ns-2 recover_cause_ == 2).
    after_timeout: bool,
    /// Highest byte sent at the last timeout (ns-2 recover_, as bytes: maxseq_ + 1).
    recover: u64,
    /// Bytes of inflation (ns-2 dupwnd_) currently in cwnd.
    dupwnd: u64,
    /// Inflated by duplicate ACKs that bugFix_ kept from a fast retransmit.
    inflated_only: bool,
    /// ns-2.35's exitFastRetrans_ (see the top).
    exit_fast_retrans: bool,
    /// precisionReduce_: ns-2's halving keeps the fraction.
    precision_reduce: bool,
    /// A fast retransmit set `recover` (exitFastRetrans_ only).
    recover_from_fast_retransmit: bool,
}

impl Default for Reno {
    fn default() -> Self {
        Self::new(Deflation::Always, false)
    }
}

impl Reno {
    pub fn new(deflation: Deflation, bug_fix: bool) -> Self {
        Self {
            in_recovery: false,
            deflation,
            past_threshold: false,
            bug_fix,
            after_timeout: false,
            recover: 0,
            dupwnd: 0,
            inflated_only: false,
            exit_fast_retrans: false,
            recover_from_fast_retransmit: false,
            precision_reduce: false,
        }
    }

    /// With ns-2.35's precisionReduce_ (knob `precision_reduce`): the `deflation = "ns2"`
    /// halving keeps the fraction of a packet.
    pub fn with_precision_reduce(self, on: bool) -> Self {
        Self { precision_reduce: on, ..self }
    }

    /// With ns-2.35's exitFastRetrans_ (knob `exit_fast_retrans`).
    pub fn with_exit_fast_retrans(self, on: bool) -> Self {
        Self { exit_fast_retrans: on, ..self }
    }

    /// bugFix_ keeps this third duplicate from a fast retransmit: ns-2.1b3 only after a
    /// timeout, ns-2.35 after any loss (RenoTcpAgent::dupack_action: not `highest_ack_ >
    /// recover_`, and last_cwnd_action_ is no longer DUPACK once a new ACK came). Before any
    /// loss nothing blocks: ns-2.35 lets the first data packet's loss be fast-retransmitted
    /// (`bugfix_ss_`, `highest_ack_ == 0`, the SYN being packet 0).
    fn blocked(&self, cx: &Ctx) -> bool {
        let guarded = self.after_timeout || self.recover_from_fast_retransmit;
        self.bug_fix && guarded && cx.snd_una <= self.recover && !cx.bugfix_ss_exempt
    }
}

impl LossRecovery for Reno {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if count == threshold {
            let dupwnd = threshold as u64 * cx.mss;
            if self.blocked(cx) {
                if self.exit_fast_retrans {
                    // RenoTcpAgent::recv: `if (!exitFastRetrans_) dupwnd_ = numdupacks_`.
                    return false;
                }
                cx.win.cwnd += dupwnd;
                self.dupwnd = dupwnd;
                self.inflated_only = true;
                return false;
            }
            // ns-2 halves the window itself; elsewhere cwnd restarts from ssthresh.
            let half = cx.ns2_halving(self.precision_reduce);
            fast_retransmit(cx);
            let base = if self.deflation == Deflation::Ns2 { half } else { cx.win.ssthresh };
            cx.win.cwnd = base + dupwnd;
            self.dupwnd = dupwnd;
            self.in_recovery = true;
            self.after_timeout = false;
            self.past_threshold = false;
            if self.exit_fast_retrans {
                // reno_action: `recover_ = maxseq_`.
                self.recover = cx.snd_max;
                self.recover_from_fast_retransmit = true;
            }
            true
        } else {
            if count > threshold && (self.in_recovery || self.inflated_only) {
                cx.win.cwnd += cx.mss;
                self.dupwnd += cx.mss;
                self.past_threshold = true;
            }
            false
        }
    }

    fn new_ack_is_plain(&self) -> bool {
        !(self.in_recovery || self.inflated_only)
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, _acked: u64) -> AckVerdict {
        if self.in_recovery || self.inflated_only {
            let deflate = match self.deflation {
                Deflation::Always => self.in_recovery,
                // 4.4BSD tcp_input: `if (tp->t_dupacks > tcprexmtthresh && snd_cwnd >
                // snd_ssthresh) snd_cwnd = snd_ssthresh`: with exactly three duplicates the
                // window keeps ssthresh + 3 segments.
                Deflation::PastThreshold => self.past_threshold,
                Deflation::Ns2 => false,
            };
            if deflate {
                cx.win.cwnd = cx.win.cwnd.min(cx.win.ssthresh);
            } else if self.deflation == Deflation::Ns2 {
                // RenoTcpAgent::recv: dupwnd_ = 0 on a new ACK, cwnd_ itself untouched.
                cx.win.cwnd = cx.win.cwnd.saturating_sub(self.dupwnd).max(cx.mss);
            }
            self.in_recovery = false;
            self.inflated_only = false;
            self.dupwnd = 0;
        }
        // Both 4.4BSD and ns-2 open the window on this ACK too, after deflating it.
        AckVerdict::GROW
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.inflated_only = false;
        self.dupwnd = 0;
        if self.bug_fix {
            // RenoTcpAgent::timeout: `if (bug_fix_) recover_ = maxseq_`.
            self.after_timeout = true;
            self.recover = cx.snd_max;
        }
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// ns-2 only: RenoTcpAgent::window() adds dupwnd_ to cwnd_, and a timeout halves cwnd_.
    fn inflation(&self) -> u64 {
        if self.deflation == Deflation::Ns2 {
            self.dupwnd
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    #[test]
    fn third_dupack_halves_and_retransmits_then_inflates() {
        let mut s = State::new(8000);
        let mut r = Reno::default();
        assert!(!r.on_dupack(&mut s.cx(), 1, 3));
        assert!(!r.on_dupack(&mut s.cx(), 2, 3));
        assert_eq!(s.win.cwnd, 8000);
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.ssthresh, s.win.cwnd, s.retransmit), (4000, 7000, Some(5000)));
        r.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.win.cwnd, 8000);
        assert!(r.in_recovery());
    }

    #[test]
    fn first_new_ack_deflates_and_leaves_recovery() {
        let mut s = State::new(11_000);
        s.win.ssthresh = 4000;
        let mut r = Reno { in_recovery: true, ..Reno::default() };
        assert_eq!(r.on_new_ack(&mut s.cx(), 1000), AckVerdict::GROW);
        assert_eq!(s.win.cwnd, 4000);
        assert!(!r.in_recovery());
    }

    #[test]
    fn bsd44_keeps_the_inflation_after_exactly_three_duplicates() {
        // 4.4BSD-Lite tcp_input.c (tcp_input): deflation needs t_dupacks > tcprexmtthresh.
        let mut s = State::new(8000);
        let mut r = Reno::new(Deflation::PastThreshold, false);
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.ssthresh, s.win.cwnd), (4000, 7000));
        s.snd_una = 6000;
        r.on_new_ack(&mut s.cx(), 1000);
        assert_eq!(s.win.cwnd, 7000, "not deflated: only three duplicates");
        // With a fourth duplicate the window is pulled back to ssthresh.
        let mut r = Reno::new(Deflation::PastThreshold, false);
        let mut s = State::new(8000);
        r.on_dupack(&mut s.cx(), 3, 3);
        r.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.win.cwnd, 8000);
        s.snd_una = 6000;
        r.on_new_ack(&mut s.cx(), 1000);
        assert_eq!(s.win.cwnd, 4000);
    }

    #[test]
    fn ns235_exit_fast_retrans_neither_retransmits_nor_inflates_after_a_timeout() {
        // tcp-reno.cc 1.43 RenoTcpAgent::recv: `if (!exitFastRetrans_) dupwnd_ = numdupacks_`,
        // and `++dupwnd_` only while last_cwnd_action_ == CWND_ACTION_DUPACK (a timeout's is
        // TIMEOUT); dupack_action returns under bugFix_ below recover_.
        let mut s = State::new(1000);
        let mut r = Reno::new(Deflation::Ns2, true).with_exit_fast_retrans(true);
        r.on_timeout(&mut s.cx());
        assert!(!r.on_dupack(&mut s.cx(), 3, 3));
        r.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!((s.win.cwnd, s.retransmit, r.inflation()), (1000, None, 0));
        // Past recover_ (snd_max at the timeout) the third duplicate fast-retransmits again.
        (s.snd_una, s.snd_nxt, s.snd_max) = (14_000, 20_000, 20_000);
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
    }

    #[test]
    fn ns2_bug_fix_inflates_but_does_not_retransmit_after_a_timeout() {
        // tcp-reno.cc RenoTcpAgent::recv: with bug_fix_ and recover_cause_ == 2 (timeout),
        // a third duplicate below recover_ skips closecwnd/output but sets dupwnd_ = 3.
        let mut s = State::new(1000);
        let mut r = Reno::new(Deflation::Ns2, true);
        r.on_timeout(&mut s.cx()); // recover = snd_max = 13000
        assert!(!r.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.cwnd, s.retransmit, r.inflation()), (4000, None, 3000));
        r.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.win.cwnd, 5000);
        s.snd_una = 6000;
        r.on_new_ack(&mut s.cx(), 1000);
        assert_eq!(s.win.cwnd, 1000, "dupwnd_ = 0 takes the inflation away again");
        // Past recover_ fast retransmit works again.
        s.snd_una = 14_000;
        s.snd_max = 20_000;
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
    }

    #[test]
    fn ns2_small_window_halves_cwnd_below_the_ssthresh_floor() {
        // tcp.cc closecwnd(1) / slowdown: cwnd_ = window()/2 = 1 packet for a window of 3,
        // while ssthresh_ is floored at 2; window() = cwnd_ + dupwnd_ = 4.
        let mut s = State::new(3000);
        let mut r = Reno::new(Deflation::Ns2, true);
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.ssthresh, s.win.cwnd), (2000, 4000));
        s.snd_una = 6000;
        r.on_new_ack(&mut s.cx(), 1000);
        assert_eq!(s.win.cwnd, 1000, "back to cwnd_ = 1 packet; opencwnd then slow-starts");
    }

    #[test]
    fn ns235_bugfix_ss_fast_retransmits_the_first_data_packet_even_after_a_timeout() {
        // tcp-reno.cc 1.43 (2006/06/14) RenoTcpAgent::dupack_action: `|| (bugfix_ss_ &&
        // highest_ack_ == 0)`, which bugFix_'s recover_ after a timeout does not stop.
        let mut s = State::new(1000);
        s.snd_una = 0;
        let mut r = Reno::new(Deflation::Ns2, true).with_exit_fast_retrans(true);
        r.on_timeout(&mut s.cx());
        assert!(!r.on_dupack(&mut s.cx(), 3, 3), "bugFix_: below recover_");
        s.bugfix_ss_exempt = true;
        assert!(r.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!(s.retransmit, Some(0));
    }
}
