//! Readers of TCP knobs: how a scenario writes each kind of knob (the TOML value it takes),
//! how it is checked into the knob's type, and how the docs describe and show it. The knob
//! list (`tcp::knobs`) names one reader per knob.

use std::marker::PhantomData;

use crate::tcp::knobs::{Named, Ssthresh};
use crate::tcp::rtt::TimerClock;
use crate::time::{Dur, MS, SEC};
use crate::units::{bytes, duration_ns, Quantity};

use super::value::{or_list, positive_u32};

/// How one kind of knob is read.
pub trait Reader {
    /// What the scenario file holds.
    type Raw: Clone + std::fmt::Debug + for<'de> serde::Deserialize<'de>;
    /// The knob's value.
    type Value;
    fn read(raw: &Self::Raw) -> Result<Self::Value, String>;
    /// What the knob takes, for the docs' type column.
    fn doc() -> String;
    /// A value as a scenario writes it.
    fn show(v: &Self::Value) -> String;
}

/// `true` or `false`.
pub struct Flag;

impl Reader for Flag {
    type Raw = bool;
    type Value = bool;
    fn read(raw: &bool) -> Result<bool, String> {
        Ok(*raw)
    }
    fn doc() -> String {
        "bool".into()
    }
    fn show(v: &bool) -> String {
        v.to_string()
    }
}

/// An integer from LO to HI, as a `T`.
pub struct Count<const LO: i64, const HI: i64, T = u32>(PhantomData<T>);

impl<const LO: i64, const HI: i64, T: TryFrom<i64> + ToString> Reader for Count<LO, HI, T> {
    type Raw = i64;
    type Value = T;
    fn read(raw: &i64) -> Result<T, String> {
        T::try_from(*raw)
            .ok()
            .filter(|_| (LO..=HI).contains(raw))
            .ok_or_else(|| format!("must be between {LO} and {HI} (got {raw})"))
    }
    fn doc() -> String {
        format!("integer, {LO} to {HI}")
    }
    fn show(v: &T) -> String {
        v.to_string()
    }
}

/// An integer from 1 to 2^32 - 1.
pub struct Positive;

impl Reader for Positive {
    type Raw = i64;
    type Value = u32;
    fn read(raw: &i64) -> Result<u32, String> {
        positive_u32(*raw)
    }
    fn doc() -> String {
        "integer, 1 or more".into()
    }
    fn show(v: &u32) -> String {
        v.to_string()
    }
}

/// A segment's payload: it must fit an IPv4 packet with the smallest headers.
pub struct Mss;

impl Reader for Mss {
    type Raw = i64;
    type Value = u32;
    fn read(raw: &i64) -> Result<u32, String> {
        // Checked on the i64, so a value past 2^32 names this bound, not the u32's.
        match *raw {
            v if v > 65_495 => Err(format!("must fit an IPv4 packet: at most 65495 bytes (got {v})")),
            v => positive_u32(v),
        }
    }
    fn doc() -> String {
        "integer, 1 to 65495".into()
    }
    fn show(v: &u32) -> String {
        v.to_string()
    }
}

/// A cap: 0 for none, else a count.
pub struct Cap;

impl Reader for Cap {
    type Raw = i64;
    type Value = Option<u32>;
    fn read(raw: &i64) -> Result<Option<u32>, String> {
        let v = u32::try_from(*raw)
            .map_err(|_| format!("must be 0 (no cap) or a positive integer up to {} (got {raw})", u32::MAX))?;
        Ok((v > 0).then_some(v))
    }
    fn doc() -> String {
        "integer, 0 for no cap".into()
    }
    fn show(v: &Option<u32>) -> String {
        v.map_or("0".into(), |v| v.to_string())
    }
}

/// A size in bytes from LO to HI ("8KiB" or a number).
pub struct Bytes<const LO: u64, const HI: u64>;

impl<const LO: u64, const HI: u64> Reader for Bytes<LO, HI> {
    type Raw = Quantity;
    type Value = u32;
    fn read(raw: &Quantity) -> Result<u32, String> {
        let v = bytes(raw)?;
        match u32::try_from(v) {
            Ok(b) if (LO..=HI).contains(&v) => Ok(b),
            _ => Err(format!("must be between {LO} and {HI} bytes (got {v})")),
        }
    }
    fn doc() -> String {
        format!("size, {LO} to {}", show_bytes(HI))
    }
    fn show(v: &u32) -> String {
        show_bytes(*v as u64)
    }
}

fn show_bytes(v: u64) -> String {
    if v == u32::MAX as u64 {
        "2^32 - 1".into()
    } else {
        v.to_string()
    }
}

/// The receiver's buffer: at most the largest TCP window.
pub struct RcvBuf;

