//! The data sender: a sans-IO state machine.
//!
//! It owns the sequence space, the send buffer's extent, Karn's rule and the backoff count,
//! duplicate-ACK counting and the ACK clock. The stack's rules are policies it calls without
//! asking which one runs: the RTT estimator and its timer rules (`rtt.rs`), congestion control
//! (`cc/`), loss recovery (`recovery/`), TCP Boston's codec (`boston/`). The driver feeds it
//! packets (`on_packet`), calls `on_timer` at or after `next_deadline()`, drains
//! `poll_transmit` (`sender_output.rs`) after each call, and takes what a traced flow recorded
//! from `trace_mut` (the sender does no I/O).

use std::sync::Arc;

use crate::packet::{flags, Packet};
use crate::time::{Dur, Time};

use super::boston::BostonTx;
use super::cc::{Controller, LossState};
use super::config::{Handshake, TcpConfig};
use super::knobs::FastRetransmitTimer;
use super::recovery::{AckVerdict, Ctx, Recovery};
use super::reserved::Reserved;
use super::rtt::Estimator;
use super::rtt_ns1::RttSample;
use super::scoreboard::Scoreboard;
use super::seq::unwrap;
use super::trace::SenderTrace;
pub use super::trace::{SendRecord, TraceRow};
use super::window::Window;

/// The policy's view of the sender, borrowing fields disjointly so the policy itself (also a
/// field) can be called at the same time.
macro_rules! ctx {
    ($s:ident) => {
        Ctx {
            bugfix_ss_exempt: $s.bugfix_ss_exempt(),
            win: &mut $s.win,
            mss: $s.cfg.mss as u64,
            snd_una: $s.snd_una,
            snd_nxt: &mut $s.snd_nxt,
            snd_max: $s.snd_max,
            peer_wnd: $s.peer_wnd,
            retransmit: &mut $s.retransmit,
            extra_new: &mut $s.extra_new,
            scoreboard: &mut $s.scoreboard,
            cc: &mut $s.cc,
            window_reduced: false,
        }
    };
}

/// Where the connection is, seen from the data sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SenderState {
    /// Not started yet.
    Closed,
    /// Waiting for the receiver's SYN (the receiver opens).
    Listen,
    /// Our SYN is out (we open).
    SynSent,
    /// We answered the receiver's SYN with a SYN-ACK and wait for its ACK.
    SynReceived,
    Established,
}

/// The one-byte fields every poll tests together (`poll_plan`), side by side in one word so
/// that test is one compare instead of four (issue 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(4))]
struct Gates {
    /// The connection uses none of the features the every-ACK and every-segment paths would
    /// otherwise test one by one (`uses_no_rare_feature`), so they take a straight path that
    /// tests this alone (issue 26). Decided in `open`, after any reservation is attached.
    plain: bool,
    /// A SYN or SYN-ACK is due.
    ctl_due: bool,
    /// A pure ACK is due (answering a SYN-ACK when no data can carry the ACK).
    ack_due: bool,
    state: SenderState,
}

