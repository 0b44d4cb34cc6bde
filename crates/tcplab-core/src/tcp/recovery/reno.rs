//! Reno (4.4BSD): fast retransmit on the third duplicate ACK, then fast recovery: the window
//! is inflated by one segment per further duplicate ACK and deflated to ssthresh on the first
//! ACK of new data, which ends recovery even if it acknowledges only part of the window
//! (the weakness Fall and Floyd 1996 show with several drops per window).

use super::super::growth::Deflation;
use super::{fast_retransmit, AckVerdict, Ctx, LossRecovery};

#[derive(Debug, Clone)]
pub struct Reno {
    in_recovery: bool,
    deflation: Deflation,
    /// More duplicate ACKs than the threshold arrived in this recovery (4.4BSD's
    /// `t_dupacks > tcprexmtthresh`).
    past_threshold: bool,
}

impl Default for Reno {
    fn default() -> Self {
        Self::new(Deflation::Always)
    }
}

impl Reno {
    pub fn new(deflation: Deflation) -> Self {
        Self { in_recovery: false, deflation, past_threshold: false }
    }
}

impl LossRecovery for Reno {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if count == threshold {
            fast_retransmit(cx);
            cx.win.cwnd = cx.win.ssthresh + threshold as u64 * cx.mss;
            self.in_recovery = true;
            self.past_threshold = false;
            true
        } else {
            if count > threshold && self.in_recovery {
                cx.win.cwnd += cx.mss;
                self.past_threshold = true;
            }
            false
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, _acked: u64) -> AckVerdict {
        if self.in_recovery {
            self.in_recovery = false;
            // 4.4BSD tcp_input: `if (tp->t_dupacks > tcprexmtthresh && snd_cwnd >
            // snd_ssthresh) snd_cwnd = snd_ssthresh`: with exactly three duplicates the
            // window keeps ssthresh + 3 segments.
            if self.deflation == Deflation::Always || self.past_threshold {
                cx.win.cwnd = cx.win.cwnd.min(cx.win.ssthresh);
            }
        }
        // 4.4BSD grows the window on this ACK too, after deflating it.
        AckVerdict::GROW
    }

    fn on_timeout(&mut self, _cx: &mut Ctx) {
        self.in_recovery = false;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
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
}