impl Reader for RcvBuf {
    type Raw = Quantity;
    type Value = u32;
    fn read(raw: &Quantity) -> Result<u32, String> {
        // RFC 7323 caps a window at 2^30 bytes: 32-bit sequence numbers stay unambiguous only
        // while less than 2^31 bytes are outstanding.
        match bytes(raw)? {
            v @ 1..=0x4000_0000 => Ok(v as u32),
            v => Err(format!(
                "must be between 1 byte and 1024MiB (2^30 bytes, the largest TCP window, RFC 7323); got {v} bytes"
            )),
        }
    }
    fn doc() -> String {
        "size, 1 to 2^30 (RFC 7323's largest window)".into()
    }
    fn show(v: &u32) -> String {
        v.to_string()
    }
}

/// A size in bytes, or "bdp".
pub struct SsthreshRead;

impl Reader for SsthreshRead {
    type Raw = Quantity;
    type Value = Ssthresh;
    fn read(raw: &Quantity) -> Result<Ssthresh, String> {
        match raw {
            Quantity::Text(t) if t == "bdp" => Ok(Ssthresh::Bdp),
            q => Ok(Ssthresh::Bytes(bytes(q)?.max(1))),
        }
    }
    fn doc() -> String {
        "size, or `\"bdp\"`".into()
    }
    fn show(v: &Ssthresh) -> String {
        match v {
            Ssthresh::Bdp => "\"bdp\"".into(),
            Ssthresh::Bytes(b) => show_bytes(*b),
        }
    }
}

/// A duration ("200ms", or seconds as a number).
pub struct Duration;

impl Reader for Duration {
    type Raw = Quantity;
    type Value = Dur;
    fn read(raw: &Quantity) -> Result<Dur, String> {
        duration_ns(raw)
    }
    fn doc() -> String {
        "duration".into()
    }
    fn show(v: &Dur) -> String {
        format!("\"{}\"", show_duration(*v))
    }
}

/// A duration above zero.
pub struct PositiveDuration;

impl Reader for PositiveDuration {
    type Raw = Quantity;
    type Value = Dur;
    fn read(raw: &Quantity) -> Result<Dur, String> {
        match duration_ns(raw)? {
            0 => Err("must be positive".into()),
            d => Ok(d),
        }
    }
    fn doc() -> String {
        "duration, above 0".into()
    }
    fn show(v: &Dur) -> String {
        Duration::show(v)
    }
}

/// "500ms", "64s": a duration as a scenario writes it, in the largest unit that keeps it whole.
fn show_duration(d: Dur) -> String {
    match d {
        d if d % SEC == 0 => format!("{}s", d / SEC),
        d if d % MS == 0 => format!("{}ms", d / MS),
        d if d % 1000 == 0 => format!("{}us", d / 1000),
        d => format!("{d}ns"),
    }
}

/// One of a type's names.
pub struct Names<T>(PhantomData<T>);

impl<T: Named> Reader for Names<T> {
    type Raw = String;
    type Value = T;
    fn read(raw: &String) -> Result<T, String> {
        let what = if T::WHAT.is_empty() { String::new() } else { format!("{} ", T::WHAT) };
        T::parse(raw).ok_or_else(|| format!("unknown {what}'{raw}' (use {})", or_list(T::NAMES)))
    }
    fn doc() -> String {
        T::NAMES.iter().map(|n| format!("`\"{n}\"`")).collect::<Vec<_>>().join(", ")
    }
    fn show(v: &T) -> String {
        format!("\"{}\"", v.name())
    }
}

/// The retransmission timer: "fine", a coarse tick ("500ms"), "ns2:<tick>" or "ns1:<tick>".
pub struct Timer;

impl Reader for Timer {
    type Raw = String;
    type Value = TimerClock;
    fn read(raw: &String) -> Result<TimerClock, String> {
        if raw == "fine" {
            return Ok(TimerClock::Fine);
        }
        let (kind, text, clock): (&str, &str, fn(Dur) -> TimerClock) = if let Some(t) = raw.strip_prefix("ns2:") {
            ("an ns2", t, |tick| TimerClock::Ns2 { tick })
        } else if let Some(t) = raw.strip_prefix("ns1:") {
            ("an ns1", t, |tick| TimerClock::Ns1 { tick })
        } else {
            ("a coarse", raw, |tick| TimerClock::Coarse { tick })
        };
        let tick = duration_ns(&Quantity::Text(text.to_string())).map_err(|e| match kind {
            "a coarse" => format!("{e} (use \"fine\" or a tick such as \"500ms\")"),
            _ => e,
        })?;
        if tick == 0 {
            return Err(format!("{kind} timer tick must be positive"));
        }
        Ok(clock(tick))
    }
    fn doc() -> String {
        "`\"fine\"`, a tick (`\"500ms\"`), `\"ns2:<tick>\"` or `\"ns1:<tick>\"`".into()
    }
    fn show(v: &TimerClock) -> String {
        match v {
            TimerClock::Fine => "\"fine\"".into(),
            TimerClock::Coarse { tick } => format!("\"{}\"", show_duration(*tick)),
            TimerClock::Ns2 { tick } => format!("\"ns2:{}\"", show_duration(*tick)),
            TimerClock::Ns1 { tick } => format!("\"ns1:{}\"", show_duration(*tick)),
        }
    }
}
