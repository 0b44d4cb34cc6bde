//! FIFO queues limited in packets (or ATM cells) or in bytes, with their drop discipline.
//!
//! The limit counts packets waiting, not the one being serialised (as in ns-2's DropTail).
//! The discipline is one small enum, matched per packet (no dynamic dispatch): drop-tail,
//! RED or ERED (`red.rs`), or an ATM cell dropper (PPD, EPD, SD). Disciplines see every
//! arrival, including those that go straight onto an idle link, so a frame being discarded
//! stays discarded and RED's average counts every packet.
//!
//! The queue holds packet ids (the records stay in the `PacketPool`) with the two facts it
//! needs when a packet leaves, so that serving a queue never reads the packet itself.

use std::collections::VecDeque;

use serde::Serialize;

use crate::atm::drop::CellDropper;
use crate::csv::Rows;
use crate::packet::{Ecn, Packet, PacketHead};
use crate::time::Time;

use super::codel::{Codel, Head};
use super::drop_trace::{DropCause, DropTrace};
use super::fq_codel::FqCodel;
use super::pie::Pie;
use super::pool::PacketId;
use super::red::{Red, RedDrop};
use super::route::Onward;
use super::sojourn_trace::SojournTrace;
pub use super::waiting::Waiting;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    /// IP bytes (`wire_bytes`) waiting.
    Bytes(u64),
}

/// Who decides which arrivals stay. Boxed arms: most queues are drop-tail, and a small queue
/// keeps channels cache-friendly.
#[derive(Debug, Clone)]
pub enum Discipline {
    DropTail,
    /// RED, or ERED when its config has a rule for marked packets.
    Red(Box<Red>),
    Cells(Box<CellDropper>),
    /// CoDel (RFC 8289), deciding at dequeue from each packet's sojourn time.
    Codel(Box<CodelQueue>),
    /// PIE (RFC 8033), deciding at enqueue with a probability updated from the delay.
    Pie(Box<PieQueue>),
    /// FQ-CoDel (RFC 8290): per-flow queues served by DRR, CoDel in each; it holds the
    /// waiting packets itself (`buf` stays empty).
    FqCodel(Box<FqCodel>),
}

/// PIE's state and the enqueue times of the waiting packets (its delay samples are their
/// sojourn times, RFC 8033 section 4.3's timestamp variant).
#[derive(Debug, Clone)]
pub struct PieQueue {
    pub pie: Pie,
    stamps: VecDeque<Time>,
    /// A row per departure, when the link traces its queue.
    sojourn: Option<Box<SojournTrace>>,
}

impl PieQueue {
    pub fn new(pie: Pie) -> Self {
        Self { pie, stamps: VecDeque::new(), sojourn: None }
    }
}

/// CoDel's state, the enqueue times of the waiting packets (a deque beside `Queue::buf`, so
/// other disciplines keep `Waiting` small) with whether each is ECN-capable, and the packets
/// its last dequeue dropped or marked.
#[derive(Debug, Clone)]
pub struct CodelQueue {
    pub codel: Codel,
    stamps: VecDeque<(Time, bool)>,
    /// Dropped at the last `pop`, for the channel to take (reused: no allocation once grown).
    pub dropped: Vec<PacketId>,
    /// A row per departure, when the link traces its queue.
    sojourn: Option<Box<SojournTrace>>,
    /// Mark ECN-capable packets instead of dropping them (`qdisc.ecn`).
    ecn: bool,
    /// The packet the last `pop` marked CE (it is the one sent), for the channel to mark.
    pub marked: Option<PacketId>,
}

impl CodelQueue {
    pub fn new(codel: Codel, ecn: bool) -> Self {
        Self { codel, stamps: VecDeque::new(), dropped: Vec::new(), sojourn: None, ecn, marked: None }
    }
}

/// What a queue decided about an arrival (`Queue::admit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Refused,
    Accepted,
    /// Accepted, marked Congestion Experienced instead of dropped (`qdisc.ecn`).
    Marked,
}

