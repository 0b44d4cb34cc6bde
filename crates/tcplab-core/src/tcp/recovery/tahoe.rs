//! Tahoe: fast retransmit on the third duplicate ACK, then slow start from one segment,
//! going back N from the lost segment (as ns-2's Tahoe does; Fall and Floyd 1996). Further
//! duplicate ACKs from the same window are ignored until the ACK passes `recover`.

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone)]
pub struct Tahoe {
    /// Highest byte sent when the last loss was detected: duplicate ACKs below it belong to
    /// the same loss episode and must not trigger another fast retransmit.
    recover: u64,
    /// ns-2 bugFix_ (tcp.cc TcpAgent::dupack_action: `recovered = highest_ack_ > recover_`):
    /// the ACK must be strictly past `recover`, so duplicates at exactly `recover` wait for
    /// the timer. recover_ starts at packet 0, i.e. one segment: two packets must have been
    /// acknowledged before the first fast retransmit.
    strict: bool,
    /// ns-2's one-way SYN is packet 0 (knob `ns_syn`), so recover_ 0 is the SYN and one data
    /// packet acknowledged is enough.
    recover_at_syn: bool,
}

impl Default for Tahoe {
    fn default() -> Self {
        Self::new(false)
    }
}

impl Tahoe {
    pub fn new(bug_fix: bool) -> Self {
        Self { recover: 0, strict: bug_fix, recover_at_syn: false }
    }

    /// With ns-2's one-way SYN (knob `ns_syn`).
    pub fn with_recover_at_syn(self, on: bool) -> Self {
        Self { recover_at_syn: on, ..self }
    }
}

impl LossRecovery for Tahoe {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        let first = if self.recover_at_syn { 0 } else { cx.mss };
        let blocked = if self.strict {
            cx.snd_una <= self.recover.max(first) && !cx.bugfix_ss_exempt
        } else {
            cx.snd_una < self.recover
        };
        if count != threshold || blocked {
            return false;
        }
        cx.win.ssthresh = cx.ssthresh_on_loss();
        cx.win.cwnd = cx.mss;
        *cx.snd_nxt = cx.snd_una; // go back N: the window rule resends from the hole
        self.recover = cx.snd_max;
        true
    }
    fn new_ack_is_plain(&self) -> bool {
        true
    }

    fn on_new_ack(&mut self, _cx: &mut Ctx, _acked: u64) -> AckVerdict {
        AckVerdict::GROW
    }
    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.recover = cx.snd_max;
    }
    fn in_recovery(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    #[test]
    fn tahoe_third_dupack_retransmits_and_sets_cwnd_to_one() {
        let mut s = State::new(8000);
        let mut t = Tahoe::default();
        assert!(!t.on_dupack(&mut s.cx(), 2, 3));
        assert!(t.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((s.win.cwnd, s.win.ssthresh, s.snd_nxt), (1000, 4000, 5000));
        // Later duplicate ACKs of the same window change nothing.
        assert!(!t.on_dupack(&mut s.cx(), 4, 3));
        s.snd_una = 6000;
        assert!(!t.on_dupack(&mut s.cx(), 3, 3), "still below recover");
    }

    #[test]
    fn ns2_bug_fix_needs_the_ack_strictly_past_recover() {
        // tcp.cc TcpAgent::dupack_action: recovered = (highest_ack_ > recover_); with
        // bugFix_ an ACK standing exactly at recover_ does nothing and the timer must fire.
        let mut s = State::new(8000);
        let mut t = Tahoe::new(true);
        t.on_timeout(&mut s.cx()); // recover = 13000
        s.snd_una = 13_000;
        s.snd_max = 20_000;
        assert!(!t.on_dupack(&mut s.cx(), 3, 3), "at recover: no fast retransmit");
        let mut old = Tahoe::default();
        old.on_timeout(&mut State::new(8000).cx());
        assert!(old.on_dupack(&mut s.cx(), 3, 3), "tcplab's rule allows it");
        s.snd_una = 14_000;
        assert!(t.on_dupack(&mut s.cx(), 3, 3));
    }

    #[test]
    fn ns235_recover_starts_at_the_syn_and_bugfix_ss_lets_the_first_packet_go() {
        // TcpAgent::dupack_action (tcp.cc 1.172, 2006/06/14): `highest_ack_ > recover_ ||
        // (bugfix_ss_ && highest_ack_ == 0)`. Without a SYN recover_ 0 is the first packet, so
        // two packets must be acknowledged; with syn_ it is the SYN, so one.
        let at = |una: u64, syn: bool, exempt: bool| {
            let mut s = State::new(8000);
            (s.snd_una, s.bugfix_ss_exempt) = (una, exempt);
            Tahoe::new(true).with_recover_at_syn(syn).on_dupack(&mut s.cx(), 3, 3)
        };
        assert!(!at(1000, false, false), "ns-2.1b3: highest_ack_ 0 is not past recover_ 0");
        assert!(at(2000, false, false));
        assert!(at(1000, true, false), "with the SYN, one data packet acknowledged");
        assert!(!at(0, true, false), "only the SYN acknowledged");
        assert!(at(0, true, true), "bugfix_ss_");
    }
}
