//! SACK with the PIPE algorithm exactly as Goyal et al. (1998) Sec. 3.2 describes it (after Fall and
//! Floyd 1996): on the third duplicate ACK, resend the first unacknowledged segment, set
//! PIPE = cwnd - 3 segments (ns-2.35: the data outstanding - 3, `flight_pipe`), halve cwnd (ssthresh = the new cwnd), remember RECOVER. In the
//! fast-retransmit phase each duplicate ACK takes one segment off PIPE and a partial ACK two;
//! every segment sent afterwards adds one. While PIPE < cwnd the sender resends SACK holes
//! first, then new data. The phase ends when RECOVER is acknowledged; a timeout clears the
//! scoreboard.
//!
//! The fast retransmission itself is not counted in PIPE: ns's Sack1TcpAgent::dupack_action
//! sends it with output(), outside send_much, the only place that does `pipe_++` (tcp-sack1.cc
//! from 1996 to 2.35), and Goyal et al.'s "equivalent to inflating the CWND by one segment per
//! dupACK" leaves no room for it either.

use super::{AckVerdict, Ctx, LossRecovery, SendChoice};

#[derive(Debug, Clone)]
pub struct SackPipe {
    in_recovery: bool,
    recover: u64,
    /// Bytes believed to be in the network during recovery (signed: duplicate ACKs can
    /// briefly take it below zero).
    pipe: i64,
    /// ns-2 bugFix_-style rule of tcp-sack1.cc (Sack1TcpAgent::recv): after a timeout the
    /// ACK must be strictly past recover_ (`highest_ack() > recover_`).
    strict: bool,
    /// The last loss episode ended in a timeout (ns-2 recover_cause_ RECOVER_TIMEOUT).
    after_timeout: bool,
    /// The offset of the fast retransmission, which leaves without adding to PIPE.
    uncounted: Option<u64>,
    /// PIPE starts from the data outstanding, not cwnd (knob `sack_pipe = "flight"`).
    flight_pipe: bool,
    /// precisionReduce_: cwnd is half the window, fraction kept, not ssthresh.
    precision_reduce: bool,
}

impl Default for SackPipe {
    fn default() -> Self {
        Self::new(false)
    }
}

impl SackPipe {
    pub fn new(bug_fix: bool) -> Self {
        Self {
            in_recovery: false,
            recover: 0,
            pipe: 0,
            strict: bug_fix,
            after_timeout: false,
            uncounted: None,
            flight_pipe: false,
            precision_reduce: false,
        }
    }

    /// ns-2.35's Sack1 with precisionReduce_ (knob `precision_reduce`): slowdown sets `cwnd_ =
    /// windowd() / 2`, the fraction kept, rather than restarting from ssthresh.
    pub fn with_precision_reduce(self, on: bool) -> Self {
        Self { precision_reduce: on, ..self }
    }

    /// ns-2.35's Sack1TcpAgent::dupack_action (tcp-sack1.cc 1.44, 2000/08/20, reinstated in
    /// 1.47, 2000/10/03; `oldCode_ false`): `pipe_ = maxseq_ - highest_ack_ - numdupacks`.
    pub fn with_flight_pipe(self, on: bool) -> Self {
        Self { flight_pipe: on, ..self }
    }
}

impl LossRecovery for SackPipe {
    fn on_dupack(&mut self, cx: &mut Ctx, count: u32, threshold: u32) -> bool {
        if self.in_recovery {
            self.pipe -= cx.mss as i64;
            return false;
        }
        let blocked = if self.strict && self.after_timeout {
            cx.snd_una <= self.recover && !cx.bugfix_ss_exempt
        } else {
            cx.snd_una < self.recover
        };
        if count != threshold || blocked {
            return false;
        }
        let start = if self.flight_pipe { cx.flight() } else { cx.win.cwnd };
        self.pipe = start as i64 - (threshold as u64 * cx.mss) as i64;
        let half = cx.ns2_half_window_exact();
        cx.win.ssthresh = cx.ssthresh_on_loss();
        cx.win.cwnd = if self.precision_reduce { half } else { cx.win.ssthresh };
        self.recover = cx.snd_max;
        self.in_recovery = true;
        self.after_timeout = false;
        cx.scoreboard.clear_retransmitted();
        cx.scoreboard.mark_retransmitted(cx.snd_una, cx.snd_una + cx.mss);
        *cx.retransmit = Some(cx.snd_una);
        self.uncounted = Some(cx.snd_una);
        true
    }

    fn new_ack_is_plain(&self) -> bool {
        !self.in_recovery
    }