/// Drops by cause and by mark, and arrivals by mark, for queues that report them.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct QueueStats {
    pub arrivals_marked: u64,
    /// The buffer was full.
    pub drops_overflow: u64,
    /// RED's random drops between min_th and max_th, and PIE's random drops (RFC 8033).
    pub drops_early: u64,
    /// RED's drops with the average in the forced region.
    pub drops_forced: u64,
    /// CoDel's drops at dequeue (RFC 8289); absent from the JSON when none, as for every
    /// discipline without them.
    #[serde(skip_serializing_if = "is_zero")]
    pub drops_sojourn: u64,
    /// ECN-capable packets marked CE instead of dropped (`qdisc.ecn`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub marks_ecn: u64,
    /// Drops (any cause) of marked packets.
    pub drops_marked: u64,
    /// RED's average queue at the end of the run (packets, or bytes in byte mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_avg: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One arrival as the queue saw it: what was waiting, and RED's average after the update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueSample {
    pub time: Time,
    pub packets: u32,
    pub bytes: u64,
    pub avg: Option<f64>,
}

/// In field order (`repr(C)`): what every enqueue and dequeue reads and writes in the first
/// 64 bytes, then the limit and the optional counters and traces (tested in `channel.rs`).
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Queue {
    disc: Discipline,
    buf: VecDeque<Waiting>,
    bytes: u64,
    /// Largest number of packets ever waiting.
    pub peak_packets: usize,
    limit: QueueLimit,
    /// Drop-tail with no counters or traces (`keep_*` clear it): an arrival needs only a room
    /// check, and a packet in or out only the buffer, so `admit`, `push_waiting` and `pop`
    /// take a straight path decided once here, not a match per packet (issue 26).
    plain: bool,
    /// Packets waiting that a one-event channel keeps in its pipe, not in `buf`
    /// (`enter_counted`); 0 on any other queue.
    counted: u32,
    /// Counters by cause and mark (queues with an explicit discipline).
    pub stats: Option<Box<QueueStats>>,
    /// A sample per arrival, when the link asks for a queue trace.
    pub trace: Option<Box<Rows<QueueSample>>>,
    /// A row per packet dropped, when the link asks for a drop trace (the channel records its
    /// loss model's drops here too).
    pub drops: Option<Box<DropTrace>>,
}

impl Queue {
    pub fn new(limit: QueueLimit) -> Self {
        Self::with_discipline(limit, Discipline::DropTail)
    }

    /// A queue of ATM cells whose drops `dropper` decides.
    pub fn with_cell_policy(limit: QueueLimit, dropper: CellDropper) -> Self {
        Self::with_discipline(limit, Discipline::Cells(Box::new(dropper)))
    }

    pub fn with_discipline(limit: QueueLimit, disc: Discipline) -> Self {
        let plain = matches!(disc, Discipline::DropTail);
        Self {
            buf: VecDeque::new(),
            bytes: 0,
            limit,
            plain,
            counted: 0,
            disc,
            stats: None,
            trace: None,
            drops: None,
            peak_packets: 0,
        }
    }

    /// Room for `n` waiting packets from the start (`Channel::reserve`).
    pub fn reserve(&mut self, n: usize) {
        self.buf.reserve_exact(n);
    }

    /// Count drops by cause and mark from now on.
    pub fn keep_stats(&mut self) {
        self.stats = Some(Box::default());
        self.plain = false;
    }

    /// Record every dropped packet from now on.
    pub fn keep_drops(&mut self) {
        self.drops = Some(Box::default());
        self.plain = false;
    }

    /// Record a sample at every arrival from now on.
    pub fn keep_trace(&mut self) {
        self.trace = Some(Box::default());
        self.plain = false;
    }

    /// Record every departure's sojourn time from now on (an AQM queue: CoDel, PIE, FQ-CoDel;
    /// the trace lives in its boxed state, so a drop-tail queue is no larger for it).
    pub fn keep_sojourn(&mut self) {
        if let Some(t) = self.sojourn_slot() {
            *t = Some(Box::default());
        }
    }

    fn sojourn_slot(&mut self) -> Option<&mut Option<Box<SojournTrace>>> {
        match &mut self.disc {
            Discipline::Codel(c) => Some(&mut c.sojourn),
            Discipline::Pie(p) => Some(&mut p.sojourn),
            Discipline::FqCodel(fq) => Some(&mut fq.sojourn),
            _ => None,
        }
    }

    /// The departures' sojourn trace, if this queue keeps one.
    pub fn sojourn_trace_mut(&mut self) -> Option<&mut SojournTrace> {
        self.sojourn_slot()?.as_deref_mut()
    }

