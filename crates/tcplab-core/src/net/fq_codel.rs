//! FQ-CoDel, the FlowQueue-CoDel packet scheduler and AQM (Hoeiland-Joergensen, McKenney,
//! Taht, Gettys and Dumazet, RFC 8290, 2018).
//!
//! Arrivals are hashed by flow into one of `flows` queues (section 4.1.1); each queue runs
//! its own CoDel (`codel.rs`, RFC 8289) at dequeue. A deficit round robin serves the queues
//! (section 4.2): a queue that becomes active joins the **new** list with a deficit of one
//! `quantum`; the scheduler serves the new list before the old; a queue whose deficit is used
//! up gets another quantum and goes to the tail of the old list; a new queue found empty goes
//! to the tail of the old list (the RFC's text; Linux drops it from the lists at once when the
//! old list is empty), so a sparse flow gets one quantum's priority and no more; an old queue
//! found empty leaves. When the total exceeds the limit (section 4.1), packets are dropped
//! from the head of the queue holding the most bytes, in a batch as Linux's fq_codel and
//! ns-3's FqCoDelQueueDisc do: until half of that queue's bytes are gone or `drop_batch`
//! packets (64) have been dropped, whichever first. The RFC describes dropping from the
//! fattest queue; the batch is the implementations' refinement (one scan of every queue per
//! burst, not per packet), kept so that tcplab and ns-3 drop alike.
//!
//! The hash is fixed, not perturbed per boot as Linux's: a run must repeat byte for byte. It
//! mixes the flow id (splitmix64's finaliser) before the modulo, so distinct flows collide in a
//! bucket as often as a random hash would make them (the birthday bound), not never.
//!
//! CoDel's one-packet floor (`Codel::on_enqueue`) is the largest packet seen by the whole
//! scheduler, as Linux's shared `maxpacket`, so a queue of ACKs is judged like any other.

use std::collections::VecDeque;

use super::codel::{Codel, CodelConfig, Head};
use super::pool::PacketId;
use super::queue::Waiting;
use super::sojourn_trace::SojournTrace;
use crate::time::{Dur, Time};

/// FQ-CoDel's settings (RFC 8290 section 5.2, 4.1: 1024 flows, quantum 1514 bytes; CoDel's
/// target 5 ms and interval 100 ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FqCodelConfig {
    pub flows: u32,
    /// Bytes a queue may send per round (one Ethernet frame: 1500 IP bytes and a 14-byte header).
    pub quantum: u32,
    pub codel: CodelConfig,
    /// Packets dropped at most per overflow, from the fattest queue.
    pub drop_batch: u32,
    /// Packets over all flow queues (None: the link's queue limit).
    pub limit: Option<u32>,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        Self { flows: 1024, quantum: 1514, codel: CodelConfig::default(), drop_batch: 64, limit: None }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// One flow queue: its packets with their enqueue times and whether each is ECN-capable,
/// its DRR deficit, its CoDel.
#[derive(Debug, Clone)]
struct FlowQueue {
    packets: VecDeque<(Waiting, Time, bool)>,
    bytes: u64,
    deficit: i64,
    codel: Codel,
    list: List,
}

/// The flow queue of flow id `flow` among `flows`: a fixed mix of the id (splitmix64's
/// finaliser), then the remainder.
pub fn bucket(flow: u32, flows: u32) -> u32 {
    (crate::rng::mix(u64::from(flow)) % u64::from(flows)) as u32
}

/// What one FQ-CoDel queue's flow queues cost before any packet waits (the memory estimate).
pub fn state_bytes(cfg: &FqCodelConfig) -> u64 {
    u64::from(cfg.flows) * std::mem::size_of::<FlowQueue>() as u64
}

/// The scheduler's state.
#[derive(Debug, Clone)]
pub struct FqCodel {
    cfg: FqCodelConfig,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    max_packet: u64,
    /// CoDel's drops at the last dequeue (congestion signals), for the channel to take.
    pub codel_dropped: Vec<PacketId>,
    /// The packet the last dequeue marked CE instead of dropping (`codel.ecn`), for the
    /// channel to mark: it is the packet sent.
    pub marked: Option<PacketId>,
    /// The fattest queue's drops at the last enqueue (no room), for the channel to take.
    pub overflow_dropped: Vec<PacketId>,
    /// A row per departure, when the link traces its queue.
    pub sojourn: Option<Box<SojournTrace>>,
}

