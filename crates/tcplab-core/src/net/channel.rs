//! One direction of a link: a queue, a transmitter and a propagation pipe.
//!
//! A channel has at most one pending event per stage (the packet being serialised finishes;
//! the packet at the head of the pipe arrives), the trick htsim uses to keep the event heap
//! small. Packets in flight sit in the channel's own FIFO, in arrival order because the
//! propagation delay is constant. The records themselves live in the simulation's
//! `PacketPool`; the queue, the transmitter and the pipe hold ids.

use serde::Serialize;

use crate::packet::{Packet, PacketHead};
use crate::time::{Dur, SizeCache, Time};

use super::drop_trace::DropCause;
use super::loss::{FlowWire, LossModel};
use super::pool::{PacketId, PacketPool};
use super::queue::{Admission, Queue, Waiting};
use super::route::Onward;

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ChannelStats {
    /// Packets offered to the channel (queued or sent at once).
    pub arrivals: u64,
    /// Packets serialised onto the link.
    pub tx_packets: u64,
    /// IP bytes serialised onto the link.
    pub tx_bytes: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Drops because the queue was full.
    pub drops_queue: u64,
    /// Drops by the loss model.
    pub drops_loss: u64,
    /// Largest number of packets waiting in the queue.
    pub peak_queue_packets: u64,
    /// Drops by cause and mark, for links with an explicit `qdisc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<super::queue::QueueStats>,
}

/// In field order (`repr(C)`), each channel starting on a 64-byte line: what a packet's events
/// read and write, then what is read rarely. Line 0 is the transmitter (`offer`, `tx_done`);
/// line 1 the pipe's head and the pipe (`tx_done` appends; an arrival reads the head there,
/// so it learns the packet and where it goes next from this one line and loads the packet
/// and the next channel (or the flow's state) without waiting for one another, and only then
/// refills the head from the pipe's buffer); lines 2-3 the queue; configuration,
/// counters bumped only on drops, captures and series after them. With 10^4 flows the
/// channels are 20 MB, out of every cache: an event pays a memory access per line it touches,
/// and one more per dependent load (issue 26; the layout is tested below).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Channel {
    /// The packet being serialised, if `busy`.
    on_wire: Waiting,
    pub rate_bps: u64,
    /// Sub-nanosecond remainder of serialisation times.
    rem: u64,
    /// On the two-event path, when the packet on the wire started serialisation (a burst loss
    /// model needs the interval); on the one-event path, when it finishes (`one_event`).
    tx_start: Time,
    /// IP bytes serialised (`stats.tx_bytes` at the end).
    tx_bytes: u64,
    /// Packets serialised (`stats.tx_packets` at the end).
    tx_packets: u64,
    busy: bool,
    /// The loss model can drop (it is not `LossModel::None`): it is read only then.
    lossy: bool,
    /// An ATM link: it carries cells, and packets are cut into cells on entering it.
    pub atm: bool,
    /// A packet crossing this channel costs one event, its `Arrive`: its departure is fixed
    /// when it is admitted (`channel_one_event.rs`).
    one_event: bool,
    /// On a one-event channel, the channel over which the arrival that admitted the packet on
    /// the wire to the idle link came (`Queued::NO_CHANNEL`: another kind of event, or the
    /// packet started as the one before it left). That arrival queued the next `Arrive` over
    /// its channel before it offered anything, so before this packet's `TxDone` on the
    /// two-event path: an offer by that `Arrive` at this packet's end still sees it
    /// (`Queued::after`). Written at an idle admission, read only at such a tie.
    started_by: u32,
    /// The first packet propagating (`InFlight::NONE` when none): the next to arrive.
    head: InFlight,
    /// The packets propagating behind `head`, in arrival order.
    pipe: Pipe,
    pub delay: Dur,
    /// A capture watches what reaches the far end (`pcap_rx`).
    rx_watched: bool,
    /// `one_event` again, on the line an arrival reads (so that the two-event path's arrival
    /// reads no other line).
    one_event_pipe: bool,
    /// A send capture or a series watches what this channel sends (`watch`). On this line,
    /// which a send reads anyway (it puts the packet into the pipe), to leave room on line 0
    /// for `started_by`.
    watched: bool,
    /// The low 32 bits of the time of the last arrival at the far end (`arrive`): with the
    /// delay, when the two-event path queued the next arrival's event (`Queued`).
    arrival_low: u32,
    pub queue: Queue,
    /// The serialisation time of the last size sent, in the queue's last line (an offer and a
    /// departure read the queue's limit there; issue 26).
    serialised: SizeCache,
    pub from: u32,
    pub to: u32,
    pub loss: LossModel,
    /// Filled in by `finish_stats`, but for the drop counters, which are kept here as they
    /// happen (the invariant check reads them).
    pub stats: ChannelStats,
    /// Index of the pcap capture this channel writes to.
    pcap: Option<usize>,
    /// Index of the capture of what reaches the far end.
    pcap_rx: Option<usize>,
    /// Bytes serialised per time bin, when series are recorded.
    pub series: Option<Box<Series>>,
    /// The same, per flow (index = flow id), on links that ask for it.
    pub per_flow_series: Option<Box<Vec<Series>>>,
}