impl Gates {
    /// Plain and established, with no SYN or pure ACK due: the window alone may decide a poll.
    #[inline(always)]
    fn window_only(self) -> bool {
        let word = |plain: bool, ctl_due: bool, ack_due: bool, state: SenderState| {
            u32::from_le_bytes([plain as u8, ctl_due as u8, ack_due as u8, state as u8])
        };
        word(self.plain, self.ctl_due, self.ack_due, self.state) == word(true, false, false, SenderState::Established)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments transmitted, first copies and retransmissions.
    pub data_segments: u64,
    /// Data segments that resent bytes sent before.
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// SYN or SYN-ACK retransmissions.
    pub syn_retransmits: u64,
    /// Window reductions in answer to ECN-Echo (RFC 3168 sec. 6.1.2; `ecn` only).
    pub ecn_reductions: u64,
}

/// Largest window the sender will grow to (bytes): far above any realistic bandwidth-delay
/// product, and keeps the arithmetic comfortably inside u64.
const MAX_CWND: u64 = 1 << 40;

#[derive(Debug, Clone)]
pub struct TcpSender {
    /// Shared by the flows that use the same settings (keeps per-flow state small).
    cfg: Arc<TcpConfig>,
    flow: u32,
    /// Our initial sequence number; data offset 0 is `isn + 1`.
    isn: u32,
    /// The receiver's initial sequence number (learnt from its SYN or SYN-ACK).
    peer_isn: u32,
    /// The window every packet advertises (`TcpConfig::advertised_window`, a function of the
    /// shared configuration alone, which never changes: taken once instead of per segment).
    wnd: u32,
    /// `plain`, `ctl_due`, `ack_due` and the connection's state.
    gates: Gates,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Bytes the application will write in all; None for an infinite source.
    total: Option<u64>,
    win: Window,
    peer_wnd: u64,
    /// The largest window the receiver has offered (RFC 1122's silly-window rule).
    max_peer_wnd: u64,
    dupacks: u32,
    recovery: Recovery,
    /// How the window grows and falls back (`cc/`).
    cc: Controller,
    /// `cc.usable_is_cwnd()`, taken once: the window test of every poll reads it.
    usable_is_cwnd: bool,
    rtt: Estimator,
    /// The segment being timed for an RTT sample: (offset just past it, time sent).
    timing: Option<(u64, Time)>,
    /// When the SYN (or SYN-ACK) went out, unless it has been resent (Karn).
    syn_timing: Option<Time>,
    rto_at: Option<Time>,
    backoff: u32,
    retransmit: Option<u64>,
    /// New segments a policy allowed beyond the window.
    extra_new: u32,
    /// Segments that may still leave before the next ACK (MaxBurst).
    burst_left: u32,
    /// Segments the window may still send before the next ACK (ns-2 NewReno in recovery).
    window_left: u32,
    scoreboard: Scoreboard,
    /// TCP Boston's coding of segments into shards (`boston/`); None: plain TCP.
    boston: Option<Box<BostonTx>>,
    pub stats: SenderStats,
    /// When data last left (RFC 2581's idle test for an application that writes later).
    last_send: Time,
    /// What a traced flow recorded since the driver last drained it (`trace_mut`).
    trace: Option<Box<SenderTrace>>,
    /// Policies of a connection with a reservation (`reserved.rs`), if any.
    pub reserved: Option<Box<Reserved>>,
    /// The delivery log and pacer of a controller that samples delivery (`sender_sampling.rs`).
    sampling: Option<Box<Sampling>>,
    /// ECN's state (`sender_ecn.rs`).
    ecn: EcnTx,
}

impl TcpSender {
    /// `tick_phase` is where this host's coarse clock ticks fall (ignored for fine timers).
    pub fn new(
        cfg: impl Into<Arc<TcpConfig>>,
        flow: u32,
        isn: u32,
        total: Option<u64>,
        tick_phase: Dur,
        trace: bool,
    ) -> Self {
        let cfg = cfg.into();
        let rtt = Estimator::for_config(&cfg, tick_phase);
        let mss = cfg.mss as u64;
        let burst_left = cfg.max_burst.unwrap_or(u32::MAX);
        let cc = Controller::new(&cfg, isn as u64);
        Self {
            win: Window { cwnd: cfg.initial_cwnd as u64 * mss, ssthresh: cfg.initial_ssthresh },
            peer_wnd: cfg.advertised_window() as u64,
            max_peer_wnd: cfg.advertised_window() as u64,
            wnd: cfg.advertised_window(),
            recovery: Recovery::new(&cfg),
            usable_is_cwnd: cc.usable_is_cwnd(),
            cc,
            boston: cfg.boston.map(|b| Box::new(BostonTx::new(b))),
            cfg,
            flow,
            isn,
            peer_isn: 0,
            gates: Gates { plain: false, ctl_due: false, ack_due: false, state: SenderState::Closed },
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            total,
            dupacks: 0,
            rtt,
            timing: None,
            syn_timing: None,
            rto_at: None,
            backoff: 0,
            retransmit: None,
            extra_new: 0,
            burst_left,
            window_left: u32::MAX,
            scoreboard: Scoreboard::default(),
            stats: SenderStats::default(),
            last_send: 0,
            trace: trace.then(Box::default),
            reserved: None,
            sampling: None,
            ecn: EcnTx::default(),
        }
        .with_sampling()
    }

    /// The application opens the connection (or starts sending, without a handshake).
    pub fn open(&mut self, peer_isn: u32) {
        self.peer_isn = peer_isn;
        self.ecn_open();
        self.gates.plain = self.uses_no_rare_feature();
        self.gates.state = match self.cfg.handshake {
            Handshake::None => SenderState::Established,
            Handshake::SenderOpens => {
                self.gates.ctl_due = true;
                SenderState::SynSent
            }
            Handshake::ReceiverOpens => SenderState::Listen,
        };
    }

