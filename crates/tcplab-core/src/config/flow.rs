//! A flow: `[[flow]]` with its ends, protocol, size, start and stop, trace, its `tcp` table
//! (TCP) or `source` (UDP, `udp.rs`), and a reserved connection's token-bucket `marker` and
//! sender `reservation`.

use serde::Deserialize;

use super::tcp::TcpSpec;
use super::udp::SourceSpec;
use super::value::{err, in_field, opt_bytes, opt_duration, unknown};
use super::Nodes;
use crate::error::ScenarioError;
use crate::net::marker::MarkerConfig;
use crate::tcp::reserved::{ReservedConfig, SendRule, WindowRtt};
use crate::tcp::TcpConfig;
use crate::time::{Time, MS};
use crate::udp::UdpConfig;
use crate::units::{bytes, duration_ns, rate_bps, Quantity};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table describing a flow (src, dst, bytes, ...)")]
pub struct FlowSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    /// "tcp" (default) or "udp".
    #[serde(default)]
    pub protocol: Option<String>,
    /// A UDP flow's traffic source.
    #[serde(default)]
    pub source: Option<SourceSpec>,
    #[serde(default)]
    pub start: Option<Quantity>,
    /// When the application stops: a UDP source sends nothing from then on; a TCP sender
    /// sends no new data (what it sent before is still delivered, resent if lost).
    #[serde(default)]
    pub stop: Option<Quantity>,
    /// A uniform random delay in [0, start_jitter) added to `start`, drawn from the run's seed.
    #[serde(default)]
    pub start_jitter: Option<Quantity>,
    /// Bytes to transfer (a UDP flow's payload bytes); omitted means an infinite source.
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
    pub tcp: Option<TcpSpec>,
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
    /// A TCP flow's settings; a UDP flow carries the scenario's shared ones, unused.
    pub tcp: TcpConfig,
    pub marker: Option<MarkerConfig>,
    pub reservation: Option<ReservedConfig>,
    /// The application stops at this time (see `FlowSpec::stop`).
    pub stop: Option<Time>,
    /// Set for a UDP flow: its source and header size.
    pub udp: Option<UdpConfig>,
}

impl FlowModel {
    /// The largest packet the flow sends, headers included.
    pub fn largest_packet(&self) -> u64 {
        match &self.udp {
            Some(u) => (u.source.max_size() + u.header_bytes) as u64,
            None => (self.tcp.mss + self.tcp.header_bytes) as u64,
        }
    }
}

impl FlowSpec {
    /// Validate flow `i`, whose TCP table goes over the scenario's `shared` one.
    pub fn validate(&self, i: usize, shared: &TcpSpec, nodes: &Nodes) -> Result<FlowModel, ScenarioError> {
        let f = format!("flow[{i}]");
        let src = nodes.node(format!("{f}.src"), &self.src)?;
        let dst = nodes.node(format!("{f}.dst"), &self.dst)?;
        if src == dst {
            return err(format!("{f}.dst"), "a flow's source and destination must differ");
        }
        let start = opt_duration(format!("{f}.start"), &self.start)?.unwrap_or(0);
        let start_jitter = opt_duration(format!("{f}.start_jitter"), &self.start_jitter)?.unwrap_or(0);
        let nbytes = match opt_bytes(format!("{f}.bytes"), &self.bytes)? {
            Some(0) => return err(format!("{f}.bytes"), "must be positive (omit it for an infinite source)"),
            n => n,
        };
        let stop = self.stop_time(&f, start, start_jitter)?;
        let udp = self.udp_config(&f)?;
        let mut tcp = match &udp {
            None => shared.merged(self.tcp.as_ref().unwrap_or(&TcpSpec::default())).validate(&format!("{f}.tcp"))?,
            Some(_) => shared.validate("tcp")?,
        };
        if let Some(w) = opt_bytes(format!("{f}.first_write"), &self.first_write)? {
            if w == 0 || nbytes.is_some_and(|n| w >= n) {
                return err(format!("{f}.first_write"), "must be positive and smaller than `bytes`");
            }
            tcp.first_write = Some(w);
        }
        let packet = match &udp {
            Some(u) => (u.source.max_size() + u.header_bytes) as u64,
            None => (tcp.mss + tcp.header_bytes) as u64,
        };
        let marker = self.marker.as_ref().map(|m| m.validate(&format!("{f}.marker"), packet)).transpose()?;
        let reservation = match &self.reservation {
            Some(r) => Some(r.validate(&format!("{f}.reservation"), marker.as_ref(), packet)?),
            None => None,
        };
        Ok(FlowModel {
            name: self.name.clone().unwrap_or_else(|| format!("flow{i}")),
            src,
            dst,
            start,
            start_jitter,
            bytes: nbytes,
            trace: self.trace,
            tcp,
            marker,
            reservation,
            stop,
            udp,
        })
    }