/// A packet in the pipe: when it reaches the far end, its record, and where it goes from
/// there (`Waiting::next`).
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    pub at: Time,
    pub id: PacketId,
    pub next: Onward,
}

impl InFlight {
    /// No packet: the head of an empty pipe.
    const NONE: InFlight = InFlight { at: 0, id: PacketId::NONE, next: Onward::NONE };

    fn is_some(&self) -> bool {
        self.id != PacketId::NONE
    }
}

/// Byte counts per fixed-width time bin.
#[derive(Debug, Clone)]
pub struct Series {
    bin: Dur,
    pub bytes: Vec<u64>,
}

impl Series {
    pub fn new(bin: Dur) -> Self {
        Self { bin, bytes: Vec::new() }
    }

    pub fn add(&mut self, now: Time, bytes: u64) {
        let i = (now / self.bin) as usize;
        if self.bytes.len() <= i {
            self.bytes.resize(i + 1, 0);
        }
        self.bytes[i] += bytes;
    }
}

/// What the simulation must schedule after a channel operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Nothing,
    TxDoneAt(Time),
    /// The packet went into an empty pipe of a one-event channel: its Arrive is to be scheduled.
    ArriveAt(Time),
    /// The packet was queued, and the discipline dropped waiting packets to make room
    /// (`Queue::enqueue_drops`, for the caller to take from the pool).
    DroppedWaiting,
    /// Nothing was done: the one-event channel's packet on the wire finishes now, and only
    /// when the offering event was queued tells whether it has left (`Offering::ask`).
    Undecided,
}

impl Channel {
    /// Room for `n` packets in the queue's buffer and in the pipe from the start
    /// (`budget::buffer_reserves` sizes them from the model at build), so that they do not
    /// grow while the run warms up (issue 26).
    pub fn reserve(&mut self, n: usize) {
        if !self.one_event {
            // A one-event channel's waiting packets are in its pipe alone (`Queue::enter_counted`).
            self.queue.reserve(n);
        }
        self.pipe.reserve(n);
    }

    pub fn new(from: u32, to: u32, rate_bps: u64, delay: Dur, queue: Queue, loss: LossModel) -> Self {
        Self {
            on_wire: Waiting::NONE,
            rate_bps,
            rem: 0,
            tx_start: 0,
            tx_bytes: 0,
            tx_packets: 0,
            busy: false,
            lossy: !matches!(loss, LossModel::None),
            atm: false,
            watched: false,
            one_event: false,
            started_by: Queued::NO_CHANNEL,
            one_event_pipe: false,
            arrival_low: 0,
            head: InFlight::NONE,
            pipe: Pipe::new(),
            delay,
            rx_watched: false,
            queue,
            serialised: SizeCache::default(),
            from,
            to,
            loss,
            stats: ChannelStats::default(),
            pcap: None,
            pcap_rx: None,
            series: None,
            per_flow_series: None,
        }
    }

    /// Watch what this channel sends: a pcap capture, a byte series, a byte series per flow.
    pub fn watch(&mut self, pcap: Option<usize>, series: Option<Box<Series>>, per_flow: Option<Box<Vec<Series>>>) {
        self.watched = pcap.is_some() || series.is_some() || per_flow.is_some();
        (self.pcap, self.series, self.per_flow_series) = (pcap, series, per_flow);
    }

    /// Capture what reaches the far end into pcap capture `pcap_rx`.
    pub fn watch_receive(&mut self, pcap_rx: Option<usize>) {
        self.rx_watched = pcap_rx.is_some();
        self.pcap_rx = pcap_rx;
    }

    /// The pcap capture of what reaches the far end.
    #[inline]
    pub fn pcap_rx(&self) -> Option<usize> {
        if self.rx_watched {
            self.pcap_rx
        } else {
            None
        }
    }

    /// The pcap capture this channel's sends go to.
    #[inline]
    pub fn pcap(&self) -> Option<usize> {
        if self.watched {
            self.pcap
        } else {
            None
        }
    }