    pub fn state(&self) -> SenderState {
        self.gates.state
    }
    pub fn window(&self) -> Window {
        self.win
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// Highest stream offset ever sent, + 1.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// ECN is in use on this connection (the `ecn` knob, negotiated if there is a handshake).
    pub fn ecn_on(&self) -> bool {
        self.ecn.on
    }
    /// The `ecn` knob is on (whatever the negotiation gave).
    pub fn ecn_capable(&self) -> bool {
        self.cfg.ecn
    }
    /// TCP Boston: the cells it sent, retransmitted and repeated; None for plain TCP.
    pub fn boston_counters(&self) -> Option<super::boston::BostonCounters> {
        self.boston.as_ref().map(|b| b.counters())
    }
    /// The records not yet drained (none for an untraced flow).
    pub fn take_trace(&mut self) -> (Vec<TraceRow>, Vec<SendRecord>) {
        self.trace.as_mut().map_or_else(Default::default, |t| t.take())
    }
    /// A traced flow's buffer of records, for the driver to drain (into files) as it goes.
    pub fn trace_mut(&mut self) -> Option<&mut SenderTrace> {
        self.trace.as_deref_mut()
    }

    /// Whether none of these is in use: MaxBurst, a reservation, delivery sampling and pacing
    /// (Vegas, BBR), SACK (the scoreboard and the policies' own sends), ns-2 NewReno's budget
    /// of sends per ACK, ECN, TCP Boston. Each is fixed when the connection opens (ECN's
    /// negotiation only turns on what the knob allows), so a plain sender stays plain.
    fn uses_no_rare_feature(&self) -> bool {
        self.cfg.max_burst.is_none()
            && self.reserved.is_none()
            && self.sampling.is_none()
            && !self.cfg.recovery.uses_sack()
            && !self.recovery.shapes_sends()
            && !self.recovery.may_cap_window_sends()
            && !self.cfg.ecn
            && self.boston.is_none()
    }

    /// Whether the sender took its plain paths (decided in `open`).
    pub fn is_plain(&self) -> bool {
        self.gates.plain
    }

    /// ns-2.35's `bugfix_ss_` lets dupack_action fast-retransmit while `highest_ack_ == 0`:
    /// with a SYN (packet 0) nothing but the SYN is acknowledged, without one the first packet.
    fn bugfix_ss_exempt(&self) -> bool {
        let first = if self.cfg.handshake == Handshake::None { self.cfg.mss as u64 } else { 0 };
        self.cfg.bugfix_ss && self.snd_una == first
    }

    /// True once every byte the application wrote has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.total.is_some_and(|t| self.gates.state == SenderState::Established && self.snd_una >= t)
    }

    /// The application writes `bytes` more (a sender made with `total` Some). With
    /// `idle_restart`, a connection that has sent nothing for more than an RTO and has
    /// nothing outstanding restarts from the initial window (RFC 2581 Sec. 4.1); without it
    /// the window is kept, as ns-2.1b3 does.
    pub fn app_write(&mut self, now: Time, bytes: u64, idle_restart: bool) {
        let written = self.total.get_or_insert(0);
        let idle = self.snd_una >= *written && now.saturating_sub(self.last_send) > self.rtt.rto();
        *written += bytes;
        if idle_restart && idle && self.stats.data_segments > 0 {
            self.win.cwnd = self.win.cwnd.min(self.cfg.initial_cwnd as u64 * self.cfg.mss as u64);
            self.record(now);
        }
    }

    /// The application stops writing: the stream ends where the sender has got to (the highest
    /// offset sent), as ns-2's `advance 0` sets curseq_ to maxseq_. What was sent is still
    /// resent until acknowledged. Returns the stream's end.
    pub fn stop_writing(&mut self) -> u64 {
        let end = self.total.map_or(self.snd_max, |t| t.min(self.snd_max));
        self.total = Some(end);
        end
    }

    pub fn next_deadline(&self) -> Option<Time> {
        let rto = match self.reserved.as_ref().and_then(|r| r.next_deadline()) {
            Some(r) => Some(self.rto_at.map_or(r, |t| t.min(r))),
            None => self.rto_at,
        };
        match self.pacing_deadline() {
            Some(p) => Some(rto.map_or(p, |t| t.min(p))),
            None => rto,
        }
    }

