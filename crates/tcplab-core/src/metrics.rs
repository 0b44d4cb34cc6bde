//! What a run reports: per-flow and per-link counters, the conservation ledger, traces.

use std::io::Write;

use serde::Serialize;

use crate::net::ChannelStats;
use crate::tcp::sender::{SendRecord, TraceRow};

/// A node's or flow's name in a report: shared with the run (`sim::report::Names`), so that
/// reporting a flow or link copies a pointer instead of allocating a string (issue 26: at
/// 1,000 flows the report's 7,000 name copies cost about 34 instructions per packet).
pub type Name = std::sync::Arc<str>;

/// One flow's row. A UDP flow has no TCP counters (they are 0) and its own under `udp`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlowReport {
    pub id: u32,
    pub name: Name,
    pub src: Name,
    pub dst: Name,
    /// Bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// bytes_delivered * 8 over the time from the flow's start to its completion (or the end).
    pub goodput_bps: f64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Seconds from the flow's start until the receiver held every byte; null if unfinished.
    pub completion_time_s: Option<f64>,
    pub start_s: f64,
    pub data_segments: u64,
    pub acks_sent: u64,
    pub syn_retransmits: u64,
    pub out_of_order_segments: u64,
    pub duplicate_segments: u64,
    pub final_cwnd: u64,
    pub final_ssthresh: u64,
    pub final_rto_s: f64,
    /// TCP Boston: packets that arrived incomplete and left their segment incomplete.
    pub partial_segments: u64,
    /// Packets of this flow (either direction) lost as cells although some of their cells
    /// reached reassembly: AAL threw the frame away (a cell missing, a buffer past
    /// `max_frame`, or the reassembly timer). Already counted in `conservation.dropped`.
    pub frames_lost_reassembly: u64,
    /// TCP Boston: shards sent again because all N of their segment had gone (cells the
    /// receiver may already hold; 0 while the dispersal is large enough). Absent for plain TCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boston_repeated_shards: Option<u64>,
    /// TCP Boston: cells of the data packets it sent (a header cell and one per shard), and of
    /// those the cells of retransmissions. Absent for plain TCP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boston_cells_sent: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boston_cells_retransmitted: Option<u64>,
    /// Bytes delivered to the application per `series_bin` (with `series_bin` set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_series: Option<Vec<u64>>,
    /// Bytes the application wrote into the flow per `series_bin` (with `series_bin` set, in
    /// scenarios with applications: `[www]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_series: Option<Vec<u64>>,
    /// Token-bucket marking and compliant delivery (when any flow has a `marker`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marking: Option<crate::net::marker::MarkingReport>,
    /// The flow's stop time (flows with `stop` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// A UDP flow's packets and one-way delays (UDP flows only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udp: Option<crate::udp::UdpReport>,
    /// ECN's counters (flows with `tcp.ecn` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnReport>,
}

/// An ECN-capable flow's signals (RFC 3168).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct EcnReport {
    /// ECN was agreed on the handshake (or the flow had none).
    pub negotiated: bool,
    /// Data segments that reached the receiver marked Congestion Experienced.
    pub ce_received: u64,
    /// Window reductions the sender made in answer to ECN-Echo.
    pub reductions: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkReport {
    /// Channel index: link i's a->b direction is 2i, its b->a direction 2i+1.
    pub id: u32,
    pub from: Name,
    pub to: Name,
    pub rate_bps: u64,
    pub delay_s: f64,
    #[serde(flatten)]
    pub stats: ChannelStats,
    /// Fraction of the run the transmitter was busy.
    pub utilization: f64,
    /// An ATM link: its counters count cells.
    pub atm: bool,
    /// Bytes serialised (cells: 53 each) per `series_bin` (with `series_bin` set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_bytes_series: Option<Vec<u64>>,
    /// The same per flow (index = flow id), for links with `per_flow_series`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_flow_tx_bytes_series: Option<Vec<Vec<u64>>>,
}

/// The packet ledger: injected = delivered + dropped + in_flight, checked at the end of a run.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Conservation {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    /// ATM cells: created = consumed + dropped + in flight (all zero without cell links).
    pub cells: crate::atm::runtime::CellLedger,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunReport {
    pub scenario: String,
    pub seed: u64,
    /// Simulated seconds covered by the run.
    pub sim_time_s: f64,
    /// Events handled.
    pub events: u64,
    /// Of those, the events that went through the event queue: all but the ones handled at once
    /// (arrivals over links without delay, lone cells' switch services, and with `[sim]
    /// one_event_channels` the departures computed at admission; `Simulation`). Not in the
    /// JSON, whose `events` counts every event however it was run.
    #[serde(skip)]
    pub queued_events: u64,
    /// Packet transmissions over all links.
    pub packets_forwarded: u64,
    /// Wall-clock seconds of the event loop (the only field that differs between equal runs).
    pub wall_s: f64,
    pub flows: Vec<FlowReport>,
    pub links: Vec<LinkReport>,
    pub conservation: Conservation,
    /// Per WWW pair (scenarios with `[www]` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub www: Vec<crate::app::www::WwwReport>,
}

/// A flow's time trace, kept apart from the report (it can be large).
#[derive(Debug, Clone)]
pub struct FlowTrace {
    pub flow: u32,
    /// Window and sequence state after every ACK and timeout.
    pub rows: Vec<TraceRow>,
    /// Every data segment sent.
    pub sends: Vec<SendRecord>,
}

impl FlowTrace {
    /// CSV with a header: time_s, cwnd, ssthresh, snd_una, snd_nxt (bytes). Written row by
    /// row: a long traced run has tens of millions of rows, too many to build as one string.
    pub fn write_csv(&self, w: &mut impl Write) -> std::io::Result<()> {
        crate::trace_stream::write_csv(&self.rows, w)
    }

    /// CSV with a header: time_s, offset, len (bytes), retransmit (0/1).
    pub fn write_sends_csv(&self, w: &mut impl Write) -> std::io::Result<()> {
        crate::trace_stream::write_csv(&self.sends, w)
    }
}