    /// Start loading what offering a packet to `channels[c]` reads (the transmitter and the
    /// queue), ahead of the offer; no bounds check, as any prefetch (`cache::prefetch_item`).
    #[inline]
    pub fn prefetch_for_offer(channels: &[Channel], c: u32) {
        crate::cache::prefetch_item(channels, c as usize, 4);
    }

    /// Packet `id` (its record in `pool`) is offered at `now`. Returns the TxDone to schedule
    /// if the link was idle, or Err(id) if the queue dropped it (its record stays in the pool
    /// for the caller to take). `pkt` is its head as the pool holds it (`PacketPool::head`,
    /// which the caller read to route it), `next` where it goes after this channel.
    /// `offering` says the channel the event making the offer arrived over, which a one-event
    /// channel keeps if it starts the packet at once. When that event was queued matters only
    /// on a one-event channel whose packet on the wire finishes exactly now: asked
    /// (`Offering::ask`), the offer there answers `Next::Undecided`, for the caller to offer
    /// again with `judge_tie`'s answer.
    #[inline(always)]
    pub fn offer(
        &mut self,
        now: Time,
        offering: Offering,
        id: PacketId,
        pkt: &PacketHead,
        next: Onward,
        pool: &mut PacketPool,
    ) -> Result<Next, PacketId> {
        if self.one_event {
            // Of the head only the size crosses the call, in a register: no head stored for
            // it to read (issue 26).
            return self.offer_one_event(now, offering, Headed { id, next }, pkt.wire_bytes, pool).result(id);
        }
        self.offer_two(now, id, pkt, next, pool)
    }

    /// `offer` on a two-event channel.
    #[inline(never)]
    fn offer_two(
        &mut self,
        now: Time,
        id: PacketId,
        pkt: &PacketHead,
        next: Onward,
        pool: &mut PacketPool,
    ) -> Result<Next, PacketId> {
        let idle = !self.busy;
        let admission = self.queue.admit(now, pkt, idle, || pool.get(id));
        if admission == Admission::Refused {
            self.stats.drops_queue += 1;
            return Err(id);
        }
        let w = Waiting::new(id, pkt, next);
        if admission == Admission::Marked {
            pool.mark_ce(id);
        }
        if idle {
            return Ok(Next::TxDoneAt(self.start_tx(now, w)));
        }
        if self.queue.push_waiting(now, w, pkt) {
            return Ok(Next::DroppedWaiting);
        }
        Ok(Next::Nothing)
    }

    fn start_tx(&mut self, now: Time, w: Waiting) -> Time {
        self.on_wire = w;
        self.busy = true;
        self.tx_start = now;
        now + self.serialised.serialization_ns(w.wire_bytes, self.rate_bps, &mut self.rem)
    }

    /// The packet on the wire is fully serialised at `now`.
    /// Returns (the packet's id, whether the loss model killed it, the next TxDone if any,
    /// and whether the pipe went from empty to non-empty so an Arrive must be scheduled).
    /// A lost packet stays in the pool for the caller to take. Inlined into its one caller
    /// (`Simulation::on_tx_done`), which then reads the outcome where it is computed instead
    /// of from memory, and saves registers once (issue 26).
    #[inline]
    pub fn tx_done(&mut self, now: Time, flows: &[FlowWire], pool: &PacketPool) -> TxOutcome {
        assert!(self.busy, "TxDone without a packet on the wire");
        self.busy = false;
        let w = self.on_wire;
        self.tx_bytes += w.wire_bytes as u64;
        self.tx_packets += 1;
        if self.watched {
            self.record_series(now, w, pool);
        }
        let lost = self.lossy && self.lose(now, w.id, flows, pool);
        let mut arrive_at = None;
        if !lost {
            let f = InFlight { at: now + self.delay, id: w.id, next: w.next };
            if self.head.is_some() {
                self.pipe.push_back(f);
            } else {
                self.head = f;
                arrive_at = Some(f.at);
            }
        }
        let next_tx = self.queue.pop(now).map(|next| self.start_tx(now, next));
        TxOutcome { id: w.id, lost, next_tx, arrive_at }
    }

    #[cold]
    fn record_series(&mut self, now: Time, w: Waiting, pool: &PacketPool) {
        if let Some(s) = &mut self.series {
            s.add(now, w.wire_bytes as u64);
        }
        if let Some(per_flow) = &mut self.per_flow_series {
            per_flow[pool.head(w.id).flow as usize].add(now, w.wire_bytes as u64);
        }
    }

