//! A packet link's queue discipline: `qdisc = { kind = "red", min_th = 5, max_th = 15, ... }`
//! on a link or one direction, checked into a `net::qdisc::QdiscModel`.

use serde::Deserialize;

use super::value::{err, in_field};
use crate::error::ScenarioError;
use crate::net::codel::CodelConfig;
use crate::net::fq_codel::FqCodelConfig;
use crate::net::pie::PieConfig;
use crate::net::qdisc::QdiscModel;
use crate::net::red::{MarkedRule, RedConfig, RedCurve, RedMode, RedRule};
use crate::net::red_ns235::NsAuto;
use crate::tcp::stack::Stack;
use crate::units::{bytes, duration_ns, Quantity};

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
    /// CoDel (Nichols, Jacobson, McGregor and Iyengar, RFC 8289, 2018).
    Codel(CodelSpec),
    /// PIE (Pan, Natarajan, Baker and White, RFC 8033, 2017).
    Pie(PieSpec),
    /// FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys and Dumazet, RFC 8290, 2018).
    FqCodel(FqCodelSpec),
}

/// FQ-CoDel's settings; unset, the RFC's defaults (section 5.2: 1024 flows, quantum 1514
/// bytes; CoDel's 5 ms and 100 ms), Linux's and ns-3's batch of 64, and the link's `queue`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    pub flows: Option<u32>,
    pub quantum: Option<Quantity>,
    pub target: Option<Quantity>,
    pub interval: Option<Quantity>,
    /// Packets over all flow queues; unset, the link's own limit.
    pub limit: Option<u32>,
    pub drop_batch: Option<u32>,
    /// Each queue's CoDel marks ECN-capable packets instead of dropping them (RFC 8290 4.2,
    /// 5.2's `ecn`).
    pub ecn: Option<bool>,
}

impl FqCodelSpec {
    fn config(&self, f: &str) -> Result<FqCodelConfig, ScenarioError> {
        let d = FqCodelConfig::default();
        let codel =
            CodelSpec { target: self.target.clone(), interval: self.interval.clone(), ecn: self.ecn }.config(f)?;
        let flows = self.flows.unwrap_or(d.flows);
        if !(1..=65_536).contains(&flows) {
            return err(format!("{f}.flows"), format!("must be between 1 and 65536 (got {flows})"));
        }
        let quantum = match &self.quantum {
            Some(q) => in_field(format!("{f}.quantum"), bytes(q))?,
            None => u64::from(d.quantum),
        };
        if quantum == 0 || quantum > 1 << 20 {
            return err(format!("{f}.quantum"), format!("must be between 1 byte and 1 MiB (got {quantum})"));
        }
        if self.limit == Some(0) {
            return err(format!("{f}.limit"), "must be at least 1 packet");
        }
        let drop_batch = self.drop_batch.unwrap_or(d.drop_batch);
        if drop_batch == 0 {
            return err(format!("{f}.drop_batch"), "must be at least 1 packet");
        }
        Ok(FqCodelConfig { flows, quantum: quantum as u32, codel, drop_batch, limit: self.limit })
    }
}

/// PIE's settings; unset, the RFC's defaults (section 4.2, 5: target 15 ms, tupdate 15 ms,
/// alpha 0.125, beta 1.25, max_burst 150 ms).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    pub target: Option<Quantity>,
    pub tupdate: Option<Quantity>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub max_burst: Option<Quantity>,
    /// MEAN_PKTSIZE: with at most two waiting, no drop.
    pub mean_pkt: Option<Quantity>,
    pub derandomize: Option<bool>,
    /// Mark ECN-capable packets instead of dropping them below `mark_ecnth` (RFC 8033 5.1).
    pub ecn: Option<bool>,
    /// The drop probability from which ECN-capable packets are dropped too (RFC 8033 5.1).
    pub mark_ecnth: Option<f64>,
}

