//! One direction of a link: a queue, a transmitter and a propagation pipe.
//!
//! A channel has at most one pending event per stage (the packet being serialised finishes;
//! the packet at the head of the pipe arrives), the trick htsim uses to keep the event heap
//! small. Packets in flight sit in the channel's own FIFO, in arrival order because the
//! propagation delay is constant. The records themselves live in the simulation's
//! `PacketPool`; the queue, the transmitter and the pipe hold ids.

use std::collections::VecDeque;

use serde::Serialize;

use crate::packet::Packet;
use crate::time::{serialization_ns, Dur, Time};

use super::drop_trace::DropCause;
use super::loss::{FlowWire, LossModel};
use super::pool::{PacketId, PacketPool};
use super::queue::{Admission, Queue, Waiting};

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

#[derive(Debug, Clone)]
pub struct Channel {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub queue: Queue,
    pub loss: LossModel,
    /// The packet being serialised, if any.
    on_wire: Option<Waiting>,
    /// Sub-nanosecond remainder of serialisation times.
    rem: u64,
    /// When the packet on the wire started serialisation (a burst loss model needs the interval).
    tx_start: Time,
    /// Packets propagating, with their arrival times.
    pipe: VecDeque<(Time, PacketId)>,
    pub stats: ChannelStats,
    /// Index of the pcap capture this channel writes to.
    pub pcap: Option<usize>,
    /// Index of the capture of what reaches the far end.
    pub pcap_rx: Option<usize>,
    /// An ATM link: it carries cells, and packets are cut into cells on entering it.
    pub atm: bool,
    /// Bytes serialised per time bin, when series are recorded.
    pub series: Option<Box<Series>>,
    /// The same, per flow (index = flow id), on links that ask for it.
    pub per_flow_series: Option<Box<Vec<Series>>>,
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
    /// The packet was queued, and the discipline dropped waiting packets to make room
    /// (`Queue::enqueue_drops`, for the caller to take from the pool).
    DroppedWaiting,
}

impl Channel {
    pub fn new(from: u32, to: u32, rate_bps: u64, delay: Dur, queue: Queue, loss: LossModel) -> Self {
        Self {
            from,
            to,
            rate_bps,
            delay,
            queue,
            loss,
            on_wire: None,
            rem: 0,
            tx_start: 0,
            pipe: VecDeque::new(),
            stats: ChannelStats::default(),
            pcap: None,
            pcap_rx: None,
            atm: false,
            series: None,
            per_flow_series: None,
        }
    }

    /// A packet is offered at `now`. Returns the TxDone to schedule if the link was idle,
    /// or Err(packet) if the queue dropped it.
    pub fn offer(&mut self, now: Time, pkt: Packet, pool: &mut PacketPool) -> Result<Next, Packet> {
        self.stats.arrivals += 1;
        let idle = self.on_wire.is_none();
        let admission = self.queue.admit(now, &pkt, idle);
        if admission == Admission::Refused {
            self.stats.drops_queue += 1;
            return Err(pkt);
        }
        let id = pool.put(pkt);
        if admission == Admission::Marked {
            pool.get_mut(id).ecn = crate::packet::Ecn::Ce;
        }
        if idle {
            return Ok(Next::TxDoneAt(self.start_tx(now, Waiting::new(id, &pkt))));
        }
        if self.queue.push(now, id, &pkt) {
            return Ok(Next::DroppedWaiting);
        }
        Ok(Next::Nothing)
    }

    fn start_tx(&mut self, now: Time, w: Waiting) -> Time {
        let bits = w.wire_bytes as u64 * 8;
        self.on_wire = Some(w);
        self.tx_start = now;
        now + serialization_ns(bits, self.rate_bps, &mut self.rem)
    }

    /// The packet on the wire is fully serialised at `now`.
    /// Returns (the packet's id, whether the loss model killed it, the next TxDone if any,
    /// and whether the pipe went from empty to non-empty so an Arrive must be scheduled).
    /// A lost packet stays in the pool for the caller to take.
    pub fn tx_done(&mut self, now: Time, flows: &[FlowWire], pool: &PacketPool) -> TxOutcome {
        let w = self.on_wire.take().expect("TxDone without a packet on the wire");
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += w.wire_bytes as u64;
        if let Some(s) = &mut self.series {
            s.add(now, w.wire_bytes as u64);
        }
        if let Some(per_flow) = &mut self.per_flow_series {
            per_flow[pool.get(w.id).flow as usize].add(now, w.wire_bytes as u64);
        }
        let lost = self.loss.drops(pool.get(w.id), flows, self.tx_start, now);
        let mut arrive_at = None;
        if lost {
            self.stats.drops_loss += 1;
            if let Some(d) = &mut self.queue.drops {
                d.record(now, pool.get(w.id), super::drop_trace::DropCause::Loss);
            }
        } else {
            let at = now + self.delay;
            if self.pipe.is_empty() {
                arrive_at = Some(at);
            }
            self.pipe.push_back((at, w.id));
        }
        let next_tx = self.queue.pop(now).map(|next| self.start_tx(now, next));
        TxOutcome { id: w.id, lost, next_tx, arrive_at }
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

    /// The packet at the head of the pipe arrives; returns it and the next arrival time.
    pub fn arrive(&mut self, pool: &mut PacketPool) -> (Packet, Option<Time>) {
        let (_, id) = self.pipe.pop_front().expect("Arrive with an empty pipe");
        self.stats.delivered += 1;
        // On a busy link the next arrival is a few events away: load its record now.
        let next = self.pipe.front().map(|&(t, next_id)| {
            pool.prefetch(next_id);
            t
        });
        (pool.take(id), next)
    }

    /// The records inside the channel: waiting, on the wire, propagating.
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.queue.ids().chain(self.on_wire.map(|w| w.id)).chain(self.pipe.iter().map(|&(_, id)| id))
    }

    /// Records inside the channel (waiting, on the wire, propagating): (packets, cells).
    pub fn in_flight(&self, pool: &PacketPool) -> (u64, u64) {
        let (mut pkts, mut cells) = (0, 0);
        for id in self.ids() {
            if pool.get(id).cell.is_cell() {
                cells += 1;
            } else {
                pkts += 1;
            }
        }
        (pkts, cells)
    }

    pub fn finish_stats(&mut self) {
        self.stats.peak_queue_packets = self.queue.peak_packets as u64;
        self.stats.queue = self.queue.final_stats();
    }
}

pub struct TxOutcome {
    pub id: PacketId,
    pub lost: bool,
    pub next_tx: Option<Time>,
    pub arrive_at: Option<Time>,
}