    /// The departures' sojourn trace, if this queue keeps one.
    pub fn sojourn_trace(&self) -> Option<&SojournTrace> {
        match &self.disc {
            Discipline::Codel(c) => c.sojourn.as_deref(),
            Discipline::Pie(p) => p.sojourn.as_deref(),
            Discipline::FqCodel(fq) => fq.sojourn.as_deref(),
            _ => None,
        }
    }

    fn fits(&self, pkt: &PacketHead) -> bool {
        self.fits_size(pkt.wire_bytes)
    }

    /// `fits` of a packet of `wire_bytes`.
    fn fits_size(&self, wire_bytes: u32) -> bool {
        Self::room(self.limit, self.buf.len() + self.counted as usize, self.bytes, wire_bytes)
    }

    /// Whether a packet of `wire_bytes` fits beside `len` packets of `bytes` under `limit`.
    fn room(limit: QueueLimit, len: usize, bytes: u64, wire_bytes: u32) -> bool {
        match limit {
            QueueLimit::Packets(n) => len < n as usize,
            QueueLimit::Bytes(b) => bytes + wire_bytes as u64 <= b,
        }
    }

    /// Whether a packet arriving at `now` may stay (on an idle link it goes straight on). A
    /// discipline that marks ECN instead of dropping sets `pkt.ecn` to CE.
    pub fn accepts(&mut self, now: Time, pkt: &mut Packet, link_idle: bool) -> bool {
        let (head, full) = (PacketHead::of(pkt), *pkt);
        match self.admit(now, &head, link_idle, || full) {
            Admission::Refused => false,
            Admission::Accepted => true,
            Admission::Marked => {
                pkt.ecn = Ecn::Ce;
                true
            }
        }
    }

    /// `accepts` for the channel: the packet's head is only read (in place in the pool), and
    /// a mark is returned for the caller to set where the packet ends up (the pool). `full`
    /// gives the whole record, read only to write a refused packet into the drop trace.
    /// Taking `&mut Packet`, then `&Packet`, on this path made the simulation copy every
    /// 96-byte packet on its way to a queue.
    #[inline]
    pub fn admit(&mut self, now: Time, pkt: &PacketHead, link_idle: bool, full: impl FnOnce() -> Packet) -> Admission {
        if self.plain {
            // What the drop-tail arm below decides, with nothing to count or trace.
            return if link_idle || self.fits(pkt) { Admission::Accepted } else { Admission::Refused };
        }
        let mut marked_ce = false;
        let (ok, early) = match &mut self.disc {
            Discipline::DropTail => (link_idle || self.fits(pkt), None),
            Discipline::Codel(c) => {
                (Self::accept_codel(c, self.limit, self.buf.len(), self.bytes, now, pkt, link_idle), None)
            }
            Discipline::Pie(p) => {
                let (ok, early, marked) =
                    Self::accept_pie(p, self.limit, self.buf.len(), self.bytes, now, pkt, link_idle);
                marked_ce = marked;
                (ok, early)
            }
            Discipline::FqCodel(fq) => {
                // Always in: the overflow rule drops from the fattest queue after the push.
                if link_idle {
                    fq.pass_through(now, pkt.wire_bytes);
                }
                (true, None)
            }
            Discipline::Cells(d) => {
                let occupancy = if link_idle { 0 } else { self.buf.len() };
                (d.admit(pkt, occupancy) && (link_idle || self.fits(pkt)), None)
            }
            Discipline::Red(red) => {
                red.update_average(now, self.buf.len(), self.bytes);
                let (limit, len, bytes) = (self.limit, self.buf.len(), self.bytes);
                let room = red.fits(limit, bytes).unwrap_or_else(|| Self::room(limit, len, bytes, pkt.wire_bytes));
                let verdict = red.verdict(pkt.wire_bytes, pkt.marked);
                if verdict.is_none() && !link_idle && !room {
                    red.overflowed();
                }
                match verdict {
                    Some(RedDrop::Early) if red.config().ecn && pkt.ecn.capable() && red.may_mark() => {
                        // Marked CE instead of dropped (RFC 3168 sec. 7), then kept if the
                        // buffer has room (a full buffer still drops it, as overflow).
                        marked_ce = true;
                        (link_idle || room, None)
                    }
                    Some(cause) => (false, Some(cause)),
                    None => (link_idle || room, None),
                }
            }
        };
        if self.stats.is_some() || self.trace.is_some() {
            self.account(now, pkt, ok, early);
        }
        if !ok && self.drops.is_some() {
            self.trace_drop(now, &full(), link_idle, early);
        }
        match (ok, marked_ce) {
            (false, _) => Admission::Refused,
            (true, false) => Admission::Accepted,
            (true, true) => {
                if let Some(s) = &mut self.stats {
                    s.marks_ecn += 1;
                }
                Admission::Marked
            }
        }
    }

