//! A memory estimate of a run, computed from the validated model before anything is built, so
//! that a small file asking for a huge run (a 1 us series bin, a queue of 2^32 one-byte
//! packets, a traced 10 Gb/s flow) is refused with a one-line error instead of exhausting the
//! machine. Each figure is an upper bound of what the run can hold; the refusal names the field
//! behind the largest one.

use crate::config::link::ChannelModel;
use crate::config::model::Model;
use crate::error::ScenarioError;
use crate::mem_limit::MemoryLimit;
use crate::net::QueueLimit;
use crate::packet::Packet;
use crate::tcp::sender::{SendRecord, TraceRow};
use crate::units::human_bytes as human;

pub use crate::mem_limit::{default_limit, FALLBACK_LIMIT};

/// One part of the estimate: the field that sets it, what it is, and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub field: String,
    pub what: &'static str,
    pub bytes: u64,
}

/// Refuse the run when its estimate exceeds `limit` bytes, naming the field behind the largest
/// part of the estimate.
pub fn check(model: &Model, limit: u64) -> Result<(), ScenarioError> {
    check_limit(model, &MemoryLimit { bytes: limit, source: "--max-memory" })
}

/// `check` against a limit that says where it comes from (`mem_limit::effective`).
pub fn check_limit(model: &Model, limit: &MemoryLimit) -> Result<(), ScenarioError> {
    check_parts(&estimate_within(model, false, limit.bytes), limit)
}

/// `check` for a run that writes its files into `out`, if any: there its traces and captures
/// are streamed (`trace_stream`, `pcap`), so they cost a buffer each in memory, and their
/// files must fit the free space of the folder's filesystem (`trace_budget`).
pub fn check_run(model: &Model, limit: &MemoryLimit, out: Option<&std::path::Path>) -> Result<(), ScenarioError> {
    let Some(dir) = out else { return check_limit(model, limit) };
    check_parts(&estimate_within(model, true, limit.bytes), limit)?;
    crate::trace_budget::check_disk(model, dir)
}

fn check_parts(parts: &[Part], limit: &MemoryLimit) -> Result<(), ScenarioError> {
    let total = parts.iter().fold(0u64, |s, p| s.saturating_add(p.bytes));
    if total <= limit.bytes {
        return Ok(());
    }
    let top = parts.iter().max_by_key(|p| p.bytes).expect("a total above the limit has parts");
    let raise = match limit.source {
        "--max-memory" | "MemAvailable" | "default" => "raise the limit with --max-memory",
        _ => "run it where the process may use more memory",
    };
    Err(ScenarioError::new(
        top.field.clone(),
        format!(
            "the run would hold about {} of {} (limit {}, {}; whole run about {}); make the run smaller \
             or {raise}",
            human(top.bytes),
            top.what,
            human(limit.bytes),
            limit.source,
            human(total)
        ),
    ))
}

/// What parsing and checking one table of a scenario (a `[[link]]`, an inline `{...}`, an
/// array) costs before the estimate can look at the model: the TOML parser's document, the
/// typed scenario and the model. Measured: 520,000 inline link tables (16.5 MB of text) peak at
/// 1.59 GB in the core's parse and check, about 3 kB a table.
pub const PARSE_BYTES_PER_TABLE: u64 = 3 << 10;

/// Refuse, before parsing it, a text whose tables would cost more than `limit` to parse: every
/// `{` and `[` counts as one, `[[` as one (an upper bound: a bracket inside a string counts too).
pub fn check_parse_cost(text: &str, limit: &MemoryLimit) -> Result<(), ScenarioError> {
    check_parts(&[parse_cost(text)], limit)
}

/// What parsing `text` may cost (`check_parse_cost`), as a part of the estimate.
pub fn parse_cost(text: &str) -> Part {
    let b = text.as_bytes();
    let opens = |i: usize| b[i] == b'{' || (b[i] == b'[' && b.get(i + 1) != Some(&b'['));
    let tables = (0..b.len()).filter(|&i| opens(i)).count() as u64;
    Part { field: "scenario".into(), what: "the parsed scenario", bytes: tables * PARSE_BYTES_PER_TABLE }
}

/// Check a scenario's estimate against `max_memory` (default and cap: `mem_limit`) without
/// building or running it: a sweep checks every point first. A scenario that does not parse or
/// validate passes here; its run reports that error (a sweep stores it as a failed run).
pub fn check_text(text: &str, seed: Option<u64>, max_memory: Option<u64>) -> Result<(), crate::Error> {
    let limit = crate::mem_limit::effective(max_memory);
    check_parse_cost(text, &limit)?;
    let Some(model) = crate::config::parse(text).ok().and_then(|s| s.validate(seed).ok()) else {
        return Ok(());
    };
    check_limit(&model, &limit)?;
    Ok(())
}

