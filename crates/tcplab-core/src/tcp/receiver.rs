//! The data receiver: reassembly, cumulative ACKs and delayed-ACK timing, sans-IO.
//!
//! The application reads every in-order byte at once, so the advertised window stays at the
//! buffer size (4.4BSD keeps out-of-order data in a separate reassembly queue).

use std::sync::Arc;

use crate::packet::{flags, payload_tag, Dir, Ecn, Packet, PacketSink, SackBlock, MAX_SACK_BLOCKS};
use crate::time::{next_tick_after, Dur, Time};

use super::boston::{BostonRx, Progress};
use super::config::{Handshake, TcpConfig};
use super::sender::EcnTx;
use super::seq::{to_wire, unwrap};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiverState {
    Closed,
    /// Waiting for the sender's SYN.
    Listen,
    /// We sent a SYN (we open) and wait for the SYN-ACK.
    SynSent,
    Established,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub acks_sent: u64,
    /// Data segments that arrived above a hole.
    pub out_of_order: u64,
    /// Data segments that held no new byte.
    pub duplicates: u64,
    /// Segments whose payload digest did not match their stream range (must stay 0).
    pub corrupt: u64,
    /// Boston packets that arrived incomplete and left their segment incomplete.
    pub partial_segments: u64,
    /// Data segments that arrived marked Congestion Experienced (`ecn` only).
    pub ce_received: u64,
}