    /// CoDel's admission: room in the buffer (CoDel itself decides at dequeue).
    #[inline(never)]
    fn accept_codel(
        c: &mut CodelQueue,
        limit: QueueLimit,
        len: usize,
        bytes: u64,
        now: Time,
        pkt: &PacketHead,
        link_idle: bool,
    ) -> bool {
        let ok = link_idle || Self::room(limit, len, bytes, pkt.wire_bytes);
        // A packet going straight onto an idle link is enqueued and dequeued at once in a
        // real queue: its size still counts for CoDel's one-packet floor.
        if ok && link_idle {
            c.codel.on_enqueue(pkt.wire_bytes as u64);
            if let Some(t) = &mut c.sojourn {
                t.depart(now, 0);
            }
        }
        ok
    }

    /// PIE's admission: its drop decision (a CE mark instead, RFC 8033 5.1), then room in the
    /// buffer. Returns whether the packet stays, the early drop's cause, and whether it was
    /// marked.
    #[inline(never)]
    fn accept_pie(
        p: &mut PieQueue,
        limit: QueueLimit,
        len: usize,
        bytes: u64,
        now: Time,
        pkt: &PacketHead,
        link_idle: bool,
    ) -> (bool, Option<RedDrop>, bool) {
        // The one place PIE signals congestion: its drop at enqueue (RFC 8033 4.1).
        let mut marked = false;
        if p.pie.drop_early(now, bytes) {
            if !p.pie.marks_instead(pkt.ecn.capable()) {
                if let Some(t) = &mut p.sojourn {
                    t.dropped(1);
                }
                return (false, Some(RedDrop::Early), false);
            }
            // Marked and kept if the buffer has room (a full buffer still drops it, as overflow).
            marked = true;
        }
        let ok = link_idle || Self::room(limit, len, bytes, pkt.wire_bytes);
        if ok && link_idle {
            p.pie.on_dequeue(now, 0, true);
            if let Some(t) = &mut p.sojourn {
                t.depart(now, 0);
            }
        }
        (ok, None, marked)
    }

    /// Record a refused arrival in the drop trace, with the cause the counters give it.
    #[cold]
    fn trace_drop(&mut self, now: Time, pkt: &Packet, link_idle: bool, early: Option<RedDrop>) {
        let cause = match (early, &self.disc) {
            (Some(RedDrop::Early), _) => DropCause::Early,
            (Some(RedDrop::Forced), _) => DropCause::Forced,
            (None, Discipline::Cells(_)) if link_idle || self.fits(&PacketHead::of(pkt)) => DropCause::CellPolicy,
            (None, _) => DropCause::Overflow,
        };
        if let Some(d) = &mut self.drops {
            d.record(now, pkt, cause);
        }
    }

    #[cold]
    fn account(&mut self, now: Time, pkt: &PacketHead, ok: bool, early: Option<RedDrop>) {
        let avg = match &self.disc {
            Discipline::Red(r) => Some(r.avg),
            _ => None,
        };
        let (packets, bytes) = (self.len() as u32, self.waiting_bytes());
        if let Some(t) = &mut self.trace {
            t.push(QueueSample { time: now, packets, bytes, avg });
        }
        let Some(s) = &mut self.stats else { return };
        s.arrivals_marked += pkt.marked as u64;
        if ok {
            return;
        }
        s.drops_marked += pkt.marked as u64;
        match early {
            Some(RedDrop::Early) => s.drops_early += 1,
            Some(RedDrop::Forced) => s.drops_forced += 1,
            None => s.drops_overflow += 1,
        }
    }

    /// Enqueue `pkt`, stored as `id`, after `accepts` let it in, with no route (a queue used
    /// on its own). Returns what `push_waiting` returns.
    pub fn push(&mut self, now: Time, id: PacketId, pkt: &Packet) -> bool {
        let head = PacketHead::of(pkt);
        self.push_waiting(now, Waiting::new(id, &head, Onward::NONE), &head)
    }

