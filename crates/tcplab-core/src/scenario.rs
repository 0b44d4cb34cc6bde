//! The scenario file (TOML): what the user writes, and its validation into a typed model.
//!
//! Parsing rejects unknown fields; validation checks values and references and names the
//! field at fault (`link[2].ab.rate`, `flow[0].dst`). Nothing past this module sees raw input.

use std::collections::HashMap;

use serde::Deserialize;

use crate::atm::drop::CellPolicy;
use crate::atm::AtmConfig;
use crate::error::ScenarioError;
use crate::net::loss::DropBy;
use crate::net::marker::MarkerConfig;
use crate::net::spec::{MarkerSpec, QdiscModel, QdiscSpec, ReservationSpec};
use crate::net::QueueLimit;
use crate::tcp::boston::BostonConfig;
use crate::tcp::config::{DelayedAck, Handshake, RecoveryKind, TcpConfig};
use crate::tcp::growth::{Deflation, WindowRule};
use crate::tcp::rtt::TimerClock;
use crate::tcp::rtt_ns1::RttSample;
use crate::tcp::stack::Stack;
use crate::time::{Dur, Time, MS};
use crate::units::{bytes, duration_ns, rate_bps, Quantity};

// ---------------------------------------------------------------- the file as written

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of scenario settings")]
pub struct Scenario {
    /// A label for reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Simulated time to run.
    pub duration: Quantity,
    /// Seed of all random streams (overridden by `tcplab run --seed`).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Record per-interval byte counts of every link and flow (time series) in bins this long.
    #[serde(default)]
    pub series_bin: Option<Quantity>,
    pub nodes: Vec<String>,
    /// Nodes that are ATM cell switches (output-buffered, inputs served round robin).
    #[serde(default)]
    pub switches: Vec<String>,
    /// AAL5 framing on every cell link.
    #[serde(default)]
    pub atm: AtmSpec,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkSpec>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<FlowSpec>,
    /// TCP settings applied to every flow before the flow's own `tcp` table.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Test-only: break the run on purpose (see `test_hooks`); refused unless enabled.
    #[serde(default, rename = "_test_corrupt")]
    pub test_corrupt: Option<String>,
    /// WWW client-server pairs (Goyal et al. 1998, Sec. 5), each on a persistent connection.
    #[serde(default)]
    pub www: Option<WwwSpec>,
}

/// The WWW model's settings and its pairs; omitted settings take the paper's values.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of WWW settings and [[www.pair]] entries")]
pub struct WwwSpec {
    pub request_bytes: Option<Quantity>,
    pub batch_period: Option<Quantity>,
    pub request_gap_min: Option<Quantity>,
    pub request_gap_max: Option<Quantity>,
    pub pipelining: Option<bool>,
    /// "none" (ns-2.1b3 keeps the window over idle time) or "rfc2581".
    pub idle_restart: Option<String>,
    /// TCP settings of the pairs' flows, over the scenario's `[tcp]`.
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default, rename = "pair")]
    pub pairs: Vec<WwwPairSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table with a client and a server node")]
pub struct WwwPairSpec {
    pub client: String,
    pub server: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of AAL5 settings (trailer, llc_snap, reassembly, framing, max_frame, reassembly_timeout)"
)]
pub struct AtmSpec {
    pub trailer: Option<bool>,
    pub llc_snap: Option<bool>,
    /// "aal5" (a lost last cell spoils the next frame too) or "per_packet".
    pub reassembly: Option<String>,
    /// "aal5" (trailer with length and CRC) or "flag" (a header flag marks the last cell, no
    /// trailer: Bestavros and Kim (1997), Sec. 3).
    pub framing: Option<String>,
    /// Largest frame a reassembly buffer may hold, bytes (default 65535, I.363.5).
    pub max_frame: Option<Quantity>,
    /// A frame not complete this long after its first cell is discarded (default: no timer).
    pub reassembly_timeout: Option<Quantity>,
}

/// The drop policy of a cell link's output buffer.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "policy",
    rename_all = "snake_case",
    expecting = "an inline table with a policy, such as { policy = \"epd\", threshold = 0.8 }"
)]
pub enum DropSpec {
    Tail,
    Ppd,
    /// `threshold`: the R of EPD as a fraction of the buffer.
    Epd {
        threshold: f64,
    },
    /// `threshold` (R) as a fraction of the buffer, and Z.
    Sd {
        threshold: f64,
        z: f64,
    },
}

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
    pub pcap: crate::pcap::PcapMode,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "model",
    rename_all = "snake_case",
    expecting = "an inline table with a model, such as { model = \"bernoulli\", p = 0.01 }"
)]
pub enum LossSpec {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// Burst noise in time: good and bad periods of exponential length with these means.
    Burst {
        mean_good: Quantity,
        mean_bad: Quantity,
    },
    DropList {
        /// Index of the flow in the `flow` list.
        flow: i64,
        /// "tx_index", "offset" or "segment".
        by: String,
        values: Vec<i64>,
    },
}