#[derive(Debug, Clone)]
pub struct TcpReceiver {
    cfg: Arc<TcpConfig>,
    flow: u32,
    isn: u32,
    /// The window every ACK advertises (`TcpConfig::advertised_window`, a function of the
    /// shared configuration alone, which never changes: taken once instead of per ACK).
    wnd: u32,
    /// Whether ACKs carry SACK blocks (`RecoveryKind::uses_sack`, taken once as `wnd` is).
    /// Without them `recent` is never read, so it is not kept, and an ACK behind a hole is
    /// the plain one (issue 26).
    sack: bool,
    /// The sender's ISN: stream offset 0 is `peer_isn + 1`.
    peer_isn: u32,
    state: ReceiverState,
    rcv_nxt: u64,
    /// Out-of-order ranges [start, end), sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    /// Starts of the most recent out-of-order segments, newest first (for SACK ordering).
    recent: Vec<u64>,
    /// In-order bytes not yet acknowledged.
    unacked: u64,
    ack_now: bool,
    delack_at: Option<Time>,
    delack_phase: Dur,
    syn_due: bool,
    syn_at: Option<Time>,
    syn_backoff: u32,
    total: Option<u64>,
    completed_at: Option<Time>,
    /// TCP Boston's collection of shards into segments (`boston/`); None: plain TCP.
    boston: Option<Box<BostonRx>>,
    /// A partial ACK to send: (wire seq of the segment, shards held).
    partial_ack: Option<(u32, u16)>,
    /// The timestamp the next ACK echoes: ns's TCPSink copies the `ts_` of the packet that
    /// triggered the ACK (Acker::build_ack), and DelAckSink's timer ACKs the packet it held,
    /// which is the latest arrival here too, since any later one is ACKed at once.
    echo_ts: Time,
    /// ECN is in use on this connection (RFC 3168 sec. 6.1.1).
    ecn_on: bool,
    /// A CE mark arrived and no CWR since: every ACK carries ECE (sec. 6.1.3).
    ecn_echo: bool,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: impl Into<Arc<TcpConfig>>, flow: u32, isn: u32, total: Option<u64>, delack_phase: Dur) -> Self {
        let cfg = cfg.into();
        Self {
            boston: cfg.boston.map(|b| Box::new(BostonRx::new(b, flow))),
            wnd: cfg.advertised_window(),
            sack: cfg.recovery.uses_sack(),
            cfg,
            flow,
            isn,
            peer_isn: 0,
            state: ReceiverState::Closed,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            unacked: 0,
            ack_now: false,
            delack_at: None,
            delack_phase,
            syn_due: false,
            syn_at: None,
            syn_backoff: 0,
            total,
            completed_at: None,
            partial_ack: None,
            echo_ts: 0,
            ecn_on: false,
            ecn_echo: false,
            stats: ReceiverStats::default(),
        }
    }

    pub fn open(&mut self, peer_isn: u32) {
        self.peer_isn = peer_isn;
        // Without a handshake both ends are ECN-capable when the knob is on.
        self.ecn_on = self.cfg.ecn && self.cfg.handshake == Handshake::None;
        self.state = match self.cfg.handshake {
            Handshake::None => ReceiverState::Established,
            Handshake::SenderOpens => ReceiverState::Listen,
            Handshake::ReceiverOpens => {
                self.syn_due = true;
                ReceiverState::SynSent
            }
        };
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn completed_at(&self) -> Option<Time> {
        self.completed_at
    }

    /// The sender's application stopped at `now` and the stream ends at offset `end`: the
    /// flow completes once everything before it is here (now, if it already is).
    pub fn end_stream(&mut self, now: Time, end: u64) {
        self.total = Some(self.total.map_or(end, |t| t.min(end)));
        if self.rcv_nxt >= end && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    pub fn state(&self) -> ReceiverState {
        self.state
    }

    /// Whether `poll_transmit` would return nothing (no SYN or ACK due): only `on_packet`,
    /// `on_partial_packet` and `on_timer` make a packet due (the driver's `pump_sender`
    /// relies on it; `pump_ends` asks this before it polls).
    pub fn is_quiet(&self) -> bool {
        !self.syn_due && !self.ack_now
    }

    /// The receiver's earliest timer: moved only by `on_packet`, `on_partial_packet`,
    /// `on_timer` and a `poll_transmit` that returns a packet (the driver relies on it).
    pub fn next_deadline(&self) -> Option<Time> {
        match (self.delack_at, self.syn_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn on_timer(&mut self, now: Time) {
        if self.delack_at.is_some_and(|t| now >= t) {
            self.delack_at = None;
            self.ack_now = true;
        }
        if self.syn_at.is_some_and(|t| now >= t) {
            self.syn_at = None;
            self.syn_backoff += 1;
            self.syn_due = true;
        }
    }

    /// A Boston packet of which only the cells at `positions` arrived (0 is the header cell).
    pub fn on_partial_packet(&mut self, now: Time, pkt: &Packet, positions: &[u16]) {
        self.echo_ts = pkt.ts;
        if self.ecn_on {
            self.note_ecn(pkt);
        }
        if self.state == ReceiverState::Listen {
            self.state = ReceiverState::Established;
        }
        if self.state == ReceiverState::Established {
            self.on_data_cells(now, pkt, Some(positions));
        }
    }

    /// TCP Boston: the first segment rebuilt from coded shards that did not decode to the
    /// bytes sent (a broken invariant), once.
    pub fn take_decode_failure(&mut self) -> Option<String> {
        self.boston.as_mut().and_then(|b| b.take_failure())
    }

    #[inline]
    pub fn on_packet(&mut self, now: Time, pkt: &Packet) {
        if pkt.is_syn() {
            self.on_syn(pkt);
            return;
        }
        if pkt.payload == 0 {
            return;
        }
        self.echo_ts = pkt.ts;
        if self.ecn_on {
            self.note_ecn(pkt);
        }
        if self.state == ReceiverState::Listen {
            // The sender's first data segment completes the handshake.
            self.state = ReceiverState::Established;
        }
        if self.state == ReceiverState::Established {
            match self.boston {
                None => self.on_plain_data(now, pkt),
                Some(_) => self.on_data_cells(now, pkt, None),
            }
        }
    }

    /// A data segment (`payload > 0`) of plain TCP (no Boston codec). The common case is
    /// taken here, before `on_data`'s general one (issue 26: about 40 instructions fewer per
    /// segment): the next segment in order with no hole above it, so nothing to reassemble
    /// and no SACK state (`recent` empties whenever `ooo` does: a start stays in `recent`
    /// only while a range of `ooo` holds it). Its offset is `rcv_nxt` itself, which is what
    /// `unwrap` would return for that wire value.
    #[inline]
    fn on_plain_data(&mut self, now: Time, pkt: &Packet) {
        if pkt.seq != to_wire(self.peer_isn.wrapping_add(1), self.rcv_nxt) || !self.ooo.is_empty() {
            return self.on_data(now, pkt);
        }
        debug_assert!(self.recent.is_empty(), "flow {}: SACK starts with no hole", self.flow);
        if pkt.tag != payload_tag(self.flow, self.rcv_nxt, pkt.payload) {
            self.stats.corrupt += 1;
            return;
        }
        self.rcv_nxt += pkt.payload as u64;
        self.unacked += pkt.payload as u64;
        self.after_in_order(now, false);
    }

    /// Data, whole or (Boston) as the cells that arrived.
    fn on_data_cells(&mut self, now: Time, pkt: &Packet, positions: Option<&[u16]>) {
        let Some(boston) = self.boston.as_deref_mut().filter(|_| pkt.shards.m > 0) else {
            return self.on_data(now, pkt);
        };
        let off = unwrap(self.peer_isn.wrapping_add(1), pkt.seq, self.rcv_nxt);
        let end = off + pkt.payload as u64;
        let held_already = end <= self.rcv_nxt || self.ooo.iter().any(|&(s, e)| s <= off && end <= e);
        if held_already {
            self.stats.duplicates += 1;
            self.ack_now = true;
            return;
        }
        match boston.on_packet(off, pkt, positions) {
            Progress::Complete => self.on_data(now, pkt),
            Progress::Partial(held) => {
                // The cumulative ACK stays put (a duplicate ACK to the sender), carrying the
                // count of shards held.
                self.stats.partial_segments += 1;
                self.partial_ack = Some((pkt.seq, held));
                self.ack_now = true;
            }
        }
    }

    /// A data segment's ECN signals (sec. 6.1.3): CWR ends the echo, then a CE mark (on this
    /// very segment too) starts it again. A CE mark is ACKed at once, delayed ACKs or not:
    /// RFC 3168 says nothing of the delay; Linux's receiver leaves delayed-ACK mode on a CE
    /// mark (tcp_ecn_check_ce's quick ACK), so the echo is not held back a delayed-ACK timeout.
    #[cold]
    fn note_ecn(&mut self, pkt: &Packet) {
        if pkt.flags & flags::CWR != 0 {
            self.ecn_echo = false;
        }
        if pkt.ecn == Ecn::Ce {
            self.stats.ce_received += 1;
            self.ecn_echo = true;
            self.ack_now = true;
        }
    }

    fn on_syn(&mut self, pkt: &Packet) {
        if self.cfg.ecn && matches!(self.state, ReceiverState::Listen | ReceiverState::SynSent) {
            self.ecn_on = EcnTx::setup_in(pkt, pkt.has_ack());
        }
        match self.state {
            ReceiverState::Listen if !pkt.has_ack() => {
                self.peer_isn = pkt.seq;
                self.syn_due = true; // answer with a SYN-ACK (again, if the SYN was resent)
            }
            ReceiverState::SynSent if pkt.has_ack() && pkt.ack == self.isn.wrapping_add(1) => {
                self.peer_isn = pkt.seq;
                self.state = ReceiverState::Established;
                self.syn_at = None;
                self.ack_now = true;
            }
            ReceiverState::Established if pkt.has_ack() => self.ack_now = true,
            _ => {}
        }
    }

    fn on_data(&mut self, now: Time, pkt: &Packet) {
        let off = unwrap(self.peer_isn.wrapping_add(1), pkt.seq, self.rcv_nxt);
        let end = off + pkt.payload as u64;
        if pkt.tag != payload_tag(self.flow, off, pkt.payload) {
            self.stats.corrupt += 1;
            return;
        }
        if end <= self.rcv_nxt {
            self.stats.duplicates += 1;
            self.ack_now = true;
            return;
        }
        let had_holes = !self.ooo.is_empty();
        if off > self.rcv_nxt {
            self.stats.out_of_order += 1;
            insert_range(&mut self.ooo, off, end);
            if self.sack {
                self.recent.retain(|&r| r != off);
                self.recent.insert(0, off);
                self.recent.truncate(2 * MAX_SACK_BLOCKS);
            }
            self.on_out_of_order(now);
            return;
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        let nxt = self.rcv_nxt;
        self.recent.retain(|&r| r >= nxt);
        if let Some(b) = &mut self.boston {
            b.forget_below(nxt);
        }
        self.unacked += self.rcv_nxt - before;
        self.after_in_order(now, had_holes);
    }

    /// `rcv_nxt` moved (filling `had_holes`, part of a hole, or not): completion and the ACK.
    #[inline]
    fn after_in_order(&mut self, now: Time, had_holes: bool) {
        if self.total.is_some_and(|t| self.rcv_nxt >= t) && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
        match self.cfg.delayed_ack {
            None => self.ack_now = true,
            Some(_) if had_holes => self.ack_now = true, // filled (part of) a hole
            Some(_) if self.unacked >= 2 * self.cfg.mss as u64 => self.ack_now = true,
            Some(d) => self.arm_delack(now, d.timeout, d.aligned),
        }
    }

    fn on_out_of_order(&mut self, now: Time) {
        match self.cfg.delayed_ack {
            Some(d) if !d.immediate_on_out_of_order => self.arm_delack(now, d.timeout, d.aligned),
            _ => self.ack_now = true,
        }
    }

    fn arm_delack(&mut self, now: Time, timeout: Dur, aligned: bool) {
        if self.delack_at.is_none() {
            self.delack_at =
                Some(if aligned { next_tick_after(now, timeout, self.delack_phase % timeout) } else { now + timeout });
        }
    }

    /// The SYN or ACK due now, if any: `poll_transmit_into` with an `Option` for its sink
    /// (unit tests look at the packet).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let mut out = None;
        self.poll_transmit_into(now, &mut out);
        out
    }

    /// Write the SYN or ACK due now into `out`, if any; whether there was one.
    #[inline]
    pub fn poll_transmit_into(&mut self, now: Time, out: &mut impl PacketSink) -> bool {
        if self.syn_due {
            self.syn_due = false;
            out.send(self.syn_packet(now));
            return true;
        }
        if !self.ack_now {
            return false;
        }
        self.ack_now = false;
        self.unacked = 0;
        self.delack_at = None;
        self.stats.acks_sent += 1;
        let echo = if self.ecn_echo { flags::ECE } else { 0 };
        // Two sends, so that each ACK goes to `out` from its values: joined with the cold
        // path's packet before one send, every ACK was built in a stack record and copied
        // whole into the sink, a failed store forward per 16 bytes (issue 26). The cold one
        // is sent here, not in `sack_ack`: a sink passed to a call that is not inlined lives
        // in memory, and the driver's (`Outbox`) was stored there for every ACK.
        if self.has_sack_or_partial() {
            out.send(self.sack_ack(flags::ACK | echo));
        } else {
            out.send(self.plain_packet(flags::ACK | echo));
        }
        self.partial_ack = None; // a partial count rides on one ACK only
        true
    }

    fn syn_packet(&mut self, now: Time) -> Packet {
        let syn_ack = self.state != ReceiverState::SynSent;
        let mut p = self.packet(flags::SYN | EcnTx::setup_out(self.cfg.ecn, syn_ack, self.ecn_on));
        p.seq = self.isn;
        if !syn_ack {
            p.ack = 0;
            let rto = self.cfg.initial_rto << self.syn_backoff.min(6);
            self.syn_at = Some(now + rto.min(self.cfg.max_rto));
        } else {
            p.flags |= flags::ACK;
        }
        p
    }

    /// SACK blocks (RFC 2018): the block holding the newest segment first, then the blocks
    /// of the other recent segments, then any others; at most MAX_SACK_BLOCKS.
    fn sack_blocks(&self) -> ([SackBlock; MAX_SACK_BLOCKS], u8) {
        let mut out = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n = 0;
        let base = self.peer_isn.wrapping_add(1);
        let recent = self.recent.iter().filter_map(|&off| self.ooo.iter().find(|&&(s, e)| s <= off && off < e));
        for &(s, e) in recent.chain(self.ooo.iter().rev()) {
            let b = SackBlock { left: to_wire(base, s), right: to_wire(base, e) };
            if n < MAX_SACK_BLOCKS && !out[..n].contains(&b) {
                out[n] = b;
                n += 1;
            }
        }
        (out, n as u8)
    }

    /// An ACK (or SYN) carrying `flags`, with its SACK blocks and partial count if due.
    fn packet(&self, flags: u8) -> Packet {
        let p = self.plain_packet(flags);
        if self.has_sack_or_partial() {
            return self.with_sack_and_partial(p);
        }
        p
    }

    /// Whether an ACK now carries SACK blocks (SACK in use and a hole above `rcv_nxt`) or a
    /// Boston partial count (`with_sack_and_partial`): exactly when that adds something to
    /// the plain ACK (issue 26: a NewReno receiver's ACKs behind a hole, a fifth of them
    /// at 100 flows, went the cold way for nothing, about 5 instructions per packet).
    #[inline(always)]
    fn has_sack_or_partial(&self) -> bool {
        self.sack_due() || self.partial_ack.is_some()
    }

    /// SACK blocks go on the next ACK: SACK in use and a hole above `rcv_nxt`.
    #[inline(always)]
    fn sack_due(&self) -> bool {
        self.sack && !self.ooo.is_empty()
    }

    /// An ACK (or SYN) carrying `flags`, without SACK blocks or a partial count. Nearly every
    /// ACK is this, built from the connection's constants and three fields that move; SACK
    /// blocks and a Boston partial count are added apart (issue 26: building the plain ACK
    /// without testing and copying them saves about 20 instructions per ACK).
    #[inline(always)]
    fn plain_packet(&self, flags: u8) -> Packet {
        Packet {
            flow: self.flow,
            dir: Dir::Reverse,
            route_pos: 0,
            seq: self.isn.wrapping_add(1),
            ack: to_wire(self.peer_isn.wrapping_add(1), self.rcv_nxt),
            wnd: self.wnd,
            payload: 0,
            wire_bytes: self.cfg.ack_bytes,
            flags,
            n_sack: 0,
            retransmit: false,
            marked: false,
            ecn: crate::packet::Ecn::NotEct,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            tag: 0,
            cell: Default::default(),
            shards: Default::default(),
            ts: self.echo_ts,
        }
    }

    /// `poll_transmit_into`'s ACK with SACK blocks or a partial count (after a loss), out of
    /// the plain ACK's way.
    #[cold]
    #[inline(never)]
    fn sack_ack(&self, flags: u8) -> Packet {
        self.with_sack_and_partial(self.plain_packet(flags))
    }

    /// `p` with the SACK blocks (if the variant uses SACK) and their option bytes, and a
    /// Boston partial count. By value and inlined, so the packet stays in registers.
    #[inline(always)]
    fn with_sack_and_partial(&self, mut p: Packet) -> Packet {
        if self.sack_due() {
            (p.sack, p.n_sack) = self.sack_blocks();
            if p.n_sack > 0 {
                // Option bytes: kind, length, 8 per block, padded to a multiple of 4 with NOPs.
                p.wire_bytes += (2 + 8 * p.n_sack as u32).div_ceil(4) * 4;
            }
        }
        if let Some((seg, held)) = self.partial_ack {
            p.shards.seg = seg;
            p.shards.held = held;
        }
        p
    }
}

/// Insert [s, e) into sorted disjoint ranges, merging overlaps and neighbours.
pub fn insert_range(ranges: &mut Vec<(u64, u64)>, s: u64, e: u64) {
    let i = ranges.partition_point(|&(_, re)| re < s);
    // The common cases without `splice`'s general move (issue 26: about 60 instructions of
    // its 97 per out-of-order segment): above every range (the next segment above a hole),
    // or touching one range only (it grows).
    match ranges.get(i) {
        None => return ranges.push((s, e)),
        Some(&(rs, re)) if ranges.get(i + 1).is_none_or(|&(ns, _)| ns > e) && rs <= e => {
            ranges[i] = (s.min(rs), e.max(re));
            return;
        }
        _ => {}
    }
    let mut j = i;
    let (mut ns, mut ne) = (s, e);
    while j < ranges.len() && ranges[j].0 <= e {
        ns = ns.min(ranges[j].0);
        ne = ne.max(ranges[j].1);
        j += 1;
    }
    ranges.splice(i..j, std::iter::once((ns, ne)));
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