    /// Enqueue `w`, the waiting form of `pkt`, after `accepts` let it in.
    /// Returns whether the discipline dropped waiting packets to make room (FQ-CoDel's
    /// overflow rule): `enqueue_drops` lists them.
    #[inline]
    pub fn push_waiting(&mut self, now: Time, w: Waiting, pkt: &PacketHead) -> bool {
        if !self.plain {
            // The record's fields, not the record, so that the callers keep it in registers
            // (`Waiting`: a record passed by reference costs a store-forwarding stall).
            return self.push_waiting_disc(now, w.id, w.wire_bytes, w.vc, w.next, pkt);
        }
        self.push_buf(w);
        false
    }

    /// `push_waiting` through the discipline, of the waiting record with these fields.
    fn push_waiting_disc(
        &mut self,
        now: Time,
        id: PacketId,
        wire_bytes: u32,
        vc: u32,
        next: Onward,
        pkt: &PacketHead,
    ) -> bool {
        let w = Waiting { id, wire_bytes, vc, next };
        match &mut self.disc {
            Discipline::Cells(d) => d.on_enqueue(w.vc),
            Discipline::Codel(c) => {
                c.codel.on_enqueue(w.wire_bytes as u64);
                c.stamps.push_back((now, pkt.ecn.capable()));
            }
            Discipline::Pie(p) => p.stamps.push_back(now),
            Discipline::FqCodel(fq) => {
                return Self::push_fq(fq, self.limit, &mut self.peak_packets, now, w, pkt);
            }
            _ => {}
        }
        self.push_buf(w);
        false
    }

    #[inline]
    fn push_buf(&mut self, w: Waiting) {
        self.bytes += w.wire_bytes as u64;
        self.buf.push_back(w);
        self.peak_packets = self.peak_packets.max(self.buf.len());
    }

    /// FQ-CoDel's enqueue into the queue of `pkt`'s flow, over `limit` its overflow rule.
    #[inline(never)]
    fn push_fq(fq: &mut FqCodel, limit: QueueLimit, peak: &mut usize, now: Time, w: Waiting, pkt: &PacketHead) -> bool {
        let over = |len: usize, bytes: u64| match limit {
            QueueLimit::Packets(n) => len > n as usize,
            QueueLimit::Bytes(b) => bytes > b,
        };
        let dropped = fq.enqueue_ect(now, w, pkt.flow, pkt.ecn.capable(), over);
        *peak = (*peak).max(fq.len());
        dropped
    }

    /// The next packet to send at `now`; None leaves the link idle.
    #[inline]
    pub fn pop(&mut self, now: Time) -> Option<Waiting> {
        if !self.plain {
            return self.pop_disc(now);
        }
        let w = self.buf.pop_front()?;
        self.bytes -= w.wire_bytes as u64;
        Some(w)
    }

    /// `pop` through the discipline.
    fn pop_disc(&mut self, now: Time) -> Option<Waiting> {
        match &mut self.disc {
            Discipline::Codel(c) => return Self::pop_codel(c, &mut self.buf, &mut self.bytes, now),
            Discipline::Pie(p) => return Self::pop_pie(p, &mut self.buf, &mut self.bytes, now),
            Discipline::FqCodel(fq) => return fq.pop(now),
            _ => {}
        }
        let Some(w) = self.buf.pop_front() else {
            if let Discipline::Red(r) = &mut self.disc {
                r.went_idle(now);
            }
            return None;
        };
        self.bytes -= w.wire_bytes as u64;
        if let Discipline::Cells(d) = &mut self.disc {
            d.on_dequeue(w.vc);
        }
        Some(w)
    }