fn one() -> f64 {
    1.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table describing a flow (src, dst, bytes, ...)")]
pub struct FlowSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    #[serde(default)]
    pub start: Option<Quantity>,
    /// A uniform random delay in [0, start_jitter) added to `start`, drawn from the run's seed.
    #[serde(default)]
    pub start_jitter: Option<Quantity>,
    /// Bytes to transfer; omitted means an infinite (bulk) source.
    #[serde(default)]
    pub bytes: Option<Quantity>,
    /// Record a cwnd/sequence time trace for this flow.
    #[serde(default)]
    pub trace: bool,
    /// Size of the application's first write, sent as a segment of its own (an HTTP header).
    #[serde(default)]
    pub first_write: Option<Quantity>,
    /// Token-bucket policer/marker of the flow's packets at the source.
    #[serde(default)]
    pub marker: Option<MarkerSpec>,
    /// Sender policies of a reserved connection (needs `marker`).
    #[serde(default)]
    pub reservation: Option<ReservationSpec>,
    #[serde(default)]
    pub tcp: TcpSpec,
}

/// TCP knobs; every field is optional and falls back to the scenario's `[tcp]`, then defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of TCP settings (variant, mss, ...)")]
pub struct TcpSpec {
    /// "tcplab" (default), "bsd44", "ns2" or "ns1": the preset the other knobs override.
    pub stack: Option<String>,
    pub variant: Option<String>,
    pub mss: Option<i64>,
    pub header_bytes: Option<i64>,
    pub rcv_buf: Option<Quantity>,
    pub snd_buf: Option<Quantity>,
    pub initial_cwnd: Option<i64>,
    pub initial_ssthresh: Option<Quantity>,
    pub dupack_threshold: Option<i64>,
    /// "fine", or a tick length such as "500ms" for BSD coarse timers.
    pub timer: Option<String>,
    pub min_rto: Option<Quantity>,
    pub max_rto: Option<Quantity>,
    pub initial_rto: Option<Quantity>,
    pub delayed_ack: Option<bool>,
    pub delayed_ack_timeout: Option<Quantity>,
    pub delayed_ack_aligned: Option<bool>,
    /// "immediate" (Reno-era) or "delayed" (Tahoe-era) ACKs for out-of-order data.
    pub out_of_order_ack: Option<String>,
    /// "none", "sender" (the data sender opens) or "receiver" (the data receiver opens).
    pub handshake: Option<String>,
    pub nagle: Option<bool>,
    pub sws_avoidance: Option<bool>,
    /// Segments per ACK at most (0 or absent: no cap).
    pub max_burst: Option<i64>,
    pub window_scaling: Option<bool>,
    /// "plain", "boston" (AIDA coding of segments into cell shards) or "boston_bitmap".
    pub codec: Option<String>,
    /// Boston: extra shards with each first transmission (n - m).
    pub boston_redundancy: Option<i64>,
    /// Boston: N as a multiple of m (N is capped at 256).
    pub boston_dispersal: Option<i64>,
    /// Boston: decode and check the bytes of every k-th segment that needed coded shards.
    pub boston_verify_every: Option<i64>,
    /// Boston: "wait" (a partial ACK's fresh shards go with the next retransmission) or
    /// "fresh" (sent at once on the partial ACK for the first unacknowledged segment).
    pub boston_partial: Option<String>,
    /// "tcplab", "bsd44" or "ns2": how the window grows per ACK (docs/stacks.md).
    pub window_rule: Option<String>,
    /// "always" or "bsd44": when Reno deflates its window after fast recovery.
    pub deflation: Option<String>,
    /// Smallest ssthresh after a loss, segments.
    pub ssthresh_floor: Option<i64>,
    /// ns-2's bugFix_: no repeated fast retransmits for one window (docs/stacks.md).
    pub bug_fix: Option<bool>,
    /// ns-2 newreno_changes_: Hoe's flywheel in the `newreno_ns2` variant.
    pub newreno_changes: Option<bool>,
    /// Largest cwnd, segments (ns-2 maxcwnd_; 0 or absent: no cap).
    pub max_cwnd: Option<i64>,
    /// "timed" (one timed segment per round trip) or "timestamp" (every ACK, from the
    /// timestamp it echoes: ns-1, ns-2's timestamps_).
    pub rtt_sample: Option<String>,
    /// "window" or "ns2": how `newreno_ns2` sends from its window in recovery.
    pub recovery_send: Option<String>,
}

impl TcpSpec {
    /// Fields set in `over` win over those set in `self`.
    fn merged(&self, over: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($($f:ident),*) => { TcpSpec { $($f: over.$f.clone().or_else(|| self.$f.clone())),* } };
        }
        pick!(
            stack,
            variant,
            mss,
            header_bytes,
            rcv_buf,
            snd_buf,
            initial_cwnd,
            initial_ssthresh,
            dupack_threshold,
            timer,
            min_rto,
            max_rto,
            initial_rto,
            delayed_ack,
            delayed_ack_timeout,
            delayed_ack_aligned,
            out_of_order_ack,
            handshake,
            nagle,
            sws_avoidance,
            max_burst,
            window_scaling,
            codec,
            boston_redundancy,
            boston_dispersal,
            boston_verify_every,
            boston_partial,
            window_rule,
            deflation,
            ssthresh_floor,
            bug_fix,
            newreno_changes,
            max_cwnd,
            rtt_sample,
            recovery_send
        )
    }
}

