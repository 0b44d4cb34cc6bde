//! A flow's TCP settings: the `[tcp]` table (every flow), a flow's `tcp`, `[www.tcp]`.

use serde::Deserialize;

use super::value::{err, in_field as q, positive};
use crate::error::ScenarioError;
use crate::tcp::boston::BostonConfig;
use crate::tcp::config::{DelayedAck, Handshake, RecoveryKind, TcpConfig};
use crate::tcp::growth::{Deflation, WindowRule};
use crate::tcp::rtt::TimerClock;
use crate::tcp::rtt_ns1::RttSample;
use crate::tcp::stack::Stack;
use crate::time::{Dur, MS};
use crate::units::{bytes, duration_ns, Quantity};

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
    pub fn merged(&self, over: &TcpSpec) -> TcpSpec {
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

impl TcpSpec {
    /// The configuration these settings make; `f` names this table in errors.
    pub fn validate(&self, f: &str) -> Result<TcpConfig, ScenarioError> {
        tcp_config(f, self)
    }
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
        c.mss = positive(fld("mss"), v)?;
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
        v.as_ref().map(|x| q(fld(name), bytes(x))).transpose()
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
        c.initial_cwnd = positive(fld("initial_cwnd"), v)?;
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
        c.dupack_threshold = positive(fld("dupack_threshold"), v)?;
    }
    if let Some(t) = &s.timer {
        c.clock = if t == "fine" {
            TimerClock::Fine
        } else if let Some(t) = t.strip_prefix("ns2:") {
            let tick = q(fld("timer"), duration_ns(&Quantity::Text(t.to_string())))?;
            if tick == 0 {
                return err(fld("timer"), "an ns2 timer tick must be positive");
            }
            TimerClock::Ns2 { tick }
        } else if let Some(t) = t.strip_prefix("ns1:") {
            let tick = q(fld("timer"), duration_ns(&Quantity::Text(t.to_string())))?;
            if tick == 0 {
                return err(fld("timer"), "an ns1 timer tick must be positive");
            }
            TimerClock::Ns1 { tick }
        } else {
            let tick = q(fld("timer"), duration_ns(&Quantity::Text(t.clone()))).map_err(|e| {
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
        v.as_ref().map(|x| q(fld(name), duration_ns(x))).transpose()
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
