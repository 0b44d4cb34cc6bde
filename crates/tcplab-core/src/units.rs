//! Quantities with units in scenario files: rates ("10Mbps"), durations ("20ms"), sizes ("8KiB").
//!
//! A bare number is taken in the base unit (bit/s, seconds, bytes); a string must carry its unit,
//! because `delay = "10"` reads as "10 of something" and was once taken as 10 s in a 1 s run
//! without a word. Decimal prefixes are powers
//! of 1000 (k, M, G, T); binary ones (Ki, Mi, Gi, Ti) powers of 1024, so "8KiB" is BSD's
//! 8192-byte buffer and "4GiB" the memory size the CLI's `--max-memory` shows.

use serde::Deserialize;

use crate::time::{Dur, SEC};

/// A number or a string with a unit, as written in the scenario file.
#[derive(Debug, Clone, PartialEq)]
pub enum Quantity {
    Num(f64),
    Text(String),
}

/// By hand rather than `untagged`, so that a wrong type says what was expected, not
/// "data did not match any variant of untagged enum Quantity".
impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Quantity;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a string with a unit (such as \"10Mbps\", \"20ms\", \"8KiB\")")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::Num(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity::Num(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Quantity, E> {
                Ok(Quantity::Num(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visitor)
    }
}

fn split_number(s: &str) -> Result<(f64, String), String> {
    let s = s.trim();
    let (num, unit) = s.split_at(number_end(s));
    let value: f64 = num.parse().map_err(|_| format!("'{s}' does not start with a number"))?;
    Ok((value, unit.trim().to_string()))
}

/// Where the number at the start of `s` ends. An `e` or `E` belongs to it only as an exponent
/// (a digit, or a sign and a digit, after it): "1e3s" is 1000 seconds, and "1EiB" is 1 of a
/// unit "EiB" (refused as unknown, with the units there are), not a broken exponent.
fn number_end(s: &str) -> usize {
    let b = s.as_bytes();
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'0'..=b'9' | b'.' | b'+' | b'-' => i += 1,
            b'e' | b'E' if digit_at(i + 1) || (matches!(b.get(i + 1), Some(b'+' | b'-')) && digit_at(i + 2)) => i += 2,
            _ => break,
        }
    }
    i
}

fn scaled(q: &Quantity, units: &[(&str, f64)], what: &str) -> Result<f64, String> {
    let v = match q {
        Quantity::Num(v) => *v,
        Quantity::Text(s) => {
            let (v, unit) = split_number(s)?;
            if unit.is_empty() {
                let base = units[0].0;
                return Err(format!(
                    "'{s}' has no unit: write it with one (such as \"{v}{base}\"), or as a bare number {v} for {v} {base}"
                ));
            }
            let factor = units.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f).ok_or_else(|| {
                let known: Vec<&str> = units.iter().map(|(u, _)| *u).collect();
                format!("unknown {what} unit '{unit}' in '{s}' (use one of {})", known.join(", "))
            })?;
            v * factor
        }
    };
    if !v.is_finite() {
        return Err(format!("{what} must be a finite number"));
    }
    if v < 0.0 {
        return Err(format!("{what} must not be negative (got {})", short(v)));
    }
    Ok(v)
}

// The first entry of each table is the base unit a bare number is taken in.
const RATE_UNITS: &[(&str, f64)] = &[
    ("bps", 1.0),
    ("b/s", 1.0),
    ("kbps", 1e3),
    ("Kbps", 1e3),
    ("kb/s", 1e3),
    ("Mbps", 1e6),
    ("Mb/s", 1e6),
    ("Gbps", 1e9),
    ("Gb/s", 1e9),
];

