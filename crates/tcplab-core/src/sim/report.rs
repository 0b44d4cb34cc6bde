//! The report of a run: per flow (TCP or UDP), per link, and the conservation ledger.

use super::{Ends, Simulation};
use crate::config::model::Model;
use crate::metrics::{Conservation, FlowReport, FlowTrace, LinkReport, Name, RunReport};
use crate::time::{secs, Time};

/// The model's node and flow names as shared strings, made when the run is built so that the
/// report (inside the measured loop) clones pointers, not strings (issue 26).
pub(super) struct Names {
    nodes: Vec<Name>,
    flows: Vec<Name>,
}

impl Names {
    pub(super) fn new(model: &Model) -> Self {
        Self {
            nodes: model.nodes.iter().map(|n| Name::from(n.as_str())).collect(),
            flows: model.flows.iter().map(|f| Name::from(f.name.as_str())).collect(),
        }
    }

    fn node(&self, n: u32) -> Name {
        self.nodes[n as usize].clone()
    }
}

impl Simulation {
    pub(super) fn report(&mut self, wall_s: f64) -> (RunReport, Vec<FlowTrace>) {
        let end = self.now.min(self.model.duration);
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut traces = Vec::new();
        for i in 0..self.flows.len() {
            flows.push(self.flow_report(i, end));
            let f = &mut self.flows[i];
            if let (true, Ends::Tcp { sender, .. }) = (self.model.flows[i].trace, &mut f.ends) {
                if !self.trace_files.is_streamed(i as u32) {
                    let (rows, sends) = sender.take_trace();
                    traces.push(FlowTrace { flow: i as u32, rows, sends });
                }
            }
        }
        let name = |n: u32| self.names.node(n);
        let links = self
            .channels
            .iter_mut()
            .enumerate()
            .map(|(i, c)| {
                c.finish_stats(end, &self.pool);
                let busy = c.stats.tx_bytes as f64 * 8.0 / c.rate_bps as f64;
                LinkReport {
                    id: i as u32,
                    from: name(c.from),
                    to: name(c.to),
                    rate_bps: c.rate_bps,
                    delay_s: secs(c.delay),
                    stats: c.stats.clone(),
                    utilization: if end > 0 { (busy / secs(end)).min(1.0) } else { 0.0 },
                    atm: c.atm,
                    tx_bytes_series: c.series.as_ref().map(|s| s.bytes.clone()),
                    per_flow_tx_bytes_series: c
                        .per_flow_series
                        .as_ref()
                        .map(|v| v.iter().map(|s| s.bytes.clone()).collect()),
                }
            })
            .collect();
        // A one-event channel's departures are `TxDone`s handled without the queue: counted
        // as such, so that `events` means the same on both paths.
        let departed: u64 = self.channels.iter().filter(|c| c.is_one_event()).map(|c| c.stats.tx_packets).sum();
        let report = RunReport {
            scenario: self.model.name.clone(),
            seed: self.model.seed,
            sim_time_s: secs(end),
            events: self.events + departed,
            queued_events: self.events - self.events_in_line,
            packets_forwarded: self.channels.iter().map(|c| c.stats.tx_packets).sum(),
            wall_s,
            flows,
            links,
            conservation: Conservation { cells: self.atm.cells.clone(), ..self.ledger.clone() },
            www: self.apps.www_reports(secs(end), |f| {
                let fl = &self.model.flows[f as usize];
                (self.model.nodes[fl.src as usize].clone(), self.model.nodes[fl.dst as usize].clone())
            }),
        };
        (report, traces)
    }

    /// Flow `i`'s row: its goodput over the time from its start to its completion (or `end`).
    fn flow_report(&mut self, i: usize, end: Time) -> FlowReport {
        let (f, m) = (&self.flows[i], &self.model.flows[i]);
        let name = |n: u32| self.names.node(n);
        let done = f.completed_at();
        let delivered = f.delivered();
        let span = secs(done.unwrap_or(end).max(f.start) - f.start);
        let mut r = FlowReport {
            id: i as u32,
            name: self.names.flows[i].clone(),
            src: name(m.src),
            dst: name(m.dst),
            bytes_delivered: delivered,
            goodput_bps: if span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 },
            completion_time_s: done.map(|t| secs(t - f.start)),
            start_s: secs(f.start),
            frames_lost_reassembly: self.atm.frames_lost_reassembly(i as u32),
            delivered_series: self.delivered_series.get(i).map(|s| s.bytes.clone()),
            written_series: self.written_series.get(i).map(|s| s.bytes.clone()),
            marking: self.marking.get_mut(i).map(|m| m.report(end)),
            stop_s: m.stop.map(secs),
            ..FlowReport::default()
        };
        match &f.ends {
            Ends::Tcp { sender, receiver } => {
                let (w, s, rs) = (sender.window(), &sender.stats, &receiver.stats);
                r.retransmits = s.retransmits;
                r.timeouts = s.timeouts;
                r.fast_retransmits = s.fast_retransmits;
                r.data_segments = s.data_segments;
                r.acks_sent = rs.acks_sent;
                r.syn_retransmits = s.syn_retransmits;
                r.out_of_order_segments = rs.out_of_order;
                r.duplicate_segments = rs.duplicates;
                r.final_cwnd = w.cwnd;
                r.final_ssthresh = w.ssthresh;
                r.final_rto_s = secs(sender.rto());
                r.partial_segments = rs.partial_segments;
                r.ecn = sender.ecn_capable().then(|| crate::metrics::EcnReport {
                    negotiated: sender.ecn_on(),
                    ce_received: rs.ce_received,
                    reductions: s.ecn_reductions,
                });
                let boston = sender.boston_counters();
                r.boston_repeated_shards = boston.map(|b| b.repeated_shards);
                r.boston_cells_sent = boston.map(|b| b.cells_sent);
                r.boston_cells_retransmitted = boston.map(|b| b.cells_retransmitted);
            }
            Ends::Udp(u) => r.udp = Some(u.report()),
        }
        r
    }
}