// ---------------------------------------------------------------- the validated model

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
}

#[derive(Debug, Clone)]
pub enum LossModelSpec {
    None,
    Bernoulli(f64),
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
    Burst { mean_good: Dur, mean_bad: Dur },
    DropList { flow: u32, by: DropBy, values: Vec<u64> },
}

#[derive(Debug, Clone)]
pub struct FlowModel {
    pub name: String,
    pub src: u32,
    pub dst: u32,
    pub start: Time,
    /// Added to `start` when the run is built: a uniform draw in [0, start_jitter).
    pub start_jitter: Time,
    pub bytes: Option<u64>,
    pub trace: bool,
    pub tcp: TcpConfig,
    pub marker: Option<MarkerConfig>,
    pub reservation: Option<crate::tcp::reserved::ReservedConfig>,
}

#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    pub duration: Time,
    /// Width of the time-series bins, if series are recorded.
    pub series_bin: Option<Dur>,
    pub seed: u64,
    pub nodes: Vec<String>,
    /// Per node: an ATM switch?
    pub switches: Vec<bool>,
    pub atm: AtmConfig,
    pub channels: Vec<ChannelModel>,
    pub flows: Vec<FlowModel>,
    /// File names of the pcap captures.
    pub pcaps: Vec<String>,
    /// WWW pairs; their flows are in `flows` after the scenario's own.
    pub www: Vec<WwwPairModel>,
}

#[derive(Debug, Clone)]
pub struct WwwPairModel {
    pub cfg: crate::app::www::WwwConfig,
    /// The request flow (client to server) and the response flow (server to client).
    pub flows: [u32; 2],
}

/// Parse a scenario from TOML text; errors name the field.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.message().to_string();
        let field = if path == "." || path.is_empty() { "scenario".to_string() } else { path };
        let at = inner
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" (line {line})")
            })
            .unwrap_or_default();
        ScenarioError::new(field, format!("{msg}{at}"))
    })
}

fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, msg))
}

fn q<T>(field: &str, r: Result<T, String>) -> Result<T, ScenarioError> {
    r.map_err(|m| ScenarioError::new(field, m))
}

fn positive(field: &str, v: i64) -> Result<u32, ScenarioError> {
    if v <= 0 || v > u32::MAX as i64 {
        return err(field, format!("must be a positive integer (got {v})"));
    }
    Ok(v as u32)
}

fn probability(field: &str, p: f64) -> Result<f64, ScenarioError> {
    if !(0.0..=1.0).contains(&p) {
        return err(field, format!("must be a probability in [0, 1] (got {p})"));
    }
    Ok(p)
}

