//! A link: `[[link]]` with its rate, delay, queue limit, loss and discipline for both
//! directions (`ab` and `ba` override one), capture and traces. Each link becomes two one-way
//! channels, a to b then b to a.

use std::collections::HashSet;

use serde::Deserialize;

use super::atm::DropSpec;
use super::loss::LossSpec;
use super::queue::QdiscSpec;
use super::value::{err, in_field, positive};
use super::Nodes;
use crate::atm::drop::CellPolicy;
use crate::error::ScenarioError;
use crate::net::loss::LossModelSpec;
use crate::net::qdisc::QdiscModel;
use crate::net::red::{MarkedRule, RedConfig, RedMode};
use crate::net::QueueLimit;
use crate::pcap::{capture_stem, PcapMode};
use crate::tcp::stack::Stack;
use crate::time::Dur;
use crate::units::{bytes, duration_ns, rate_bps, Quantity};

/// A bidirectional link; `ab` and `ba` override settings for one direction.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table describing a link (a, b, rate, delay, ...)")]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    // Settings for both directions (serde cannot flatten a DirSpec here and still reject
    // unknown fields, so they are spelled out).
    pub rate: Option<Quantity>,
    pub delay: Option<Quantity>,
    pub queue: Option<i64>,
    pub queue_bytes: Option<Quantity>,
    pub loss: Option<LossSpec>,
    #[serde(default)]
    pub ab: Option<DirSpec>,
    #[serde(default)]
    pub ba: Option<DirSpec>,
    /// Capture both directions of this link to `link-<a>-<b>.pcap` in the output folder
    /// (where on the link: see `PcapMode`).
    #[serde(default)]
    pub pcap: PcapMode,
    /// An ATM link: it carries 53-byte cells; `queue` counts cells.
    #[serde(default)]
    pub atm: bool,
    /// With `series_bin`: also record this link's bytes per bin for each flow.
    #[serde(default)]
    pub per_flow_series: bool,
    pub drop: Option<DropSpec>,
    /// Queue discipline of a packet link: drop-tail, RED or ERED.
    pub qdisc: Option<QdiscSpec>,
    /// Write `queue-<channel>.csv`: every arrival's view of the queue (both directions).
    #[serde(default)]
    pub trace_queue: bool,
    /// Write `drops-<channel>.csv`: a row per packet (or cell) dropped, with its cause (both
    /// directions).
    #[serde(default)]
    pub trace_drops: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of one direction's settings (rate, delay, queue, loss)")]
pub struct DirSpec {
    pub rate: Option<Quantity>,
    pub delay: Option<Quantity>,
    /// Queue limit in packets.
    pub queue: Option<i64>,
    /// Queue limit in bytes (instead of `queue`).
    pub queue_bytes: Option<Quantity>,
    pub loss: Option<LossSpec>,
    pub drop: Option<DropSpec>,
    pub qdisc: Option<QdiscSpec>,
}

#[derive(Debug, Clone)]
pub struct ChannelModel {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub limit: QueueLimit,
    pub loss: LossModelSpec,
    /// Index into `Model::pcaps`: the capture at the sending end (before loss).
    pub pcap: Option<usize>,
    /// Index into `Model::pcaps`: the capture at the receiving end (what arrived).
    pub pcap_rx: Option<usize>,
    pub atm: bool,
    pub cell_policy: Option<CellPolicy>,
    pub per_flow_series: bool,
    pub qdisc: Option<QdiscModel>,
    pub trace_queue: bool,
    pub trace_drops: bool,
}

/// The channels of `links` (two per link) and the file names of their pcap captures.
pub fn channels(
    links: &[LinkSpec],
    nodes: &Nodes,
    stack: Stack,
) -> Result<(Vec<ChannelModel>, Vec<String>), ScenarioError> {
    let mut channels = Vec::new();
    let mut pcaps = Vec::new();
    let mut stems = HashSet::new();
    for (i, l) in links.iter().enumerate() {
        let f = format!("link[{i}]");
        let a = nodes.node(format!("{f}.a"), &l.a)?;
        let b = nodes.node(format!("{f}.b"), &l.b)?;
        if a == b {
            return err(format!("{f}.b"), "a link must join two different nodes");
        }
        if l.trace_queue && l.atm {
            return err(format!("{f}.trace_queue"), "queue traces are for packet links, not ATM (cell) links");
        }
        if l.pcap != PcapMode::Off && l.atm {
            return err(format!("{f}.pcap"), "pcap capture is not available on ATM (cell) links");
        }
        let stem = match l.pcap {
            PcapMode::Off => String::new(),
            _ => in_field(format!("{f}.pcap"), capture_stem(&l.a, &l.b, i, &mut stems))?,
        };
        let mut capture = |suffix: &str| {
            pcaps.push(format!("{stem}{suffix}.pcap"));
            pcaps.len() - 1
        };
        let pcap = l.pcap.send().then(|| capture(""));
        let pcap_rx = l.pcap.receive().then(|| capture(".recv"));
        let both = DirSpec {
            rate: l.rate.clone(),
            delay: l.delay.clone(),
            queue: l.queue,
            queue_bytes: l.queue_bytes.clone(),
            loss: l.loss.clone(),
            drop: l.drop.clone(),
            qdisc: l.qdisc.clone(),
        };
        for (from, to, dir, over) in [(a, b, "ab", &l.ab), (b, a, "ba", &l.ba)] {
            let mut ch = channel(&f, dir, &both, over.as_ref(), (from, to), l.atm, stack)?;
            ch.pcap = pcap;
            ch.pcap_rx = pcap_rx;
            ch.per_flow_series = l.per_flow_series;
            ch.trace_queue = l.trace_queue;
            ch.trace_drops = l.trace_drops;
            channels.push(ch);
        }
    }
    Ok((channels, pcaps))
}