impl PieSpec {
    fn config(&self, f: &str) -> Result<PieConfig, ScenarioError> {
        let d = PieConfig::default();
        let target = positive_duration(f, "target", &self.target, d.target)?;
        let tupdate = positive_duration(f, "tupdate", &self.tupdate, d.tupdate)?;
        let max_burst = match &self.max_burst {
            Some(q) => in_field(format!("{f}.max_burst"), duration_ns(q))?,
            None => d.max_burst,
        };
        let weight = |name: &str, v: Option<f64>, default: f64| match v.unwrap_or(default) {
            w if w > 0.0 && w <= 100.0 => Ok(w),
            w => err(format!("{f}.{name}"), format!("must be in (0, 100] per second (got {w})")),
        };
        let mean_pkt_bytes = match &self.mean_pkt {
            Some(q) => in_field(format!("{f}.mean_pkt"), bytes(q))?,
            None => d.mean_pkt_bytes,
        };
        if mean_pkt_bytes == 0 || mean_pkt_bytes > 1 << 20 {
            return err(format!("{f}.mean_pkt"), format!("must be between 1 byte and 1 MiB (got {mean_pkt_bytes})"));
        }
        let mark_ecnth = self.mark_ecnth.unwrap_or(d.mark_ecnth);
        if !(0.0..=1.0).contains(&mark_ecnth) {
            return err(format!("{f}.mark_ecnth"), format!("must be in [0, 1] (got {mark_ecnth})"));
        }
        Ok(PieConfig {
            target,
            tupdate,
            alpha: weight("alpha", self.alpha, d.alpha)?,
            beta: weight("beta", self.beta, d.beta)?,
            max_burst,
            mean_pkt_bytes,
            derandomize: self.derandomize.unwrap_or(d.derandomize),
            ecn: self.ecn.unwrap_or(d.ecn),
            mark_ecnth,
        })
    }
}

/// The duration `v` of field `f.name` (ns), `default` when unset; 0 is refused.
fn positive_duration(f: &str, name: &str, v: &Option<Quantity>, default: u64) -> Result<u64, ScenarioError> {
    let ns = match v {
        Some(q) => in_field(format!("{f}.{name}"), duration_ns(q))?,
        None => default,
    };
    if ns == 0 {
        return err(format!("{f}.{name}"), "must be above 0");
    }
    Ok(ns)
}

/// CoDel's settings; unset, the RFC's defaults (section 4.2-4.3: target 5 ms, interval 100 ms).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    pub target: Option<Quantity>,
    pub interval: Option<Quantity>,
    /// Mark ECN-capable packets instead of dropping them (RFC 8289 section 5).
    pub ecn: Option<bool>,
}

impl CodelSpec {
    fn config(&self, f: &str) -> Result<CodelConfig, ScenarioError> {
        let d = CodelConfig::default();
        let target = positive_duration(f, "target", &self.target, d.target)?;
        let interval = positive_duration(f, "interval", &self.interval, d.interval)?;
        if target >= interval {
            return err(format!("{f}.target"), "must be below interval (RFC 8289 4.3: 5-10% of it)");
        }
        Ok(CodelConfig { target, interval, ecn: self.ecn.unwrap_or(false) })
    }
}

/// The settings of RED, and of ERED's rule for marked packets (`marked*`, ERED only).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// "1993", "ns1", "ns2" or "ns235": whose algorithm decides; unset, the scenario's `[tcp]
    /// stack` picks it (ns1, ns2 and ns235 their own, any other stack 1993).
    pub rule: Option<String>,
    /// ns's `wait_` (the ns rules).
    pub wait: Option<bool>,
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
    /// Mark ECN-capable packets instead of dropping them early (RFC 3168 sec. 7).
    pub ecn: Option<bool>,
}

/// The defaults of one RED rule: what a table leaves unset.
struct RuleDefaults {
    /// None: the thresholds must be given.
    thresholds: Option<(f64, f64)>,
    max_p: f64,
    w_q: f64,
    mean_pkt: u64,
    wait: bool,
    gentle: bool,
    mode: RedMode,
}

impl RedRule {
    /// The rule a RED table without `rule` follows under the scenario's `[tcp] stack`.
    pub fn of_stack(stack: Stack) -> Self {
        match stack {
            Stack::Ns1 => RedRule::Ns1,
            Stack::Ns2 => RedRule::Ns2,
            Stack::Ns235 => RedRule::Ns235,
            Stack::Tcplab | Stack::Bsd44 => RedRule::Paper1993,
        }
    }