impl Scenario {
    /// Check every value and reference; `seed_override` replaces the file's seed.
    pub fn validate(&self, seed_override: Option<u64>) -> Result<Model, ScenarioError> {
        let duration = q("duration", duration_ns(&self.duration))?;
        if duration == 0 {
            return err("duration", "must be positive");
        }
        let mut index: HashMap<&str, u32> = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.is_empty() {
                return err(format!("nodes[{i}]"), "node names must not be empty");
            }
            if index.insert(n.as_str(), i as u32).is_some() {
                return err(format!("nodes[{i}]"), format!("node '{n}' is listed twice"));
            }
        }
        let node = |field: String, name: &str| -> Result<u32, ScenarioError> {
            index.get(name).copied().ok_or_else(|| {
                ScenarioError::new(field, format!("no node named '{name}' (nodes are listed in `nodes`)"))
            })
        };
        let mut channels = Vec::new();
        let mut pcaps = Vec::new();
        let mut stems = std::collections::HashSet::new();
        for (i, l) in self.links.iter().enumerate() {
            let f = format!("link[{i}]");
            let a = node(format!("{f}.a"), &l.a)?;
            let b = node(format!("{f}.b"), &l.b)?;
            if a == b {
                return err(format!("{f}.b"), "a link must join two different nodes");
            }
            if l.trace_queue && l.atm {
                return err(format!("{f}.trace_queue"), "queue traces are for packet links, not ATM (cell) links");
            }
            if l.pcap != crate::pcap::PcapMode::Off && l.atm {
                return err(format!("{f}.pcap"), "pcap capture is not available on ATM (cell) links");
            }
            let stem = match l.pcap {
                crate::pcap::PcapMode::Off => String::new(),
                _ => crate::pcap::capture_stem(&l.a, &l.b, i, &mut stems)
                    .map_err(|m| ScenarioError::new(format!("{f}.pcap"), m))?,
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
                let mut ch = Self::channel(&f, dir, &both, over.as_ref(), from, to, l.atm)?;
                ch.pcap = pcap;
                ch.pcap_rx = pcap_rx;
                ch.per_flow_series = l.per_flow_series;
                ch.trace_queue = l.trace_queue;
                channels.push(ch);
            }
        }
        // The shared table is checked on its own, so its errors name `tcp.*`.
        tcp_config("tcp", &self.tcp)?;
        let mut flows = Vec::new();
        for (i, fl) in self.flows.iter().enumerate() {
            let f = format!("flow[{i}]");
            let src = node(format!("{f}.src"), &fl.src)?;
            let dst = node(format!("{f}.dst"), &fl.dst)?;
            if src == dst {
                return err(format!("{f}.dst"), "a flow's source and destination must differ");
            }
            let start = match &fl.start {
                Some(s) => q(&format!("{f}.start"), duration_ns(s))?,
                None => 0,
            };
            let start_jitter = match &fl.start_jitter {
                Some(s) => q(&format!("{f}.start_jitter"), duration_ns(s))?,
                None => 0,
            };
            let nbytes = match &fl.bytes {
                Some(b) => {
                    let n = q(&format!("{f}.bytes"), bytes(b))?;
                    if n == 0 {
                        return err(format!("{f}.bytes"), "must be positive (omit it for an infinite source)");
                    }
                    Some(n)
                }
                None => None,
            };
            let mut tcp = tcp_config(&format!("{f}.tcp"), &self.tcp.merged(&fl.tcp))?;
            if let Some(w) = &fl.first_write {
                let w = q(&format!("{f}.first_write"), bytes(w))?;
                if w == 0 || nbytes.is_some_and(|n| w >= n) {
                    return err(format!("{f}.first_write"), "must be positive and smaller than `bytes`");
                }
                tcp.first_write = Some(w);
            }
            let marker = match &fl.marker {
                Some(m) => Some(m.validate(&format!("{f}.marker"), (tcp.mss + tcp.header_bytes) as u64)?),
                None => None,
            };
            let reservation = match &fl.reservation {
                Some(r) => Some(r.validate(
                    &format!("{f}.reservation"),
                    marker.as_ref(),
                    (tcp.mss + tcp.header_bytes) as u64,
                )?),
                None => None,
            };
            flows.push(FlowModel {
                name: fl.name.clone().unwrap_or_else(|| format!("flow{i}")),
                src,
                dst,
                start,
                start_jitter,
                bytes: nbytes,
                trace: fl.trace,
                tcp,
                marker,
                reservation,
            });
        }
        for (ci, ch) in channels.iter().enumerate() {
            if let LossModelSpec::DropList { flow, .. } = &ch.loss {
                if *flow as usize >= flows.len() {
                    let l = ci / 2;
                    return err(
                        format!("link[{l}].loss.flow"),
                        format!("flow {flow} does not exist (there are {} flows)", flows.len()),
                    );
                }
            }
        }
        let mut switches = vec![false; self.nodes.len()];
        for (i, s) in self.switches.iter().enumerate() {
            switches[node(format!("switches[{i}]"), s)? as usize] = true;
        }
        for (i, fl) in self.flows.iter().enumerate() {
            for (end, name) in [("src", &fl.src), ("dst", &fl.dst)] {
                if switches[index[name.as_str()] as usize] {
                    return err(format!("flow[{i}].{end}"), format!("'{name}' is an ATM switch, not a host"));
                }
            }
        }
        let www = match &self.www {
            None => Vec::new(),
            Some(w) => {
                let host = |field: String, name: &str| -> Result<u32, ScenarioError> {
                    let n = node(field.clone(), name)?;
                    if switches[n as usize] {
                        return err(field, format!("'{name}' is an ATM switch, not a host"));
                    }
                    Ok(n)
                };
                let cfg = www_config(w)?;
                let tcp = tcp_config("www.tcp", &self.tcp.merged(&w.tcp))?;
                let mut pairs = Vec::with_capacity(w.pairs.len());
                for (i, p) in w.pairs.iter().enumerate() {
                    let f = format!("www.pair[{i}]");
                    let client = host(format!("{f}.client"), &p.client)?;
                    let server = host(format!("{f}.server"), &p.server)?;
                    if client == server {
                        return err(format!("{f}.server"), "a pair's client and server must differ");
                    }
                    let first = flows.len() as u32;
                    for (dir, src, dst) in [("request", client, server), ("response", server, client)] {
                        flows.push(FlowModel {
                            name: format!("www{i}.{dir}"),
                            src,
                            dst,
                            start: 0,
                            start_jitter: 0,
                            bytes: None,
                            trace: false,
                            tcp: tcp.clone(),
                            marker: None,
                            reservation: None,
                        });
                    }
                    pairs.push(WwwPairModel { cfg, flows: [first, first + 1] });
                }
                pairs
            }
        };
        let per_packet_frames = match self.atm.reassembly.as_deref() {
            None | Some("aal5") => false,
            Some("per_packet") => true,
            Some(o) => return err("atm.reassembly", format!("unknown '{o}' (use aal5 or per_packet)")),
        };
        let framing = match self.atm.framing.as_deref() {
            None | Some("aal5") => crate::atm::Framing::Aal5,
            Some("flag") => crate::atm::Framing::Flag,
            Some(o) => return err("atm.framing", format!("unknown '{o}' (use aal5 or flag)")),
        };
        let flag = framing == crate::atm::Framing::Flag;
        if flag && self.atm.trailer == Some(true) {
            return err(
                "atm.trailer",
                "must be false with framing = \"flag\" (a header flag marks the last cell; there is no trailer)",
            );
        }
        let max_frame = match &self.atm.max_frame {
            None => crate::atm::AAL5_MAX_FRAME,
            Some(b) => match q("atm.max_frame", bytes(b))? {
                0 => return err("atm.max_frame", "must be at least 1 byte"),
                v if v > u32::MAX as u64 => return err("atm.max_frame", format!("must be below 2^32 bytes (got {v})")),
                v => v as u32,
            },
        };
        let reassembly_timeout = match &self.atm.reassembly_timeout {
            None => None,
            Some(t) => match q("atm.reassembly_timeout", duration_ns(t))? {
                0 => return err("atm.reassembly_timeout", "must be positive (leave it out for no timer)"),
                v => Some(v),
            },
        };
        let atm = AtmConfig {
            trailer: self.atm.trailer.unwrap_or(!flag),
            llc_snap: self.atm.llc_snap.unwrap_or(true),
            per_packet_frames,
            framing,
            max_frame,
            reassembly_timeout,
        };
        let series_bin = match &self.series_bin {
            None => None,
            Some(b) => {
                let bin = q("series_bin", duration_ns(b))?;
                if bin == 0 || duration / bin > 10_000_000 {
                    return err("series_bin", "must be positive and give at most 10 million bins over the run");
                }
                Some(bin)
            }
        };
        Ok(Model {
            name: self.name.clone().unwrap_or_else(|| "scenario".into()),
            duration,
            series_bin,
            seed: seed_override.or(self.seed).unwrap_or(1),
            nodes: self.nodes.clone(),
            switches,
            atm,
            channels,
            flows,
            pcaps,
            www,
        })
    }

    fn channel(
        f: &str,
        dir: &str,
        both: &DirSpec,
        over: Option<&DirSpec>,
        from: u32,
        to: u32,
        atm: bool,
    ) -> Result<ChannelModel, ScenarioError> {
        let empty = DirSpec::default();
        let over = over.unwrap_or(&empty);
        // Name the field where the value came from: the direction's table, or the link's.
        let pick = |name: &str, o: bool| {
            if o {
                format!("{f}.{dir}.{name}")
            } else {
                format!("{f}.{name}")
            }
        };
        let rate_q = over.rate.as_ref().or(both.rate.as_ref());
        let rate_bps = match rate_q {
            Some(r) => q(&pick("rate", over.rate.is_some()), rate_bps(r))?,
            None => return err(format!("{f}.rate"), "missing: every link needs a rate"),
        };
        let delay = match over.delay.as_ref().or(both.delay.as_ref()) {
            Some(d) => q(&pick("delay", over.delay.is_some()), duration_ns(d))?,
            None => 0,
        };
        let pkts = over.queue.or(both.queue);
        let byts = over.queue_bytes.as_ref().or(both.queue_bytes.as_ref());
        let limit = match (pkts, byts) {
            (Some(_), Some(_)) => {
                return err(format!("{f}.queue"), "give `queue` (packets) or `queue_bytes`, not both")
            }
            (Some(n), None) => QueueLimit::Packets(positive(&pick("queue", over.queue.is_some()), n)?),
            (None, Some(b)) => QueueLimit::Bytes(q(&pick("queue_bytes", over.queue_bytes.is_some()), bytes(b))?),
            (None, None) => QueueLimit::Packets(1000),
        };
        let loss = match over.loss.as_ref().or(both.loss.as_ref()) {
            None => LossModelSpec::None,
            Some(l) => loss_model(&pick("loss", over.loss.is_some()), l)?,
        };
        let cell_policy = match over.drop.as_ref().or(both.drop.as_ref()) {
            None => None,
            Some(_) if !atm => return err(format!("{f}.drop"), "drop policies apply to ATM links (set `atm = true`)"),
            Some(d) => {
                let field = pick("drop", over.drop.is_some());
                let QueueLimit::Packets(cells) = limit else {
                    return err(format!("{f}.queue_bytes"), "an ATM link's buffer is counted in cells: use `queue`");
                };
                let frac = |name: &str, v: f64| -> Result<usize, ScenarioError> {
                    if !(0.0..=1.0).contains(&v) {
                        return err(
                            format!("{field}.{name}"),
                            format!("must be a fraction of the buffer in [0, 1] (got {v})"),
                        );
                    }
                    Ok((v * cells as f64).round() as usize)
                };
                Some(match d {
                    DropSpec::Tail => CellPolicy::Tail,
                    DropSpec::Ppd => CellPolicy::Ppd,
                    DropSpec::Epd { threshold } => CellPolicy::Epd { threshold: frac("threshold", *threshold)? },
                    DropSpec::Sd { threshold, z } => {
                        if !(*z > 0.0 && *z <= 1.0) {
                            return err(format!("{field}.z"), format!("must be in (0, 1] (got {z})"));
                        }
                        CellPolicy::Sd { threshold: frac("threshold", *threshold)?, z: *z }
                    }
                })
            }
        };
        let cell_policy = if atm { Some(cell_policy.unwrap_or(CellPolicy::Tail)) } else { None };
        let qdisc = match over.qdisc.as_ref().or(both.qdisc.as_ref()) {
            None => None,
            Some(_) if atm => return err(format!("{f}.qdisc"), "ATM links take a cell drop policy: use `drop`"),
            Some(d) => Some(d.validate(&pick("qdisc", over.qdisc.is_some()))?),
        };
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
        })
    }
}

