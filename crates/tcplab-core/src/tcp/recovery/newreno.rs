//! NewReno as RFC 6582 specifies it: stay in fast recovery until the ACK covers everything
//! sent before the loss (`recover`), resending one segment per partial ACK, so N losses take N
//! round trips. A partial ACK deflates the window by the bytes it acknowledges (plus one
//! segment if that was at least a segment), only the first partial ACK restarts the timer
//! ("impatient"), and a fast retransmit needs the ACK past the previous `recover` (no repeated
//! fast retransmits for one window). `newreno_ns2.rs` is ns-2.1b3's NewReno.

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone, Default)]
pub struct NewReno {
    in_recovery: bool,
    /// Highest byte sent when recovery began (or at the last timeout).
    recover: Option<u64>,
    partial_acks: u32,
}

impl LossRecovery for NewReno {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if self.in_recovery {
            cx.win.cwnd += cx.mss;
            return false;
        }
        // Not again for the window a fast retransmit (or a timeout) already answered.
        let same_window = self.recover.is_some_and(|r| cx.snd_una <= r);
        if count != threshold || same_window {
            return false;
        }
        // RFC 6582 Sec. 3.2 step 2: ssthresh = max(FlightSize / 2, 2 * SMSS), which
        // congestion control computes for this variant (cc::Decrease).
        cx.win.ssthresh = cx.ssthresh_on_loss();
        cx.win.cwnd = cx.win.ssthresh + threshold as u64 * cx.mss;
        *cx.retransmit = Some(cx.snd_una);
        self.recover = Some(cx.snd_max);
        self.in_recovery = true;
        self.partial_acks = 0;
        true
    }

    fn new_ack_is_plain(&self) -> bool {
        !self.in_recovery
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, acked: u64) -> AckVerdict {
        if !self.in_recovery {
            return AckVerdict::GROW;
        }
        let recover = self.recover.expect("recover is set in recovery");
        if cx.snd_una >= recover {
            // Step 3, full acknowledgment, option 1: min(ssthresh, max(FlightSize, SMSS) + SMSS).
            self.in_recovery = false;
            cx.win.cwnd = cx.win.ssthresh.min(cx.flight().max(cx.mss) + cx.mss);
            return AckVerdict::HOLD;
        }
        // A partial ACK: the next hole is lost too; resend it now.
        *cx.retransmit = Some(cx.snd_una);
        self.partial_acks += 1;
        let back = if acked >= cx.mss { cx.mss } else { 0 };
        cx.win.cwnd = (cx.win.cwnd.saturating_sub(acked) + back).max(cx.mss);
        AckVerdict { grow: false, restart_timer: self.partial_acks == 1 }
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.recover = Some(cx.snd_max);
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    fn enter() -> (NewReno, State) {
        let mut s = State::new(8000).halving_flight();
        let mut n = NewReno::default();
        assert!(n.on_dupack(&mut s.cx(), 3, 3));
        (n, s)
    }

    #[test]
    fn third_dupack_halves_the_flight_and_inflates_by_three_segments() {
        let (mut n, mut s) = enter();
        // FlightSize 8000 (5000..13000): ssthresh 4000, cwnd 4000 + 3 segments.
        assert_eq!((s.win.ssthresh, s.win.cwnd, s.retransmit), (4000, 7000, Some(5000)));
        n.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(s.win.cwnd, 8000, "each further duplicate inflates by a segment");
    }

    #[test]
    fn partial_ack_resends_the_next_hole_and_stays_in_recovery() {
        let (mut n, mut s) = enter();
        assert_eq!(s.retransmit.take(), Some(5000));
        s.snd_una = 7000; // acknowledges the resent segment and one more
        let v = n.on_new_ack(&mut s.cx(), 2000);
        assert!(n.in_recovery());
        assert_eq!(s.retransmit, Some(7000));
        assert!(!v.grow && v.restart_timer);
        assert_eq!(s.win.cwnd, 7000 - 2000 + 1000, "deflated by the bytes acked, plus one segment");
        s.snd_una = 13_000;
        n.on_new_ack(&mut s.cx(), 6000);
        assert!(!n.in_recovery());
        // Option 1: min(ssthresh, max(FlightSize, SMSS) + SMSS) with nothing in flight.
        assert_eq!(s.win.cwnd, 2000);
    }

    #[test]
    fn rfc6582_restarts_the_timer_only_on_the_first_partial_ack() {
        let (mut n, mut s) = enter();
        s.snd_una = 6000;
        assert!(n.on_new_ack(&mut s.cx(), 1000).restart_timer);
        s.snd_una = 7000;
        assert!(!n.on_new_ack(&mut s.cx(), 1000).restart_timer);
    }

    #[test]
    fn rfc6582_does_not_fast_retransmit_twice_for_one_window() {
        let (mut n, mut s) = enter();
        n.on_timeout(&mut s.cx());
        assert!(!n.on_dupack(&mut s.cx(), 3, 3), "duplicates from before the timeout");
        s.snd_max = 20_000;
        s.snd_una = 14_000;
        assert!(n.on_dupack(&mut s.cx(), 3, 3), "a new window, past recover");
    }

    #[test]
    fn rfc6582_has_no_inflation_to_hide_from_a_timeout_and_no_send_cap() {
        let (n, _) = enter();
        assert_eq!((n.inflation(), n.window_sends()), (0, None));
    }
}