    /// A packet from the receiver.
    ///
    /// An ACK without SYN reaching a plain established sender (nearly every packet a sender
    /// gets) goes straight to `on_ack`, which is what `on_packet_general` does with it: that
    /// test is inlined into the driver, and only the other packets pay the general path's
    /// call (issue 26: about 4 instructions per ACK, 2 per packet on htsim's dumbbells).
    #[inline(always)]
    pub fn on_packet(&mut self, now: Time, pkt: &Packet) {
        let plain_ack = pkt.flags & (flags::SYN | flags::ACK) == flags::ACK;
        if self.gates.plain && plain_ack && self.gates.state == SenderState::Established {
            return self.on_ack(now, pkt);
        }
        self.on_packet_general(now, pkt)
    }

    /// `on_packet` for any packet and sender: the reference its straight path follows.
    #[inline(never)]
    fn on_packet_general(&mut self, now: Time, pkt: &Packet) {
        if !self.gates.plain {
            self.burst_left = self.cfg.max_burst.unwrap_or(u32::MAX);
            if let Some(r) = &mut self.reserved {
                r.on_ack();
            }
        }
        if pkt.is_syn() {
            self.on_syn(now, pkt);
            return;
        }
        if !pkt.has_ack() {
            return;
        }
        if self.gates.state == SenderState::SynReceived {
            if pkt.ack != self.isn.wrapping_add(1) {
                return;
            }
            self.become_established(now, true);
            return;
        }
        if self.gates.state == SenderState::Established {
            self.on_ack(now, pkt);
            if !self.gates.plain {
                self.window_left = self.recovery.window_sends().unwrap_or(u32::MAX);
            }
        }
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet) {
        let ack = unwrap(self.isn.wrapping_add(1), pkt.ack, self.snd_una);
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore, as RFC 793 says
        }
        self.peer_wnd = pkt.wnd as u64;
        self.max_peer_wnd = self.max_peer_wnd.max(self.peer_wnd);
        let dupack = ack == self.snd_una && pkt.payload == 0 && self.snd_max > self.snd_una;
        if !self.gates.plain {
            self.on_ack_with_features(now, ack, pkt, dupack);
            return;
        }
        // What `on_ack_with_features` does when no SACK, delivery sampling, TCP Boston or ECN
        // is in use.
        if ack > self.snd_una {
            self.on_new_ack(now, ack, pkt.ts);
        } else if dupack {
            self.on_dupack(now);
        }
        self.record(now);
    }