fn loss_model(f: &str, l: &LossSpec) -> Result<LossModelSpec, ScenarioError> {
    Ok(match l {
        LossSpec::None => LossModelSpec::None,
        LossSpec::Bernoulli { p } => LossModelSpec::Bernoulli(probability(&format!("{f}.p"), *p)?),
        LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
            LossModelSpec::GilbertElliott {
                p_good_to_bad: probability(&format!("{f}.p_good_to_bad"), *p_good_to_bad)?,
                p_bad_to_good: probability(&format!("{f}.p_bad_to_good"), *p_bad_to_good)?,
                loss_good: probability(&format!("{f}.loss_good"), *loss_good)?,
                loss_bad: probability(&format!("{f}.loss_bad"), *loss_bad)?,
            }
        }
        LossSpec::Burst { mean_good, mean_bad } => {
            let period = |name: &str, v: &Quantity| -> Result<Dur, ScenarioError> {
                let field = format!("{f}.{name}");
                let d = q(&field, duration_ns(v))?;
                if d == 0 {
                    return err(field, "must be a positive duration");
                }
                Ok(d)
            };
            LossModelSpec::Burst { mean_good: period("mean_good", mean_good)?, mean_bad: period("mean_bad", mean_bad)? }
        }
        LossSpec::DropList { flow, by, values } => {
            let by = match by.as_str() {
                "tx_index" => DropBy::TxIndex,
                "offset" => DropBy::Offset,
                "segment" => DropBy::Segment,
                other => return err(format!("{f}.by"), format!("unknown '{other}' (use tx_index, offset or segment)")),
            };
            if *flow < 0 {
                return err(format!("{f}.flow"), "must be a flow index (0 or more)");
            }
            let mut vals = Vec::new();
            for (i, v) in values.iter().enumerate() {
                if *v < 0 || (*v == 0 && by != DropBy::Offset) {
                    return err(format!("{f}.values[{i}]"), format!("must be positive (got {v})"));
                }
                vals.push(*v as u64);
            }
            vals.sort_unstable();
            vals.dedup();
            LossModelSpec::DropList { flow: *flow as u32, by, values: vals }
        }
    })
}