    /// CoDel's dequeue over `buf`: the packets it drops go to `c.dropped`. Out of line, so
    /// that the drop-tail and RED path of `pop` stays as small as before.
    #[inline(never)]
    fn pop_codel(c: &mut CodelQueue, buf: &mut VecDeque<Waiting>, bytes: &mut u64, now: Time) -> Option<Waiting> {
        c.dropped.clear();
        c.marked = None;
        let CodelQueue { codel, stamps, dropped, sojourn, ecn, marked } = c;
        let pop = || {
            let w = buf.pop_front()?;
            let (enqueued_at, ect) = stamps.pop_front().expect("a stamp per waiting packet");
            *bytes -= w.wire_bytes as u64;
            Some(Head { packet: (w, ect), enqueued_at, bytes_left: *bytes })
        };
        // RFC 8289 section 5: an ECN-capable packet is marked instead of dropped.
        let signal = |h: Head<(Waiting, bool)>| {
            if *ecn && h.packet.1 {
                *marked = Some(h.packet.0.id);
                return Some(h);
            }
            dropped.push(h.packet.0.id);
            None
        };
        let head = codel.dequeue_with(now, pop, signal);
        if let Some(t) = sojourn {
            t.dropped(dropped.len() as u32);
            if let Some(h) = &head {
                t.depart(now, now - h.enqueued_at);
            }
        }
        head.map(|h| h.packet.0)
    }

    /// PIE's dequeue: the head leaves, and its sojourn is PIE's delay sample.
    #[inline(never)]
    fn pop_pie(p: &mut PieQueue, buf: &mut VecDeque<Waiting>, bytes: &mut u64, now: Time) -> Option<Waiting> {
        let w = buf.pop_front()?;
        let sojourn = now - p.stamps.pop_front().expect("a stamp per waiting packet");
        *bytes -= w.wire_bytes as u64;
        p.pie.on_dequeue(now, sojourn, buf.is_empty());
        if let Some(t) = &mut p.sojourn {
            t.depart(now, sojourn);
        }
        Some(w)
    }

    /// The packets the last `pop` dropped at dequeue (CoDel), for the channel to take.
    #[inline]
    pub fn dequeue_drops(&self) -> &[PacketId] {
        match &self.disc {
            Discipline::Codel(c) => &c.dropped,
            Discipline::FqCodel(fq) => &fq.codel_dropped,
            _ => &[],
        }
    }

    /// The waiting packets the last `push` dropped to make room (FQ-CoDel's overflow rule).
    pub fn enqueue_drops(&self) -> &[PacketId] {
        match &self.disc {
            Discipline::FqCodel(fq) => &fq.overflow_dropped,
            _ => &[],
        }
    }

    /// Whether the last `pop` dropped or marked a packet at dequeue (CoDel, FQ-CoDel): one
    /// test on the per-packet path for both.
    #[inline]
    pub fn dequeue_signalled(&self) -> bool {
        match &self.disc {
            Discipline::Codel(c) => !c.dropped.is_empty() || c.marked.is_some(),
            Discipline::FqCodel(fq) => !fq.codel_dropped.is_empty() || fq.marked.is_some(),
            _ => false,
        }
    }

    /// The packet the last `pop` marked CE at dequeue (CoDel, FQ-CoDel), counted as a mark.
    pub fn take_dequeue_mark(&mut self) -> Option<PacketId> {
        let id = match &mut self.disc {
            Discipline::Codel(c) => c.marked.take()?,
            Discipline::FqCodel(fq) => fq.marked.take()?,
            _ => return None,
        };
        if let Some(s) = &mut self.stats {
            s.marks_ecn += 1;
        }
        Some(id)
    }

    /// The counters with RED's final average filled in.
    pub fn final_stats(&self) -> Option<QueueStats> {
        let mut s = (**self.stats.as_ref()?).clone();
        if let Discipline::Red(r) = &self.disc {
            s.final_avg = Some(r.avg);
        }
        Some(s)
    }

    /// The ids of the waiting packets (first to leave first, but for FQ-CoDel's queue by queue).
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        let fq = match &self.disc {
            Discipline::FqCodel(fq) => Some(fq.ids()),
            _ => None,
        };
        self.buf.iter().map(|w| w.id).chain(fq.into_iter().flatten())
    }

    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        if self.plain {
            return self.buf.len() + self.counted as usize;
        }
        match &self.disc {
            Discipline::FqCodel(fq) => fq.len(),
            _ => self.buf.len() + self.counted as usize,
        }
    }

    /// Whether the queue is plain drop-tail: it admits a packet from its size and what is
    /// waiting alone, and serves first in, first out.
    pub fn is_drop_tail(&self) -> bool {
        matches!(self.disc, Discipline::DropTail)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting.
    fn waiting_bytes(&self) -> u64 {
        match &self.disc {
            Discipline::FqCodel(fq) => fq.bytes(),
            _ => self.bytes,
        }
    }
}

#[path = "queue_counted.rs"]
mod counted;
