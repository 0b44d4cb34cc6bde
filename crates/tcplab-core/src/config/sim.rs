//! `[sim]`: how the run is carried out, not what is simulated.

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of run settings (one_event_channels)")]
pub struct SimSpec {
    /// A packet crossing a channel with a drop-tail queue, no loss model and no capture or
    /// series of what it sends costs one event instead of two (`net/channel_one_event.rs`).
    /// Off by default: events at one instant may run in another order (docs/scenario.md).
    #[serde(default)]
    pub one_event_channels: bool,
}
