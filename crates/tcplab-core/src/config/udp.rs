//! A UDP flow's source: `source = { kind = "cbr", rate = "1Mbps", size = "1000B" }` on a
//! `[[flow]]` with `protocol = "udp"`, checked into a `udp::UdpConfig`. The kinds and their
//! defaults follow ns-2's traffic generators (`udp::source` cites them).

use std::sync::Arc;

use serde::Deserialize;

use super::value::{err, in_field};
use crate::error::ScenarioError;
use crate::time::{Dur, MS};
use crate::udp::source::{OnOffLaw, SourceConfig};
use crate::udp::{UdpConfig, HEADER_BYTES, MAX_PAYLOAD};
use crate::units::{bytes, duration_ns, rate_bps, Quantity};

/// `source = { kind = ..., ... }`: an arm per kind of source.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "kind",
    rename_all = "snake_case",
    expecting = "an inline table with a kind, such as { kind = \"cbr\", rate = \"1Mbps\", size = \"1000B\" }"
)]
pub enum SourceSpec {
    /// ns-2's Application/Traffic/CBR.
    Cbr(CbrSpec),
    /// ns-2's Application/Traffic/Exponential.
    Exponential(OnOffSpec),
    /// ns-2's Application/Traffic/Pareto.
    Pareto(OnOffSpec),
    /// Packets at given times with given sizes.
    Trace(TraceSpec),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    pub rate: Quantity,
    pub size: Quantity,
    /// ns's `random_`: each gap is the interval times 1 + U(-0.5, 0.5).
    pub random: Option<bool>,
    pub header_bytes: Option<Quantity>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// The rate during a burst.
    pub rate: Quantity,
    pub size: Quantity,
    /// Mean burst ("on") and idle ("off") times; ns-2's default is 0.5 s each.
    pub burst_time: Option<Quantity>,
    pub idle_time: Option<Quantity>,
    /// Pareto only: the shape of both laws; ns-2's default 1.5.
    pub shape: Option<f64>,
    pub header_bytes: Option<Quantity>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// `[[time, size], ...]`: each packet's time after the flow's start and its payload bytes.
    #[serde(default)]
    pub packets: Vec<(Quantity, Quantity)>,
    /// A text file of such pairs: the Python front end reads it into `packets`
    /// (tcplab.experiment.trace_files); the core refuses it, saying so.
    pub file: Option<String>,
    pub header_bytes: Option<Quantity>,
}

/// ns-default.tcl: `burst_time_` and `idle_time_` of the on-off sources.
const NS_ON_OFF_TIME: Dur = 500 * MS;
/// ns-default.tcl: Application/Traffic/Pareto `shape_`.
const NS_PARETO_SHAPE: f64 = 1.5;

impl SourceSpec {
    /// Validate; `f` is the field path of this table (`flow[0].source`).
    pub fn validate(&self, f: &str) -> Result<UdpConfig, ScenarioError> {
        let (source, header) = match self {
            SourceSpec::Cbr(s) => (
                SourceConfig::Cbr {
                    rate_bps: in_field(format!("{f}.rate"), rate_bps(&s.rate))?,
                    size: payload(&format!("{f}.size"), &s.size)?,
                    random: s.random.unwrap_or(false),
                },
                &s.header_bytes,
            ),
            SourceSpec::Exponential(s) => {
                if s.shape.is_some() {
                    return err(format!("{f}.shape"), "not a setting of kind 'exponential' (only of 'pareto')");
                }
                (s.on_off(f, OnOffLaw::Exponential)?, &s.header_bytes)
            }
            SourceSpec::Pareto(s) => {
                let shape = s.shape.unwrap_or(NS_PARETO_SHAPE);
                if !(shape > 1.0 && shape.is_finite()) {
                    return err(format!("{f}.shape"), format!("must be above 1, for finite means (got {shape})"));
                }
                (s.on_off(f, OnOffLaw::Pareto { shape })?, &s.header_bytes)
            }
            SourceSpec::Trace(s) => (s.validate(f)?, &s.header_bytes),
        };
        let header_bytes = match header {
            None => HEADER_BYTES,
            Some(h) => match in_field(format!("{f}.header_bytes"), bytes(h))? {
                h if h <= 1024 => h as u32,
                h => return err(format!("{f}.header_bytes"), format!("must be at most 1024 bytes (got {h})")),
            },
        };
        Ok(UdpConfig { source, header_bytes })
    }
}

/// A packet's payload: 1 byte to the largest UDP payload over IPv4.
fn payload(f: &str, q: &Quantity) -> Result<u32, ScenarioError> {
    let n = in_field(f, bytes(q))?;
    if n == 0 || n > MAX_PAYLOAD as u64 {
        return err(f, format!("must be 1 to {MAX_PAYLOAD} bytes, the largest UDP payload over IPv4 (got {n})"));
    }
    Ok(n as u32)
}

impl OnOffSpec {
    fn on_off(&self, f: &str, law: OnOffLaw) -> Result<SourceConfig, ScenarioError> {
        let time = |name: &str, v: &Option<Quantity>| -> Result<Dur, ScenarioError> {
            v.as_ref().map_or(Ok(NS_ON_OFF_TIME), |q| in_field(format!("{f}.{name}"), duration_ns(q)))
        };
        let burst_time = time("burst_time", &self.burst_time)?;
        if burst_time == 0 {
            return err(format!("{f}.burst_time"), "must be positive");
        }
        Ok(SourceConfig::OnOff {
            rate_bps: in_field(format!("{f}.rate"), rate_bps(&self.rate))?,
            size: payload(&format!("{f}.size"), &self.size)?,
            burst_time,
            idle_time: time("idle_time", &self.idle_time)?,
            law,
        })
    }
}

impl TraceSpec {
    fn validate(&self, f: &str) -> Result<SourceConfig, ScenarioError> {
        if self.file.is_some() {
            return err(
                format!("{f}.file"),
                "a trace file is read by tcplab's Python front end (tcplab run, tcplab.run, sweeps), \
                 which hands the core its packets: give them here as `packets = [[time, size], ...]`",
            );
        }
        if self.packets.is_empty() {
            return err(format!("{f}.packets"), "a trace needs at least one packet: [[time, size], ...]");
        }
        let mut packets = Vec::with_capacity(self.packets.len());
        let mut last = 0;
        for (i, (t, s)) in self.packets.iter().enumerate() {
            let at = in_field(format!("{f}.packets[{i}]"), duration_ns(t))?;
            if at < last {
                return err(format!("{f}.packets[{i}]"), "times must not decrease");
            }
            last = at;
            packets.push((at, payload(&format!("{f}.packets[{i}]"), s)?));
        }
        Ok(SourceConfig::Trace { packets: Arc::from(packets) })
    }
}
