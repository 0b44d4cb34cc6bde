//! Scenario fields for queue disciplines (`qdisc` on a link) and source token buckets
//! (`marker` on a flow), their validation into typed configs, and building them at run time.

use serde::Deserialize;

use crate::error::ScenarioError;
use crate::rng::stream;
use crate::scenario::ChannelModel;
use crate::tcp::reserved::{ReservedConfig, SendRule, WindowRtt};
use crate::time::MS;
use crate::units::{bytes, duration_ns, rate_bps, Quantity};

use super::marker::MarkerConfig;
use super::queue::{Discipline, Queue};
use super::red::{MarkedRule, Red, RedConfig, RedCurve, RedMode};

/// `qdisc = { kind = "red", min_th = 5, max_th = 15, ... }` on a link or one direction.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an inline table with a kind, such as { kind = \"red\", min_th = 5, max_th = 15 }"
)]
pub struct QdiscSpec {
    /// "drop_tail", "red" or "ered".
    pub kind: String,
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    pub max_p: Option<f64>,
    pub w_q: Option<f64>,
    /// "packets" or "bytes".
    pub mode: Option<String>,
    pub gentle: Option<bool>,
    pub mean_pkt: Option<Quantity>,
    pub max_pkt: Option<Quantity>,
    /// ERED: "overflow", "forced" or "curve".
    pub marked: Option<String>,
    pub marked_min_th: Option<f64>,
    pub marked_max_th: Option<f64>,
    pub marked_max_p: Option<f64>,
}

/// A validated discipline for a packet link.
#[derive(Debug, Clone, PartialEq)]
pub enum QdiscModel {
    DropTail,
    Red(RedConfig),
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
            let d = q(format!("{f}.{name}"), duration_ns(v))?;
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

fn err<T>(field: String, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, msg))
}

fn q<T>(field: String, r: Result<T, String>) -> Result<T, ScenarioError> {
    r.map_err(|m| ScenarioError::new(field, m))
}

const RED_ONLY: [&str; 8] = ["min_th", "max_th", "max_p", "w_q", "mode", "gentle", "mean_pkt", "max_pkt"];
const ERED_ONLY: [&str; 4] = ["marked", "marked_min_th", "marked_max_th", "marked_max_p"];

impl QdiscSpec {
    fn is_set(&self, name: &str) -> bool {
        match name {
            "min_th" => self.min_th.is_some(),
            "max_th" => self.max_th.is_some(),
            "max_p" => self.max_p.is_some(),
            "w_q" => self.w_q.is_some(),
            "mode" => self.mode.is_some(),
            "gentle" => self.gentle.is_some(),
            "mean_pkt" => self.mean_pkt.is_some(),
            "max_pkt" => self.max_pkt.is_some(),
            "marked" => self.marked.is_some(),
            "marked_min_th" => self.marked_min_th.is_some(),
            "marked_max_th" => self.marked_max_th.is_some(),
            _ => self.marked_max_p.is_some(),
        }
    }

    /// Validate; `f` is the field path of this table (`link[0].qdisc`).
    pub fn validate(&self, f: &str) -> Result<QdiscModel, ScenarioError> {
        let not_for = |names: &[&str], kind: &str| -> Result<(), ScenarioError> {
            match names.iter().find(|n| self.is_set(n)) {
                Some(n) => err(format!("{f}.{n}"), format!("not a setting of kind '{kind}'")),
                None => Ok(()),
            }
        };
        let ered = match self.kind.as_str() {
            "drop_tail" => {
                not_for(&RED_ONLY, "drop_tail")?;
                not_for(&ERED_ONLY, "drop_tail")?;
                return Ok(QdiscModel::DropTail);
            }
            "red" => {
                not_for(&ERED_ONLY, "red")?;
                false
            }
            "ered" => true,
            o => return err(format!("{f}.kind"), format!("unknown '{o}' (use drop_tail, red or ered)")),
        };
        let curve = |min: Option<f64>, max: Option<f64>, p: Option<f64>, pre: &str| {
            let min_th = min.ok_or_else(|| ScenarioError::new(format!("{f}.{pre}min_th"), "missing"))?;
            let max_th = max.ok_or_else(|| ScenarioError::new(format!("{f}.{pre}max_th"), "missing"))?;
            if !(min_th >= 0.0 && min_th.is_finite()) {
                return err(format!("{f}.{pre}min_th"), format!("must be 0 or more (got {min_th})"));
            }
            if !(max_th > min_th && max_th.is_finite()) {
                return err(format!("{f}.{pre}max_th"), format!("must be above min_th (got {max_th})"));
            }
            // Floyd and Jacobson (1993) simulate with max_p = 1/50.
            let max_p = p.unwrap_or(0.02);
            if !(max_p > 0.0 && max_p <= 1.0) {
                return err(format!("{f}.{pre}max_p"), format!("must be in (0, 1] (got {max_p})"));
            }
            Ok(RedCurve { min_th, max_th, max_p })
        };
        let main = curve(self.min_th, self.max_th, self.max_p, "")?;
        // Floyd and Jacobson (1993) use w_q = 0.002 throughout their simulations.
        let w_q = self.w_q.unwrap_or(0.002);
        if !(w_q > 0.0 && w_q <= 1.0) {
            return err(format!("{f}.w_q"), format!("must be in (0, 1] (got {w_q})"));
        }
        let mode = match self.mode.as_deref() {
            None | Some("packets") => RedMode::Packets,
            Some("bytes") => RedMode::Bytes,
            Some(o) => return err(format!("{f}.mode"), format!("unknown '{o}' (use packets or bytes)")),
        };
        let size = |name: &str, v: &Option<Quantity>, default: u64| -> Result<u32, ScenarioError> {
            let n = match v {
                Some(x) => q(format!("{f}.{name}"), bytes(x))?,
                None => default,
            };
            if n == 0 || n > 1 << 20 {
                return err(format!("{f}.{name}"), format!("must be between 1 byte and 1 MiB (got {n})"));
            }
            Ok(n as u32)
        };
        // ns-2's red.cc defaults: a 500-byte "small packet" for the idle correction; 1500
        // bytes (an Ethernet MTU) as the largest packet of byte mode.
        let mean_pkt_bytes = size("mean_pkt", &self.mean_pkt, 500)?;
        let max_pkt_bytes = size("max_pkt", &self.max_pkt, 1500)?;
        let ered = if !ered {
            None
        } else {
            let curve_fields = ["marked_min_th", "marked_max_th", "marked_max_p"];
            Some(match self.marked.as_deref() {
                None | Some("overflow") => {
                    not_for(&curve_fields, "ered with marked = \"overflow\"")?;
                    MarkedRule::Overflow
                }
                Some("forced") => {
                    not_for(&curve_fields, "ered with marked = \"forced\"")?;
                    MarkedRule::Forced
                }
                Some("curve") => {
                    MarkedRule::Curve(curve(self.marked_min_th, self.marked_max_th, self.marked_max_p, "marked_")?)
                }
                Some(o) => return err(format!("{f}.marked"), format!("unknown '{o}' (use overflow, forced or curve)")),
            })
        };
        Ok(QdiscModel::Red(RedConfig {
            curve: main,
            w_q,
            mode,
            gentle: self.gentle.unwrap_or(false),
            mean_pkt_bytes,
            max_pkt_bytes,
            ered,
        }))
    }
}

