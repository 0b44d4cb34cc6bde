//! The queue discipline of a packet link as the scenario chose it (`config::queue` reads and
//! checks it), and the queue built from it when the run starts.

use crate::rng::stream;

use super::codel::{Codel, CodelConfig};
use super::queue::{CodelQueue, Discipline, Queue, QueueLimit};
use super::red::{Red, RedConfig};

/// A validated discipline for a packet link.
#[derive(Debug, Clone, PartialEq)]
pub enum QdiscModel {
    DropTail,
    /// RED, or ERED when the config has a rule for marked packets.
    Red(RedConfig),
    /// CoDel (RFC 8289).
    Codel(CodelConfig),
}

/// The queue of packet channel `index` (not a cell link) holding `limit`: drop-tail unless it
/// has a `qdisc`; RED draws from its own stream. An explicit `qdisc` also turns on the
/// counters by cause, and `trace` the queue trace.
pub fn packet_queue(
    limit: QueueLimit,
    qdisc: Option<&QdiscModel>,
    rate_bps: u64,
    trace: bool,
    seed: u64,
    index: u64,
) -> Queue {
    let mut queue = match qdisc {
        None | Some(QdiscModel::DropTail) => Queue::new(limit),
        Some(QdiscModel::Red(cfg)) => {
            let red = Red::new(cfg.clone(), rate_bps, stream(seed, "red", index));
            Queue::with_discipline(limit, Discipline::Red(Box::new(red)))
        }
        Some(QdiscModel::Codel(cfg)) => {
            let codel = CodelQueue::new(Codel::new(*cfg), cfg.ecn);
            Queue::with_discipline(limit, Discipline::Codel(Box::new(codel)))
        }
    };
    if qdisc.is_some() {
        queue.keep_stats();
    }
    if trace {
        queue.keep_trace();
    }
    queue
}