/// The parts of a run's memory that grow with the scenario's numbers (traces kept in memory).
pub fn estimate(model: &Model) -> Vec<Part> {
    estimate_for(model, false)
}

/// `estimate`, with the traces and captures `streamed` to files (a fixed buffer each) or kept
/// in memory.
pub fn estimate_for(model: &Model, streamed: bool) -> Vec<Part> {
    estimate_within(model, streamed, u64::MAX)
}

/// `estimate_for`, whose route count may stop once it alone passes `limit` bytes.
fn estimate_within(model: &Model, streamed: bool, limit: u64) -> Vec<Part> {
    let mut parts = Vec::new();
    series(model, &mut parts);
    traces(model, streamed, &mut parts);
    packets(model, &mut parts);
    captures(model, streamed, &mut parts);
    topology(model, limit, &mut parts);
    let buffers = buffer_reserves(model).iter().map(|&n| n as u64).sum::<u64>() * BUFFER_ENTRY;
    parts.push(Part { field: "link".into(), what: "queue and pipe buffers sized at build", bytes: buffers });
    let flows = model.flows.iter().map(flow_state).fold(0u64, u64::saturating_add);
    parts.push(Part { field: "flow".into(), what: "per-flow state", bytes: flows });
    delivery_logs(model, &mut parts);
    parts
}

/// The delivery logs of the flows whose congestion control samples delivery (Vegas, BBR:
/// `Controller::samples_delivery`): a record per segment in flight, so a window of a gigabyte
/// in one-byte segments is a billion records (a hostile probe's scenario, stop 53, asked for
/// 15 GB more under a 10 GB limit before this was counted). The ring (a `VecDeque`) doubles as
/// it grows, so it may hold twice its records' room, and while it grows the old and the new
/// buffers are both held: three times the records, at its peak.
fn delivery_logs(model: &Model, parts: &mut Vec<Part>) {
    let mut total = 0u64;
    let mut largest: Option<(u64, String)> = None;
    for (i, f) in model.flows.iter().enumerate() {
        if f.udp.is_some() || !f.tcp.cc.samples_delivery() {
            continue;
        }
        let bytes = crate::tcp::delivery::DeliveryLog::bound_bytes(window_bound(f), f.tcp.mss as u64).saturating_mul(3);
        total = total.saturating_add(bytes);
        if largest.as_ref().is_none_or(|(b, _)| bytes > *b) {
            largest = Some((bytes, format!("flow[{i}].tcp.rcv_buf")));
        }
    }
    if let Some((_, field)) = largest {
        parts.push(Part { field, what: "delivery logs (Vegas, BBR: a record per segment in flight)", bytes: total });
    }
}

/// One flow's state at run time: a TCP connection's two ends, or a UDP flow's sender, delay
/// histogram and trace; its model; and the rest (`PER_FLOW_EXTRA`).
fn flow_state(f: &crate::config::flow::FlowModel) -> u64 {
    let ends = match &f.udp {
        None => std::mem::size_of::<crate::tcp::TcpSender>() + std::mem::size_of::<crate::tcp::TcpReceiver>(),
        Some(u) => {
            let trace = match &u.source {
                crate::udp::source::SourceConfig::Trace { packets } => packets.len() * 16,
                _ => 0,
            };
            std::mem::size_of::<crate::udp::UdpFlow>() + crate::udp::histogram::BUCKETS * 8 + trace
        }
    };
    (ends + std::mem::size_of::<crate::config::flow::FlowModel>() + PER_FLOW_EXTRA) as u64
}

/// Per flow besides its two ends and its model: its report row as the core's JSON and as the
/// caller's objects, names, timers. Measured: a run of 20,000 flows peaks 4.0 kB per flow
/// above a run of one (`tcplab run`, the report read into Python).
const PER_FLOW_EXTRA: usize = 3 << 10;

/// Per channel besides its run-time record and its model: its report row (about 210 bytes of
/// JSON, then 580 bytes of the caller's objects: measured on 20,000 links), series handles,
/// routing tables. The parse's own cost is not counted here (`check_parse_cost` checks it
/// apart: the parsed text is dropped before the run is built, so the process peaks at the
/// larger of the two, not their sum). Measured with `tcplab run` (VmHWM): 520,000 inline links
/// between two nodes peak at 1.585 GB, 3.05 kB a link, where the parse alone peaks at 1.576 GB
/// (this estimate: 3.3 kB a link); a star of 250,000 links, a node each, at 825 MB, 3.3 kB a
/// link (estimate 3.6 kB). Counted at 1.5 kB before, the estimate was 43% above the measured
/// peak.
const PER_CHANNEL_EXTRA: usize = 1024;