    /// Whether the loss model kills the packet that just finished serialisation (counted and
    /// traced here).
    fn lose(&mut self, now: Time, id: PacketId, flows: &[FlowWire], pool: &PacketPool) -> bool {
        if !self.loss.drops(&pool.get(id), flows, self.tx_start, now) {
            return false;
        }
        self.stats.drops_loss += 1;
        if let Some(d) = &mut self.queue.drops {
            d.record(now, &pool.get(id), DropCause::Loss);
        }
        true
    }

    /// Count and trace a waiting packet the queue's discipline dropped, which the caller has
    /// taken from the pool: `Sojourn` at dequeue (CoDel, FQ-CoDel's per-queue CoDel), or
    /// `Overflow` at an enqueue that found no room (FQ-CoDel's fattest queue).
    pub fn note_discipline_drop(&mut self, now: Time, pkt: &Packet, cause: DropCause) {
        self.stats.drops_queue += 1;
        if let Some(s) = &mut self.queue.stats {
            match cause {
                DropCause::Overflow => s.drops_overflow += 1,
                _ => s.drops_sojourn += 1,
            }
            s.drops_marked += pkt.marked as u64;
        }
        if let Some(d) = &mut self.queue.drops {
            d.record(now, pkt, cause);
        }
    }

    /// The low 32 bits of the time of the last arrival (`Queued::of_arrival`), read before
    /// the next one.
    #[inline(always)]
    pub fn arrival_low(&self) -> u32 {
        self.arrival_low
    }

    /// The packet that arrives next (at an `Arrive` event: the one arriving now), read from
    /// the channel's own line: the caller can start loading its record and its next channel
    /// before `arrive` reads the pipe's buffer.
    #[inline]
    pub fn arriving(&self) -> InFlight {
        self.head
    }

    /// The packet at the head of the pipe has arrived at `now` (its record stays in the pool
    /// for the caller to take); returns the next arrival time.
    #[inline(always)]
    pub fn arrive(&mut self, now: Time, pool: &PacketPool) -> Option<Time> {
        assert!(self.head.is_some(), "Arrive with an empty pipe");
        if self.one_event_pipe {
            return self.arrive_one_event(now, pool);
        }
        self.arrival_low = now as u32;
        self.pop_head(pool)
    }

    /// The head of the pipe leaves it: the packet behind it, if any, becomes the head, and
    /// its arrival time is returned.
    #[inline(always)]
    fn pop_head(&mut self, pool: &PacketPool) -> Option<Time> {
        let Some(next) = self.pipe.pop_front() else {
            self.head = InFlight::NONE;
            return None;
        };
        self.head = next;
        // On a busy link the next arrival is a few events away: load its record now.
        pool.prefetch(next.id);
        Some(next.at)
    }

    /// The records inside the channel: waiting, on the wire, propagating.
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        // A one-event channel's pipe holds every packet it admitted and has not delivered;
        // its queue and transmitter hold some of them again.
        let two_event = !self.one_event;
        let on_wire = (self.busy && two_event).then_some(self.on_wire.id);
        let head = self.head.is_some().then_some(self.head.id);
        let waiting = self.queue.ids().filter(move |_| two_event);
        waiting.chain(on_wire).chain(head).chain(self.pipe.iter().map(|f| f.id))
    }

    /// Records inside the channel (waiting, on the wire, propagating): (packets, cells).
    pub fn in_flight(&self, pool: &PacketPool) -> (u64, u64) {
        let (mut pkts, mut cells) = (0, 0);
        for id in self.ids() {
            if pool.head(id).cell.is_cell() {
                cells += 1;
            } else {
                pkts += 1;
            }
        }
        (pkts, cells)
    }

    /// Fill in the counters the hot path does not keep: every packet sent was lost, delivered
    /// or is still in the pipe, and every packet offered was dropped by the queue, sent, or is
    /// still waiting or on the wire. `end` is when the run ended: on a one-event channel, the
    /// packets whose departure is before it were sent.
    pub fn finish_stats(&mut self, end: Time, pool: &PacketPool) {
        let mut propagating = self.head.is_some() as u64 + self.pipe.len() as u64;
        if self.one_event {
            self.depart_before(end, pool);
            propagating -= self.queue.len() as u64 + self.busy as u64;
        }
        let s = &mut self.stats;
        s.tx_bytes = self.tx_bytes;
        s.tx_packets = self.tx_packets;
        s.delivered = self.tx_packets - s.drops_loss - propagating;
        s.arrivals = s.tx_packets + s.drops_queue + self.queue.len() as u64 + self.busy as u64;
        self.stats.peak_queue_packets = self.queue.peak_packets as u64;
        self.stats.queue = self.queue.final_stats();
    }
}