fn tcp_config(f: &str, s: &TcpSpec) -> Result<TcpConfig, ScenarioError> {
    let fld = |name: &str| format!("{f}.{name}");
    let stack = match &s.stack {
        None => Stack::Tcplab,
        Some(v) => Stack::parse(v).ok_or_else(|| {
            ScenarioError::new(fld("stack"), format!("unknown stack '{v}' (known: {})", Stack::NAMES.join(", ")))
        })?,
    };
    let mut c = stack.preset();
    if let Some(v) = &s.variant {
        c.recovery = RecoveryKind::parse(v).ok_or_else(|| {
            ScenarioError::new(
                fld("variant"),
                format!("unknown variant '{v}' (known: {})", RecoveryKind::NAMES.join(", ")),
            )
        })?;
    }
    if let Some(v) = s.mss {
        c.mss = positive(&fld("mss"), v)?;
        if c.mss > 65_495 {
            return err(fld("mss"), format!("must fit an IPv4 packet: at most 65495 bytes (got {v})"));
        }
    }
    if let Some(v) = s.header_bytes {
        if !(0..=1000).contains(&v) {
            return err(fld("header_bytes"), format!("must be between 0 and 1000 (got {v})"));
        }
        c.header_bytes = v as u32;
    }
    let size = |name: &str, v: &Option<Quantity>| -> Result<Option<u64>, ScenarioError> {
        v.as_ref().map(|x| q(&fld(name), bytes(x))).transpose()
    };
    if let Some(v) = size("rcv_buf", &s.rcv_buf)? {
        // RFC 7323 caps a window at 2^30 bytes: 32-bit sequence numbers stay unambiguous only
        // while less than 2^31 bytes are outstanding.
        if v == 0 || v > 1 << 30 {
            return err(
                fld("rcv_buf"),
                format!(
                    "must be between 1 byte and 1024MiB (2^30 bytes, the largest TCP window, RFC 7323); got {v} bytes"
                ),
            );
        }
        c.rcv_buf = v as u32;
    }
    if let Some(v) = size("snd_buf", &s.snd_buf)? {
        if v == 0 || v > u32::MAX as u64 {
            return err(fld("snd_buf"), "must be between 1 byte and 4 GiB");
        }
        c.snd_buf = v as u32;
    }
    if let Some(v) = s.initial_cwnd {
        c.initial_cwnd = positive(&fld("initial_cwnd"), v)?;
    }
    match &s.initial_ssthresh {
        Some(Quantity::Text(t)) if t == "bdp" => c.initial_ssthresh_bdp = true,
        other => {
            if let Some(v) = size("initial_ssthresh", other)? {
                c.initial_ssthresh = v.max(1);
            }
        }
    }
    if let Some(v) = s.dupack_threshold {
        c.dupack_threshold = positive(&fld("dupack_threshold"), v)?;
    }
    if let Some(t) = &s.timer {
        c.clock = if t == "fine" {
            TimerClock::Fine
        } else if let Some(t) = t.strip_prefix("ns2:") {
            let tick = q(&fld("timer"), duration_ns(&Quantity::Text(t.to_string())))?;
            if tick == 0 {
                return err(fld("timer"), "an ns2 timer tick must be positive");
            }
            TimerClock::Ns2 { tick }
        } else if let Some(t) = t.strip_prefix("ns1:") {
            let tick = q(&fld("timer"), duration_ns(&Quantity::Text(t.to_string())))?;
            if tick == 0 {
                return err(fld("timer"), "an ns1 timer tick must be positive");
            }
            TimerClock::Ns1 { tick }
        } else {
            let tick = q(&fld("timer"), duration_ns(&Quantity::Text(t.clone()))).map_err(|e| {
                ScenarioError::new(e.field, format!("{} (use \"fine\" or a tick such as \"500ms\")", e.message))
            })?;
            if tick == 0 {
                return err(fld("timer"), "a coarse timer tick must be positive");
            }
            TimerClock::Coarse { tick }
        };
        if let TimerClock::Coarse { tick } | TimerClock::Ns2 { tick } | TimerClock::Ns1 { tick } = c.clock {
            c.min_rto = 2 * tick; // BSD: TCPTV_MIN is two slow ticks; ns-2: 2 * tcpTick_
        }
    }
    let dur = |name: &str, v: &Option<Quantity>| -> Result<Option<Dur>, ScenarioError> {
        v.as_ref().map(|x| q(&fld(name), duration_ns(x))).transpose()
    };
    if let Some(v) = dur("min_rto", &s.min_rto)? {
        c.min_rto = v;
    }
    if let Some(v) = dur("max_rto", &s.max_rto)? {
        c.max_rto = v;
    }
    if let Some(v) = dur("initial_rto", &s.initial_rto)? {
        if v == 0 {
            return err(fld("initial_rto"), "must be positive");
        }
        c.initial_rto = v;
    }
    if c.max_rto < c.min_rto {
        return err(fld("max_rto"), "must not be below min_rto");
    }
    // Checked even when delayed ACKs are off, so a typo never passes silently.
    let timeout = dur("delayed_ack_timeout", &s.delayed_ack_timeout)?.unwrap_or(200 * MS);
    if timeout == 0 {
        return err(fld("delayed_ack_timeout"), "must be positive");
    }
    let immediate = match s.out_of_order_ack.as_deref() {
        None | Some("immediate") => true,
        Some("delayed") => false,
        Some(o) => return err(fld("out_of_order_ack"), format!("unknown '{o}' (use immediate or delayed)")),
    };
    if s.delayed_ack.unwrap_or(false) {
        c.delayed_ack = Some(DelayedAck {
            timeout,
            aligned: s.delayed_ack_aligned.unwrap_or(true),
            immediate_on_out_of_order: immediate,
        });
    } else if s.delayed_ack == Some(false) {
        // `delayed_ack = false` must also switch off a preset's delayed ACKs (bsd44's).
        c.delayed_ack = None;
    }
    if let Some(h) = &s.handshake {
        c.handshake = match h.as_str() {
            "none" => Handshake::None,
            "sender" => Handshake::SenderOpens,
            "receiver" => Handshake::ReceiverOpens,
            o => return err(fld("handshake"), format!("unknown '{o}' (use none, sender or receiver)")),
        };
    }
    if let Some(n) = s.nagle {
        c.nagle = n;
    }
    if let Some(v) = s.sws_avoidance {
        c.sws_avoidance = v;
    }
    if let Some(v) = s.window_scaling {
        c.window_scaling = v;
    }
    let count = |name: &str, v: Option<i64>, lo: i64, hi: i64| -> Result<Option<u16>, ScenarioError> {
        match v {
            Some(x) if x < lo || x > hi => err(fld(name), format!("must be between {lo} and {hi} (got {x})")),
            Some(x) => Ok(Some(x as u16)),
            None => Ok(None),
        }
    };
    let mut boston = BostonConfig {
        redundancy: count("boston_redundancy", s.boston_redundancy, 0, 255)?.unwrap_or(0),
        dispersal_factor: count("boston_dispersal", s.boston_dispersal, 1, 256)?.unwrap_or(2),
        ..BostonConfig::default()
    };
    if let Some(v) = s.boston_verify_every {
        if v < 1 {
            return err(fld("boston_verify_every"), format!("must be 1 or more (got {v})"));
        }
        boston.verify_every = v.min(u32::MAX as i64) as u32;
    }
    boston.partial = match s.boston_partial.as_deref() {
        None | Some("wait") => crate::tcp::boston::Partial::Wait,
        Some("fresh") => crate::tcp::boston::Partial::Fresh,
        Some(o) => return err(fld("boston_partial"), format!("unknown '{o}' (use wait or fresh)")),
    };
    c.boston = match s.codec.as_deref() {
        None | Some("plain") => None,
        Some("boston") => Some(boston),
        Some("boston_bitmap") => Some(BostonConfig { bitmap: true, ..boston }),
        Some(o) => return err(fld("codec"), format!("unknown codec '{o}' (use plain, boston or boston_bitmap)")),
    };
    if let Some(v) = s.max_burst {
        if v < 0 || v > u32::MAX as i64 {
            return err(fld("max_burst"), format!("must be 0 (no cap) or a positive integer (got {v})"));
        }
        c.max_burst = (v > 0).then_some(v as u32);
    }
    stack_knobs(&fld, s, &mut c)?;
    stack.finish(&mut c, s.rcv_buf.is_some(), s.initial_ssthresh.is_some());
    Ok(c)
}

