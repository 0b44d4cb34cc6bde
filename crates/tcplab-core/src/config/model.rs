//! The validated scenario: what a run is built from. Nothing in it is raw input.

use crate::app::www::WwwPairModel;
use crate::atm::AtmConfig;
use crate::time::{Dur, Time};

use super::flow::FlowModel;
use super::link::ChannelModel;

#[derive(Debug, Clone)]
pub struct Model {
    pub name: String,
    pub duration: Time,
    /// Width of the time-series bins, if series are recorded.
    pub series_bin: Option<Dur>,
    pub seed: u64,
    pub nodes: Vec<String>,
    /// Per node: an ATM switch?
    pub switches: Vec<bool>,
    pub atm: AtmConfig,
    /// Two per link: a to b, then b to a.
    pub channels: Vec<ChannelModel>,
    pub flows: Vec<FlowModel>,
    /// File names of the pcap captures.
    pub pcaps: Vec<String>,
    /// WWW pairs; their flows are in `flows` after the scenario's own.
    pub www: Vec<WwwPairModel>,
    /// Packets crossing the channels that qualify cost one event (`[sim] one_event_channels`).
    pub one_event_channels: bool,
}
