//! A memory estimate of a run, computed from the validated model before anything is built, so
//! that a small file asking for a huge run (a 1 us series bin, a queue of 2^32 one-byte
//! packets, a traced 10 Gb/s flow) is refused with a one-line error instead of exhausting the
//! machine. Each figure is an upper bound of what the run can hold; the refusal names the field
//! behind the largest one.

use crate::config::model::Model;
use crate::error::ScenarioError;
use crate::net::QueueLimit;
use crate::packet::Packet;
use crate::tcp::sender::{SendRecord, TraceRow};
use crate::units::human_bytes as human;

/// Used when /proc/meminfo cannot be read.
pub const FALLBACK_LIMIT: u64 = 8 << 30;

/// One part of the estimate: the field that sets it, what it is, and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub field: String,
    pub what: &'static str,
    pub bytes: u64,
}

/// Half of the machine's total memory, or 8 GiB when that cannot be read.
pub fn default_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| mem_total(&t)).map_or(FALLBACK_LIMIT, |b| b / 2)
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Refuse the run when its estimate exceeds `limit` bytes, naming the field behind the largest
/// part of the estimate.
pub fn check(model: &Model, limit: u64) -> Result<(), ScenarioError> {
    check_parts(&estimate(model), limit)
}

/// `check` for a run that writes its files into `out`, if any: there its traces are streamed
/// (`trace_stream`), so they cost a buffer each in memory, and their files must fit the free
/// space of the folder's filesystem (`trace_budget`).
pub fn check_run(model: &Model, limit: u64, out: Option<&std::path::Path>) -> Result<(), ScenarioError> {
    let Some(dir) = out else { return check(model, limit) };
    check_parts(&estimate_for(model, true), limit)?;
    crate::trace_budget::check_disk(model, dir)
}

fn check_parts(parts: &[Part], limit: u64) -> Result<(), ScenarioError> {
    let total = parts.iter().fold(0u64, |s, p| s.saturating_add(p.bytes));
    if total <= limit {
        return Ok(());
    }
    let top = parts.iter().max_by_key(|p| p.bytes).expect("a total above the limit has parts");
    Err(ScenarioError::new(
        top.field.clone(),
        format!(
            "the run would hold about {} of {} (limit {}; whole run about {}); make the run smaller \
             or raise the limit with --max-memory",
            human(top.bytes),
            top.what,
            human(limit),
            human(total)
        ),
    ))
}

/// Check a scenario's estimate against `max_memory` (default: `default_limit()`) without
/// building or running it: a sweep checks every point first. A scenario that does not parse or
/// validate passes here; its run reports that error (a sweep stores it as a failed run).
pub fn check_text(text: &str, seed: Option<u64>, max_memory: Option<u64>) -> Result<(), crate::Error> {
    let Some(model) = crate::config::parse(text).ok().and_then(|s| s.validate(seed).ok()) else {
        return Ok(());
    };
    check(&model, max_memory.unwrap_or_else(default_limit))?;
    Ok(())
}

/// The parts of a run's memory that grow with the scenario's numbers (traces kept in memory).
pub fn estimate(model: &Model) -> Vec<Part> {
    estimate_for(model, false)
}

/// `estimate`, with the traces `streamed` to files (a fixed buffer each) or kept in memory.
pub fn estimate_for(model: &Model, streamed: bool) -> Vec<Part> {
    let mut parts = Vec::new();
    series(model, &mut parts);
    traces(model, streamed, &mut parts);
    packets(model, &mut parts);
    let flows = model.flows.iter().map(flow_state).fold(0u64, u64::saturating_add);
    parts.push(Part { field: "flow".into(), what: "per-flow state", bytes: flows });
    parts
}

/// One flow's state at run time: a TCP connection's two ends, or a UDP flow's sender, delay
/// histogram and trace.
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
    (ends + PER_FLOW_EXTRA) as u64
}

/// Routes, names, the report's row and the model's copy of a flow: measured order of magnitude.
const PER_FLOW_EXTRA: usize = 1024;

fn duration_ns(model: &Model) -> u64 {
    model.duration
}

