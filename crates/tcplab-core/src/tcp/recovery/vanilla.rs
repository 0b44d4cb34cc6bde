//! Vanilla TCP: slow start and congestion avoidance only; losses are found by timeout
//! (Goyal et al. 1998, Sec. 3). Duplicate ACKs are ignored.

use super::{AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone, Default)]
pub struct Vanilla;

impl LossRecovery for Vanilla {
    fn on_dupack(&mut self, _cx: &mut Ctx, _count: u32, _threshold: u32) -> bool {
        false
    }
    fn new_ack_is_plain(&self) -> bool {
        true
    }

    fn on_new_ack(&mut self, _cx: &mut Ctx, _acked: u64) -> AckVerdict {
        AckVerdict::GROW
    }
    fn on_timeout(&mut self, _cx: &mut Ctx) {}
    fn in_recovery(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    #[test]
    fn vanilla_ignores_any_number_of_duplicate_acks() {
        let mut s = State::new(8000);
        for n in 1..10 {
            assert!(!Vanilla.on_dupack(&mut s.cx(), n, 3));
        }
        assert_eq!((s.win.cwnd, s.retransmit), (8000, None));
    }
}
