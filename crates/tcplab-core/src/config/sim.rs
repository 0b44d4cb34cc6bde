//! `[sim]`: how the run is carried out, not what is simulated.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of run settings (one_event_channels)")]
pub struct SimSpec {
    /// A packet crossing a channel with a drop-tail queue, no loss model and no capture or
    /// series of what it sends costs one event instead of two (`net/channel_one_event.rs`).
    /// On by default; `false` keeps two events per crossing, whose order of events at one
    /// instant it follows but for the ties docs/scenario.md lists.
    #[serde(default = "one_event_by_default")]
    pub one_event_channels: bool,
}

fn one_event_by_default() -> bool {
    true
}

impl Default for SimSpec {
    fn default() -> Self {
        Self { one_event_channels: one_event_by_default() }
    }
}