impl MarkerSpec {
    /// Validate; `f` is the field path (`flow[0].marker`); `max_packet` is the flow's largest
    /// packet (mss + headers), which the bucket must be able to hold.
    pub fn validate(&self, f: &str, max_packet: u64) -> Result<MarkerConfig, ScenarioError> {
        let rate = q(format!("{f}.rate"), rate_bps(&self.rate))?;
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
                let r = q(format!("{f}.peak_rate"), rate_bps(p))?;
                if r < rate {
                    return err(format!("{f}.peak_rate"), "must not be below `rate`");
                }
                let d = match &self.peak_depth {
                    Some(d) => q(format!("{f}.peak_depth"), bytes(d))?,
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
            (Some(d), None) => MarkerConfig::depth_bytes(rate, q(format!("{f}.depth"), bytes(d))?, peak),
            (None, Some(t)) => MarkerConfig::depth_time(rate, q(format!("{f}.depth_time"), duration_ns(t))?, peak),
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

/// The queue of packet channel `index` (not a cell link): drop-tail unless it has a `qdisc`;
/// RED draws from its own stream. An explicit `qdisc` also turns on the counters by cause.
pub fn packet_queue(c: &ChannelModel, seed: u64, index: u64) -> Queue {
    let mut queue = match &c.qdisc {
        None | Some(QdiscModel::DropTail) => Queue::new(c.limit),
        Some(QdiscModel::Red(cfg)) => {
            let red = Red::new(cfg.clone(), c.rate_bps, stream(seed, "red", index));
            Queue::with_discipline(c.limit, Discipline::Red(Box::new(red)))
        }
    };
    if c.qdisc.is_some() {
        queue.keep_stats();
    }
    if c.trace_queue {
        queue.keep_trace();
    }
    queue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> QdiscSpec {
        #[derive(Deserialize)]
        struct W {
            qdisc: QdiscSpec,
        }
        toml::from_str::<W>(&format!("qdisc = {text}")).unwrap().qdisc
    }

    #[test]
    fn bad_fields_get_one_line_errors_naming_them() {
        let e = |t: &str| spec(t).validate("link[0].qdisc").unwrap_err().to_string();
        assert_eq!(e("{ kind = \"rde\" }"), "link[0].qdisc.kind: unknown 'rde' (use drop_tail, red or ered)");
        assert_eq!(e("{ kind = \"red\", max_th = 5 }"), "link[0].qdisc.min_th: missing");
        assert!(e("{ kind = \"red\", min_th = 5, max_th = 5 }").starts_with("link[0].qdisc.max_th:"));
        assert!(e("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0 }").starts_with("link[0].qdisc.max_p:"));
        assert!(e("{ kind = \"red\", min_th = 5, max_th = 15, marked = \"overflow\" }")
            .starts_with("link[0].qdisc.marked: not a setting of kind 'red'"));
        assert!(e("{ kind = \"drop_tail\", min_th = 5 }").starts_with("link[0].qdisc.min_th:"));
        assert!(e("{ kind = \"ered\", min_th = 5, max_th = 15, marked = \"curve\", marked_max_th = 40 }")
            .starts_with("link[0].qdisc.marked_min_th: missing"));
        assert!(e("{ kind = \"ered\", min_th = 5, max_th = 15, marked_max_p = 0.1 }")
            .starts_with("link[0].qdisc.marked_max_p:"));
    }

    #[test]
    fn ered_defaults_to_overflow_only_drops_of_marked_packets() {
        let m = spec("{ kind = \"ered\", min_th = 20, max_th = 60 }").validate("q").unwrap();
        let QdiscModel::Red(c) = m else { panic!("not RED") };
        assert_eq!(c.ered, Some(MarkedRule::Overflow));
        assert_eq!((c.w_q, c.curve.max_p, c.mean_pkt_bytes), (0.002, 0.02, 500));
    }

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
