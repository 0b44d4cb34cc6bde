//! Reading one value of a scenario: errors that name the field at fault, and the checks the
//! components share.

use crate::error::ScenarioError;
use crate::time::Dur;
use crate::units::{bytes, duration_ns, Quantity};

/// An error naming `field`.
pub fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, msg))
}

/// `r`, its error (a unit parser's message) naming `field`.
pub fn in_field<T>(field: impl Into<String>, r: Result<T, String>) -> Result<T, ScenarioError> {
    r.map_err(|m| ScenarioError::new(field, m))
}

/// A duration in nanoseconds, read from `v` if it is set.
pub fn opt_duration(field: impl Into<String>, v: &Option<Quantity>) -> Result<Option<Dur>, ScenarioError> {
    v.as_ref().map(|x| in_field(field, duration_ns(x))).transpose()
}

/// A size in bytes, read from `v` if it is set.
pub fn opt_bytes(field: impl Into<String>, v: &Option<Quantity>) -> Result<Option<u64>, ScenarioError> {
    v.as_ref().map(|x| in_field(field, bytes(x))).transpose()
}

/// A count from 1 to 2^32 - 1.
pub fn positive(field: impl Into<String>, v: i64) -> Result<u32, ScenarioError> {
    in_field(field, positive_u32(v))
}

/// A count from 1 to 2^32 - 1, or why not: the message names the upper bound when that is the
/// one broken, since "must be a positive integer (got 4294967296)" reads as a contradiction.
pub fn positive_u32(v: i64) -> Result<u32, String> {
    match u32::try_from(v) {
        Ok(n) if n > 0 => Ok(n),
        _ if v > 0 => Err(format!("must be at most {} (got {v})", u32::MAX)),
        _ => Err(format!("must be a positive integer (got {v})")),
    }
}

/// A probability in [0, 1].
pub fn probability(field: impl Into<String>, p: f64) -> Result<f64, ScenarioError> {
    if !(0.0..=1.0).contains(&p) {
        return err(field, format!("must be a probability in [0, 1] (got {p})"));
    }
    Ok(p)
}

/// "unknown 'x' (use a, b or c)".
pub fn unknown(v: &str, names: &[&str]) -> String {
    format!("unknown '{v}' (use {})", or_list(names))
}

/// "a, b or c".
pub fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
