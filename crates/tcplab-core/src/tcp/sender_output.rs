//! The sender's output: what leaves next (`poll_transmit`), how big it may be, and how each
//! segment is built. A child module of `sender`, so it works on the sender's own fields.

use crate::packet::{flags, payload_tag, Dir, Packet, PacketSink, SackBlock, MAX_SACK_BLOCKS};
use crate::time::Time;

use super::super::recovery::{Ctx, SendChoice};
use super::super::seq::to_wire;
use super::{SendRecord, SenderState, TcpSender};

/// What a poll sends (`TcpSender::poll_plan`).
enum Plan {
    /// Nothing: a plain sender's window (and limited transmit) is shut.
    Nothing,
    /// A plain sender's window send of this many new bytes (`new_data_packet`).
    Window(u64),
    /// Whatever `poll_any` decides.
    Any,
}

impl TcpSender {
    /// The next packet to send now, if any: `poll_transmit_into` with an `Option` for its sink
    /// (unit tests look at the packet).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let mut out = None;
        self.poll_transmit_into(now, &mut out);
        out
    }

    /// Write the next packet to send now into `out`, if any; whether there was one. The
    /// packet goes from its builder's values into the sink (the driver's: its pool slot), never
    /// through a record on the stack copied whole (`PacketSink`, issue 26).
    ///
    /// Inlined into the driver, which asks again after every packet until the answer is None,
    /// so about half of a plain sender's polls find the window shut (`poll_plan`); a window
    /// send is built here too (`new_data_packet`, inlined), and only the other cases pay a
    /// call (`poll_any`).
    #[inline(always)]
    pub fn poll_transmit_into(&mut self, now: Time, out: &mut impl PacketSink) -> bool {
        match self.poll_plan() {
            Plan::Nothing => false,
            Plan::Window(len) => {
                self.new_data_packet(now, len, out);
                true
            }
            Plan::Any => self.poll_any(now, out),
        }
    }

    /// `poll_transmit_into` with a sink made only when a packet leaves (`make`): the driver's
    /// sink (its pool, marks and route) is not built for the poll that finds the window shut,
    /// about half of them (issue 26). The sink is returned with the packet in it.
    #[inline(always)]
    pub fn poll_transmit_lazy<S: PacketSink>(&mut self, now: Time, make: impl FnOnce() -> S) -> Option<S> {
        let len = match self.poll_plan() {
            Plan::Nothing => return None,
            Plan::Window(len) => len,
            Plan::Any => {
                let mut out = make();
                return self.poll_any(now, &mut out).then_some(out);
            }
        };
        let mut out = make();
        self.new_data_packet(now, len, &mut out);
        Some(out)
    }

    /// What a poll does. With no SYN, pure ACK or requested retransmission due, a plain
    /// sender's answer is the window's (or limited transmit's) alone: that test runs inline,
    /// and only the other cases pay `poll_any`'s call (issue 26: the empty poll without the
    /// full poll's call and frame). No memo: the test reads the state as it is.
    #[inline(always)]
    fn poll_plan(&mut self) -> Plan {
        let window_only = self.gates.window_only() && self.retransmit.is_none();
        if !window_only {
            return Plan::Any;
        }
        match self.sendable_len_as::<true>() {
            Some(len) => Plan::Window(len),
            None => match self.limited_transmit_len() {
                Some(len) => Plan::Window(len),
                None => Plan::Nothing,
            },
        }
    }

    /// A plain sender's window send of `len` new bytes, written straight into `out`. Inlined
    /// into the driver's pumps with `poll_transmit_into`: out of line, its call, six saved
    /// registers and spills were a sixth of its instructions, once per segment (issue 26).
    #[inline(always)]
    fn new_data_packet(&mut self, now: Time, len: u64, out: &mut impl PacketSink) {
        debug_assert!(self.gates.plain, "only a plain sender's poll decides on its window alone");
        let (off, len) = self.claim_new(len);
        out.send(self.data_packet::<true>(now, off, len));
    }

    /// `poll_transmit` for whatever its inlined window test does not decide: a SYN or pure ACK
    /// due, a requested retransmission, the handshake, or a sender that is not plain.
    #[inline(never)]
    fn poll_any(&mut self, now: Time, out: &mut impl PacketSink) -> bool {
        if self.gates.ctl_due {
            self.gates.ctl_due = false;
            out.send(self.syn_packet(now));
            return true;
        }
        if self.gates.state != SenderState::Established {
            return false;
        }
        // The segment is chosen first and built in one place, so the packet is written
        // straight into the answer and its builder is inlined here (issue 26).
        let segment = match self.next_data(now) {
            None if self.reserved.is_some() => self.reserved_send(now),
            segment => segment,
        };
        if let Some((off, len)) = segment {
            out.send(self.data_packet::<false>(now, off, len));
            return true;
        }
        if self.gates.ack_due {
            out.send(self.pure_ack());
            return true;
        }
        if self.sampling.is_some() && self.next_piece().is_none() {
            self.note_app_limited();
        }
        false
    }

    /// Whether `poll_transmit`'s answer depends on the sender's state alone: not on the time
    /// (pacing) nor on a reservation's tokens, which the driver sets from outside. Such a
    /// sender that had nothing to send has nothing until one of its `&mut` methods runs.
    pub fn polls_by_state(&self) -> bool {
        self.reserved.is_none() && self.sampling.is_none()
    }

    /// The next data segment (offset, length): a requested retransmission, whatever the
    /// recovery policy chooses, or what the window allows.
    fn next_data(&mut self, now: Time) -> Option<(u64, u64)> {
        if self.gates.plain {
            return self.plain_next_data();
        }
        if self.burst_left == 0 || self.paced_out(now) {
            return None;
        }
        if let Some(segment) = self.requested_retransmit() {
            return Some(segment);
        }
        let choice =
            if self.recovery.shapes_sends() { self.recovery.next_send(&mut ctx!(self)) } else { SendChoice::Window };
        let len = match choice {
            SendChoice::Retransmit(off, len) => return Some((off, len)),
            SendChoice::Nothing => return None,
            SendChoice::NewData => self.new_data_len()?,
            SendChoice::Window => match self.sendable_len().filter(|_| self.window_left > 0) {
                Some(len) if !self.reserved_window_send(now, len) => return None,
                Some(len) => {
                    self.window_left -= 1;
                    len
                }
                None => self.limited_transmit_len()?,
            },
        };
        Some(self.claim_new(len))
    }

    /// `next_data` for a plain sender (`TcpSender::uses_no_rare_feature`): no MaxBurst, pacer,
    /// SACK policy, ns-2 send budget or reservation has a say, so the segment is a requested
    /// retransmission, what the window allows, or limited transmit's one more.
    #[inline]
    fn plain_next_data(&mut self) -> Option<(u64, u64)> {
        if let Some(segment) = self.requested_retransmit() {
            return Some(segment);
        }
        let len = match self.sendable_len_as::<true>() {
            Some(len) => len,
            None => self.limited_transmit_len()?,
        };
        Some(self.claim_new(len))
    }

    /// The next `len` bytes at snd_nxt, as the segment (offset, length) that sends them.
    #[inline]
    fn claim_new(&mut self, len: u64) -> (u64, u64) {
        let off = self.snd_nxt;
        self.snd_nxt += len;
        (off, len)
    }

    /// The segment a fast retransmit (or TCP Boston's partial ACK) asked to resend, if it is
    /// still unacknowledged.
    #[inline]
    fn requested_retransmit(&mut self) -> Option<(u64, u64)> {
        let off = self.retransmit.take()?;
        let unacked = off >= self.snd_una && off < self.snd_max;
        unacked.then(|| (off, (self.snd_max - off).min(self.cfg.mss as u64)))
    }

    /// The new segment limited transmit allowed beyond a full window (`extra_new`), if any.
    fn limited_transmit_len(&mut self) -> Option<u64> {
        if self.extra_new == 0 || self.snd_nxt != self.snd_max {
            return None;
        }
        let len = self.new_data_len()?;
        self.extra_new -= 1;
        Some(len)
    }

    /// Delayed send's gate on a segment the window lets go (`reserved.rs`).
    fn reserved_window_send(&mut self, now: Time, len: u64) -> bool {
        let size = len + self.cfg.header_bytes as u64;
        let resend = self.snd_nxt < self.snd_max;
        resend || self.reserved.as_mut().is_none_or(|r| r.window_send(now, size))
    }

    /// The ACK of the handshake's SYN-ACK when no data can carry it (once per connection).
    #[cold]
    fn pure_ack(&mut self) -> Packet {
        self.gates.ack_due = false;
        self.packet(0, 0, flags::ACK, 0)
    }

    /// Timer-triggered data of a reserved connection: delayed send's one segment at expiry
    /// (when MaxBurst kept the window path shut), or timed send's marked segments beyond cwnd.
    /// Out of line: `poll_transmit` calls it for reserved connections only.
    #[inline(never)]
    fn reserved_send(&mut self, now: Time) -> Option<(u64, u64)> {
        let r = self.reserved.as_mut()?;
        r.start(now);
        let len = if r.take_expired_credit() {
            self.sendable_len()?
        } else {
            let len = self.new_data_len()?;
            let size = len + self.cfg.header_bytes as u64;
            if !self.reserved.as_mut()?.timed_send(size) {
                return None;
            }
            len
        };
        Some(self.claim_new(len))
    }

    /// Limited transmit (RFC 3042) as ns-2.35's send_one does it (`singledup_`, tcp.cc 1.101,
    /// 2000/03/15): on duplicate ACK `dupacks` (1 or 2), one new segment beyond a full window
    /// if `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` (whole packets of cwnd) and the
    /// receiver's window and the data allow it. A window with room sends that segment anyway.
    pub(super) fn limited_transmit(&mut self, dupacks: u32) {
        let mss = self.cfg.mss as u64;
        if self.snd_nxt != self.snd_max || self.sendable_len().is_some() || self.new_data_len().is_none() {
            return;
        }
        let reach = self.snd_una + (self.win.cwnd / mss + dupacks as u64) * mss;
        if self.snd_nxt + mss <= reach {
            self.extra_new += 1;
        }
    }

    /// New data that the receiver's window and the application allow, whatever cwnd says.
    fn new_data_len(&self) -> Option<u64> {
        let limit = self.snd_una + self.peer_wnd.min(self.cfg.snd_buf as u64);
        let piece = self.next_piece()?;
        let room = limit.saturating_sub(self.snd_nxt);
        let len = if self.cfg.boston.is_some() && room < piece { 0 } else { piece.min(room) };
        (len > 0).then_some(len)
    }

    /// The most that may go out at snd_nxt as one segment, whatever the windows say: an MSS,
    /// cut at the end of the data and of the first write. TCP Boston's segments are the
    /// MSS-aligned pieces of the stream and are always resent whole, since a segment's shards
    /// belong to one dispersal.
    fn next_piece(&self) -> Option<u64> {
        self.next_piece_as::<false>()
    }

    /// `next_piece`; `PLAIN`: the sender is plain (`TcpSender::plain`), so TCP Boston's rule
    /// is compiled out of its every-poll test (issue 26).
    #[inline]
    fn next_piece_as<const PLAIN: bool>(&self) -> Option<u64> {
        let mut end = self.total.unwrap_or(u64::MAX);
        if let Some(w) = self.cfg.first_write {
            // A segment never spans the end of the first write: it went out before the rest
            // was written.
            if self.snd_nxt < w {
                end = end.min(w);
            }
        }
        if self.snd_nxt >= end {
            return None;
        }
        let mss = self.cfg.mss as u64;
        let piece = if !PLAIN && self.cfg.boston.is_some() { mss - self.snd_nxt % mss } else { mss };
        Some(piece.min(end - self.snd_nxt))
    }

    /// How many bytes may leave at snd_nxt now: limited by the window and the data, and
    /// never a small segment that only the window cut short (silly-window avoidance).
    fn sendable_len(&self) -> Option<u64> {
        self.sendable_len_as::<false>()
    }

    /// `sendable_len`; `PLAIN` as for `next_piece_as`. The plain copy is inlined into its
    /// callers (`poll_transmit`, `plain_next_data`): every poll's window test without a call.
    /// (The general copy is inlined into `sendable_len`, its one caller.)
    #[inline(always)]
    fn sendable_len_as<const PLAIN: bool>(&self) -> Option<u64> {
        let piece = self.next_piece_as::<PLAIN>()?;
        let cwnd = if self.usable_is_cwnd { self.win.cwnd } else { self.cc.usable(self.win.cwnd, self.cfg.mss as u64) };
        let wnd = cwnd.min(self.peer_wnd).min(self.cfg.snd_buf as u64);
        let room = (self.snd_una + wnd).saturating_sub(self.snd_nxt);
        let len = piece.min(room);
        if len == 0 || (!PLAIN && self.cfg.boston.is_some() && len < piece) {
            return None;
        }
        let resending = self.snd_nxt < self.snd_max;
        let whole = len == piece && (len == self.cfg.mss as u64 || !(self.cfg.nagle && self.snd_nxt > self.snd_una));
        // RFC 1122's sender rule: also send once the window allows half the largest window
        // the receiver ever offered (so a receiver with a buffer below one MSS is served).
        let half_window = 2 * len >= self.max_peer_wnd;
        (whole || resending || half_window || !self.cfg.sws_avoidance).then_some(len)
    }

    /// The data segment at `off`, `len` bytes long, as it leaves now. Inlined into its two
    /// callers, `poll_any` and `new_data_packet`, which hand the packet's values to their sink.
    /// `PLAIN`: the sender is plain, so the rare features' code, which takes the packet's
    /// address (and so would keep it in a stack record), is compiled out (issue 26).
    #[inline(always)]
    fn data_packet<const PLAIN: bool>(&mut self, now: Time, off: u64, len: u64) -> Packet {
        let resend = off < self.snd_max;
        if self.sampling.is_some() {
            self.sampled_send(now, off, len, resend);
        }
        self.stats.data_segments += 1;
        if resend {
            self.stats.retransmits += 1;
        } else if self.timing.is_none() {
            self.timing = Some((off + len, now));
        }
        self.snd_max = self.snd_max.max(off + len);
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rtt.deadline(now, self.backoff));
        }
        self.gates.ack_due = false;
        self.last_send = now;
        if !PLAIN && !self.gates.plain {
            self.burst_left = self.burst_left.saturating_sub(1);
            if self.recovery.shapes_sends() {
                self.recovery.on_sent(&mut ctx!(self), off, len);
            }
        }
        if let Some(trace) = &mut self.trace {
            trace.send(SendRecord { time: now, offset: off, len, retransmit: resend });
        }
        let mut p = self.packet(off, len as u32, flags::ACK, payload_tag(self.flow, off, len as u32));
        p.retransmit = resend;
        // ns TcpAgent::output: every transmission, a retransmission too, carries its own send
        // time (`tcph->ts() = now`), which is what makes Karn's rule unnecessary.
        p.ts = now;
        if off + len == self.total.unwrap_or(u64::MAX) {
            p.flags |= flags::PSH;
        }
        if !PLAIN && !self.gates.plain {
            if self.ecn.on {
                self.ecn_mark_data(&mut p, resend);
            }
            if let Some(b) = &mut self.boston {
                b.encode(&mut p, off, !resend, self.cfg.header_bytes);
            }
        }
        p
    }

    #[cold]
    fn syn_packet(&mut self, now: Time) -> Packet {
        if self.stats.syn_retransmits == 0 {
            self.syn_timing = Some(now);
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rtt.deadline(now, self.backoff));
        }
        let syn_ack = self.gates.state == SenderState::SynReceived;
        let mut p = self.packet(0, 0, flags::SYN | self.ecn_syn_flags(syn_ack), 0);
        p.seq = self.isn;
        if syn_ack {
            p.flags |= flags::ACK;
        } else {
            p.ack = 0;
        }
        p
    }

    fn packet(&self, off: u64, len: u32, flags: u8, tag: u32) -> Packet {
        Packet {
            flow: self.flow,
            dir: Dir::Forward,
            route_pos: 0,
            seq: to_wire(self.isn.wrapping_add(1), off),
            ack: self.peer_isn.wrapping_add(1),
            wnd: self.wnd,
            payload: len,
            wire_bytes: if len == 0 { self.cfg.ack_bytes } else { len + self.cfg.header_bytes },
            flags,
            n_sack: 0,
            retransmit: false,
            marked: false,
            ecn: crate::packet::Ecn::NotEct,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            tag,
            cell: Default::default(),
            shards: Default::default(),
            ts: 0,
        }
    }
}
