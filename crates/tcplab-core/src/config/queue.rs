//! A packet link's queue discipline: `qdisc = { kind = "red", min_th = 5, max_th = 15, ... }`
//! on a link or one direction, checked into a `net::qdisc::QdiscModel`.

use serde::Deserialize;

use super::value::{err, in_field};
use crate::error::ScenarioError;
use crate::net::qdisc::QdiscModel;
use crate::net::red::{MarkedRule, RedConfig, RedCurve, RedMode};
use crate::units::{bytes, Quantity};

/// `qdisc = { kind = "red", min_th = 5, max_th = 15, ... }` on a link or one direction: an arm
/// per discipline, as loss models are (a new discipline is an arm here, its module in `net/`
/// and an arm of `net::qdisc`).
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "kind",
    rename_all = "snake_case",
    expecting = "an inline table with a kind, such as { kind = \"red\", min_th = 5, max_th = 15 }"
)]
pub enum QdiscSpec {
    /// Drop-tail: the link's queue limit only (no fields: `{}` makes serde refuse any).
    DropTail {},
    /// RED (Floyd and Jacobson, 1993).
    Red(RedSpec),
    /// ERED (Feng, Kandlur, Saha and Shin, 1997): RED with a rule for marked packets.
    Ered(RedSpec),
}

/// The settings of RED, and of ERED's rule for marked packets (`marked*`, ERED only).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
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

impl QdiscSpec {
    /// Validate; `f` is the field path of this table (`link[0].qdisc`).
    pub fn validate(&self, f: &str) -> Result<QdiscModel, ScenarioError> {
        Ok(match self {
            QdiscSpec::DropTail {} => QdiscModel::DropTail,
            QdiscSpec::Red(s) => {
                s.refuse_curve_fields(f, &["marked", "marked_min_th", "marked_max_th", "marked_max_p"], "red")?;
                QdiscModel::Red(s.config(f, false)?)
            }
            QdiscSpec::Ered(s) => QdiscModel::Red(s.config(f, true)?),
        })
    }
}

impl RedSpec {
    /// An error for the first of `names` set here: not a setting of `kind`.
    fn refuse_curve_fields(&self, f: &str, names: &[&str], kind: &str) -> Result<(), ScenarioError> {
        let set = |name: &str| match name {
            "marked" => self.marked.is_some(),
            "marked_min_th" => self.marked_min_th.is_some(),
            "marked_max_th" => self.marked_max_th.is_some(),
            _ => self.marked_max_p.is_some(),
        };
        match names.iter().find(|n| set(n)) {
            Some(n) => err(format!("{f}.{n}"), format!("not a setting of kind '{kind}'")),
            None => Ok(()),
        }
    }

    fn config(&self, f: &str, ered: bool) -> Result<RedConfig, ScenarioError> {
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
                    self.refuse_curve_fields(f, &curve_fields, "ered with marked = \"overflow\"")?;
                    MarkedRule::Overflow
                }
                Some("forced") => {
                    self.refuse_curve_fields(f, &curve_fields, "ered with marked = \"forced\"")?;
                    MarkedRule::Forced
                }
                Some("curve") => {
                    MarkedRule::Curve(curve(self.marked_min_th, self.marked_max_th, self.marked_max_p, "marked_")?)
                }
                Some(o) => return err(format!("{f}.marked"), format!("unknown '{o}' (use overflow, forced or curve)")),
            })
        };
        Ok(RedConfig {
            curve: main,
            w_q,
            mode,
            gentle: self.gentle.unwrap_or(false),
            mean_pkt_bytes,
            max_pkt_bytes,
            ered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of a link with this `qdisc`, through the whole scenario parse (as a user
    /// meets it).
    fn error(qdisc: &str) -> String {
        let text = format!(
            "duration = 1\nnodes = [\"a\", \"b\"]\n[[link]]\na = \"a\"\nb = \"b\"\nrate = 1\nqdisc = {qdisc}\n"
        );
        let e = crate::config::parse(&text).and_then(|s| s.validate(None)).unwrap_err();
        format!("{}: {}", e.field, e.message.split(" (line").next().unwrap())
    }

    #[test]
    fn bad_fields_get_one_line_errors_naming_them() {
        assert!(error("{ kind = \"rde\" }").starts_with("link[0].qdisc.kind: unknown variant `rde`"));
        assert_eq!(error("{ kind = \"red\", max_th = 5 }"), "link[0].qdisc.min_th: missing");
        assert!(error("{ kind = \"red\", min_th = 5, max_th = 5 }").starts_with("link[0].qdisc.max_th:"));
        assert!(error("{ kind = \"red\", min_th = 5, max_th = 15, max_p = 0 }").starts_with("link[0].qdisc.max_p:"));
        assert!(error("{ kind = \"red\", min_th = 5, max_th = 15, marked = \"overflow\" }")
            .starts_with("link[0].qdisc.marked: not a setting of kind 'red'"));
        assert!(error("{ kind = \"drop_tail\", min_th = 5 }").starts_with("link[0].qdisc.min_th: unknown field"));
        assert!(error("{ kind = \"red\", min_th = 5, max_th = 15, gentel = true }")
            .starts_with("link[0].qdisc.gentel: unknown field"));
        assert!(error("{ kind = \"ered\", min_th = 5, max_th = 15, marked = \"curve\", marked_max_th = 40 }")
            .starts_with("link[0].qdisc.marked_min_th: missing"));
        assert!(error("{ kind = \"ered\", min_th = 5, max_th = 15, marked_max_p = 0.1 }")
            .starts_with("link[0].qdisc.marked_max_p:"));
    }

    #[test]
    fn ered_defaults_to_overflow_only_drops_of_marked_packets() {
        let spec: QdiscSpec = toml::from_str("kind = \"ered\"\nmin_th = 20\nmax_th = 60").unwrap();
        let QdiscModel::Red(c) = spec.validate("q").unwrap() else { panic!("not RED") };
        assert_eq!(c.ered, Some(MarkedRule::Overflow));
        assert_eq!((c.w_q, c.curve.max_p, c.mean_pkt_bytes), (0.002, 0.02, 500));
        assert_eq!(
            toml::from_str::<QdiscSpec>("kind = \"drop_tail\"").unwrap().validate("q").unwrap(),
            QdiscModel::DropTail
        );
    }
}
