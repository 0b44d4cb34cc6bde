//! How many rows a run's traces can hold, and how much disk they take when streamed.
//!
//! `budget` prices the rows in memory (traces kept for the caller) or, with an output folder,
//! as one file buffer each (`trace_stream`). A streamed trace is limited by the disk instead:
//! a traced 10 Gb/s bulk flow for 1000 s writes about 80 GB of CSV. Such a run is accepted
//! while its files fit the free space of the output folder's filesystem, and refused before it
//! starts, with one line naming the trace and the estimate, when they cannot. The figures are
//! upper bounds, like `budget`'s: every column is counted at its widest.

use std::path::Path;

use crate::config::model::Model;
use crate::error::ScenarioError;
use crate::net::QueueLimit;
use crate::units::human_bytes as human;

/// The window can grow this far at most (`tcp::sender`'s cap, 2^40 bytes): 13 digits.
const CWND_DIGITS: u64 = 13;

/// Per traced flow (index, rows): a row per ACK and timeout and a record per segment sent.
/// Segments are counted as full ones (mss + header: a bulk sender sends full segments; a
/// short one ends a write), at most what the access link carries in the run and at most one
/// window per round trip over the first hop (there and back).
pub fn flow_rows(model: &Model) -> Vec<(usize, f64)> {
    if !model.flows.iter().any(|f| f.trace) {
        return Vec::new();
    }
    let hops = FirstHops::new(model);
    let dur_s = model.duration as f64 / 1e9;
    let mut out = Vec::new();
    for (i, f) in model.flows.iter().enumerate().filter(|(_, f)| f.trace) {
        // Timeouts add a row each even on an idle link: one per minimum RTO at most.
        let timeouts = dur_s / (f.tcp.min_rto.max(1) as f64 / 1e9) + 1.0;
        out.push((i, hops.segments(model, f) + timeouts));
    }
    out
}

/// Per node, the fastest rate and the shortest delay of the channels leaving it: found once,
/// not once per flow (a run of 10^5 flows would scan every channel per flow).
struct FirstHops {
    rate_bps: Vec<u64>,
    delay: Vec<u64>,
}

impl FirstHops {
    fn new(model: &Model) -> Self {
        let mut hops = Self { rate_bps: vec![0; model.nodes.len()], delay: vec![u64::MAX; model.nodes.len()] };
        for c in &model.channels {
            let n = c.from as usize;
            hops.rate_bps[n] = hops.rate_bps[n].max(c.rate_bps);
            hops.delay[n] = hops.delay[n].min(c.delay);
        }
        hops
    }

    fn segments(&self, model: &Model, f: &crate::config::flow::FlowModel) -> f64 {
        let dur_s = model.duration as f64 / 1e9;
        let rate = self.rate_bps[f.src as usize] as f64;
        let segment = f64::from(f.tcp.mss) + f64::from(f.tcp.header_bytes);
        let by_rate = rate / 8.0 * dur_s / segment;
        let delay = self.delay[f.src as usize];
        let rtt_s = if delay == u64::MAX { 0.0 } else { 2.0 * delay as f64 / 1e9 };
        let window = f64::from(f.tcp.advertised_window()) / f64::from(f.tcp.mss.max(1)) + 1.0;
        let by_window = if rtt_s > 0.0 { window * dur_s / rtt_s } else { f64::INFINITY };
        by_rate.min(by_window)
    }
}

/// Per channel with a queue trace (channel index, samples): a sample per arrival. Arrivals
/// come at most as fast as the links into the channel's node (or the channel itself, for a
/// host's own packets) deliver the smallest packet (a bare header: an ACK), and at most once
/// per segment and per ACK of every flow (each segment sent draws at most one ACK).
pub fn queue_samples(model: &Model) -> Vec<(usize, f64)> {
    packets_per_channel(model, |c| c.trace_queue)
}

/// Per AQM channel with a queue trace (channel index, rows): a departure row per packet
/// sent, at most one per arrival (`queue_samples`' bound).
pub fn sojourn_rows(model: &Model) -> Vec<(usize, f64)> {
    let aqm = |c: &crate::config::link::ChannelModel| {
        c.trace_queue && c.qdisc.as_ref().is_some_and(crate::net::qdisc::QdiscModel::traces_sojourn)
    };
    packets_per_channel(model, aqm)
}

