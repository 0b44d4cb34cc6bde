//! A packet link's queue discipline: `qdisc = { kind = "red", min_th = 5, max_th = 15, ... }`
//! on a link or one direction, checked into a `net::qdisc::QdiscModel`.

use serde::Deserialize;

use super::value::{err, in_field};
use crate::error::ScenarioError;
use crate::net::qdisc::QdiscModel;
use crate::net::red::{MarkedRule, RedConfig, RedCurve, RedMode};
use crate::units::{bytes, Quantity};

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
                Some(x) => in_field(format!("{f}.{name}"), bytes(x))?,
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
}
