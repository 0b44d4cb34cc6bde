//! SACK loss recovery as RFC 6675 specifies it: a segment is lost once more than
//! (DupThresh - 1) * SMSS bytes above it are SACKed; `pipe` is recomputed from the scoreboard
//! (SetPipe) before every send; NextSeg resends lost holes first, then new data, then other
//! holes; cwnd = ssthresh = FlightSize / 2 for the whole episode.

use super::{AckVerdict, Ctx, LossRecovery, SendChoice};

#[derive(Debug, Clone, Default)]
pub struct Sack6675 {
    in_recovery: bool,
    recovery_point: Option<u64>,
    dupthresh: u32,
}

impl Sack6675 {
    fn is_lost(&self, cx: &Ctx, off: u64) -> bool {
        cx.scoreboard.is_lost(off, self.lost_over(cx))
    }

    /// RFC 6675 SetPipe, at segment granularity (`Scoreboard::pipe`).
    fn pipe(&self, cx: &Ctx) -> u64 {
        cx.scoreboard.pipe(cx.snd_una, cx.snd_max, cx.mss, self.lost_over(cx))
    }

    /// More SACKed bytes than this above a segment make it lost: (DupThresh - 1) * SMSS.
    fn lost_over(&self, cx: &Ctx) -> u64 {
        (self.dupthresh.max(1) as u64 - 1) * cx.mss
    }
}

impl LossRecovery for Sack6675 {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        self.dupthresh = threshold;
        if self.in_recovery {
            return false;
        }
        let past = self.recovery_point.is_none_or(|r| cx.snd_una >= r);
        if !past || (count < threshold && !self.is_lost(cx, cx.snd_una)) {
            return false;
        }
        self.recovery_point = Some(cx.snd_max);
        // Sec. 5 step (4.2): ssthresh = cwnd = FlightSize / 2 (RFC 5681's rule, which
        // congestion control computes for this variant: cc::Decrease).
        cx.win.ssthresh = cx.ssthresh_on_loss();
        cx.win.cwnd = cx.win.ssthresh;
        self.in_recovery = true;
        cx.scoreboard.clear_retransmitted();
        cx.scoreboard.mark_retransmitted(cx.snd_una, cx.snd_una + cx.mss);
        *cx.retransmit = Some(cx.snd_una);
        true
    }

    fn new_ack_is_plain(&self) -> bool {
        !self.in_recovery
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, _acked: u64) -> AckVerdict {
        if !self.in_recovery {
            return AckVerdict::GROW;
        }
        if self.recovery_point.is_some_and(|r| cx.snd_una >= r) {
            self.in_recovery = false;
        }
        AckVerdict::HOLD
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.recovery_point = Some(cx.snd_max);
        cx.scoreboard.clear();
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn next_send(&mut self, cx: &mut Ctx) -> SendChoice {
        if !self.in_recovery {
            return SendChoice::Window;
        }
        if cx.win.cwnd < self.pipe(cx) + cx.mss {
            return SendChoice::Nothing;
        }
        // Rule 1: the first lost hole not yet resent. Only the first hole not yet resent can
        // be it: a hole above it has fewer bytes SACKed above, so it is lost only if that one is.
        if let Some((off, _)) = cx.scoreboard.next_hole(cx.snd_una, true) {
            if self.is_lost(cx, off) {
                // Claimed from snd_una (the same hole), so that the next search skips it all.
                let (off, len) = cx.scoreboard.claim_hole(cx.snd_una, cx.mss).expect("the hole just found");
                return SendChoice::Retransmit(off, len);
            }
        }
        // Rules 2 and 3: new data if the sender has any (it falls back to nothing), else
        // the first hole not yet resent.
        if cx.snd_max < cx.snd_una + cx.peer_wnd {
            return SendChoice::NewData;
        }
        match cx.scoreboard.claim_hole(cx.snd_una, cx.mss) {
            Some((off, len)) => SendChoice::Retransmit(off, len),
            None => SendChoice::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    #[test]
    fn pipe_counts_unsacked_unlost_and_resent_segments() {
        let mut s = State::new(8000).halving_flight();
        let mut p = Sack6675::default();
        // Segments 5000..13000; SACKed: 6000-7000 and 9000-12000. 5000 has 4000 SACKed
        // bytes above (lost); 7000 and 8000 have 3000 (> 2000: lost); 12000 has none.
        s.scoreboard.update(5000, [(6000, 7000), (9000, 12_000)]);
        assert!(p.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!(s.win.cwnd, 4000);
        let cx = s.cx();
        // 5000 resent (lost, +1000 resent), 7000 and 8000 lost, 12000 in flight.
        assert_eq!(p.pipe(&cx), 2000);
        let mut cx = s.cx();
        assert_eq!(p.next_send(&mut cx), SendChoice::Retransmit(7000, 1000));
    }
}