    /// The stop time, which must come after the flow's latest possible start.
    fn stop_time(&self, f: &str, start: Time, start_jitter: Time) -> Result<Option<Time>, ScenarioError> {
        let stop = opt_duration(format!("{f}.stop"), &self.stop)?;
        if stop.is_some_and(|s| s <= start || s < start + start_jitter) {
            return err(format!("{f}.stop"), "must be later than the flow's start (and start + start_jitter)");
        }
        Ok(stop)
    }

    /// A UDP flow's source (None for TCP); each protocol refuses the other's fields.
    fn udp_config(&self, f: &str) -> Result<Option<UdpConfig>, ScenarioError> {
        match self.protocol.as_deref() {
            None | Some("tcp") => match self.source {
                Some(_) => err(format!("{f}.source"), "only UDP flows have a source (set protocol = \"udp\")"),
                None => Ok(None),
            },
            Some("udp") => {
                let tcp_only = [
                    ("tcp", self.tcp.is_some()),
                    ("first_write", self.first_write.is_some()),
                    ("reservation", self.reservation.is_some()),
                    ("trace", self.trace),
                ];
                if let Some((name, _)) = tcp_only.iter().find(|(_, set)| *set) {
                    return err(format!("{f}.{name}"), "a TCP setting, and this is a UDP flow");
                }
                let Some(source) = &self.source else {
                    return err(
                        format!("{f}.source"),
                        "missing: a UDP flow needs a source, such as { kind = \"cbr\", rate = \"1Mbps\", size = \"1000B\" }",
                    );
                };
                source.validate(&format!("{f}.source")).map(Some)
            }
            Some(o) => err(format!("{f}.protocol"), unknown(o, &["tcp", "udp"])),
        }
    }
}

/// `marker = { rate = "4Mbps", depth_time = "50ms" }` on a flow.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an inline table such as { rate = \"4Mbps\", depth_time = \"50ms\" }")]
pub struct MarkerSpec {
    pub rate: Quantity,
    /// Bucket depth in bytes.
    pub depth: Option<Quantity>,
    /// Bucket depth as time at `rate`.
    pub depth_time: Option<Quantity>,
    pub peak_rate: Option<Quantity>,
    /// Depth of the peak-rate bucket (default: one full packet).
    pub peak_depth: Option<Quantity>,
}

/// `reservation = { window = "rate_adaptive", send = "timed" }` on a flow with a `marker`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an inline table such as { window = \"rate_adaptive\", send = \"timed\" }")]
pub struct ReservationSpec {
    /// "standard" or "rate_adaptive".
    pub window: Option<String>,
    /// The rate-adaptive window's RTT: "smoothed" (the paper's) or "min".
    pub rtt: Option<String>,
    /// "ack" (the ACK clock only), "delayed" or "timed".
    pub send: Option<String>,
    /// Delayed send: the largest random delay.
    pub max_delay: Option<Quantity>,
    /// Timed send: the timer period, or "auto" for the zero-token-loss interval.
    pub interval: Option<Quantity>,
}

impl ReservationSpec {
    /// Validate against the flow's marker; `packet` is the flow's largest packet in bytes.
    pub fn validate(
        &self,
        f: &str,
        marker: Option<&MarkerConfig>,
        packet: u64,
    ) -> Result<ReservedConfig, ScenarioError> {
        let Some(m) = marker else {
            return err(f.to_string(), "needs a `marker`: the reserved rate and the tokens come from its bucket");
        };
        let adaptive_window = match self.window.as_deref() {
            None | Some("standard") => false,
            Some("rate_adaptive") => true,
            Some(o) => return err(format!("{f}.window"), format!("unknown '{o}' (use standard or rate_adaptive)")),
        };
        let window_rtt = match self.rtt.as_deref() {
            _ if !adaptive_window && self.rtt.is_some() => {
                return err(format!("{f}.rtt"), "only for window = \"rate_adaptive\"");
            }
            None | Some("smoothed") => WindowRtt::Smoothed,
            Some("min") => WindowRtt::Min,
            Some(o) => return err(format!("{f}.rtt"), format!("unknown '{o}' (use smoothed or min)")),
        };
        let dur = |name: &str, v: &Quantity| -> Result<u64, ScenarioError> {
            let d = in_field(format!("{f}.{name}"), duration_ns(v))?;
            if d == 0 {
                return err(format!("{f}.{name}"), "must be positive");
            }
            Ok(d)
        };
        let kind = self.send.as_deref().unwrap_or("ack");
        if !["ack", "delayed", "timed"].contains(&kind) {
            return err(format!("{f}.send"), format!("unknown '{kind}' (use ack, delayed or timed)"));
        }
        if kind != "delayed" && self.max_delay.is_some() {
            return err(format!("{f}.max_delay"), "only for send = \"delayed\"");
        }
        if kind != "timed" && self.interval.is_some() {
            return err(format!("{f}.interval"), "only for send = \"timed\"");
        }
        let send = match kind {
            "delayed" => SendRule::Delayed {
                // The paper's 0-50 ms (Sec. 5.1).
                max_delay: self.max_delay.as_ref().map(|v| dur("max_delay", v)).transpose()?.unwrap_or(50 * MS),
            },
            "timed" => SendRule::Timed {
                interval: match &self.interval {
                    None => auto_interval(f, m, packet)?,
                    Some(Quantity::Text(t)) if t == "auto" => auto_interval(f, m, packet)?,
                    Some(v) => dur("interval", v)?,
                },
            },
            _ => SendRule::AckClock,
        };
        Ok(ReservedConfig { rate_bps: m.rate_bps, adaptive_window, window_rtt, send })
    }
}