    fn on_new_ack(&mut self, cx: &mut Ctx, _acked: u64) -> AckVerdict {
        if !self.in_recovery {
            return AckVerdict::GROW;
        }
        if cx.snd_una >= self.recover {
            self.in_recovery = false;
            cx.win.cwnd = cx.win.ssthresh;
        } else {
            self.pipe -= 2 * cx.mss as i64;
        }
        AckVerdict::HOLD
    }

    fn on_timeout(&mut self, cx: &mut Ctx) {
        self.in_recovery = false;
        self.uncounted = None;
        self.recover = cx.snd_max;
        self.after_timeout = true;
        cx.scoreboard.clear();
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn next_send(&mut self, cx: &mut Ctx) -> SendChoice {
        if !self.in_recovery {
            return SendChoice::Window;
        }
        if self.pipe >= cx.win.cwnd as i64 {
            return SendChoice::Nothing;
        }
        match cx.scoreboard.claim_hole(cx.snd_una, cx.mss) {
            Some((off, len)) => SendChoice::Retransmit(off, len),
            None => SendChoice::NewData,
        }
    }

    fn on_sent(&mut self, _cx: &mut Ctx, offset: u64, len: u64) {
        if self.uncounted.take_if(|o| *o == offset).is_some() {
            return;
        }
        if self.in_recovery {
            self.pipe += len as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::State;
    use super::*;

    #[test]
    fn pipe_starts_at_cwnd_minus_three_and_gates_sending() {
        let mut s = State::new(8000);
        let mut p = SackPipe::default();
        s.scoreboard.update(5000, [(6000, 7000), (8000, 10_000)]);
        assert!(p.on_dupack(&mut s.cx(), 3, 3));
        assert_eq!((p.pipe, s.win.cwnd), (5000, 4000));
        p.on_sent(&mut s.cx(), 5000, 1000); // the fast retransmission: not counted (ns's output())
        assert_eq!(p.pipe, 5000);
        assert_eq!(p.next_send(&mut s.cx()), SendChoice::Nothing, "pipe 5000 >= cwnd 4000");
        p.on_dupack(&mut s.cx(), 4, 3);
        assert_eq!(p.next_send(&mut s.cx()), SendChoice::Nothing, "pipe 4000 = cwnd");
        p.on_dupack(&mut s.cx(), 5, 3);
        // pipe 3000 < cwnd: the next hole (7000) goes first, then new data.
        assert_eq!(p.next_send(&mut s.cx()), SendChoice::Retransmit(7000, 1000));
        p.on_sent(&mut s.cx(), 7000, 1000);
        assert_eq!(p.next_send(&mut s.cx()), SendChoice::Nothing, "pipe 4000 = cwnd");
        p.on_dupack(&mut s.cx(), 6, 3);
        assert_eq!(p.next_send(&mut s.cx()), SendChoice::NewData, "no holes left");
    }

    #[test]
    fn a_resend_of_the_fast_retransmitted_segment_later_counts() {
        let mut s = State::new(8000);
        let mut p = SackPipe::default();
        p.on_dupack(&mut s.cx(), 3, 3);
        p.on_sent(&mut s.cx(), 5000, 1000);
        p.on_sent(&mut s.cx(), 5000, 1000); // sent again (a hole claimed later): counted
        assert_eq!(p.pipe, 6000);
    }

    #[test]
    fn partial_ack_takes_two_segments_off_the_pipe_and_recover_ends_the_phase() {
        let mut s = State::new(8000);
        let mut p = SackPipe::default();
        p.on_dupack(&mut s.cx(), 3, 3);
        s.snd_una = 7000;
        p.on_new_ack(&mut s.cx(), 2000);
        assert_eq!(p.pipe, 3000);
        s.snd_una = 13_000;
        p.on_new_ack(&mut s.cx(), 6000);
        assert!(!p.in_recovery());
        assert_eq!(s.win.cwnd, 4000);
    }

    #[test]
    fn ns235_bugfix_ss_fast_retransmits_the_first_data_packet_even_after_a_timeout() {
        // tcp-sack1.cc (2006/06/14) Sack1TcpAgent::dupack_action: `|| (bugfix_ss_ &&
        // highest_ack_ == 0)`.
        let mut s = State::new(8000);
        s.snd_una = 0;
        let mut p = SackPipe::new(true);
        p.on_timeout(&mut s.cx());
        assert!(!p.on_dupack(&mut s.cx(), 3, 3), "bugFix_: below recover_ after a timeout");
        s.bugfix_ss_exempt = true;
        assert!(p.on_dupack(&mut s.cx(), 3, 3));
    }
}