    /// `on_ack` with the rare features: the SACK scoreboard, delivery sampling, TCP Boston's
    /// partial ACKs, ECN. Out of line, so a plain sender's every-ACK code does not carry them.
    #[inline(never)]
    fn on_ack_with_features(&mut self, now: Time, ack: u64, pkt: &Packet, mut dupack: bool) {
        let sack_check =
            self.cfg.dupack_needs_new_sack && self.cfg.recovery.uses_sack() && !self.recovery.in_recovery();
        let sacked_before = if sack_check { self.scoreboard.sacked_bytes() } else { 0 };
        if self.cfg.recovery.uses_sack() {
            self.update_scoreboard(ack, pkt);
        }
        if sack_check && self.scoreboard.sacked_bytes() <= sacked_before {
            // ns-2.35's Sack1 counts a duplicate only if scb_->CheckUpdate(): its SACK blocks
            // report data not SACKed before (tcp-sack1.cc 1.41, 2000/07/23).
            dupack = false;
        }
        let sample = self.sample_ack(now, ack, pkt, dupack);
        let win_before = self.win;
        // TCP Boston's partial ACK: how many shards of a segment the receiver holds.
        let partial = (pkt.shards.held > 0).then(|| unwrap(self.isn.wrapping_add(1), pkt.shards.seg, self.snd_una));
        if let (Some(seg), Some(b)) = (partial, &mut self.boston) {
            b.on_partial_ack(seg, pkt.shards.held);
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, pkt.ts);
        } else if dupack {
            self.on_dupack(now);
        }
        if let Some(seg) = partial {
            self.answer_partial(seg, pkt.shards.held);
        }
        if self.ecn.on {
            self.ecn_on_ack(pkt, win_before);
        }
        if let Some(s) = sample {
            self.after_sample(&s);
        }
        self.record(now);
    }

    /// A duplicate ACK: count it, and let the recovery policy fast-retransmit (or send one
    /// more segment, limited transmit). Kept out of `on_ack`, whose every-ACK path it would
    /// otherwise weigh on (registers and stack it needs only a few times per window).
    #[cold]
    fn on_dupack(&mut self, now: Time) {
        self.dupacks += 1;
        let threshold = self.cfg.dupack_threshold;
        let count = self.dupacks;
        let before = self.win;
        let reduced = self.ecn_window_reduced();
        let mut cx = ctx!(self);
        cx.window_reduced = reduced;
        if self.recovery.on_dupack(&mut cx, count, threshold) {
            if let Some(r) = &self.reserved {
                r.after_fast_retransmit(&mut self.win, before, self.rtt.srtt_ns(), self.peer_wnd, self.cfg.mss as u64);
            }
            self.stats.fast_retransmits += 1;
            if !reduced {
                self.ecn_reduced();
            }
            // The RTT measurement stops (Karn); the timer restarts when the retransmission
            // leaves, unless the stack re-arms it now (ns-1's reset_rtx_timer, backing off),
            // or the knob `fast_retransmit_timer` says otherwise.
            self.timing = None;
            self.rto_at = match self.cfg.fast_retransmit_timer {
                FastRetransmitTimer::Clock => self.rtt.on_fast_retransmit(now, &mut self.backoff),
                FastRetransmitTimer::Backoff => Some(self.rtt.on_timeout(now, &mut self.backoff)),
                FastRetransmitTimer::Keep => Some(self.rtt.deadline(now, self.backoff)),
            };
        } else if self.cfg.limited_transmit && count < threshold {
            self.limited_transmit(count);
        }
    }

    /// TCP Boston with `boston_partial = "fresh"`: the partial ACK for the first
    /// unacknowledged segment sends that segment's fresh shards now, ahead of anything else
    /// and whatever the window says (`BostonTx::answers_at_once` has the rule).
    fn answer_partial(&mut self, seg: u64, held: u16) {
        let Some(b) = &mut self.boston else { return };
        if b.answers_at_once(seg, held, self.snd_una, self.snd_max) && self.retransmit != Some(seg) {
            self.retransmit = Some(seg);
            self.timing = None;
            self.rto_at = None;
        }
    }

    /// Fold the ACK's SACK blocks into the scoreboard (SACK variants only). Out of line: a
    /// sender without SACK does not carry its code and stack in `on_ack`.
    #[inline(never)]
    fn update_scoreboard(&mut self, ack: u64, pkt: &Packet) {
        let (blocks, n) = self.sack_offsets(ack, pkt);
        let floor = ack.max(self.snd_una);
        self.scoreboard.update(floor, blocks[..n].iter().copied());
    }

    /// The ACK's SACK blocks as stream offsets, and how many there are.
    fn sack_offsets(&self, ack: u64, pkt: &Packet) -> ([(u64, u64); crate::packet::MAX_SACK_BLOCKS], usize) {
        let mut blocks = [(0u64, 0u64); crate::packet::MAX_SACK_BLOCKS];
        let base = self.isn.wrapping_add(1);
        for (b, w) in blocks.iter_mut().zip(pkt.sack_blocks()) {
            *b = (unwrap(base, w.left, ack), unwrap(base, w.right, ack));
        }
        (blocks, pkt.n_sack as usize)
    }

    /// An ACK of new data up to `ack`, echoing the timestamp `echoed`. Inlined into both of
    /// `on_ack`'s paths: most ACKs are new ACKs, and its call and frame cost about 20.
    #[inline(always)]
    fn on_new_ack(&mut self, now: Time, ack: u64, echoed: Time) {
        // ns restarts the timer from the estimate before this ACK's sample (rtt_ns2.rs).
        let early_deadline = self.rtt.deadline_before_update(now, self.backoff);
        let timestamps = self.cfg.rtt_sample == RttSample::Timestamp;
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                // With timestamps the timed segment (rtt_active_, rtt_seq_) only clears the
                // backoff; the sample comes from the echo below (ns-2 newack: `if
                // (!ts_option_) rtt_update(now - rtt_ts_)`).
                if !timestamps {
                    self.rtt.sample(sent, now);
                    self.cc.on_rtt(now, self.rtt.srtt_ns());
                }
                if let Some(r) = &mut self.reserved {
                    r.on_rtt_sample(now - sent);
                }
                self.timing = None;
                self.backoff = 0;
            }
        }
        if timestamps {
            // ns-1 newack: `rtt_update(now - pkt->bd_.tcp_.ts_)` on every ACK of new data.
            self.rtt.sample_echo(echoed, now);
            self.cc.on_rtt(now, self.rtt.srtt_ns());
        }
        let acked = ack - self.snd_una;
        self.snd_una = ack;
        if let Some(b) = &mut self.boston {
            b.forget_below(ack);
        }
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        // One dispatch for a plain ACK: a policy whose new ACK is plain is not in recovery
        // (`LossRecovery::new_ack_is_plain`), so its duplicate count resets below.
        let (verdict, in_recovery) = if self.recovery.new_ack_is_plain() {
            (AckVerdict::GROW, false)
        } else {
            let verdict = self.recovery.on_new_ack(&mut ctx!(self), acked);
            (verdict, self.recovery.in_recovery())
        };
        if verdict.grow && self.win.cwnd < MAX_CWND {
            self.cc.on_ack(now, &mut self.win, acked, self.cfg.mss as u64);
        }
        if self.retransmit.is_some_and(|r| r < self.snd_una) {
            self.retransmit = None;
        }
        if !in_recovery {
            self.dupacks = 0;
        }
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if verdict.restart_timer || self.rto_at.is_none() {
            self.rto_at = Some(early_deadline.unwrap_or_else(|| self.rtt.restart_deadline(now, self.backoff)));
        }
    }

    /// The retransmission timer: call at or after `next_deadline()`.
    pub fn on_timer(&mut self, now: Time) {
        if let Some(r) = &mut self.reserved {
            r.on_timer(now);
        }
        match self.rto_at {
            Some(t) if now >= t => {}
            _ => return,
        }
        // Back off, and learn when the retransmission's timer fires (the stacks differ in
        // which comes first: rtt_ns1.rs).
        let deadline = self.rtt.on_timeout(now, &mut self.backoff);
        match self.gates.state {
            SenderState::SynSent | SenderState::SynReceived => {
                self.stats.syn_retransmits += 1;
                self.syn_timing = None;
                self.gates.ctl_due = true;
                self.rto_at = None;
                if self.cfg.ns_syn {
                    self.ns_syn_timeout();
                }
            }
            SenderState::Established if self.snd_max > self.snd_una => {
                self.stats.timeouts += 1;
                let mss = self.cfg.mss as u64;
                // The window before the timeout, without fast recovery's inflation.
                let before = Window { cwnd: self.win.cwnd - self.recovery.inflation(), ..self.win };
                let flight = self.snd_max - self.snd_una;
                let loss = LossState {
                    win: before,
                    peer_wnd: self.peer_wnd,
                    flight,
                    mss,
                    snd_una: self.snd_una,
                    snd_max: self.snd_max,
                };
                self.win = self.cc.on_timeout(&loss);
                self.ecn_reduced();
                self.snd_nxt = self.snd_una; // go back N
                self.retransmit = None;
                self.dupacks = 0;
                self.timing = None;
                self.extra_new = 0;
                self.burst_left = self.cfg.max_burst.unwrap_or(u32::MAX);
                self.window_left = u32::MAX;
                self.recovery.on_timeout(&mut ctx!(self));
                if let Some(r) = &self.reserved {
                    r.after_timeout(&mut self.win, before, self.rtt.srtt_ns(), self.peer_wnd, mss);
                }
                self.rto_at = Some(deadline);
                self.record(now);
            }
            _ => self.rto_at = None,
        }
    }

    /// ns-2's one-way SYN timing out (knob `ns_syn`): TcpAgent::timeout runs as for data,
    /// slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) from the SYN's window of one packet, so
    /// ssthresh_ = max(2, int(1 / 2)) and cwnd_ = 1 until the SYN's ACK.
    fn ns_syn_timeout(&mut self) {
        let mss = self.cfg.mss as u64;
        let loss = LossState {
            win: Window { cwnd: mss, ..self.win },
            peer_wnd: self.peer_wnd,
            flight: mss,
            mss,
            snd_una: 0,
            snd_max: 0,
        };
        self.win = self.cc.on_timeout(&loss);
    }

    #[inline]
    fn record(&mut self, now: Time) {
        if let Some(trace) = &mut self.trace {
            trace.row(TraceRow {
                time: now,
                cwnd: self.win.cwnd,
                ssthresh: self.win.ssthresh,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                rtt_sample: self.rtt.take_sample(),
                srtt: self.rtt.srtt_ns(),
                rto: self.rtt.rto(),
                flight: self.snd_max - self.snd_una,
            });
        }
    }
}

#[path = "sender_output.rs"]
mod output;

#[path = "sender_sampling.rs"]
mod sampling;

#[path = "sender_handshake.rs"]
mod handshake;

#[path = "sender_ecn.rs"]
mod ecn;
pub use ecn::EcnTx;
use sampling::Sampling;

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