/// The knobs the stack presets introduced (docs/stacks.md).
fn stack_knobs(fld: &dyn Fn(&str) -> String, s: &TcpSpec, c: &mut TcpConfig) -> Result<(), ScenarioError> {
    if let Some(v) = &s.window_rule {
        c.window_rule = WindowRule::parse(v).ok_or_else(|| {
            ScenarioError::new(fld("window_rule"), format!("unknown '{v}' (use {})", WindowRule::NAMES.join(", ")))
        })?;
    }
    if let Some(v) = &s.deflation {
        c.deflation = Deflation::parse(v).ok_or_else(|| {
            ScenarioError::new(fld("deflation"), format!("unknown '{v}' (use {})", Deflation::NAMES.join(", ")))
        })?;
    }
    if let Some(v) = s.bug_fix {
        c.bug_fix = v;
    }
    if let Some(v) = s.newreno_changes {
        c.newreno_changes = v;
    }
    if let Some(v) = s.ssthresh_floor {
        if !(0..=1_000_000).contains(&v) {
            return err(fld("ssthresh_floor"), format!("must be between 0 and 1000000 segments (got {v})"));
        }
        c.ssthresh_floor = v as u32;
    }
    if c.ssthresh_floor == 0 && c.window_rule != WindowRule::Ns2 {
        // Reno would deflate a byte-counted window to 0 and never send again.
        return err(fld("ssthresh_floor"), "0 needs window_rule = \"ns2\" (a byte-counted window would fall to 0)");
    }
    if let Some(v) = s.max_cwnd {
        if v < 0 || v > u32::MAX as i64 {
            return err(fld("max_cwnd"), format!("must be 0 (no cap) or a positive number of segments (got {v})"));
        }
        c.max_cwnd = (v > 0).then_some(v as u32);
    }
    if let Some(v) = &s.rtt_sample {
        c.rtt_sample = RttSample::parse(v).ok_or_else(|| {
            ScenarioError::new(fld("rtt_sample"), format!("unknown '{v}' (use {})", RttSample::NAMES.join(", ")))
        })?;
    }
    if let Some(v) = &s.recovery_send {
        c.recovery_send_ns2 = match v.as_str() {
            "window" => false,
            "ns2" => true,
            o => return err(fld("recovery_send"), format!("unknown '{o}' (use window or ns2)")),
        };
    }
    Ok(())
}