/// Per node: its name, adjacency list, ATM runtime slot.
const PER_NODE: u64 = 256;

/// Per route hop: one in the run's arena, at most one more in the route finder's cache.
const PER_HOP: u64 = 8;

/// Links, nodes and the routes of every flow (a chain of 20,000 nodes crossed by 20,000 flows
/// stores 8 x 10^8 hops).
fn topology(model: &Model, limit: u64, parts: &mut Vec<Part>) {
    let per_channel = (std::mem::size_of::<crate::net::Channel>()
        + std::mem::size_of::<crate::config::link::ChannelModel>()
        + PER_CHANNEL_EXTRA) as u64;
    let channels = per_channel * model.channels.len() as u64 + PER_NODE * model.nodes.len() as u64;
    parts.push(Part { field: "link".into(), what: "links and nodes", bytes: channels });
    let fq: u64 = model
        .channels
        .iter()
        .filter_map(|c| match &c.qdisc {
            Some(crate::net::qdisc::QdiscModel::FqCodel(cfg)) => Some(crate::net::fq_codel::state_bytes(cfg)),
            _ => None,
        })
        .fold(0, u64::saturating_add);
    if fq > 0 {
        parts.push(Part { field: "link".into(), what: "FQ-CoDel flow queues", bytes: fq });
    }
    cell_droppers(model, parts);
    let ends: Vec<(u32, u32)> = model.flows.iter().map(|f| (f.src, f.dst)).collect();
    let arcs = model.channels.iter().map(|c| (c.from, c.to));
    let hops = crate::net::route::total_hops(model.nodes.len(), arcs, &ends, limit / PER_HOP);
    parts.push(Part { field: "flow".into(), what: "routes", bytes: hops.saturating_mul(PER_HOP) });
}

/// The cell links' drop policies (`sim/build.rs`): a record per flow direction of the run on
/// every cell link, so a chain of 50,000 switches crossed by 1,000 flows holds 2 x 10^8 of
/// them (a hostile probe's boston chain peaked at 2.7 GB against an estimate of 476 MB).
fn cell_droppers(model: &Model, parts: &mut Vec<Part>) {
    let cell_links =
        model.channels.iter().filter(|c| c.cell_policy.is_some() && matches!(c.limit, QueueLimit::Packets(_))).count()
            as u64;
    if cell_links == 0 {
        return;
    }
    let each = crate::atm::drop::CellDropper::state_bytes(2 * model.flows.len(), !model.www.is_empty());
    let bytes = cell_links.saturating_mul(each);
    parts.push(Part {
        field: "link".into(),
        what: "cell-drop state (a record per flow direction on every cell link)",
        bytes,
    });
}

/// Captures (`pcap`): streamed into their files through one buffer each; without an output
/// folder nothing is captured.
fn captures(model: &Model, streamed: bool, parts: &mut Vec<Part>) {
    if streamed && !model.pcaps.is_empty() {
        let bytes = model.pcaps.len() as u64 * crate::csv::BUFFER_BYTES as u64;
        parts.push(Part { field: "link".into(), what: "capture file buffers", bytes });
    }
}

fn duration_ns(model: &Model) -> u64 {
    model.duration
}

/// What one series bin costs the process: 8 bytes in the run, then in the report as JSON text
/// (up to 21 bytes) and as the caller's object (a Python int or float and its pointer, 32 to
/// 40 bytes), the text and the objects alive together while the report is read. Measured:
/// 12-15 bytes at 1 us bins where most bins are zero (small ints are shared); the issue's
/// marker series (floats, every bin set) peaked near 8 times the 8 bytes first estimated.
pub const SERIES_BIN_BYTES: u64 = 72;

/// Every channel keeps a series; a channel with per-flow series keeps one per flow; every
/// flow keeps a delivered-bytes series, and a written-bytes one when applications drive the
/// flows; with any marker, every flow keeps a marked-bytes series and each marked flow a
/// lost-tokens one.
fn series(model: &Model, parts: &mut Vec<Part>) {
    let Some(bin) = model.series_bin else { return };
    let bins = duration_ns(model) / bin.max(1) + 1;
    let flows = model.flows.len() as u64;
    let per_flow_channels = model.channels.iter().filter(|c| c.per_flow_series).count() as u64;
    let written = if model.www.is_empty() { 0 } else { flows };
    let marked = model.flows.iter().filter(|f| f.marker.is_some()).count() as u64;
    let marking = if marked > 0 { flows + marked } else { 0 };
    let count = model.channels.len() as u64 + per_flow_channels * flows + flows + written + marking;
    parts.push(Part {
        field: "series_bin".into(),
        what: "series",
        bytes: bins.saturating_mul(count).saturating_mul(SERIES_BIN_BYTES),
    });
}

