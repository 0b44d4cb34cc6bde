//! The traffic sources of UDP flows: when each packet leaves and how big it is.
//!
//! Three of them follow ns-2's traffic generators (tools/ in ns-2's tree; revision e33eccb3 of
//! 2012 is the last, and the rules below are unchanged since the revisions named):
//! - `Cbr`: Application/Traffic/CBR (tools/cbr_traffic.cc, ce9da5e5, 1998): the first packet at
//!   the start, then one every `size * 8 / rate`; with `random`, each gap is that interval
//!   times 1 + U(-0.5, 0.5) (ns's `random_`).
//! - `OnOff` with exponential laws: Application/Traffic/Exponential (tools/expoo.cc,
//!   67a0f498, 1997, `next_interval`): packets `interval = size * 8 / rate` apart during a
//!   burst; a burst is `max(1, int(Exp(burst_time / interval) + 0.5))` packets; after a burst's
//!   last packet the next one waits `interval + Exp(idle_time)`. TrafficGenerator::start
//!   (tools/trafgen.cc) asks for the first gap before sending anything, so a source starts
//!   with an idle period.
//! - `OnOff` with Pareto laws: Application/Traffic/Pareto (tools/pareto.cc, cfc6fa72, 1997):
//!   the same, with the burst length `max(1, int(Pareto(p1, shape) + 0.5))` packets and the
//!   idle time Pareto(p2, shape), where p1 = (burst_time / interval)(shape - 1)/shape and
//!   p2 = idle_time (shape - 1)/shape make the means burst_time / interval and idle_time;
//!   Pareto(scale, shape) = scale / U^(1/shape) (tools/rng.h, RNG::pareto).
//! - `Trace`: packets at given times after the start with given sizes (ns-2's
//!   Application/Traffic/Trace reads a binary file of gaps and sizes; ours are written in the
//!   scenario, or in a text file the Python front end reads into it).
//!
//! Times are integer nanoseconds. A constant rate is timed from the packet's index
//! (k * size * 8 / rate, rounded down), so a long train never drifts; the random sources keep
//! their clock in fractional nanoseconds and round each packet's time to the nanosecond.

use std::sync::Arc;

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::{Dur, SEC};

/// A validated source (`config::udp` reads it from the scenario).
#[derive(Debug, Clone, PartialEq)]
pub enum SourceConfig {
    Cbr {
        rate_bps: u64,
        size: u32,
        random: bool,
    },
    OnOff {
        rate_bps: u64,
        size: u32,
        burst_time: Dur,
        idle_time: Dur,
        law: OnOffLaw,
    },
    /// (time after the flow's start, payload bytes), in time order.
    Trace {
        packets: Arc<[(Dur, u32)]>,
    },
}

/// How an on-off source draws its burst lengths and idle times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OnOffLaw {
    Exponential,
    Pareto { shape: f64 },
}

impl SourceConfig {
    /// The name the report gives the source.
    pub fn kind(&self) -> &'static str {
        match self {
            SourceConfig::Cbr { .. } => "cbr",
            SourceConfig::OnOff { law: OnOffLaw::Exponential, .. } => "exponential",
            SourceConfig::OnOff { law: OnOffLaw::Pareto { .. }, .. } => "pareto",
            SourceConfig::Trace { .. } => "trace",
        }
    }

    /// The largest payload the source sends.
    pub fn max_size(&self) -> u32 {
        match self {
            SourceConfig::Cbr { size, .. } | SourceConfig::OnOff { size, .. } => *size,
            SourceConfig::Trace { packets } => packets.iter().map(|&(_, s)| s).max().unwrap_or(1),
        }
    }

    /// The smallest payload the source sends (before a byte count cuts the last packet).
    pub fn min_size(&self) -> u32 {
        match self {
            SourceConfig::Cbr { size, .. } | SourceConfig::OnOff { size, .. } => *size,
            SourceConfig::Trace { packets } => packets.iter().map(|&(_, s)| s).min().unwrap_or(1),
        }
    }
}

/// ns's `interval_ = (size_ << 3) / rate_` in nanoseconds.
fn interval_ns(size: u32, rate_bps: u64) -> f64 {
    size as f64 * 8.0 * SEC as f64 / rate_bps as f64
}

/// A uniform draw in (0, 1]: ns's RNG never returns 0 to the logarithm or the power.
fn unit(rng: &mut Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

/// A running source: where it is in its pattern.
#[derive(Debug, Clone)]
pub struct Source {
    cfg: SourceConfig,
    /// Packets produced so far.
    index: u64,
    /// The random sources' clock: nanoseconds after the start of the next packet.
    clock: f64,
    /// Packets left in the current burst (ns's `rem_`).
    burst_left: u64,
    rng: Rng,
}

impl Source {
    pub fn new(cfg: SourceConfig, rng: Rng) -> Self {
        Self { cfg, index: 0, clock: 0.0, burst_left: 0, rng }
    }

    pub fn config(&self) -> &SourceConfig {
        &self.cfg
    }

    /// ns-2's `next_interval` of the on-off sources: the wait before the next packet, which
    /// starts a new burst (after an idle time) when the current one is spent.
    fn on_off_gap(&mut self, interval: f64, burst_time: Dur, idle_time: Dur, law: OnOffLaw) -> f64 {
        let mut t = interval;
        if self.burst_left == 0 {
            let mean_burst = burst_time as f64 / interval;
            let (burst, idle) = match law {
                OnOffLaw::Exponential => {
                    (-unit(&mut self.rng).ln() * mean_burst, -unit(&mut self.rng).ln() * idle_time as f64)
                }
                OnOffLaw::Pareto { shape } => {
                    let scale = (shape - 1.0) / shape;
                    let pareto = |rng: &mut Rng, s: f64| s / unit(rng).powf(1.0 / shape);
                    (pareto(&mut self.rng, mean_burst * scale), pareto(&mut self.rng, idle_time as f64 * scale))
                }
            };
            // ns: rem_ = int(x + .5), at least 1.
            self.burst_left = ((burst + 0.5) as u64).max(1);
            t += idle;
        }
        self.burst_left -= 1;
        t
    }
}

/// The packets of a source: each one's time after the flow's start and its payload size.
impl Iterator for Source {
    type Item = (Dur, u32);

    /// The next packet: its time after the flow's start and its payload size; None when a
    /// trace has run out (the other sources never do).
    fn next(&mut self) -> Option<(Dur, u32)> {
        let k = self.index;
        self.index += 1;
        match &self.cfg {
            SourceConfig::Cbr { rate_bps, size, random: false } => {
                let at = k as u128 * *size as u128 * 8 * SEC as u128 / *rate_bps as u128;
                Some((at.min(u64::MAX as u128) as Dur, *size))
            }
            &SourceConfig::Cbr { rate_bps, size, random: true } => {
                let at = self.clock;
                let i = interval_ns(size, rate_bps);
                self.clock += i + i * (self.rng.random::<f64>() - 0.5);
                Some((round_ns(at), size))
            }
            &SourceConfig::OnOff { rate_bps, size, burst_time, idle_time, law } => {
                let i = interval_ns(size, rate_bps);
                self.clock += self.on_off_gap(i, burst_time, idle_time, law);
                Some((round_ns(self.clock), size))
            }
            SourceConfig::Trace { packets } => packets.get(k as usize).copied(),
        }
    }
}

/// A fractional time to the nanosecond (saturating far past any run's end).
fn round_ns(t: f64) -> Dur {
    t.round().min(u64::MAX as f64) as Dur
}