    fn defaults(self) -> RuleDefaults {
        match self {
            // Floyd and Jacobson (1993) simulate with max_p = 1/50 and w_q = 0.002; ns's
            // 500-byte "small packet" for the idle correction.
            RedRule::Paper1993 => RuleDefaults {
                thresholds: None,
                max_p: 0.02,
                w_q: 0.002,
                mean_pkt: 500,
                wait: false,
                gentle: false,
                mode: RedMode::Packets,
            },
            // ns-1's tcl/old/ns_default.tcl (2e10353a, 1996-12-19): thresh 5, maxthresh 15,
            // q_weight 0.002, linterm 50, mean_pktsize 500, wait true.
            RedRule::Ns1 => RuleDefaults { max_p: 0.02, ..Self::Ns2.defaults() },
            // ns-2.1b's tcl/lib/ns-default.tcl (1.69, 1997-10-26, to 1.150): the same, but
            // linterm_ 10 (changed from 50 in 1.15, f189b82d, 1997-03-31).
            RedRule::Ns2 => RuleDefaults {
                thresholds: Some((5.0, 15.0)),
                max_p: 0.1,
                w_q: 0.002,
                mean_pkt: 500,
                wait: true,
                gentle: false,
                mode: RedMode::Packets,
            },
            // ns-2.35's tcl/lib/ns-default.tcl (1.388, 2010/07/03): `thresh_ 0`, `maxthresh_ 0`
            // and `q_weight_ -1` (automatic, 1.273, 2001/12/30: the placeholders below are
            // worked out from the link, `red_ns235::resolve`), `linterm_ 10`, `mean_pktsize_
            // 500`, `wait_ true`, `gentle_ true` (1.236, 2001/04/24), `bytes_ true` and
            // `queue_in_bytes_ true` (1.335, 2004/10/13).
            RedRule::Ns235 => RuleDefaults {
                thresholds: Some((0.0, 0.0)),
                max_p: 0.1,
                w_q: 0.0,
                mean_pkt: 500,
                wait: true,
                gentle: true,
                mode: RedMode::Bytes,
            },
        }
    }
}