/// The smallest packet a flow can put on the wire: a header and one byte of data.
fn smallest_data_packet(model: &Model) -> u64 {
    let header = |f: &crate::config::flow::FlowModel| f.udp.as_ref().map_or(f.tcp.header_bytes, |u| u.header_bytes);
    model.flows.iter().map(|f| header(f) as u64 + 1).min().unwrap_or(41)
}

/// The smallest packet a channel's byte limit is counted in (an ACK's size, at least 1 byte).
fn smallest_packet(model: &Model) -> u64 {
    smallest_data_packet(model).saturating_sub(1).max(1)
}

/// The most packets channel `ch` holds at once, as (in its queue, in its delay), of at least
/// `smallest` bytes; one more is on the wire.
fn channel_packets(ch: &ChannelModel, smallest: u64) -> (u64, u64) {
    let queued = match ch.limit {
        QueueLimit::Packets(n) => n as u64,
        QueueLimit::Bytes(b) => b / smallest,
    };
    let wire_bits = (ch.rate_bps as f64 * ch.delay as f64 / 1e9).min(u64::MAX as f64 / 2.0) as u64;
    (queued, wire_bits / 8 / if ch.atm { 53 } else { smallest })
}

/// Bytes of one packet in a channel's queue (`Waiting`) and pipe (`InFlight`) buffers.
const BUFFER_ENTRY: u64 =
    (std::mem::size_of::<crate::net::waiting::Waiting>() + std::mem::size_of::<crate::net::channel::InFlight>()) as u64;

/// All channels' buffers together are sized at build (`buffer_reserves`) to at most this.
const BUFFER_ALLOWANCE: u64 = 8 << 20;

/// No channel's buffers are sized at build for more packets than this (htsim's dumbbell's
/// bottleneck holds about 100; a buffer that needs more grows from here).
const BUFFER_MOST: u64 = 256;

/// The packets each channel's queue and pipe have room for from the start
/// (`Channel::reserve`), so that the run does not grow them while it warms up (issue 26: 617
/// growths, 11 instructions per packet, at 100 flows on htsim's dumbbell): what the channel
/// can hold (`channel_packets`, and the one on the wire), at most `buffer_share`.
pub(crate) fn buffer_reserves(model: &Model) -> Vec<usize> {
    let most = buffer_share(model.channels.len());
    let smallest = smallest_packet(model);
    let room = |ch: &ChannelModel| {
        let (queued, delayed) = channel_packets(ch, smallest);
        queued.saturating_add(delayed).saturating_add(1).min(most) as usize
    };
    model.channels.iter().map(room).collect()
}

/// The most packets a channel's buffers are sized for at build among `channels`: all of them
/// within `BUFFER_ALLOWANCE`, at most `BUFFER_MOST`, a power of two (a buffer doubles from
/// there, as it would have), and none below 8 (a buffer's growth from nothing is then cheap;
/// the 10^5 flows of `scale_100k` leave theirs as they were).
fn buffer_share(channels: usize) -> u64 {
    let share = (BUFFER_ALLOWANCE / BUFFER_ENTRY / channels.max(1) as u64).min(BUFFER_MOST);
    if share < 8 {
        0
    } else {
        1 << share.ilog2()
    }
}

/// Traced flows and queues (`trace_budget` counts their rows): their rows, or with `streamed`
/// one file buffer per trace file for the traces `StreamPlan` streams.
fn traces(model: &Model, streamed: bool, parts: &mut Vec<Part>) {
    use crate::trace_budget::{flow_rows, queue_samples};
    use crate::trace_stream::{file_budget, StreamPlan, BUFFER_BYTES};
    let plan = StreamPlan::new(model, if streamed { file_budget() } else { 0 });
    let bytes = |rows: f64, size: usize| (rows * size as f64).min(u64::MAX as f64) as u64;
    let row = std::mem::size_of::<TraceRow>() + std::mem::size_of::<SendRecord>();
    for (i, rows) in flow_rows(model) {
        let field = format!("flow[{i}].trace");
        let (what, bytes) = if plan.flows[i] {
            ("trace file buffers", 2 * BUFFER_BYTES as u64)
        } else {
            ("trace rows", bytes(rows, row))
        };
        parts.push(Part { field, what, bytes });
    }
    let sample = std::mem::size_of::<crate::net::queue::QueueSample>();
    for (c, samples) in queue_samples(model) {
        let field = format!("link[{}].trace_queue", c / 2);
        let (what, bytes) = if plan.channels[c] {
            ("trace file buffers", BUFFER_BYTES as u64)
        } else {
            ("queue trace samples", bytes(samples, sample))
        };
        parts.push(Part { field, what, bytes });
    }
    let departure = std::mem::size_of::<crate::net::sojourn_trace::Departure>();
    for (c, rows) in crate::trace_budget::sojourn_rows(model) {
        let field = format!("link[{}].trace_queue", c / 2);
        let (what, bytes) = if plan.channels[c] {
            ("trace file buffers", BUFFER_BYTES as u64)
        } else {
            ("sojourn trace rows", bytes(rows, departure))
        };
        parts.push(Part { field, what, bytes });
    }
    let event = std::mem::size_of::<crate::net::drop_trace::DropEvent>();
    for (c, rows) in crate::trace_budget::drop_rows(model) {
        let field = format!("link[{}].trace_drops", c / 2);
        let (what, bytes) = if plan.drops[c] {
            ("trace file buffers", BUFFER_BYTES as u64)
        } else {
            ("drop trace rows", bytes(rows, event))
        };
        parts.push(Part { field, what, bytes });
    }
}

