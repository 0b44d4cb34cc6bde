//! Tahoe: fast retransmit on the third duplicate ACK, then slow start from one segment,
//! going back N from the lost segment (as ns-2's Tahoe does; Fall and Floyd 1996). Further
//! duplicate ACKs from the same window are ignored until the ACK passes `recover`.

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone, Default)]
pub struct Tahoe {
    /// Highest byte sent when the last loss was detected: duplicate ACKs below it belong to
    /// the same loss episode and must not trigger another fast retransmit.
    recover: u64,
}

impl LossRecovery for Tahoe {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if count != threshold || (cx.snd_una < self.recover) {
            return false;
        }
        cx.win.ssthresh = cx.halved();
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
}
