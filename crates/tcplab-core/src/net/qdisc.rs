//! The queue discipline of a packet link as the scenario chose it (`config::queue` reads and
//! checks it), and the queue built from it when the run starts.

use crate::rng::stream;
use crate::time::{Dur, SEC};

use super::codel::{Codel, CodelConfig};
use super::fq_codel::{FqCodel, FqCodelConfig};
use super::pie::{Pie, PieConfig};
use super::queue::{CodelQueue, Discipline, PieQueue, Queue, QueueLimit};
use super::red::{Red, RedConfig};
use super::red_ns235;

/// A validated discipline for a packet link.
#[derive(Debug, Clone, PartialEq)]
pub enum QdiscModel {
    DropTail,
    /// RED, or ERED when the config has a rule for marked packets.
    Red(RedConfig),
    /// CoDel (RFC 8289).
    Codel(CodelConfig),
    /// PIE (RFC 8033).
    Pie(PieConfig),
    /// FQ-CoDel (RFC 8290).
    FqCodel(FqCodelConfig),
}

impl QdiscModel {
    /// Whether a queue trace of this discipline also writes its departures' sojourn times
    /// (`sojourn_trace`): the disciplines that decide from queueing delay.
    pub fn traces_sojourn(&self) -> bool {
        matches!(self, QdiscModel::Codel(_) | QdiscModel::Pie(_) | QdiscModel::FqCodel(_))
    }
}

/// The queue of packet channel `index` (not a cell link) holding `limit`: drop-tail unless it
/// has a `qdisc`; RED and PIE draw from streams of their own (RED under rule `ns235` works out
/// what the scenario left to it from the link's `rate_bps` and `delay`). An explicit `qdisc`
/// also turns on the counters by cause, and `trace` the queue trace.
#[allow(clippy::too_many_arguments)]
pub fn packet_queue(
    limit: QueueLimit,
    qdisc: Option<&QdiscModel>,
    rate_bps: u64,
    delay: Dur,
    trace: bool,
    seed: u64,
    index: u64,
) -> Queue {
    let mut queue = match qdisc {
        None | Some(QdiscModel::DropTail) => Queue::new(limit),
        Some(QdiscModel::Red(cfg)) => {
            let cfg = match cfg.auto {
                Some(auto) => red_ns235::resolve(cfg.clone(), auto, rate_bps, delay as f64 / SEC as f64),
                None => cfg.clone(),
            };
            let red = Red::new(cfg, rate_bps, stream(seed, "red", index));
            Queue::with_discipline(limit, Discipline::Red(Box::new(red)))
        }
        Some(QdiscModel::Codel(cfg)) => {
            let codel = CodelQueue::new(Codel::new(*cfg), cfg.ecn);
            Queue::with_discipline(limit, Discipline::Codel(Box::new(codel)))
        }
        Some(QdiscModel::Pie(cfg)) => {
            let pie = Pie::new(*cfg, stream(seed, "pie", index));
            Queue::with_discipline(limit, Discipline::Pie(Box::new(PieQueue::new(pie))))
        }
        Some(QdiscModel::FqCodel(cfg)) => {
            // Its own `limit`, when given, replaces the link's.
            let limit = cfg.limit.map_or(limit, QueueLimit::Packets);
            Queue::with_discipline(limit, Discipline::FqCodel(Box::new(FqCodel::new(*cfg))))
        }
    };
    if qdisc.is_some() {
        queue.keep_stats();
    }
    if trace {
        queue.keep_trace();
        if qdisc.is_some_and(QdiscModel::traces_sojourn) {
            queue.keep_sojourn();
        }
    }
    queue
}