impl FqCodel {
    pub fn new(cfg: FqCodelConfig) -> Self {
        let queue = FlowQueue {
            packets: VecDeque::new(),
            bytes: 0,
            deficit: 0,
            codel: Codel::new(cfg.codel),
            list: List::None,
        };
        Self {
            cfg,
            queues: vec![queue; cfg.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            max_packet: 0,
            codel_dropped: Vec::new(),
            marked: None,
            overflow_dropped: Vec::new(),
            sojourn: None,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The waiting packets, queue by queue.
    pub fn ids(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.queues.iter().flat_map(|q| q.packets.iter().map(|(w, _, _)| w.id))
    }

    /// Bytes waiting in flow `flow`'s queue.
    pub fn queue_bytes(&self, flow: u32) -> u64 {
        self.queues[bucket(flow, self.cfg.flows) as usize].bytes
    }

    /// A packet of `flow` that found the link idle: enqueued and dequeued at once, so only
    /// the largest packet size learns from it (every queue is empty and on no list).
    pub fn pass_through(&mut self, now: Time, wire_bytes: u32) {
        self.max_packet = self.max_packet.max(u64::from(wire_bytes));
        if let Some(t) = &mut self.sojourn {
            t.depart(now, 0);
        }
    }

    /// `dequeue` for the link: the packet to send, its sojourn and CoDel's drops traced.
    #[inline(never)]
    pub fn pop(&mut self, now: Time) -> Option<Waiting> {
        let out = self.dequeue(now);
        if let Some(t) = &mut self.sojourn {
            t.dropped(self.codel_dropped.len() as u32);
            if let Some((_, sojourn)) = out {
                t.depart(now, sojourn);
            }
        }
        out.map(|(w, _)| w)
    }

    /// Enqueue `w` of flow `flow` at `now` (section 4.1), not ECN-capable; when `over` says
    /// the total is then over the limit, drop a batch from the fattest queue into
    /// `overflow_dropped`. Returns whether it dropped.
    pub fn enqueue(&mut self, now: Time, w: Waiting, flow: u32, over: impl Fn(usize, u64) -> bool) -> bool {
        self.enqueue_ect(now, w, flow, false, over)
    }

    /// `enqueue` of a packet that is ECN-capable (`ect`: CoDel may mark it) or not.
    pub fn enqueue_ect(
        &mut self,
        now: Time,
        w: Waiting,
        flow: u32,
        ect: bool,
        over: impl Fn(usize, u64) -> bool,
    ) -> bool {
        self.overflow_dropped.clear();
        let i = bucket(flow, self.cfg.flows);
        let q = &mut self.queues[i as usize];
        q.packets.push_back((w, now, ect));
        q.bytes += u64::from(w.wire_bytes);
        if q.list == List::None {
            q.list = List::New;
            q.deficit = i64::from(self.cfg.quantum);
            self.new_flows.push_back(i);
        }
        self.len += 1;
        self.bytes += u64::from(w.wire_bytes);
        self.max_packet = self.max_packet.max(u64::from(w.wire_bytes));
        if !over(self.len, self.bytes) {
            return false;
        }
        self.drop_from_fattest();
        true
    }

    /// The overflow rule: from the head of the queue with the most bytes (the lowest index on
    /// a tie), until half its bytes or `drop_batch` packets are gone.
    #[cold]
    fn drop_from_fattest(&mut self) {
        let (fattest, _) =
            self.queues.iter().enumerate().fold(
                (0, 0),
                |best, (i, q)| {
                    if q.bytes > best.1 {
                        (i, q.bytes)
                    } else {
                        best
                    }
                },
            );
        let q = &mut self.queues[fattest];
        let threshold = q.bytes / 2;
        let mut dropped_bytes = 0;
        while let Some((w, _, _)) = q.packets.pop_front() {
            let b = u64::from(w.wire_bytes);
            q.bytes -= b;
            self.bytes -= b;
            self.len -= 1;
            dropped_bytes += b;
            self.overflow_dropped.push(w.id);
            if dropped_bytes >= threshold || self.overflow_dropped.len() >= self.cfg.drop_batch as usize {
                break;
            }
        }
    }

    /// The next packet to send at `now` and its sojourn time (section 4.2), CoDel's drops on
    /// the way into `codel_dropped` (and its mark, with `codel.ecn`, in `marked`); None when
    /// every queue is empty.
    pub fn dequeue(&mut self, now: Time) -> Option<(Waiting, Dur)> {
        self.codel_dropped.clear();
        self.marked = None;
        let ecn = self.cfg.codel.ecn;
        loop {
            let (i, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
            let q = &mut self.queues[i as usize];
            if q.deficit <= 0 {
                q.deficit += i64::from(self.cfg.quantum);
                list.pop_front();
                q.list = List::Old;
                self.old_flows.push_back(i);
                continue;
            }
            q.codel.on_enqueue(self.max_packet);
            let FlowQueue { packets, bytes, codel, .. } = q;
            let pop = || {
                let (w, enqueued_at, ect) = packets.pop_front()?;
                *bytes -= u64::from(w.wire_bytes);
                Some(Head { packet: (w, ect), enqueued_at, bytes_left: *bytes })
            };
            let (dropped, marked) = (&mut self.codel_dropped, &mut self.marked);
            let before = dropped.len();
            let mut gone = 0;
            // The one place FQ-CoDel signals congestion: a flow queue's CoDel drop, or with
            // `ecn` its CE mark of an ECN-capable head (RFC 8290 4.2 runs RFC 8289's dequeue
            // per queue; 5.2's `ecn` parameter).
            let head = codel.dequeue_with(now, pop, |h| {
                if ecn && h.packet.1 {
                    *marked = Some(h.packet.0.id);
                    return Some(h);
                }
                gone += u64::from(h.packet.0.wire_bytes);
                dropped.push(h.packet.0.id);
                None
            });
            self.bytes -= gone;
            self.len -= self.codel_dropped.len() - before;
            let Some(h) = head else {
                self.retire_empty(i, from_new);
                continue;
            };
            let (w, _) = h.packet;
            let q = &mut self.queues[i as usize];
            q.deficit -= i64::from(w.wire_bytes);
            self.bytes -= u64::from(w.wire_bytes);
            self.len -= 1;
            return Some((w, now - h.enqueued_at));
        }
    }

    /// Queue `i`, at the head of the new list (`from_new`) or the old, was found empty: a new
    /// queue goes to the tail of the old list (so it cannot come back as new at once and
    /// starve the others), an old one leaves the lists (section 4.2).
    fn retire_empty(&mut self, i: u32, from_new: bool) {
        let q = &mut self.queues[i as usize];
        if from_new {
            self.new_flows.pop_front();
            q.list = List::Old;
            self.old_flows.push_back(i);
        } else {
            self.old_flows.pop_front();
            q.list = List::None;
        }
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
