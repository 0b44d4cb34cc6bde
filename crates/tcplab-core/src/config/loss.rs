//! A link direction's `loss` model: `{ model = "bernoulli", p = 0.01 }` and the others.

use serde::Deserialize;

use super::value::{err, in_field, probability, unknown};
use crate::error::ScenarioError;
use crate::net::loss::{DropBy, LossModelSpec};
use crate::units::{duration_ns, Quantity};

#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "model",
    rename_all = "snake_case",
    expecting = "an inline table with a model, such as { model = \"bernoulli\", p = 0.01 }"
)]
pub enum LossSpec {
    /// A struct variant with no fields, not a unit variant: serde lets a unit variant of an
    /// internally tagged enum ignore every other key of its table, so `{ model = "none",
    /// p = 0.1 }` would pass silently.
    None {},
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// Burst noise in time: good and bad periods of exponential length with these means.
    Burst {
        mean_good: Quantity,
        mean_bad: Quantity,
    },
    DropList {
        /// Index of the flow in the `flow` list.
        flow: i64,
        /// "tx_index", "offset" or "segment".
        by: String,
        values: Vec<i64>,
    },
}

fn one() -> f64 {
    1.0
}

impl LossSpec {
    /// Validate; `f` is the field path of this table (`link[0].loss`). A drop list's flow
    /// index is checked against the flows by the scenario (`config::Scenario::validate`).
    pub fn validate(&self, f: &str) -> Result<LossModelSpec, ScenarioError> {
        let p = |name: &str, v: f64| probability(format!("{f}.{name}"), v);
        Ok(match self {
            LossSpec::None {} => LossModelSpec::None,
            LossSpec::Bernoulli { p: v } => LossModelSpec::Bernoulli(p("p", *v)?),
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                LossModelSpec::GilbertElliott {
                    p_good_to_bad: p("p_good_to_bad", *p_good_to_bad)?,
                    p_bad_to_good: p("p_bad_to_good", *p_bad_to_good)?,
                    loss_good: p("loss_good", *loss_good)?,
                    loss_bad: p("loss_bad", *loss_bad)?,
                }
            }
            LossSpec::Burst { mean_good, mean_bad } => {
                let period = |name: &str, v: &Quantity| match in_field(format!("{f}.{name}"), duration_ns(v))? {
                    0 => err(format!("{f}.{name}"), "must be a positive duration"),
                    d => Ok(d),
                };
                LossModelSpec::Burst {
                    mean_good: period("mean_good", mean_good)?,
                    mean_bad: period("mean_bad", mean_bad)?,
                }
            }
            LossSpec::DropList { flow, by, values } => drop_list(f, *flow, by, values)?,
        })
    }
}

fn drop_list(f: &str, flow: i64, by: &str, values: &[i64]) -> Result<LossModelSpec, ScenarioError> {
    let by = match by {
        "tx_index" => DropBy::TxIndex,
        "offset" => DropBy::Offset,
        "segment" => DropBy::Segment,
        other => return err(format!("{f}.by"), unknown(other, &["tx_index", "offset", "segment"])),
    };
    let Ok(flow) = u32::try_from(flow) else {
        // Checked here, not cast: 4294967296 would wrap to flow 0.
        return err(format!("{f}.flow"), format!("must be a flow index (0 or more, below 2^32; got {flow})"));
    };
    let mut vals = Vec::new();
    for (i, v) in values.iter().enumerate() {
        if *v < 0 || (*v == 0 && by != DropBy::Offset) {
            return err(format!("{f}.values[{i}]"), format!("must be positive (got {v})"));
        }
        vals.push(*v as u64);
    }
    vals.sort_unstable();
    vals.dedup();
    Ok(LossModelSpec::DropList { flow, by, values: vals })
}
