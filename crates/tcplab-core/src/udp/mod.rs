//! UDP flows: traffic that is not TCP. A source (`source.rs`: constant bit rate, on-off with
//! exponential or Pareto periods, a trace) paces datagrams out of the sender (`sender.rs`);
//! nothing is acknowledged or resent. The receiving end counts what arrives and records each
//! packet's one-way delay in a fixed-size histogram (`histogram.rs`).
//!
//! A flow's counters add up: packets sent = delivered + lost + in flight, checked at the end
//! of every run like the network's ledger. A flow completes when its source has sent its last
//! packet (its stop time, byte count or trace reached) and that packet and every one before
//! it was delivered or lost; its goodput is its delivered payload over the time from its start
//! to its completion, or to the end of the run, as a TCP flow's is.

pub mod histogram;
pub mod sender;
pub mod source;

use serde::Serialize;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::{secs, Time};
use histogram::DelayHistogram;
use sender::UdpSender;
use source::SourceConfig;

/// IPv4 (20 bytes) and UDP (8 bytes) headers: what a datagram adds to its payload on the wire.
pub const HEADER_BYTES: u32 = 28;

/// The largest UDP payload over IPv4: 65535 - 20 - 8 bytes.
pub const MAX_PAYLOAD: u32 = 65_507;

/// A UDP flow's settings (`config::udp` reads them from the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct UdpConfig {
    pub source: SourceConfig,
    /// Header bytes added to each payload on the wire.
    pub header_bytes: u32,
}

/// Both ends of a UDP flow at run time.
#[derive(Debug, Clone)]
pub struct UdpFlow {
    pub sender: UdpSender,
    /// Packets and payload bytes that reached the receiving end.
    delivered_packets: u64,
    delivered_bytes: u64,
    /// Packets dropped on the way (a queue or a loss model).
    lost: u64,
    delays: DelayHistogram,
    completed_at: Option<Time>,
}

impl UdpFlow {
    pub fn new(sender: UdpSender) -> Self {
        Self {
            sender,
            delivered_packets: 0,
            delivered_bytes: 0,
            lost: 0,
            delays: DelayHistogram::default(),
            completed_at: None,
        }
    }

    /// The flow starts at `now`.
    pub fn start(&mut self, now: Time) {
        self.sender.start();
        self.check_done(now);
    }

    /// The next packet due by `now`, if any.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.sender.poll_transmit(now)
    }

    /// After the packets due at `now` have left: a source that just sent its last one may be
    /// done already (when that packet was dropped at once).
    pub fn after_sending(&mut self, now: Time) {
        self.check_done(now);
    }

    /// A packet of this flow reached its destination at `now`.
    #[inline]
    pub fn on_delivered(&mut self, now: Time, pkt: &Packet) {
        self.delivered_packets += 1;
        self.delivered_bytes += pkt.payload as u64;
        self.delays.record(now - pkt.ts);
        self.check_done(now);
    }

    /// A packet of this flow was dropped at `now`.
    pub fn on_dropped(&mut self, now: Time) {
        self.lost += 1;
        self.check_done(now);
    }

    pub fn in_flight(&self) -> u64 {
        self.sender.packets - self.delivered_packets - self.lost
    }

    pub fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }

    pub fn completed_at(&self) -> Option<Time> {
        self.completed_at
    }

    fn check_done(&mut self, now: Time) {
        if self.completed_at.is_none() && self.sender.finished() && self.in_flight() == 0 {
            self.completed_at = Some(now);
        }
    }

    /// The ledger broken, if it is: sent != delivered + lost + `in_flight` (counted in the
    /// channels at the end of the run).
    pub fn ledger_error(&self, in_flight: u64) -> Option<String> {
        let (s, d, l) = (self.sender.packets, self.delivered_packets, self.lost);
        (s != d + l + in_flight)
            .then(|| format!("UDP packets: sent {s} != delivered {d} + lost {l} + in flight {in_flight}"))
    }

    pub fn report(&self) -> UdpReport {
        let d = &self.delays;
        let s = |ns: f64| ns / 1e9;
        UdpReport {
            source: self.sender.kind(),
            packets_sent: self.sender.packets,
            bytes_sent: self.sender.bytes,
            packets_delivered: self.delivered_packets,
            packets_lost: self.lost,
            packets_in_flight: self.in_flight(),
            delay_p50_s: d.percentile(50.0).map(s),
            delay_p95_s: d.percentile(95.0).map(s),
            delay_p99_s: d.percentile(99.0).map(s),
            delay_mean_s: d.mean().map(s),
            delay_min_s: d.min().map(secs),
            delay_max_s: d.max().map(secs),
        }
    }
}

/// What a UDP flow reports beside the fields every flow has (`metrics::FlowReport`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UdpReport {
    /// "cbr", "exponential", "pareto" or "trace".
    pub source: &'static str,
    pub packets_sent: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    /// Dropped by a queue or a loss model.
    pub packets_lost: u64,
    /// Still travelling when the run ended.
    pub packets_in_flight: u64,
    /// One-way delay percentiles of the delivered packets (nearest rank, within
    /// `histogram::RELATIVE_ERROR`); null when none arrived.
    pub delay_p50_s: Option<f64>,
    pub delay_p95_s: Option<f64>,
    pub delay_p99_s: Option<f64>,
    pub delay_mean_s: Option<f64>,
    pub delay_min_s: Option<f64>,
    pub delay_max_s: Option<f64>,
}

/// A UDP flow of a model: its settings, start, stop and byte count, and its random stream.
pub fn flow(cfg: &UdpConfig, id: u32, start: Time, stop: Option<Time>, bytes: Option<u64>, rng: Rng) -> UdpFlow {
    UdpFlow::new(UdpSender::new(cfg, id, start, stop, bytes, rng))
}

#[cfg(test)]
mod tests {
    use super::source::SourceConfig;
    use super::*;
    use crate::rng::stream;

    #[test]
    fn the_ledger_catches_a_packet_unaccounted_for_and_completion_waits_for_the_last() {
        // 1000 B at 8 Mb/s: one packet a millisecond; 3000 bytes make three packets.
        let cfg = UdpConfig {
            source: SourceConfig::Cbr { rate_bps: 8_000_000, size: 1000, random: false },
            header_bytes: 28,
        };
        let mut f = flow(&cfg, 0, 0, None, Some(3000), stream(1, "udp-ledger-test", 0));
        f.start(0);
        let sent: Vec<Packet> = [0, 1_000_000, 2_000_000].iter().map(|&t| f.poll_transmit(t).unwrap()).collect();
        assert!(f.poll_transmit(10_000_000).is_none(), "the byte count ends the source");
        assert_eq!(f.ledger_error(3), None);
        f.on_delivered(5_000_000, &sent[0]);
        f.on_dropped(5_000_000);
        assert_eq!(f.ledger_error(1), None);
        assert!(f.ledger_error(0).is_some(), "a packet neither delivered, lost nor in flight");
        assert!(f.ledger_error(2).is_some(), "a packet counted twice");
        assert_eq!(f.completed_at(), None, "one packet still travelling");
        f.on_delivered(6_000_000, &sent[2]);
        assert_eq!(f.completed_at(), Some(6_000_000));
        assert_eq!(f.report().packets_in_flight, 0);
    }
}