/// Per channel with a drop trace (channel index, rows): a channel drops at most every packet
/// that arrives (`queue_samples`' bound; on an ATM link every cell of them).
pub fn drop_rows(model: &Model) -> Vec<(usize, f64)> {
    let cells = |c: &crate::config::link::ChannelModel| if c.atm { 1500.0 / 48.0 } else { 1.0 };
    let all = packets_per_channel(model, |c| c.trace_drops);
    all.into_iter().map(|(i, n)| (i, n * cells(&model.channels[i]))).collect()
}

/// `queue_samples` for the channels `wanted` picks (a packet capture counts the same way).
pub fn packets_per_channel(
    model: &Model,
    wanted: impl Fn(&crate::config::link::ChannelModel) -> bool,
) -> Vec<(usize, f64)> {
    if !model.channels.iter().any(&wanted) {
        return Vec::new();
    }
    let hops = FirstHops::new(model);
    let dur_s = model.duration as f64 / 1e9;
    let smallest = model.flows.iter().map(|f| f.tcp.header_bytes).min().unwrap_or(40).max(1) as f64;
    let packets: f64 = model.flows.iter().map(|f| 2.0 * hops.segments(model, f)).sum();
    let mut into = vec![0u64; model.nodes.len()];
    for d in &model.channels {
        into[d.to as usize] = into[d.to as usize].saturating_add(d.rate_bps);
    }
    let mut out = Vec::new();
    for (i, c) in model.channels.iter().enumerate().filter(|(_, c)| wanted(c)) {
        // Into c's node, but not back from c's far end (what c sends does not return to it).
        let back = model.channels[i ^ 1].rate_bps * u64::from(model.channels[i ^ 1].from == c.to);
        let rate = into[c.from as usize].saturating_sub(back).max(c.rate_bps) as f64;
        out.push((i, (rate / 8.0 / smallest * dur_s).min(packets) + 1.0));
    }
    out
}

fn digits(v: u64) -> u64 {
    v.checked_ilog10().map_or(1, |d| d as u64 + 1)
}

/// Bytes on disk of each trace file set (the field that asks for it, bytes): per segment one
/// line of `trace-flowN.csv` and one of `segments-flowN.csv`; per arrival one line of
/// `queue-N.csv`; per packet a captured link sends one record of its pcap (and of its
/// `.recv.pcap`).
pub fn disk_parts(model: &Model) -> Vec<(String, u64)> {
    // "1000.123456789": the whole seconds, the point and nine decimals.
    let time = digits(model.duration / crate::time::SEC) + 10;
    let dur_s = model.duration as f64 / 1e9;
    let mut out = Vec::new();
    for (i, rows) in flow_rows(model) {
        let f = &model.flows[i];
        let rate = model.channels.iter().filter(|c| c.from == f.src).map(|c| c.rate_bps).max().unwrap_or(0);
        let offset = digits(f.bytes.unwrap_or(u64::MAX).min((rate as f64 / 8.0 * dur_s).min(u64::MAX as f64) as u64));
        let ssthresh = digits(f.tcp.initial_ssthresh).max(CWND_DIGITS);
        // rtt_sample_s and srtt_s are at most the run's length, rto_s at most max_rto.
        let rto = time.max(digits(f.tcp.max_rto / crate::time::SEC) + 10);
        let rtt = 2 * time + rto + offset;
        // time,cwnd,ssthresh,snd_una,snd_nxt,rtt_sample_s,srtt_s,rto_s,flight and
        // time,offset,len,retransmit: 8 + 3 commas, 2 ends.
        let line =
            (time + CWND_DIGITS + ssthresh + 2 * offset + rtt) + (time + offset + digits(f.tcp.mss.into()) + 1) + 13;
        out.push((format!("flow[{i}].trace"), (rows * line as f64).min(u64::MAX as f64) as u64));
    }
    for (c, samples) in queue_samples(model) {
        let ch = &model.channels[c];
        let (packets, bytes) = match ch.limit {
            QueueLimit::Packets(n) => (n as u64, n as u64 * 65_535),
            QueueLimit::Bytes(b) => (b, b),
        };
        // RED's average, in packets or bytes, with six decimals.
        let avg = if ch.qdisc.is_some() { digits(bytes) + 7 } else { 0 };
        let line = time + digits(packets) + digits(bytes) + avg + 4;
        out.push((format!("link[{}].trace_queue", c / 2), (samples * line as f64).min(u64::MAX as f64) as u64));
    }
    // time_s,sojourn_s,aqm_drops: a sojourn is at most the run's length, the drops a u32.
    for (c, rows) in sojourn_rows(model) {
        let line = 2 * time + digits(u32::MAX as u64) + 3;
        out.push((format!("link[{}].trace_queue", c / 2), (rows * line as f64).min(u64::MAX as f64) as u64));
    }
    // time,flow,kind,seq,ack,len,bytes,cause,marked: "data", a 32-bit offset, 65535-byte
    // packets, "cell_policy", 8 commas and the end.
    let flows = digits(model.flows.len() as u64);
    let line = time + flows + 4 + 10 + 5 + 5 + 11 + 1 + 9;
    for (c, rows) in drop_rows(model) {
        out.push((format!("link[{}].trace_drops", c / 2), (rows * line as f64).min(u64::MAX as f64) as u64));
    }
    for (c, packets) in packets_per_channel(model, |c| c.pcap.is_some() || c.pcap_rx.is_some()) {
        let ch = &model.channels[c];
        let files = u64::from(ch.pcap.is_some()) + u64::from(ch.pcap_rx.is_some());
        let bytes = packets * (PCAP_RECORD_BYTES * files) as f64;
        out.push((format!("link[{}].pcap", c / 2), bytes.min(u64::MAX as f64) as u64));
    }
    out
}