fn auto_interval(f: &str, m: &MarkerConfig, packet: u64) -> Result<u64, ScenarioError> {
    let depth_bytes = (m.depth_nanobits / 8_000_000_000) as u64;
    let i = ReservedConfig::zero_loss_interval(m.rate_bps, depth_bytes, packet);
    if i == 0 {
        return err(format!("{f}.interval"), "the bucket is too shallow for a zero-token-loss interval: set one");
    }
    Ok(i)
}

impl MarkerSpec {
    /// Validate; `f` is the field path (`flow[0].marker`); `max_packet` is the flow's largest
    /// packet (mss + headers), which the bucket must be able to hold.
    pub fn validate(&self, f: &str, max_packet: u64) -> Result<MarkerConfig, ScenarioError> {
        let rate = in_field(format!("{f}.rate"), rate_bps(&self.rate))?;
        if rate == 0 {
            return err(format!("{f}.rate"), "must be positive");
        }
        let peak = match &self.peak_rate {
            None => {
                if self.peak_depth.is_some() {
                    return err(format!("{f}.peak_depth"), "needs `peak_rate`");
                }
                None
            }
            Some(p) => {
                let r = in_field(format!("{f}.peak_rate"), rate_bps(p))?;
                if r < rate {
                    return err(format!("{f}.peak_rate"), "must not be below `rate`");
                }
                let d = match &self.peak_depth {
                    Some(d) => in_field(format!("{f}.peak_depth"), bytes(d))?,
                    None => max_packet,
                };
                if d < max_packet {
                    return err(
                        format!("{f}.peak_depth"),
                        format!("must hold one full packet ({max_packet} bytes), got {d}"),
                    );
                }
                Some((r, d))
            }
        };
        let cfg = match (&self.depth, &self.depth_time) {
            (Some(_), Some(_)) => return err(format!("{f}.depth"), "give `depth` (bytes) or `depth_time`, not both"),
            (None, None) => return err(format!("{f}.depth"), "missing: give `depth` (bytes) or `depth_time`"),
            (Some(d), None) => MarkerConfig::depth_bytes(rate, in_field(format!("{f}.depth"), bytes(d))?, peak),
            (None, Some(t)) => {
                MarkerConfig::depth_time(rate, in_field(format!("{f}.depth_time"), duration_ns(t))?, peak)
            }
        };
        if cfg.depth_nanobits < max_packet as u128 * 8_000_000_000 {
            let which = if self.depth.is_some() { "depth" } else { "depth_time" };
            return err(
                format!("{f}.{which}"),
                format!("the bucket must hold one full packet ({max_packet} bytes): nothing would be marked"),
            );
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_depth_forms_and_errors() {
        let m = |t: &str| {
            #[derive(Deserialize)]
            struct W {
                marker: MarkerSpec,
            }
            toml::from_str::<W>(&format!("marker = {t}")).unwrap().marker.validate("flow[0].marker", 1040)
        };
        let c = m("{ rate = \"4Mbps\", depth_time = \"50ms\" }").unwrap();
        assert_eq!(c.depth_nanobits, 25_000 * 8_000_000_000);
        assert_eq!(m("{ rate = \"4Mbps\", depth = \"25kB\" }").unwrap(), c);
        let e = |t: &str| m(t).unwrap_err().to_string();
        assert!(e("{ rate = \"4Mbps\" }").starts_with("flow[0].marker.depth: missing"));
        assert!(e("{ rate = \"4Mbps\", depth = 1000 }").starts_with("flow[0].marker.depth: the bucket must hold"));
        assert!(e("{ rate = \"4Mbps\", depth = 5000, peak_rate = \"1Mbps\" }").starts_with("flow[0].marker.peak_rate:"));
    }
}