/// One direction of link `f`: its own settings (`over`, the `ab` or `ba` table) over the
/// link's (`both`).
fn channel(
    f: &str,
    dir: &str,
    both: &DirSpec,
    over: Option<&DirSpec>,
    (from, to): (u32, u32),
    atm: bool,
    stack: Stack,
) -> Result<ChannelModel, ScenarioError> {
    let empty = DirSpec::default();
    let over = over.unwrap_or(&empty);
    // Name the field where the value came from: the direction's table, or the link's.
    let pick = |name: &str, o: bool| if o { format!("{f}.{dir}.{name}") } else { format!("{f}.{name}") };
    let rate_bps = match over.rate.as_ref().or(both.rate.as_ref()) {
        Some(r) => in_field(pick("rate", over.rate.is_some()), rate_bps(r))?,
        None => return err(format!("{f}.rate"), "missing: every link needs a rate"),
    };
    let delay = match over.delay.as_ref().or(both.delay.as_ref()) {
        Some(d) => in_field(pick("delay", over.delay.is_some()), duration_ns(d))?,
        None => 0,
    };
    let pkts = over.queue.or(both.queue);
    let byts = over.queue_bytes.as_ref().or(both.queue_bytes.as_ref());
    let limit = match (pkts, byts) {
        (Some(_), Some(_)) => return err(format!("{f}.queue"), "give `queue` (packets) or `queue_bytes`, not both"),
        (Some(n), None) => QueueLimit::Packets(positive(pick("queue", over.queue.is_some()), n)?),
        (None, Some(b)) => QueueLimit::Bytes(in_field(pick("queue_bytes", over.queue_bytes.is_some()), bytes(b))?),
        (None, None) => QueueLimit::Packets(1000),
    };
    let loss = match over.loss.as_ref().or(both.loss.as_ref()) {
        None => LossModelSpec::None,
        Some(l) => l.validate(&pick("loss", over.loss.is_some()))?,
    };
    let cell_policy = match over.drop.as_ref().or(both.drop.as_ref()) {
        None => None,
        Some(_) if !atm => return err(format!("{f}.drop"), "drop policies apply to ATM links (set `atm = true`)"),
        Some(d) => {
            let QueueLimit::Packets(cells) = limit else {
                return err(format!("{f}.queue_bytes"), "an ATM link's buffer is counted in cells: use `queue`");
            };
            Some(d.validate(&pick("drop", over.drop.is_some()), cells)?)
        }
    };
    let cell_policy = if atm { Some(cell_policy.unwrap_or(CellPolicy::Tail)) } else { None };
    let qdisc = match over.qdisc.as_ref().or(both.qdisc.as_ref()) {
        None => None,
        Some(_) if atm => return err(format!("{f}.qdisc"), "ATM links take a cell drop policy: use `drop`"),
        Some(d) => Some(d.validate(&pick("qdisc", over.qdisc.is_some()), stack)?),
    };
    if let Some(QdiscModel::Red(red)) = &qdisc {
        thresholds_within_limit(&pick("qdisc", over.qdisc.is_some()), red, limit)?;
    }
    Ok(ChannelModel {
        from,
        to,
        rate_bps,
        delay,
        limit,
        loss,
        pcap: None,
        pcap_rx: None,
        atm,
        cell_policy,
        per_flow_series: false,
        qdisc,
        trace_queue: false,
        trace_drops: false,
    })
}

/// A RED threshold above the queue limit can never be reached by the average (which trails
/// the instantaneous queue, itself at most the limit), so the curve the user wrote would
/// silently be drop-tail: issue 25 found `max_th = 45` on a 20-packet queue accepted.
/// Thresholds count what the queue limit counts (packets, or bytes in byte mode); a limit in
/// the other unit is not compared.
fn thresholds_within_limit(field: &str, red: &RedConfig, limit: QueueLimit) -> Result<(), ScenarioError> {
    let (cap, unit) = match (limit, red.mode) {
        (QueueLimit::Packets(n), RedMode::Packets) => (n as f64, "packets"),
        (QueueLimit::Bytes(b), RedMode::Bytes) => (b as f64, "bytes"),
        _ => return Ok(()),
    };
    let mut curves = vec![("max_th", red.curve.max_th)];
    if let Some(MarkedRule::Curve(c)) = red.ered {
        curves.push(("marked_max_th", c.max_th));
    }
    for (name, max_th) in curves {
        if max_th > cap {
            return err(
                format!("{field}.{name}"),
                format!("{max_th} is above the queue limit ({cap} {unit}): the average queue could never reach it"),
            );
        }
    }
    Ok(())
}