const TIME_UNITS: &[(&str, f64)] = &[("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)];

const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("kB", 1e3),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("TB", 1e12),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("TiB", 1099511627776.0),
];

/// The fastest link accepted, 1 Pb/s: a byte then takes 8 fs, far below the 1 ns clock, so
/// anything faster would only round to the same timing (and 1e308 used to saturate silently).
pub const MAX_RATE_BPS: f64 = 1e15;

/// A link rate in bit/s; must be positive and at most MAX_RATE_BPS.
pub fn rate_bps(q: &Quantity) -> Result<u64, String> {
    let v = scaled(q, RATE_UNITS, "rate")?.round();
    if v < 1.0 {
        return Err("rate must be positive".into());
    }
    if v > MAX_RATE_BPS {
        return Err(format!("rate must be at most {MAX_RATE_BPS:e} b/s (1 Pb/s), got {} b/s", short(v)));
    }
    Ok(v as u64)
}

/// The longest duration accepted: sums of a few of them must stay far inside u64 nanoseconds.
pub const MAX_SECONDS: f64 = 1e9;

/// A duration in nanoseconds (zero allowed, at most 10^9 s, about 32 years).
pub fn duration_ns(q: &Quantity) -> Result<Dur, String> {
    let s = scaled(q, TIME_UNITS, "duration")?;
    if s > MAX_SECONDS {
        return Err(format!("duration must be at most {MAX_SECONDS:e} s (got {} s)", short(s)));
    }
    Ok((s * SEC as f64).round() as Dur)
}

/// A size in bytes, rounded to whole bytes ("1.1KiB" = 1126); zero allowed, less than one byte
/// refused (0.6 rounded up to a byte, 0.4 down to none, without a word), and at most 2^64-1:
/// larger values are refused, not saturated.
pub fn bytes(q: &Quantity) -> Result<u64, String> {
    let exact = scaled(q, SIZE_UNITS, "size")?;
    if exact > 0.0 && exact < 1.0 {
        return Err(format!("size must be 0 or at least one byte, got {exact} B"));
    }
    let v = exact.round();
    // u64::MAX as f64 rounds up to 2^64, which itself does not fit.
    if v >= u64::MAX as f64 {
        return Err(format!("size must be below 2^64 bytes, got {} bytes", short(v)));
    }
    Ok(v as u64)
}

/// `v` to four significant digits for an error: unit arithmetic leaves noise such as
/// 1.0000000000000001e39 that a user should not have to read. Plain below a million ("1.5"),
/// exponent form above ("1e39", "1.235e26"), as the limits in the messages are written.
fn short(v: f64) -> String {
    let rounded: f64 = format!("{v:.3e}").parse().unwrap_or(v);
    if rounded.abs() < 1e6 {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}

/// "4.9 GB", "120 MB", "3 kB": a size for people to read, in decimal units.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..=999 => format!("{bytes} B"),
        1_000..=999_999 => format!("{:.1} kB", b / 1e3),
        1_000_000..=999_999_999 => format!("{:.1} MB", b / 1e6),
        1_000_000_000..=999_999_999_999 => format!("{:.1} GB", b / 1e9),
        _ => format!("{:.1} TB", b / 1e12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Quantity {
        Quantity::Text(s.into())
    }

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_bytes(4_900_000_000), "4.9 GB");
        assert_eq!(human_bytes(512), "512 B");
    }

    #[test]
    fn an_e_is_an_exponent_only_before_digits() {
        assert_eq!(number_end("1e3s"), 3);
        assert_eq!(number_end("2E-3KiB"), 4);
        assert_eq!(number_end("1EiB"), 1);
        assert_eq!(number_end("1.5e3EB"), 5);
        assert_eq!(number_end("1e+"), 1);
        let err = bytes(&t("1EiB")).unwrap_err();
        assert!(err.contains("EiB") && !err.contains("does not start with a number"), "{err}");
    }

    #[test]
    fn parses_units() {
        assert_eq!(rate_bps(&t("10Mbps")).unwrap(), 10_000_000);
        assert_eq!(rate_bps(&t("1.5 Mb/s")).unwrap(), 1_500_000);
        assert_eq!(rate_bps(&Quantity::Num(3e6)).unwrap(), 3_000_000);
        assert_eq!(duration_ns(&t("20ms")).unwrap(), 20_000_000);
        assert_eq!(duration_ns(&Quantity::Num(0.5)).unwrap(), 500_000_000);
        assert_eq!(bytes(&t("8KiB")).unwrap(), 8192);
        assert_eq!(bytes(&t("3MB")).unwrap(), 3_000_000);
        // Issue 27: the binary and tera sizes the docs and `--max-memory` show.
        assert_eq!(bytes(&t("4GiB")).unwrap(), 4 << 30);
        assert_eq!(bytes(&t("1 TiB")).unwrap(), 1 << 40);
        assert_eq!(bytes(&t("2TB")).unwrap(), 2_000_000_000_000);
        assert_eq!(bytes(&t("1024MiB")).unwrap(), bytes(&t("1GiB")).unwrap());
    }

    #[test]
    fn rejects_bad_values_with_reasons() {
        assert!(rate_bps(&t("-5Mbps")).unwrap_err().contains("negative"));
        assert!(rate_bps(&t("0bps")).unwrap_err().contains("positive"));
        // Issue 11: huge values are refused, not saturated to u64::MAX.
        assert!(rate_bps(&Quantity::Num(1e308)).unwrap_err().contains("at most"));
        assert_eq!(rate_bps(&t("1000Gbps")).unwrap(), 1_000_000_000_000);
        assert!(bytes(&Quantity::Num(1e308)).unwrap_err().contains("below 2^64"));
        assert!(bytes(&Quantity::Num(2f64.powi(64))).is_err());
        for below_a_byte in ["0.6B", "0.4 B", "1e-9B", "0.0001KiB"] {
            assert!(bytes(&t(below_a_byte)).unwrap_err().contains("at least one byte"), "{below_a_byte}");
        }
        assert_eq!(bytes(&t("0B")).unwrap(), 0);
        assert_eq!(bytes(&t("1.5B")).unwrap(), 2);
        assert!(rate_bps(&t("10 furlongs")).unwrap_err().contains("unknown rate unit"));
        assert!(duration_ns(&t("fast")).unwrap_err().contains("number"));
        assert!(duration_ns(&Quantity::Num(1e300)).unwrap_err().contains("at most"));
    }

    /// A probe: "1e30Gbps" was refused as "got 1.0000000000000001e39 b/s".
    #[test]
    fn huge_values_show_a_few_digits() {
        let e = rate_bps(&t("1e30Gbps")).unwrap_err();
        assert_eq!(e, "rate must be at most 1e15 b/s (1 Pb/s), got 1e39 b/s");
        assert!(rate_bps(&t("1.23456e20Mbps")).unwrap_err().ends_with("got 1.235e26 b/s"));
        assert_eq!(duration_ns(&t("3e12ms")).unwrap_err(), "duration must be at most 1e9 s (got 3e9 s)");
        assert_eq!(bytes(&t("1e30TiB")).unwrap_err(), "size must be below 2^64 bytes, got 1.1e42 bytes");
        assert_eq!(rate_bps(&t("-5Mbps")).unwrap_err(), "rate must not be negative (got -5e6)");
        assert_eq!(bytes(&t("-1.5B")).unwrap_err(), "size must not be negative (got -1.5)");
    }

    /// Issue 25: `delay = "10"` was 10 s in a 1 s run without a word. A string needs its unit;
    /// the bare number still means the base unit.
    #[test]
    fn a_string_without_a_unit_is_refused() {
        let e = duration_ns(&t("10")).unwrap_err();
        assert!(e.contains("'10' has no unit") && e.contains("\"10s\""), "{e}");
        assert!(rate_bps(&t("1e6")).unwrap_err().contains("\"1000000bps\""));
        assert!(bytes(&t(" 512 ")).unwrap_err().contains("has no unit"));
        assert_eq!(duration_ns(&Quantity::Num(10.0)).unwrap(), 10 * SEC);
        assert_eq!(bytes(&t("512 B")).unwrap(), 512);
    }
}