/// Packet (and cell) records the run can hold at once: at most every flow's window in segments
/// of at least one byte and as many ACKs (in cells when the network has ATM links), and at most
/// what all queues hold plus what all links carry in their propagation delay.
fn packets(model: &Model, parts: &mut Vec<Part>) {
    let (window_field, in_flight) = window_packets(model);
    let (queue_field, held) = channel_held_packets(model);
    let (what, field, count) = match (queue_field, window_field) {
        (Some((_, field)), _) if held < in_flight => ("queued packets", field, held),
        (_, Some((_, field))) => ("packets in flight", field, in_flight),
        _ => return,
    };
    let record = std::mem::size_of::<Packet>() as u64;
    parts.push(Part { field, what, bytes: count.saturating_mul(record) });
}

/// The packet pool's room at build (`PacketPool::reserve`): the most packets the run can hold at
/// once (`packets`), at most `POOL_MOST`.
pub(crate) fn pool_reserve(model: &Model) -> usize {
    let (_, in_flight) = window_packets(model);
    let (_, held) = channel_held_packets(model);
    in_flight.min(held).min(POOL_MOST) as usize
}

/// No packet pool is sized at build for more packets than this (108 bytes each, 0.4 MiB, not
/// written until used; htsim's 1,000-flow dumbbell holds 950 at its peak).
const POOL_MOST: u64 = 4096;

/// The packets every TCP flow's window lets out at once, data and ACKs (in cells when the
/// network has ATM links; no bound with a UDP flow), and the field of the flow with the most.
fn window_packets(model: &Model) -> (Option<(u64, String)>, u64) {
    let largest = model.flows.iter().map(|f| f.largest_packet()).max().unwrap_or(1500);
    let cells = if model.channels.iter().any(|c| c.atm) { largest.div_ceil(48) + 1 } else { 1 };
    let mut in_flight = 0u64;
    let mut window_field: Option<(u64, String)> = None;
    for (i, f) in model.flows.iter().enumerate() {
        if f.udp.is_some() {
            // No window holds a UDP source back: only the queues and links bound its packets.
            in_flight = u64::MAX;
            continue;
        }
        let window = window_bound(f);
        let packets = 2 * (window / f.tcp.mss.max(1) as u64 + 1);
        in_flight = in_flight.saturating_add(packets.saturating_mul(cells));
        if window_field.as_ref().is_none_or(|(p, _)| packets > *p) {
            let by_cwnd = (f.tcp.initial_cwnd as u64).saturating_mul(f.tcp.mss as u64) >= window;
            let name = if by_cwnd { "initial_cwnd" } else { "rcv_buf" };
            window_field = Some((packets, format!("flow[{i}].tcp.{name}")));
        }
    }
    (window_field, in_flight)
}

/// The most bytes a TCP flow can have in flight: the window it advertises, at least a segment.
fn window_bound(f: &crate::config::flow::FlowModel) -> u64 {
    (f.tcp.advertised_window() as u64).max(f.tcp.mss as u64)
}

