//! `[atm]` (AAL5 framing on every cell link) and a cell link's `drop` policy.

use serde::Deserialize;

use super::value::{err, in_field};
use crate::atm::drop::CellPolicy;
use crate::atm::{AtmConfig, Framing, AAL5_MAX_FRAME};
use crate::error::ScenarioError;
use crate::units::{bytes, duration_ns, Quantity};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of AAL5 settings (trailer, llc_snap, reassembly, framing, max_frame, reassembly_timeout)"
)]
pub struct AtmSpec {
    pub trailer: Option<bool>,
    pub llc_snap: Option<bool>,
    /// "aal5" (a lost last cell spoils the next frame too) or "per_packet".
    pub reassembly: Option<String>,
    /// "aal5" (trailer with length and CRC) or "flag" (a header flag marks the last cell, no
    /// trailer: Bestavros and Kim (1997), Sec. 3).
    pub framing: Option<String>,
    /// Largest frame a reassembly buffer may hold, bytes (default 65535, I.363.5).
    pub max_frame: Option<Quantity>,
    /// A frame not complete this long after its first cell is discarded (default: no timer).
    pub reassembly_timeout: Option<Quantity>,
}

impl AtmSpec {
    pub fn validate(&self) -> Result<AtmConfig, ScenarioError> {
        let per_packet_frames = match self.reassembly.as_deref() {
            None | Some("aal5") => false,
            Some("per_packet") => true,
            Some(o) => return err("atm.reassembly", format!("unknown '{o}' (use aal5 or per_packet)")),
        };
        let framing = match self.framing.as_deref() {
            None | Some("aal5") => Framing::Aal5,
            Some("flag") => Framing::Flag,
            Some(o) => return err("atm.framing", format!("unknown '{o}' (use aal5 or flag)")),
        };
        let flag = framing == Framing::Flag;
        if flag && self.trailer == Some(true) {
            return err(
                "atm.trailer",
                "must be false with framing = \"flag\" (a header flag marks the last cell; there is no trailer)",
            );
        }
        let max_frame = match &self.max_frame {
            None => AAL5_MAX_FRAME,
            Some(b) => match in_field("atm.max_frame", bytes(b))? {
                0 => return err("atm.max_frame", "must be at least 1 byte"),
                v if v > u32::MAX as u64 => return err("atm.max_frame", format!("must be below 2^32 bytes (got {v})")),
                v => v as u32,
            },
        };
        let reassembly_timeout = match &self.reassembly_timeout {
            None => None,
            Some(t) => match in_field("atm.reassembly_timeout", duration_ns(t))? {
                0 => return err("atm.reassembly_timeout", "must be positive (leave it out for no timer)"),
                v => Some(v),
            },
        };
        Ok(AtmConfig {
            trailer: self.trailer.unwrap_or(!flag),
            llc_snap: self.llc_snap.unwrap_or(true),
            per_packet_frames,
            framing,
            max_frame,
            reassembly_timeout,
        })
    }
}

/// The drop policy of a cell link's output buffer.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    tag = "policy",
    rename_all = "snake_case",
    expecting = "an inline table with a policy, such as { policy = \"epd\", threshold = 0.8 }"
)]
pub enum DropSpec {
    /// Struct variants with no fields (see `LossSpec::None`): `{ policy = "tail", z = 1 }` is
    /// refused, not read as tail drop.
    Tail {},
    Ppd {},
    /// `threshold`: the R of EPD as a fraction of the buffer.
    Epd {
        threshold: f64,
    },
    /// `threshold` (R) as a fraction of the buffer, and Z.
    Sd {
        threshold: f64,
        z: f64,
    },
}

impl DropSpec {
    /// The policy of a buffer of `cells` cells; `field` names this table.
    pub fn validate(&self, field: &str, cells: u32) -> Result<CellPolicy, ScenarioError> {
        let frac = |name: &str, v: f64| -> Result<usize, ScenarioError> {
            if !(0.0..=1.0).contains(&v) {
                return err(format!("{field}.{name}"), format!("must be a fraction of the buffer in [0, 1] (got {v})"));
            }
            Ok((v * cells as f64).round() as usize)
        };
        Ok(match self {
            DropSpec::Tail {} => CellPolicy::Tail,
            DropSpec::Ppd {} => CellPolicy::Ppd,
            DropSpec::Epd { threshold } => CellPolicy::Epd { threshold: frac("threshold", *threshold)? },
            DropSpec::Sd { threshold, z } => {
                if !(*z > 0.0 && *z <= 1.0) {
                    return err(format!("{field}.z"), format!("must be in (0, 1] (got {z})"));
                }
                CellPolicy::Sd { threshold: frac("threshold", *threshold)?, z: *z }
            }
        })
    }
}
