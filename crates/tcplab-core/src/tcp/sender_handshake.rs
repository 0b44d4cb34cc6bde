//! The data sender's side of the handshake: the receiver's SYN or SYN-ACK answered, and the
//! connection established (its RTT sample, backoff and initial window). A child module of
//! `sender`, so it works on the sender's own fields; out of the every-ACK file, as every
//! connection runs it once.

use crate::packet::Packet;
use crate::time::Time;

use super::{SenderState, TcpSender};

impl TcpSender {
    /// A SYN from the receiver: its own (we listen) or its SYN-ACK (we opened).
    #[cold]
    pub(super) fn on_syn(&mut self, now: Time, pkt: &Packet) {
        match self.gates.state {
            SenderState::Listen | SenderState::SynReceived if !pkt.has_ack() => {
                // The receiver's SYN (or a retransmission of it): answer with a SYN-ACK.
                self.peer_isn = pkt.seq;
                self.ecn_on_syn(pkt);
                self.gates.state = SenderState::SynReceived;
                self.gates.ctl_due = true;
            }
            SenderState::SynSent if pkt.has_ack() && pkt.ack == self.isn.wrapping_add(1) => {
                self.peer_isn = pkt.seq;
                self.ecn_on_syn(pkt);
                self.become_established(now, false);
                self.gates.ack_due = true;
            }
            SenderState::Established if pkt.has_ack() => {
                // Our handshake ACK was lost and the receiver resent its SYN-ACK.
                self.gates.ack_due = true;
            }
            _ => {}
        }
    }

    /// The handshake is done (`acceptor`: we answered the receiver's SYN).
    #[cold]
    pub(super) fn become_established(&mut self, now: Time, acceptor: bool) {
        self.gates.state = SenderState::Established;
        let sampled = self.syn_timing.take().map(|sent| {
            self.rtt.sample(sent, now);
            self.cc.on_rtt(now, self.rtt.srtt_ns());
        });
        // ns-2's newack clears t_backoff_ only when the timed packet is acknowledged, and a
        // resent SYN is not timed (TcpAgent::output times `seqno > maxseq_` only).
        if sampled.is_some() || !self.cfg.ns_syn {
            self.backoff = 0;
        }
        if self.cfg.ns_syn || self.cfg.bugfix_ss {
            // TcpAgent::recv: `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window()`,
            // which bugfix_ss_ made 1 packet if the SYN timed out (TcpAgent::timeout).
            let lost = self.cfg.bugfix_ss && self.stats.syn_retransmits > 0;
            let packets = if lost { 1 } else { self.cfg.initial_cwnd as u64 };
            self.win.cwnd = packets * self.cfg.mss as u64;
        }
        self.rto_at = None;
        if acceptor {
            // 4.4BSD runs the handshake's final ACK through the ACK-of-new-data path, so the
            // acceptor's window grows by one segment before any data is sent.
            self.cc.on_ack(now, &mut self.win, self.cfg.mss as u64, self.cfg.mss as u64);
        }
        self.record(now);
    }
}