/// The most a captured packet takes in a pcap file: a 16-byte record header, Ethernet (14),
/// IPv4 (20) and TCP (20) headers and up to 40 bytes of TCP options.
const PCAP_RECORD_BYTES: u64 = 110;

/// Bytes free for an unprivileged writer on the filesystem of `dir` (or of its nearest
/// existing parent, for a folder not made yet); None when it cannot be told.
pub fn free_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = dir.ancestors().find(|d| d.as_os_str().is_empty() || d.exists())?;
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path and `st` a buffer statvfs fills when it returns 0.
    let st = unsafe {
        if libc::statvfs(c.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Refuse a run whose streamed traces would not fit the free space of `dir`'s filesystem.
pub fn check_disk(model: &Model, dir: &Path) -> Result<(), ScenarioError> {
    let parts = disk_parts(model);
    if parts.is_empty() {
        return Ok(());
    }
    let Some(free) = free_space(dir) else { return Ok(()) };
    refuse_over(&parts, free, dir)
}

fn refuse_over(parts: &[(String, u64)], free: u64, dir: &Path) -> Result<(), ScenarioError> {
    let total = parts.iter().fold(0u64, |s, p| s.saturating_add(p.1));
    if total <= free {
        return Ok(());
    }
    let (field, top) = parts.iter().max_by_key(|p| p.1).expect("a total above zero has parts");
    let this = if parts.len() > 1 { format!(" ({} for this one)", human(*top)) } else { String::new() };
    Err(ScenarioError::new(
        field.clone(),
        format!(
            "the run would write about {} of trace and capture files{this} to {}, which has {} free; \
             trace or capture less, shorten the run, or write to a larger disk",
            human(total),
            dir.display(),
            human(free)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> Model {
        crate::config::parse(text).unwrap().validate(None).unwrap()
    }

    const BULK_10G: &str = "duration = \"1000s\"\nnodes = [\"a\", \"b\"]\n[tcp]\nrcv_buf = \"64MiB\"\n\
        window_scaling = true\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Gbps\"\ndelay = \"10ms\"\n\
        trace_queue = true\n[[flow]]\nsrc = \"a\"\ndst = \"b\"\ntrace = true\n";

    #[test]
    fn the_trace_bomb_needs_tens_of_gigabytes_of_disk_and_is_refused_on_a_small_one() {
        let m = model(BULK_10G);
        let parts = disk_parts(&m);
        let flow = parts.iter().find(|p| p.0 == "flow[0].trace").unwrap().1;
        // 10 Gb/s for 1000 s in 1500-byte packets: 8.3 x 10^8 segments, about 100 bytes of
        // CSV each (the dumbbell example writes about 70).
        assert!((50e9..200e9).contains(&(flow as f64)), "{flow}");
        assert!(parts.iter().any(|p| p.0 == "link[0].trace_queue"));
        let e = refuse_over(&parts, 20_000_000_000, Path::new("out")).unwrap_err();
        assert!(e.field == "link[0].trace_queue" || e.field == "flow[0].trace", "{e}");
        assert!(e.message.contains("of trace and capture files") && e.message.contains("20.0 GB free"), "{e}");
        assert!(!e.to_string().contains('\n'));
        assert!(refuse_over(&parts, u64::MAX, Path::new("out")).is_ok());
    }

    #[test]
    fn streamed_traces_cost_a_buffer_in_memory() {
        use crate::budget::{check_run, estimate_for};
        let m = model(&BULK_10G.replace("trace_queue = true\n", ""));
        let limit = crate::mem_limit::MemoryLimit { bytes: 8 << 30, source: "--max-memory" };
        let part =
            |streamed: bool| estimate_for(&m, streamed).into_iter().find(|p| p.field == "flow[0].trace").unwrap();
        assert!(part(false).bytes > 10_000_000_000);
        assert_eq!(part(true).bytes, 2 * crate::trace_stream::BUFFER_BYTES as u64);
        assert_eq!(check_run(&m, &limit, None).unwrap_err().field, "flow[0].trace");
        // With a folder, the memory check passes; the disk check decides on this machine's disk.
        let dir = std::env::temp_dir();
        let free = free_space(&dir).expect("statvfs works on the temporary folder");
        let total: u64 = disk_parts(&m).iter().map(|p| p.1).sum();
        assert_eq!(check_run(&m, &limit, Some(&dir)).is_ok(), total <= free);
    }

    #[test]
    fn an_aqm_queue_trace_counts_its_sojourn_rows_on_disk_and_in_memory() {
        use crate::budget::estimate_for;
        let codel = BULK_10G.replace("trace_queue = true\n", "trace_queue = true\nqdisc = { kind = \"codel\" }\n");
        let queue_parts = |text: &str| {
            let m = model(text);
            let disk: Vec<u64> =
                disk_parts(&m).into_iter().filter(|p| p.0 == "link[0].trace_queue").map(|p| p.1).collect();
            let mem = estimate_for(&m, false).into_iter().filter(|p| p.field == "link[0].trace_queue").count();
            let streamed: u64 =
                estimate_for(&m, true).into_iter().filter(|p| p.field == "link[0].trace_queue").map(|p| p.bytes).sum();
            (disk, mem, streamed)
        };
        let (tail_disk, tail_mem, tail_streamed) = queue_parts(BULK_10G);
        let (codel_disk, codel_mem, codel_streamed) = queue_parts(&codel);
        // Both directions of the link trace. A row per departure beside the row per arrival:
        // a second part per channel on disk (time_s, sojourn_s, aqm_drops: about 35 bytes a
        // row, as many rows) and in memory, a second file buffer.
        assert_eq!((tail_disk.len(), tail_mem), (2, 2));
        assert_eq!((codel_disk.len(), codel_mem), (4, 4));
        assert!(codel_disk[0] >= tail_disk[0], "{codel_disk:?} {tail_disk:?}");
        assert!(codel_disk[2] > codel_disk[0] / 3, "{codel_disk:?}");
        assert_eq!(codel_streamed, 2 * tail_streamed);
    }

    #[test]
    fn free_space_of_a_folder_not_made_yet_is_its_parents() {
        let tmp = std::env::temp_dir();
        let a = free_space(&tmp).unwrap();
        let b = free_space(&tmp.join("tcplab-no-such-folder/deeper")).unwrap();
        // Other processes write meanwhile: equal within a few hundred MB.
        assert!(a.abs_diff(b) < 500_000_000, "{a} {b}");
        assert!(free_space(Path::new("relative-folder-not-there")).is_some());
    }
}