fn www_config(w: &WwwSpec) -> Result<crate::app::www::WwwConfig, ScenarioError> {
    let mut c = crate::app::www::WwwConfig::default();
    if let Some(b) = &w.request_bytes {
        c.request_bytes = q("www.request_bytes", bytes(b))?;
        if c.request_bytes == 0 {
            return err("www.request_bytes", "must be positive");
        }
    }
    let dur = |name: &str, v: &Option<Quantity>| -> Result<Option<Dur>, ScenarioError> {
        v.as_ref().map(|x| q(&format!("www.{name}"), duration_ns(x))).transpose()
    };
    if let Some(d) = dur("batch_period", &w.batch_period)? {
        if d == 0 {
            return err("www.batch_period", "must be positive");
        }
        c.batch_period = d;
    }
    if let Some(d) = dur("request_gap_min", &w.request_gap_min)? {
        c.gap_min = d;
    }
    if let Some(d) = dur("request_gap_max", &w.request_gap_max)? {
        c.gap_max = d;
    }
    if c.gap_max < c.gap_min {
        return err("www.request_gap_max", "must not be below request_gap_min");
    }
    if let Some(p) = w.pipelining {
        c.pipelining = p;
    }
    c.idle_restart = match w.idle_restart.as_deref() {
        None | Some("none") => false,
        Some("rfc2581") => true,
        Some(o) => return err("www.idle_restart", format!("unknown '{o}' (use none or rfc2581)")),
    };
    Ok(c)
}
