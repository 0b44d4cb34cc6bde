//! NewReno as ns-2.1b3 has it (tcp-newreno.cc rev. 1.31, 1998/06/27, a child of Reno since
//! rev. 1.29, 1998/05/14; Goyal et al. 1998, Sec. 3.1 describe it): stay in fast recovery until
//! the ACK covers `recover`, resending one segment per partial ACK, which takes the inflation
//! (dupwnd_) away, leaves cwnd_ where the fast retransmit put it and restarts the timer every
//! time (partialnewack); the ACK that ends recovery is an ordinary new ACK, which opens the
//! window (recv_newack_helper). With Hoe's change (`newreno_changes_`, the knob
//! `newreno_changes`), every odd duplicate ACK from the fifth on (`dupacks_ % 2 == 1`, a count
//! that partial ACKs do not reset) sends one new segment beyond the window to keep the ACK clock
//! ("flywheel") turning. (Hoe's other change, ssthresh from the spacing of ACKs 2 and 3, is
//! approximated by the `initial_ssthresh = "bdp"` knob.)
//!
//! ns-2 keeps the inflation apart in dupwnd_, so a timeout halves the window without it; with
//! bugFix_ a third duplicate ACK after a timeout, before the ACK passes `recover`, inflates the
//! window but retransmits nothing (RenoTcpAgent::dupack_action); and in recovery the window
//! sends as NewRenoTcpAgent::recv does (`window_sends`). `newreno.rs` is RFC 6582's NewReno.
//!
//! ns-2.35 (tcp-newreno.cc 1.58, 2009/12/30; ns-default.tcl 1.388) changes three rules, each a
//! knob: `newreno_changes1_` (knob `newreno_changes1`) restarts the timer on the first partial
//! ACK of a recovery only; `partial_window_deflation_` (knob `partial_window_deflation`)
//! deflates the window by the packets a partial ACK covers, less one, instead of dropping the
//! inflation (both on from ns-default.tcl 1.315, 2003/05/06); and `exitFastRetrans_` (knob
//! `exit_fast_retrans`, tcp-newreno.cc 1.51, 2003/07/29, EXITED on leaving recovery from 1.55,
//! 2004/09/29) inflates the window only after a fast retransmit, so a third duplicate that may
//! not retransmit (after a timeout or a recovery, until an ACK passes `recover`) does nothing.

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone)]
pub struct NewRenoNs2 {
    in_recovery: bool,
    /// Highest byte sent when recovery began (or at the last timeout).
    recover: Option<u64>,
    /// Duplicate ACKs past the third (ns-2's dupacks_ - NUMDUPACKS: partial ACKs leave it).
    dups: u32,
    /// newreno_changes_ (Hoe's flywheel) on.
    flywheel: bool,
    /// Send from the window in recovery only as NewRenoTcpAgent::recv does.
    ns2_sends: bool,
    /// bugFix_: no fast retransmit after a timeout until the ACK passes recover.
    bug_fix: bool,
    /// A timeout set `recover` and no ACK has passed it yet.
    after_timeout: bool,
    /// Duplicates after a timeout inflate the window without a fast retransmit.
    inflated_only: bool,
    /// The inflation in cwnd (ns-2's dupwnd_), bytes.
    dupwnd: u64,
    /// ns-2's slowdown(CLOSE_CWND_HALF): the fast retransmit sets cwnd to half the window in
    /// whole packets, which only ssthresh floors (the `deflation = "ns2"` knob).
    ns2_halving: bool,
    /// exitFastRetrans_: no inflation without a fast retransmit, and a recovery's end guards
    /// the next fast retransmit as a timeout does.
    exit_fast_retrans: bool,
    /// A recovery ended (with exitFastRetrans_) and no ACK has passed its `recover` yet.
    exited: bool,
    /// newreno_changes1_: only the first partial ACK of a recovery restarts the timer.
    timer_first_partial: bool,
    /// A partial ACK of this recovery has restarted the timer (ns-2's firstpartial_).
    partial_seen: bool,
    /// partial_window_deflation_.
    partial_deflation: bool,
    /// precisionReduce_: the `ns2_halving` keeps the fraction of a packet.
    precision_reduce: bool,
}

impl Default for NewRenoNs2 {
    fn default() -> Self {
        Self {
            in_recovery: false,
            recover: None,
            dups: 0,
            flywheel: true,
            ns2_sends: false,
            bug_fix: false,
            after_timeout: false,
            inflated_only: false,
            dupwnd: 0,
            ns2_halving: false,
            exit_fast_retrans: false,
            exited: false,
            timer_first_partial: false,
            partial_seen: false,
            partial_deflation: false,
            precision_reduce: false,
        }
    }
}