#[path = "channel_one_event.rs"]
mod one_event;
#[path = "channel_pipe.rs"]
mod pipe;
use one_event::Headed;
pub use one_event::{Offering, Queued};
use pipe::Pipe;

pub struct TxOutcome {
    pub id: PacketId,
    pub lost: bool,
    pub next_tx: Option<Time>,
    pub arrive_at: Option<Time>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The line (of 64 bytes, from the channel's start) that holds the whole of a field.
    fn line(offset: usize, size: usize) -> usize {
        assert_eq!(offset / 64, (offset + size - 1) / 64, "a field at {offset} ({size} bytes) spans two lines");
        offset / 64
    }

    #[test]
    fn each_event_reads_its_own_lines_of_a_channel() {
        assert_eq!(align_of::<Channel>(), 64);
        // Line 0: what offering and sending a packet read and write.
        for (offset, size) in [
            (offset_of!(Channel, on_wire), size_of::<Waiting>()),
            (offset_of!(Channel, rate_bps), 8),
            (offset_of!(Channel, rem), 8),
            (offset_of!(Channel, tx_start), 8),
            (offset_of!(Channel, tx_bytes), 8),
            (offset_of!(Channel, tx_packets), 8),
            (offset_of!(Channel, busy), 1),
            (offset_of!(Channel, lossy), 1),
            (offset_of!(Channel, atm), 1),
            (offset_of!(Channel, one_event), 1),
            (offset_of!(Channel, started_by), 4),
        ] {
            assert_eq!(line(offset, size), 0);
        }
        // Line 1: all an arrival reads of its channel.
        for (offset, size) in [
            (offset_of!(Channel, head), size_of::<InFlight>()),
            (offset_of!(Channel, pipe), size_of::<Pipe>()),
            (offset_of!(Channel, delay), 8),
            (offset_of!(Channel, rx_watched), 1),
            (offset_of!(Channel, one_event_pipe), 1),
            (offset_of!(Channel, arrival_low), 4),
            (offset_of!(Channel, watched), 1),
        ] {
            assert_eq!(line(offset, size), 1);
        }
        // Lines 2 and 3: the queue, its per-packet fields first (queue.rs).
        assert_eq!(offset_of!(Channel, queue), 128);
        assert!(size_of::<Queue>() <= 128, "{}", size_of::<Queue>());
        // The last size's serialisation time, on the queue's last line, which an offer and a
        // departure read.
        let serialised = offset_of!(Channel, serialised);
        assert_eq!(serialised, 128 + size_of::<Queue>());
        assert_eq!(line(serialised, size_of::<SizeCache>()), line(128 + size_of::<Queue>() - 1, 1));
    }

    #[test]
    fn the_pipe_delivers_in_order_through_its_head() {
        let mut pool = PacketPool::default();
        let mut ch =
            Channel::new(0, 1, 8_000_000, 1000, Queue::new(crate::net::QueueLimit::Packets(10)), LossModel::None);
        let mut p = crate::packet::test_packet();
        p.wire_bytes = 1000; // 1 ms at 8 Mb/s
        let mut tx = Vec::new();
        for seq in 0..3 {
            p.seq = seq;
            let id = pool.put(&p);
            if let Ok(Next::TxDoneAt(t)) =
                ch.offer(0, Offering::ask(Queued::NO_CHANNEL), id, &pool.head(id), Onward::for_test(7), &mut pool)
            {
                tx.push(t);
            }
        }
        assert_eq!(tx, [1_000_000]);
        let mut arrivals = Vec::new();
        let mut t = tx[0];
        loop {
            let out = ch.tx_done(t, &[], &pool);
            arrivals.extend(out.arrive_at);
            let Some(next) = out.next_tx else { break };
            t = next;
        }
        assert_eq!(arrivals, [1_001_000], "one Arrive scheduled for the first packet only");
        let mut seen = Vec::new();
        let mut at = Some(arrivals[0]);
        while let Some(t) = at {
            let head = ch.arriving();
            assert_eq!((head.at, head.next), (t, Onward::for_test(7)));
            at = ch.arrive(t, &pool);
            seen.push(pool.take(head.id).seq);
        }
        assert_eq!(seen, [0, 1, 2]);
        assert_eq!(ch.ids().count(), 0);
        ch.finish_stats(10_000_000, &pool);
        let s = &ch.stats;
        assert_eq!((s.arrivals, s.tx_packets, s.delivered, s.tx_bytes), (3, 3, 3, 3000));
    }
}