/// Every channel keeps a series; a channel with per-flow series keeps one per flow; every
/// flow keeps a delivered-bytes series.
fn series(model: &Model, parts: &mut Vec<Part>) {
    let Some(bin) = model.series_bin else { return };
    let bins = duration_ns(model) / bin.max(1) + 1;
    let flows = model.flows.len() as u64;
    let per_flow_channels = model.channels.iter().filter(|c| c.per_flow_series).count() as u64;
    let count = model.channels.len() as u64 + per_flow_channels * flows + flows;
    parts.push(Part {
        field: "series_bin".into(),
        what: "series",
        bytes: bins.saturating_mul(count).saturating_mul(8),
    });
}

/// The smallest packet a flow can put on the wire: a header and one byte of data.
fn smallest_data_packet(model: &Model) -> u64 {
    let header = |f: &crate::config::flow::FlowModel| f.udp.as_ref().map_or(f.tcp.header_bytes, |u| u.header_bytes);
    model.flows.iter().map(|f| header(f) as u64 + 1).min().unwrap_or(41)
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
    let record = std::mem::size_of::<Packet>() as u64;
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
        let window = (f.tcp.advertised_window() as u64).max(f.tcp.mss as u64);
        let packets = 2 * (window / f.tcp.mss.max(1) as u64 + 1);
        in_flight = in_flight.saturating_add(packets.saturating_mul(cells));
        if window_field.as_ref().is_none_or(|(p, _)| packets > *p) {
            let by_cwnd = (f.tcp.initial_cwnd as u64).saturating_mul(f.tcp.mss as u64) >= window;
            let name = if by_cwnd { "initial_cwnd" } else { "rcv_buf" };
            window_field = Some((packets, format!("flow[{i}].tcp.{name}")));
        }
    }
    let smallest = smallest_data_packet(model).saturating_sub(1).max(1);
    let mut held = 0u64;
    let mut queue_field: Option<(u64, String)> = None;
    for (c, ch) in model.channels.iter().enumerate() {
        // Each link gives two channels, a to b then b to a.
        let link = c / 2;
        let (field, bound) = match ch.limit {
            QueueLimit::Packets(n) => (format!("link[{link}].queue"), n as u64),
            QueueLimit::Bytes(b) => (format!("link[{link}].queue_bytes"), b / smallest),
        };
        let wire_bits = (ch.rate_bps as f64 * ch.delay as f64 / 1e9).min(u64::MAX as f64 / 2.0) as u64;
        let on_wire = wire_bits / 8 / if ch.atm { 53 } else { smallest };
        held = held.saturating_add(bound).saturating_add(on_wire);
        if queue_field.as_ref().is_none_or(|(b, _)| bound > *b) {
            queue_field = Some((bound, field));
        }
    }
    let (what, field, count) = match (queue_field, window_field) {
        (Some((_, field)), _) if held < in_flight => ("queued packets", field, held),
        (_, Some((_, field))) => ("packets in flight", field, in_flight),
        _ => return,
    };
    parts.push(Part { field, what, bytes: count.saturating_mul(record) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_total() {
        assert_eq!(mem_total("MemTotal:       24684084 kB\nMemFree: 1 kB\n"), Some(24684084 * 1024));
        assert_eq!(mem_total("nothing"), None);
        assert!(default_limit() >= 1 << 20);
    }

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
        assert_eq!(series.bytes, 62 * (10_000_000 + 1) * 8);
        let e = refusal(&text, 2_000_000_000);
        assert_eq!(e.field, "series_bin");
        assert!(e.message.starts_with("the run would hold about 5.0 GB of series (limit 2.0 GB"), "{e}");
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
        let (b, t) = (part(&both, "flow").unwrap().bytes, part(&tcp_only, "flow").unwrap().bytes);
        assert!(b > t && b - t > (crate::udp::histogram::BUCKETS * 8) as u64 - 8192, "{b} {t}");
        // No window bounds a UDP source: the queues and links do, even with a TCP flow's
        // window smaller than them.
        let held = part(&both, "link[0].queue").expect("the queue bounds the packets");
        assert_eq!(held.what, "queued packets");
        let alone = format!("duration = \"1s\"\n{LINK}queue = 7000\n{udp}");
        assert_eq!(part(&alone, "link[0].queue").unwrap().what, "queued packets");
    }
}