impl NewRenoNs2 {
    /// tcp-reno.cc RenoTcpAgent::timeout (inherited): `if (bug_fix_) recover_ = maxseq_`; then
    /// no fast retransmit until `highest_ack_ > recover_` (RenoTcpAgent::dupack_action, rev.
    /// 1.26 to 1.28: allowed if recovered or `last_cwnd_action_ == CWND_ACTION_DUPACK`), though
    /// `dupwnd_` still inflates.
    pub fn with_bug_fix(mut self, on: bool) -> Self {
        self.bug_fix = on;
        self
    }

    /// tcp-newreno.cc NewRenoTcpAgent::recv ends with `if (dupacks_ == 0) send_much(0, 0,
    /// maxburst_); else if (dupacks_ > NUMDUPACKS - 1 && newreno_changes_ == 0) send_much(0, 0,
    /// 2);` (rev. 1.7, 1997, to rev. 1.31, 1998, and still rev. 1.44, 2001). dupacks_ stays at 3 or more from the
    /// fast retransmit until the ACK that ends recovery (partialnewack leaves it), so in
    /// recovery at most 2 packets leave from the window per ACK, and none with
    /// newreno_changes_, whose only new packets are the flywheel's `output(t_seqno_++)`.
    pub fn with_ns2_sends(mut self, on: bool) -> Self {
        self.ns2_sends = on;
        self
    }

    /// tcp-newreno.cc NewRenoTcpAgent::recv: `if (newreno_changes_ > 0 && (dupacks_ % 2) ==
    /// 1) output(t_seqno_++, 0)`.
    pub fn with_flywheel(mut self, on: bool) -> Self {
        self.flywheel = on;
        self
    }

    /// tcp.cc TcpAgent::slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) from
    /// RenoTcpAgent::dupack_action: `cwnd_ = halfwin`, where only `ssthresh_` is floored at 2.
    pub fn with_ns2_halving(mut self, on: bool) -> Self {
        self.ns2_halving = on;
        self
    }

    /// ns-2.35's rules (knobs `exit_fast_retrans`, `newreno_changes1`,
    /// `partial_window_deflation`): see the top of the file.
    pub fn with_ns235_rules(mut self, exit_fast_retrans: bool, timer_first_partial: bool, deflation: bool) -> Self {
        self.exit_fast_retrans = exit_fast_retrans;
        self.timer_first_partial = timer_first_partial;
        self.partial_deflation = deflation;
        self
    }

    /// ns-2.35's precisionReduce_ (knob `precision_reduce`).
    pub fn with_precision_reduce(mut self, on: bool) -> Self {
        self.precision_reduce = on;
        self
    }

    /// partialnewack with `partial_window_deflation_` (as since tcp-newreno.cc 1.45,
    /// 2001/06/16): d packets newly acknowledged take d - 1
    /// from dupwnd_ if it holds more than d, else dupwnd_ becomes 1 and cwnd_ (at least one
    /// packet) gives up the rest. Either way the window (cwnd_ + dupwnd_) shrinks by d - 1.
    fn deflate_partially(&mut self, cx: &mut Ctx, acked: u64) {
        let mut base = cx.win.cwnd.saturating_sub(self.dupwnd);
        if self.dupwnd > acked {
            self.dupwnd -= acked.saturating_sub(cx.mss);
        } else {
            base = base.saturating_sub(acked - self.dupwnd).max(cx.mss);
            self.dupwnd = cx.mss;
        }
        cx.win.cwnd = base + self.dupwnd;
    }
}

