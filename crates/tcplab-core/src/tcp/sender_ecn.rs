//! The data sender's side of ECN (RFC 3168 sec. 6.1), with the `ecn` knob: negotiation on
//! the handshake, ECT(0) on new data, one window reduction per window of data in answer to
//! ECE and losses together (a loss in a window already reduced for ECE, or an ECE in one
//! already reduced for a loss, reduces no further), and CWR on the next new segment. A child module of `sender`, so it works on the
//! sender's own fields; with the knob off every entry returns at its first test.

use crate::packet::{flags, Ecn, Packet};

use super::super::cc::Controller;
use super::super::recovery::Ctx;
use super::super::window::Window;
use super::TcpSender;
use crate::tcp::config::Handshake;

/// The sender's ECN state (kept inside the sender, nothing on the packet path; 16 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EcnTx {
    /// snd_max + 1 at the last window reduction, 0 before the first: ECE on ACKs whose
    /// snd_una is below it (ACKs that do not pass the data then outstanding) belongs to the
    /// window already answered.
    answered_until: u64,
    /// ECN is in use on this connection: negotiated, or the knob on without a handshake.
    pub on: bool,
    /// CWR goes on the next new data segment (sec. 6.1.2).
    cwr_due: bool,
    /// The last reduction answered an ECN-Echo (a loss's or a timeout's clears it).
    by_ece: bool,
}

/// The handshake flags of an ECN-setup SYN (sec. 6.1.1: ECE and CWR both set).
const SETUP_SYN: u8 = flags::ECE | flags::CWR;

impl EcnTx {
    /// Whether a peer's SYN (`syn_ack` false) or SYN-ACK asks for, or agrees to, ECN: an
    /// ECN-setup SYN has ECE and CWR, an ECN-setup SYN-ACK ECE without CWR (sec. 6.1.1).
    pub fn setup_in(pkt: &Packet, syn_ack: bool) -> bool {
        let bits = pkt.flags & SETUP_SYN;
        if syn_ack {
            bits == flags::ECE
        } else {
            bits == SETUP_SYN
        }
    }

    /// The ECN flags of our SYN (`syn_ack` false: we open and ask when `capable`) or SYN-ACK
    /// (we agree when the peer asked, `negotiated`).
    pub fn setup_out(capable: bool, syn_ack: bool, negotiated: bool) -> u8 {
        match (capable, syn_ack) {
            (false, _) => 0,
            (true, false) => SETUP_SYN,
            (true, true) if negotiated => flags::ECE,
            (true, true) => 0,
        }
    }
}

impl TcpSender {
    /// The connection opens: without a handshake both ends are ECN-capable when the knob is
    /// on (there is no SYN to negotiate on).
    pub(super) fn ecn_open(&mut self) {
        self.ecn.on = self.cfg.ecn && self.cfg.handshake == Handshake::None;
    }

    /// The peer's SYN or SYN-ACK: does it ask for (or agree to) ECN?
    pub(super) fn ecn_on_syn(&mut self, pkt: &Packet) {
        if self.cfg.ecn {
            self.ecn.on = EcnTx::setup_in(pkt, pkt.has_ack());
        }
    }

    /// The ECN flags of the SYN or SYN-ACK we send.
    pub(super) fn ecn_syn_flags(&self, syn_ack: bool) -> u8 {
        EcnTx::setup_out(self.cfg.ecn, syn_ack, self.ecn.on)
    }

    /// An ACK (new or duplicate), after loss recovery saw it: an ECN-Echo reduces the window
    /// as a loss would, once per window of data (sec. 6.1.2), and never during a loss
    /// episode, whose own reduction already answered the window. `before`: the window before
    /// this ACK, which does not also grow it (as Linux's CWR state holds cwnd_avoid off).
    #[cold]
    pub(super) fn ecn_on_ack(&mut self, pkt: &Packet, before: Window) {
        if !self.ecn.on || pkt.flags & flags::ECE == 0 {
            return;
        }
        let answered = self.snd_una < self.ecn.answered_until;
        if answered || self.recovery.in_recovery() {
            return;
        }
        self.ecn_reduced();
        self.stats.ecn_reductions += 1;
        // BBR v1 (Cardwell et al., 2016) does not react to ECN: its window comes from its
        // model. It still answers the echo with CWR so the receiver stops echoing.
        if matches!(self.cc, Controller::Bbr(_)) {
            return;
        }
        self.ecn.by_ece = true;
        // The controller's own loss reaction (Reno's halving, CUBIC's beta, Vegas' cut), but
        // no retransmission and no fast recovery: cwnd falls to the new ssthresh at once.
        self.win = before;
        let ssthresh = ctx!(self).ssthresh_on_loss();
        self.win = Window { cwnd: ssthresh.max(self.cfg.mss as u64), ssthresh };
    }

    /// The window was reduced (by ECE, a fast retransmit or a timeout): the next new segment
    /// carries CWR, and ECE for the data sent so far is answered.
    pub(super) fn ecn_reduced(&mut self) {
        if self.ecn.on {
            self.ecn.answered_until = self.snd_max + 1;
            self.ecn.cwr_due = true;
            self.ecn.by_ece = false;
        }
    }

    /// Whether the window of data the ACKs are in was already reduced for an ECN-Echo: a loss
    /// detected in it (a fast retransmit) must not reduce again (sec. 6.1.2: "the congestion
    /// window should be reduced only once in response to a series of dropped and/or CE
    /// packets from a single window of data"). It retransmits and recovers as usual, and the
    /// reduction already announced needs no new CWR. A timeout is not covered: it follows
    /// the usual algorithm (sec. 6.1.2: "... in response to ... retransmit timeouts").
    pub(super) fn ecn_window_reduced(&self) -> bool {
        self.ecn.by_ece && self.snd_una < self.ecn.answered_until
    }

    /// A data segment leaves: a first transmission is ECT(0) and carries CWR if a reduction
    /// is unannounced; a retransmission is not ECT (sec. 6.1.5) and carries no CWR.
    #[cold]
    pub(super) fn ecn_mark_data(&mut self, p: &mut Packet, resend: bool) {
        if !self.ecn.on || resend {
            return;
        }
        p.ecn = Ecn::Ect0;
        if self.ecn.cwr_due {
            self.ecn.cwr_due = false;
            p.flags |= flags::CWR;
        }
    }
}