impl QdiscSpec {
    /// Validate; `f` is the field path of this table (`link[0].qdisc`); `stack` is the
    /// scenario's `[tcp] stack`, which picks the RED rule a table leaves unset.
    pub fn validate(&self, f: &str, stack: Stack) -> Result<QdiscModel, ScenarioError> {
        Ok(match self {
            QdiscSpec::DropTail {} => QdiscModel::DropTail,
            QdiscSpec::Red(s) => {
                s.refuse_curve_fields(f, &["marked", "marked_min_th", "marked_max_th", "marked_max_p"], "red")?;
                QdiscModel::Red(s.config(f, false, stack)?)
            }
            QdiscSpec::Ered(s) => QdiscModel::Red(s.config(f, true, stack)?),
            QdiscSpec::Codel(s) => QdiscModel::Codel(s.config(f)?),
            QdiscSpec::Pie(s) => QdiscModel::Pie(s.config(f)?),
            QdiscSpec::FqCodel(s) => QdiscModel::FqCodel(s.config(f)?),
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

    fn rule(&self, f: &str, stack: Stack) -> Result<RedRule, ScenarioError> {
        let rule = match self.rule.as_deref() {
            None => RedRule::of_stack(stack),
            Some(name) => RedRule::parse(name).ok_or_else(|| {
                ScenarioError::new(format!("{f}.rule"), format!("unknown '{name}' (use 1993, ns1, ns2 or ns235)"))
            })?,
        };
        if rule == RedRule::Paper1993 {
            if self.wait.is_some() {
                return err(format!("{f}.wait"), "a setting of the ns rules (rule = \"ns1\" or \"ns2\"), not of 1993");
            }
        } else {
            if self.gentle == Some(true) && rule != RedRule::Ns235 {
                return err(
                    format!("{f}.gentle"),
                    "ns-1 and ns-2.1b had no gentle_ (ns added it in 1999): use rule = \"1993\" or \"ns235\"",
                );
            }
            if self.max_pkt.is_some() {
                return err(
                    format!("{f}.max_pkt"),
                    "ns's byte mode scales by mean_pkt: a setting of rule = \"1993\" only",
                );
            }
        }
        Ok(rule)
    }

    fn config(&self, f: &str, ered: bool, stack: Stack) -> Result<RedConfig, ScenarioError> {
        let rule = self.rule(f, stack)?;
        let d = rule.defaults();
        let auto = self.ns_auto(f, rule)?;
        let curve = |min: Option<f64>, max: Option<f64>, p: Option<f64>, pre: &str| {
            let min_th = min
                .or(d.thresholds.filter(|_| pre.is_empty()).map(|t| t.0))
                .ok_or_else(|| ScenarioError::new(format!("{f}.{pre}min_th"), "missing"))?;
            let max_th = max
                .or(d.thresholds.filter(|_| pre.is_empty()).map(|t| t.1))
                .ok_or_else(|| ScenarioError::new(format!("{f}.{pre}max_th"), "missing"))?;
            if !(min_th >= 0.0 && min_th.is_finite()) {
                return err(format!("{f}.{pre}min_th"), format!("must be 0 or more (got {min_th})"));
            }
            let worked_out = pre.is_empty() && auto.is_some_and(|a| a.min_th || a.max_th);
            let ordered = max_th > min_th && max_th.is_finite();
            if !(worked_out || ordered) {
                return err(format!("{f}.{pre}max_th"), format!("must be above min_th (got {max_th})"));
            }
            let max_p = p.unwrap_or(d.max_p);
            if !(max_p > 0.0 && max_p <= 1.0) {
                return err(format!("{f}.{pre}max_p"), format!("must be in (0, 1] (got {max_p})"));
            }
            Ok(RedCurve { min_th, max_th, max_p })
        };
        let main = curve(self.min_th, self.max_th, self.max_p, "")?;
        let w_q = self.w_q.unwrap_or(d.w_q);
        let weight = w_q > 0.0 && w_q <= 1.0;
        if !(weight || auto.is_some_and(|a| a.w_q)) {
            return err(format!("{f}.w_q"), format!("must be in (0, 1] (got {w_q})"));
        }
        let mode = match self.mode.as_deref() {
            None => d.mode,
            Some("packets") => RedMode::Packets,
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
        // 1500 bytes (an Ethernet MTU) as the largest packet of the 1993 rule's byte mode.
        let mean_pkt_bytes = size("mean_pkt", &self.mean_pkt, d.mean_pkt)?;
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
            gentle: self.gentle.unwrap_or(d.gentle),
            mean_pkt_bytes,
            max_pkt_bytes,
            ered,
            rule,
            wait: self.wait.unwrap_or(d.wait),
            ecn: self.ecn.unwrap_or(false),
            auto,
        })
    }

    /// Under rule `ns235`, what is left to the link: the thresholds (both, or max_th = 3
    /// min_th when only min_th is given: ns's `maxthresh_ 0`) and w_q (`q_weight_ -1`).
    fn ns_auto(&self, f: &str, rule: RedRule) -> Result<Option<NsAuto>, ScenarioError> {
        if rule != RedRule::Ns235 {
            return Ok(None);
        }
        if self.min_th.is_none() && self.max_th.is_some() {
            return err(format!("{f}.min_th"), "rule ns235 works out max_th from min_th: give min_th too, or neither");
        }
        if self.max_th.is_none() && self.min_th.is_some_and(|m| m <= 0.0) {
            return err(format!("{f}.min_th"), "must be above 0 when rule ns235 works out max_th (3 min_th)");
        }
        Ok(Some(NsAuto { min_th: self.min_th.is_none(), max_th: self.max_th.is_none(), w_q: self.w_q.is_none() }))
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
        let QdiscModel::Red(c) = spec.validate("q", Stack::Tcplab).unwrap() else { panic!("not RED") };
        assert_eq!(c.ered, Some(MarkedRule::Overflow));
        assert_eq!((c.w_q, c.curve.max_p, c.mean_pkt_bytes), (0.002, 0.02, 500));
        assert_eq!(
            toml::from_str::<QdiscSpec>("kind = \"drop_tail\"").unwrap().validate("q", Stack::Tcplab).unwrap(),
            QdiscModel::DropTail
        );
    }

    #[test]
    fn codel_defaults_to_the_rfc_and_names_bad_fields() {
        let spec: QdiscSpec = toml::from_str("kind = \"codel\"").unwrap();
        let QdiscModel::Codel(c) = spec.validate("q", Stack::Tcplab).unwrap() else { panic!("not CoDel") };
        assert_eq!(c, CodelConfig::default());
        assert!(error("{ kind = \"codel\", target = \"0ms\" }").starts_with("link[0].qdisc.target:"));
        assert!(error("{ kind = \"codel\", target = \"200ms\" }")
            .starts_with("link[0].qdisc.target: must be below interval"));
        assert!(error("{ kind = \"codel\", interval = \"5MB\" }").starts_with("link[0].qdisc.interval:"));
        assert!(error("{ kind = \"codel\", min_th = 5 }").starts_with("link[0].qdisc.min_th: unknown field"));
    }

    #[test]
    fn fq_codel_defaults_to_the_rfc_and_names_bad_fields() {
        let spec: QdiscSpec = toml::from_str("kind = \"fq_codel\"").unwrap();
        let QdiscModel::FqCodel(c) = spec.validate("q", Stack::Tcplab).unwrap() else { panic!("not FQ-CoDel") };
        assert_eq!(c, FqCodelConfig::default());
        assert_eq!((c.flows, c.quantum, c.drop_batch, c.limit), (1024, 1514, 64, None));
        assert!(error("{ kind = \"fq_codel\", flows = 0 }").starts_with("link[0].qdisc.flows: must be between"));
        assert!(error("{ kind = \"fq_codel\", quantum = \"0B\" }").starts_with("link[0].qdisc.quantum:"));
        assert!(error("{ kind = \"fq_codel\", limit = 0 }").starts_with("link[0].qdisc.limit:"));
        assert!(error("{ kind = \"fq_codel\", target = \"1s\" }").starts_with("link[0].qdisc.target: must be below"));
        assert!(error("{ kind = \"fq_codel\", drop_batch = 0 }").starts_with("link[0].qdisc.drop_batch:"));
        assert!(error("{ kind = \"fq_codel\", tupdate = \"1s\" }").starts_with("link[0].qdisc.tupdate: unknown field"));
    }

    #[test]
    fn pie_defaults_to_the_rfc_and_names_bad_fields() {
        let spec: QdiscSpec = toml::from_str("kind = \"pie\"").unwrap();
        let QdiscModel::Pie(c) = spec.validate("q", Stack::Tcplab).unwrap() else { panic!("not PIE") };
        assert_eq!(c, PieConfig::default());
        let spec: QdiscSpec = toml::from_str("kind = \"pie\"\ntarget = \"20ms\"\nalpha = 0.0625").unwrap();
        let QdiscModel::Pie(c) = spec.validate("q", Stack::Tcplab).unwrap() else { panic!("not PIE") };
        assert_eq!((c.target, c.alpha, c.beta), (20_000_000, 0.0625, 1.25));
        assert!(error("{ kind = \"pie\", tupdate = \"0s\" }").starts_with("link[0].qdisc.tupdate: must be above 0"));
        assert!(error("{ kind = \"pie\", alpha = -1 }").starts_with("link[0].qdisc.alpha: must be in"));
        assert!(error("{ kind = \"pie\", beta = 0 }").starts_with("link[0].qdisc.beta:"));
        assert!(error("{ kind = \"pie\", max_burst = \"5MB\" }").starts_with("link[0].qdisc.max_burst:"));
        assert!(error("{ kind = \"pie\", mean_pkt = \"0B\" }").starts_with("link[0].qdisc.mean_pkt:"));
        assert!(error("{ kind = \"pie\", interval = \"1s\" }").starts_with("link[0].qdisc.interval: unknown field"));
    }
}
