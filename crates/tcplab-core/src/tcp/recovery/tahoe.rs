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
}

impl Default for Tahoe {
    fn default() -> Self {
        Self::new(false)
    }
}

impl Tahoe {
    pub fn new(bug_fix: bool) -> Self {
        Self { recover: 0, strict: bug_fix }
    }
}

impl LossRecovery for Tahoe {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        let blocked = if self.strict { cx.snd_una <= self.recover.max(cx.mss) } else { cx.snd_una < self.recover };
        if count != threshold || blocked {
            return false;
        }
        cx.win.ssthresh = cx.ssthresh_on_loss();
        cx.win.cwnd = cx.mss;
        *cx.snd_nxt = cx.snd_una; // go back N: the window rule resends from the hole
        self.recover = cx.snd_max;
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
}