/// The packets all queues and links can hold at once, and the field of the largest queue.
fn channel_held_packets(model: &Model) -> (Option<(u64, String)>, u64) {
    let smallest = smallest_packet(model);
    let mut held = 0u64;
    let mut queue_field: Option<(u64, String)> = None;
    for (c, ch) in model.channels.iter().enumerate() {
        // Each link gives two channels, a to b then b to a.
        let link = c / 2;
        let field = match ch.limit {
            QueueLimit::Packets(_) => format!("link[{link}].queue"),
            QueueLimit::Bytes(_) => format!("link[{link}].queue_bytes"),
        };
        let (bound, on_wire) = channel_packets(ch, smallest);
        held = held.saturating_add(bound).saturating_add(on_wire);
        if queue_field.as_ref().is_none_or(|(b, _)| bound > *b) {
            queue_field = Some((bound, field));
        }
    }
    (queue_field, held)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::config::parse(text).unwrap().validate(None).unwrap()
    }

    const LINK: &str = "nodes = [\"a\", \"b\"]\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n";
    const FLOW: &str = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\n";

    fn refusal(text: &str, limit: u64) -> ScenarioError {
        check(&model(text), limit).unwrap_err()
    }

    #[test]
    fn series_count_every_channel_flow_and_per_flow_series() {
        let text =
            format!("duration = \"10s\"\nseries_bin = \"1us\"\n{LINK}per_flow_series = true\n{}", FLOW.repeat(20));
        // 2 channels + 2 x 20 per-flow + 20 delivered = 62 series of 10^7 + 1 bins.
        let series = estimate(&model(&text)).into_iter().find(|p| p.field == "series_bin").unwrap();
        assert_eq!(series.bytes, 62 * (10_000_000 + 1) * SERIES_BIN_BYTES);
        let e = refusal(&text, 2_000_000_000);
        assert_eq!(e.field, "series_bin");
        assert!(e.message.starts_with("the run would hold about 44.6 GB of series (limit 2.0 GB, --max-memory"), "{e}");
    }

    /// A chain of cell switches crossed by many flows: every cell link keeps a drop record per
    /// flow direction, crossing it or not (the boston chain of a hostile probe, 50,000 switches
    /// and 1,000 flows, peaked at 2.7 GB against an estimate of 476 MB).
    #[test]
    fn cell_links_count_a_drop_record_per_flow_direction() {
        let (switches, flows) = (50, 40);
        let names: Vec<String> = (0..=switches).map(|i| format!("\"n{i}\"")).collect();
        let mut text = format!("duration = \"1s\"\nnodes = [{}]\n", names.join(", "));
        for i in 0..switches {
            text +=
                &format!("[[link]]\na = \"n{i}\"\nb = \"n{}\"\nrate = \"10Mbps\"\natm = true\nqueue = 100\n", i + 1);
        }
        text += &format!("[[flow]]\nsrc = \"n0\"\ndst = \"n{switches}\"\n").repeat(flows);
        let parts = estimate(&model(&text));
        let cells = parts.iter().find(|p| p.what.starts_with("cell-drop state")).expect("counted");
        let per_vc = (std::mem::size_of::<Option<(u32, bool)>>() + 4) as u64;
        assert_eq!(cells.bytes, 2 * switches as u64 * 2 * flows as u64 * per_vc);
        assert!(!estimate(&model(&format!("duration = \"1s\"\n{LINK}{FLOW}")))
            .iter()
            .any(|p| p.what.starts_with("cell-drop")));
    }

    #[test]
    fn one_byte_segments_with_a_huge_window_are_refused() {
        let text = format!(
            "duration = \"10s\"\n{LINK}queue = 4294967295\n{FLOW}[tcp]\nmss = 1\n\
             initial_cwnd = 4294967295\nrcv_buf = \"1024MiB\"\nwindow_scaling = true\n"
        );
        assert_eq!(refusal(&text, 8 << 30).field, "flow[0].tcp.initial_cwnd");
    }

    #[test]
    fn a_delivery_log_per_segment_in_flight_is_counted_for_vegas_and_bbr_only() {
        // A short queue bounds the packets; the window does not bound Vegas's log (a hostile
        // probe's scenario, stop 53: accepted, then out of memory with 15 GB more asked).
        let text = |cc: &str| {
            format!(
                "duration = \"5s\"\n{LINK}queue = 10\n{FLOW}[tcp]\nmss = 1\ninitial_cwnd = 4294967295\n\
                 rcv_buf = \"1024MiB\"\nwindow_scaling = true\ncc = \"{cc}\"\n"
            )
        };
        for cc in ["vegas", "bbr"] {
            let e = refusal(&text(cc), 8 << 30);
            assert_eq!(e.field, "flow[0].tcp.rcv_buf", "{cc}: {e}");
            assert!(e.message.contains("delivery logs"), "{cc}: {e}");
        }
        assert!(check(&model(&text("reno")), 8 << 30).is_ok());
        // An ordinary window costs next to nothing: 64 KiB of 1,460-byte segments.
        let small = format!("duration = \"5s\"\n{LINK}{FLOW}[tcp]\ncc = \"vegas\"\n");
        let log = estimate(&model(&small)).into_iter().find(|p| p.what.starts_with("delivery logs")).unwrap();
        assert!(log.bytes < 1 << 20, "{}", log.bytes);
    }

    #[test]
    fn a_traced_fast_bulk_flow_is_refused_and_a_slow_one_is_not() {
        let fast = format!(
            "duration = \"1000s\"\n{}{FLOW}trace = true\n[tcp]\nrcv_buf = \"64MiB\"\nwindow_scaling = true\n",
            LINK.replace("10Mbps", "10Gbps")
        );
        assert_eq!(refusal(&fast, 8 << 30).field, "flow[0].trace");
        let slow = format!("duration = \"1000s\"\n{LINK}{FLOW}trace = true\n");
        assert!(check(&model(&slow), 1 << 30).is_ok());
    }

    #[test]
    fn udp_flows_count_their_histograms_and_only_queues_bound_their_packets() {
        let udp = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
                   source = { kind = \"cbr\", rate = \"1Gbps\", size = \"1000B\" }\n";
        let part = |text: &str, field: &str| estimate(&model(text)).into_iter().find(|p| p.field == field);
        let both = format!("duration = \"1s\"\n{LINK}queue = 7000\n{FLOW}{udp}");
        let tcp_only = format!("duration = \"1s\"\n{LINK}queue = 7000\n{FLOW}{FLOW}");
        // A UDP flow's state includes its delay histogram, about 21 kB.
        let state = |text: &str| estimate(&model(text)).into_iter().find(|p| p.what == "per-flow state").unwrap().bytes;
        let (b, t) = (state(&both), state(&tcp_only));
        assert!(b > t && b - t > (crate::udp::histogram::BUCKETS * 8) as u64 - 8192, "{b} {t}");
        // No window bounds a UDP source: the queues and links do, even with a TCP flow's
        // window smaller than them.
        let held = part(&both, "link[0].queue").expect("the queue bounds the packets");
        assert_eq!(held.what, "queued packets");
        let alone = format!("duration = \"1s\"\n{LINK}queue = 7000\n{udp}");
        assert_eq!(part(&alone, "link[0].queue").unwrap().what, "queued packets");
    }

    /// A chain of `n` nodes, each flow crossing all of it.
    fn chain(n: usize, flows: usize) -> String {
        let nodes: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
        let mut t = format!("duration = \"1s\"\nnodes = [{}]\n", nodes.join(","));
        t += &format!("flow = [{}]\n", vec![format!("{{src = \"n0\", dst = \"n{}\"}}", n - 1); flows].join(","));
        for i in 0..n - 1 {
            t += &format!("[[link]]\na = \"n{i}\"\nb = \"n{}\"\nrate = \"1Mbps\"\n", i + 1);
        }
        t
    }

    #[test]
    fn routes_are_counted_hop_by_hop_and_a_long_chain_is_refused() {
        let m = model(&chain(1000, 2000));
        let routes = estimate(&m).into_iter().find(|p| p.what == "routes").unwrap();
        // 2000 flows x 2 ways x (999 hops + END) x 8 bytes.
        assert_eq!(routes.bytes, 2000 * 2 * 1000 * PER_HOP);
        let e = check(&m, 20_000_000).unwrap_err();
        assert!(e.field == "flow" && e.message.contains("of routes"), "{e}");
    }

    #[test]
    fn queue_and_pipe_buffers_are_sized_from_what_a_channel_holds_within_an_allowance() {
        assert_eq!(BUFFER_ENTRY, 32);
        // htsim's dumbbell at 100 and 1000 flows, and 10^5 flows (none sized).
        assert_eq!([202, 2002, 200_000].map(buffer_share), [256, 128, 0]);
        // 20 packets queued, one on the wire; 10 Mb/s over 10 ms holds 312 ACKs of 40 bytes.
        let no_delay = model(&format!("duration = \"1s\"\n{}queue = 20\n{FLOW}", LINK.replace("10ms", "0s")));
        assert_eq!(buffer_reserves(&no_delay), [21, 21]);
        let delayed = model(&format!("duration = \"1s\"\n{LINK}queue = 20\n{FLOW}"));
        assert_eq!(buffer_reserves(&delayed), [256, 256]);
        let part = estimate(&delayed).into_iter().find(|p| p.what == "queue and pipe buffers sized at build");
        assert_eq!(part.unwrap().bytes, 2 * 256 * BUFFER_ENTRY);
    }

    #[test]
    fn the_pool_is_sized_for_the_packets_windows_and_queues_allow_within_a_cap() {
        let no_delay = LINK.replace("10ms", "0s");
        let pool = |queue: u32, rcv_buf: &str| {
            let tcp = format!("[tcp]\nmss = 1000\nrcv_buf = \"{rcv_buf}\"\n");
            pool_reserve(&model(&format!("duration = \"1s\"\n{no_delay}queue = {queue}\n{FLOW}{tcp}")))
        };
        // The window's 10 segments and as many ACKs, one more of each; then the two queues'
        // 20 packets each (no delay: nothing on the wire); then the cap.
        assert_eq!(pool(20, "10000B"), 22);
        assert_eq!(pool(20, "60000B"), 40);
        assert_eq!(pool(100_000, "60000B"), 122);
        let udp = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
                   source = { kind = \"cbr\", rate = \"1Gbps\", size = \"1000B\" }\n";
        let queued = |queue: u32| pool_reserve(&model(&format!("duration = \"1s\"\n{no_delay}queue = {queue}\n{udp}")));
        assert_eq!(queued(30), 60);
        assert_eq!(queued(100_000), POOL_MOST as usize);
    }

    #[test]
    fn links_and_nodes_are_counted() {
        let links = estimate(&model(&chain(100, 1))).into_iter().find(|p| p.field == "link").unwrap();
        // 99 links of two channels, each its record, its model and about 1 kB of report.
        assert!(links.bytes > 99 * 2 * 1500 && links.bytes < 99 * 2 * 2500, "{}", links.bytes);
    }

    #[test]
    fn marker_and_application_series_are_counted() {
        let marked = format!(
            "duration = \"1s\"\nseries_bin = \"1ms\"\n{LINK}{FLOW}marker = {{ rate = \"1Mbps\", depth_time = \"50ms\" }}\n{FLOW}"
        );
        let series = estimate(&model(&marked)).into_iter().find(|p| p.field == "series_bin").unwrap();
        // 2 channels + 2 delivered + 2 marked + 1 lost-token series of 1001 bins.
        assert_eq!(series.bytes, 7 * 1001 * SERIES_BIN_BYTES);
    }

    #[test]
    fn captures_cost_a_buffer_when_streamed_and_nothing_otherwise() {
        let text = format!("duration = \"20s\"\n{}pcap = \"both\"\n{FLOW}", LINK.replace("10Mbps", "10Gbps"));
        let m = model(&text);
        let buffers = |streamed| estimate_for(&m, streamed).into_iter().find(|p| p.what == "capture file buffers");
        // Two files (sent and received), each with both directions.
        assert_eq!(buffers(true).unwrap().bytes, 2 * crate::csv::BUFFER_BYTES as u64);
        assert!(buffers(false).is_none());
        let disk = crate::trace_budget::disk_parts(&m);
        let pcap = disk.iter().find(|p| p.0 == "link[0].pcap").unwrap().1;
        // A 64 KiB window per 20 ms round trip for 20 s, each segment and ACK in two files.
        assert!((10_000_000..100_000_000).contains(&pcap), "{pcap}");
    }

    #[test]
    fn a_hard_limit_is_named_in_the_refusal() {
        let text = format!("duration = \"10s\"\nseries_bin = \"1us\"\n{LINK}{FLOW}");
        let limit = MemoryLimit { bytes: 1 << 20, source: "ulimit -v" };
        let e = check_limit(&model(&text), &limit).unwrap_err();
        assert!(e.message.contains("limit 1.0 MB, ulimit -v;") && e.message.contains("may use more memory"), "{e}");
    }

    #[test]
    fn a_text_of_many_tables_is_refused_before_its_parse() {
        let limit = MemoryLimit { bytes: 1 << 20, source: "--max-memory" };
        let many = "link = [".to_string() + &"{a=\"a\",b=\"b\"},".repeat(400) + "]";
        let e = check_parse_cost(&many, &limit).unwrap_err();
        assert!(e.field == "scenario" && e.message.contains("of the parsed scenario"), "{e}");
        assert!(check_parse_cost(&many[..2000], &limit).is_ok());
    }

    #[test]
    fn fq_codel_counts_its_flow_queues() {
        let part = |qdisc: &str| {
            let m = model(&format!("duration = \"1s\"\n{LINK}qdisc = {qdisc}\n{FLOW}"));
            estimate(&m).into_iter().find(|p| p.what == "FQ-CoDel flow queues").map(|p| p.bytes)
        };
        assert_eq!(part("{ kind = \"codel\" }"), None);
        // Both directions of the link, 1024 queues each, at least a deque and a CoDel apiece.
        let bytes = part("{ kind = \"fq_codel\" }").expect("counted");
        assert!(bytes >= 2 * 1024 * 80, "{bytes}");
        assert_eq!(part("{ kind = \"fq_codel\", flows = 4096 }"), Some(4 * bytes));
    }
}