impl LossRecovery for NewRenoNs2 {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if self.in_recovery || (self.inflated_only && count > threshold) {
            cx.win.cwnd += cx.mss;
            self.dupwnd += cx.mss;
            self.dups += 1;
            if self.flywheel && self.dups.is_multiple_of(2) {
                *cx.extra_new += 1;
            }
            return false;
        }
        if count != threshold {
            return false;
        }
        let past_recover = self.recover.is_none_or(|r| cx.snd_una > r);
        if self.bug_fix && (self.after_timeout || self.exited) && !past_recover && !cx.bugfix_ss_exempt {
            if self.exit_fast_retrans {
                // 2.35 recv: `if (!exitFastRetrans_) dupwnd_ = numdupacks_`: nothing at all.
                return false;
            }
            // recv: dupack_action does nothing, then `dupwnd_ = NUMDUPACKS` all the same.
            cx.win.cwnd += threshold as u64 * cx.mss;
            self.dupwnd = threshold as u64 * cx.mss;
            self.inflated_only = true;
            self.dups = 0;
            return false;
        }
        let half = cx.ns2_halving(self.precision_reduce);
        cx.win.ssthresh = cx.ssthresh_on_loss();
        let base = if self.ns2_halving { half } else { cx.win.ssthresh };
        cx.win.cwnd = base + threshold as u64 * cx.mss;
        *cx.retransmit = Some(cx.snd_una);
        self.recover = Some(cx.snd_max);
        self.in_recovery = true;
        self.after_timeout = false;
        self.exited = false;
        self.partial_seen = false;
        self.dupwnd = threshold as u64 * cx.mss;
        self.dups = 0;
        true
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, acked: u64) -> AckVerdict {
        if self.recover.is_some_and(|r| cx.snd_una > r) {
            self.after_timeout = false;
            self.exited = false;
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
        let partial = cx.snd_una < recover;
        if partial && self.partial_deflation {
            self.deflate_partially(cx, acked);
        } else {
            // The ACK that ends recovery, and a partial ACK without partial_window_deflation_,
            // set dupwnd_ = 0 and leave cwnd_.
            cx.win.cwnd = cx.win.cwnd.saturating_sub(self.dupwnd).max(cx.mss);
            self.dupwnd = 0;
        }
        if !partial {
            // recv: `tcph->seqno() >= recover_`: recv_newack_helper, so newack and opencwnd;
            // with exitFastRetrans_, last_cwnd_action_ = EXITED.
            self.in_recovery = false;
            self.exited = self.exit_fast_retrans;
            return AckVerdict::GROW;
        }
        // A partial ACK (partialnewack_helper): the next hole is lost too; resend it now,
        // restart the timer (with newreno_changes1_, on the first partial ACK only), no
        // opencwnd; dupacks_ is left as it is.
        *cx.retransmit = Some(cx.snd_una);
        let restart_timer = !self.timer_first_partial || !self.partial_seen;
        self.partial_seen = true;
        AckVerdict { grow: false, restart_timer }
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.recover = Some(cx.snd_max);
        self.after_timeout = self.bug_fix;
        self.exited = false;
        self.inflated_only = false;
        self.dupwnd = 0;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// RenoTcpAgent::timeout zeroes dupwnd_ before TcpAgent::timeout halves the window.
    fn inflation(&self) -> u64 {
        self.dupwnd
    }

    fn window_sends(&self) -> Option<u32> {
        let capped = self.ns2_sends && (self.in_recovery || self.inflated_only);
        capped.then_some(if self.flywheel { 0 } else { 2 })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    fn enter(n: NewRenoNs2) -> (NewRenoNs2, State) {
        let mut s = State::new(8000);
        let mut n = n;
        assert!(n.on_dupack(&mut s.cx(), 3, 3));
        (n, s)
    }

    #[test]
    fn partial_ack_resends_the_next_hole_and_drops_the_inflation_then_the_last_ack_opens_cwnd() {
        let (mut n, mut s) = enter(NewRenoNs2::default());
        assert_eq!((s.win.ssthresh, s.win.cwnd, s.retransmit.take()), (4000, 7000, Some(5000)));
        n.on_dupack(&mut s.cx(), 4, 3);
        s.snd_una = 7000; // acknowledges the resent segment and one more
        let v = n.on_new_ack(&mut s.cx(), 2000);
        assert!(n.in_recovery());
        assert_eq!(s.retransmit, Some(7000));
        assert_eq!(v, AckVerdict::HOLD, "every partial ACK restarts the timer, no opencwnd");
        assert_eq!(s.win.cwnd, 4000, "partialnewack: dupwnd_ = 0, cwnd_ as the fast retransmit left it");
        s.snd_una = 13_000;
        let v = n.on_new_ack(&mut s.cx(), 6000);
        assert!(!n.in_recovery());
        assert_eq!((s.win.cwnd, v), (4000, AckVerdict::GROW), "recv_newack_helper: newack, opencwnd");
    }

    #[test]
    fn the_flywheel_counts_duplicates_across_partial_acks() {
        // NewRenoTcpAgent::recv: `(dupacks_ % 2) == 1`, and partialnewack leaves dupacks_: the
        // 4th duplicate sends nothing, a partial ACK, then the 5th sends one packet.
        let (mut n, mut s) = enter(NewRenoNs2::default());
        n.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.extra_new, 0);
        s.snd_una = 7000;
        n.on_new_ack(&mut s.cx(), 2000);
        n.on_dupack(&mut s.cx(), 5, 3);
        assert_eq!(s.extra_new, 1);
    }

    #[test]
    fn ns2_halving_sets_cwnd_to_half_the_window_below_the_ssthresh_floor() {
        // RenoTcpAgent::dupack_action -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF): a window
        // of 3 gives cwnd_ 1 and ssthresh_ 2; window() = cwnd_ + dupwnd_ = 4.
        let mut s = State::new(3000);
        let mut n = NewRenoNs2::default().with_ns2_halving(true);
        assert!(n.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.ssthresh, s.win.cwnd), (2000, 4000));
        s.snd_una = 13_000;
        n.on_new_ack(&mut s.cx(), 8000);
        assert_eq!(s.win.cwnd, 1000);
    }

    #[test]
    fn ns2_flavour_sends_one_new_segment_per_two_duplicate_acks() {
        let (mut n, mut s) = enter(NewRenoNs2::default());
        for c in 4..8 {
            n.on_dupack(&mut s.cx(), c, 3);
        }
        assert_eq!(s.extra_new, 2);
        assert_eq!(n.inflation(), 7000, "three segments at the fast retransmit, four since");
        let (mut quiet, mut s) = enter(NewRenoNs2::default().with_flywheel(false));
        for c in 4..8 {
            quiet.on_dupack(&mut s.cx(), c, 3);
        }
        assert_eq!(s.extra_new, 0, "newreno_changes_ 0: no flywheel");
    }

    #[test]
    fn ns2_window_sends_in_recovery_are_two_or_none_with_the_flywheel() {
        // NewRenoTcpAgent::recv: send(0, 0, 2) while dupacks_ >= 3 only without
        // newreno_changes_; no limit outside recovery (send(0, 0, maxburst_)).
        for (flywheel, cap) in [(false, 2), (true, 0)] {
            let mut s = State::new(8000);
            let mut n = NewRenoNs2::default().with_flywheel(flywheel).with_ns2_sends(true);
            assert_eq!(n.window_sends(), None);
            assert!(n.on_dupack(&mut s.cx(), 3, 3));
            assert_eq!(n.window_sends(), Some(cap));
            s.snd_una = 13_000;
            n.on_new_ack(&mut s.cx(), 8000);
            assert_eq!(n.window_sends(), None);
        }
        let (n, _) = enter(NewRenoNs2::default());
        assert_eq!(n.window_sends(), None, "without ns-2's send rule only max_burst limits");
    }

    #[test]
    fn ns2_bug_fix_inflates_but_does_not_retransmit_after_a_timeout_until_recover_is_passed() {
        let mut s = State::new(1000);
        let mut n = NewRenoNs2::default().with_bug_fix(true).with_flywheel(false);
        n.on_timeout(&mut s.cx()); // recover = snd_max = 13000
        assert!(!n.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.cwnd, s.retransmit, n.inflation()), (4000, None, 3000));
        n.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.win.cwnd, 5000);
        s.snd_una = 6000;
        n.on_new_ack(&mut s.cx(), 1000);
        assert_eq!((s.win.cwnd, n.inflation()), (1000, 0), "a new ACK takes the inflation away");
        s.snd_una = 14_000;
        s.snd_max = 20_000;
        assert!(n.on_dupack(&mut s.cx(), 3, 3), "past recover fast retransmit works again");
    }

    #[test]
    fn ns235_newreno_changes1_restarts_the_timer_on_the_first_partial_ack_only() {
        // tcp-newreno.cc 1.33 (1998/08/24) partialnewack_helper: `if (!newreno_changes1_ ||
        // firstpartial_ == 0) { firstpartial_ = 1; newtimer(pkt); }`; firstpartial_ = 0 when
        // recovery ends. On by default from ns-default.tcl 1.315 (2003/05/06).
        let timers = |on: bool| {
            let (mut n, mut s) = enter(NewRenoNs2::default().with_ns235_rules(false, on, false));
            let mut restarts = vec![];
            for una in [6000, 7000, 8000] {
                s.snd_una = una;
                restarts.push(n.on_new_ack(&mut s.cx(), 1000).restart_timer);
            }
            s.snd_una = 13_000;
            n.on_new_ack(&mut s.cx(), 5000);
            // A new recovery starts counting afresh.
            s.snd_max = 20_000;
            assert!(n.on_dupack(&mut s.cx(), 3, 3));
            s.snd_una = 14_000;
            restarts.push(n.on_new_ack(&mut s.cx(), 1000).restart_timer);
            restarts
        };
        assert_eq!(timers(true), [true, false, false, true]);
        assert_eq!(timers(false), [true; 4]);
    }

    #[test]
    fn ns235_partial_window_deflation_takes_d_minus_one_packets_inflation_first() {
        // tcp-newreno.cc 1.45 (2001/06/16) partialnewack: d = packets acked; `if (dupwnd_ >
        // d) dupwnd_ -= d - 1; else { cwnd_ -= d - dupwnd_; dupwnd_ = 1; }`, cwnd_ >= 1.
        // Fast retransmit from 8: cwnd_ 4 + dupwnd_ 3, one more duplicate: dupwnd_ 4.
        let (mut n, mut s) = enter(NewRenoNs2::default().with_ns235_rules(false, false, true));
        n.on_dupack(&mut s.cx(), 4, 3);
        s.snd_una = 7000; // d = 2 < dupwnd_ 4: dupwnd_ 3
        n.on_new_ack(&mut s.cx(), 2000);
        assert_eq!((s.win.cwnd, n.inflation()), (7000, 3000));
        s.snd_una = 12_000; // d = 5 >= 3: cwnd_ 4 - 2 = 2, dupwnd_ 1
        n.on_new_ack(&mut s.cx(), 5000);
        assert_eq!((s.win.cwnd, n.inflation()), (3000, 1000));
        s.snd_una = 13_000; // ends recovery: dupwnd_ = 0, then opencwnd
        assert_eq!(n.on_new_ack(&mut s.cx(), 1000), AckVerdict::GROW);
        assert_eq!((s.win.cwnd, n.inflation()), (2000, 0));
    }

    #[test]
    fn ns235_exit_fast_retrans_neither_inflates_nor_retransmits_until_recover_is_passed() {
        // tcp-newreno.cc 1.51 (2003/07/29) recv: `dupwnd_ = numdupacks_` only in dupack_action's
        // fast retransmit, `++dupwnd_` only while last_cwnd_action_ == DUPACK; 1.55 (2004/09/29)
        // sets EXITED when recovery ends, and allow_fast_retransmit is 0 (1.32, 1998/08/22).
        let mut s = State::new(1000);
        let mut n = NewRenoNs2::default().with_bug_fix(true).with_flywheel(false).with_ns235_rules(true, true, true);
        n.on_timeout(&mut s.cx()); // recover = 13000
        for c in 3..6 {
            assert!(!n.on_dupack(&mut s.cx(), c, 3));
        }
        assert_eq!((s.win.cwnd, s.retransmit, n.inflation()), (1000, None, 0), "after a timeout");
        // A recovery that ends exactly at recover (highest_ack_ == recover_): the next three
        // duplicates do nothing either; ns-2.1b3's Reno guard (knob off) allows a fast retransmit.
        for exit in [true, false] {
            let mut s = State::new(8000);
            let mut n = NewRenoNs2::default().with_bug_fix(true).with_ns235_rules(exit, true, true);
            assert!(n.on_dupack(&mut s.cx(), 3, 3));
            s.snd_una = 13_000;
            n.on_new_ack(&mut s.cx(), 8000);
            s.snd_max = 20_000;
            let cwnd = s.win.cwnd;
            assert_eq!(n.on_dupack(&mut s.cx(), 3, 3), !exit);
            if exit {
                assert_eq!((s.win.cwnd, n.inflation()), (cwnd, 0));
                s.snd_una = 14_000; // past recover: allowed again
                n.on_new_ack(&mut s.cx(), 1000);
                assert!(n.on_dupack(&mut s.cx(), 3, 3));
            }
        }
    }

    #[test]
    fn ns235_bugfix_ss_fast_retransmits_the_first_data_packet_even_after_a_timeout() {
        // tcp-newreno.cc 1.57 (2006/06/14) NewRenoTcpAgent::dupack_action: `||
        // (bugfix_ss_ && highest_ack_ == 0)`.
        let mut s = State::new(8000);
        s.snd_una = 0;
        let mut n = NewRenoNs2::default().with_bug_fix(true).with_ns235_rules(true, true, true);
        n.on_timeout(&mut s.cx());
        assert!(!n.on_dupack(&mut s.cx(), 3, 3), "bugFix_: below recover_ after a timeout");
        s.bugfix_ss_exempt = true;
        assert!(n.on_dupack(&mut s.cx(), 3, 3));
    }
}
