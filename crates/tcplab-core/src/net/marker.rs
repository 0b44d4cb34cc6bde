//! Token-bucket policer/marker at a source (Feng, Kandlur, Saha and Shin, "TCP Enhancements
//! for an Integrated Services Internet", 1997, Sec. 2): tokens accrue at the reserved rate t_m
//! up to the depth b; a packet leaving while the bucket holds at least its IP size is marked
//! and takes those tokens, otherwise it leaves unmarked and takes none. Tokens that arrive at a
//! full bucket are lost and counted. An optional peak-rate bucket (rate t_p, depth one largest
//! packet unless set) must also hold the packet's size for it to be marked.
//!
//! Tokens are counted in nanobits (10^-9 bit) in integers: a rate in bit/s times a duration in
//! nanoseconds is exact, so a depth given as time at the rate (the paper's 50 ms) is exact too.

use serde::Serialize;

use crate::packet::{Dir, Packet};
use crate::time::{Dur, Time};

use super::channel::Series;

const NANOBITS_PER_BYTE: u128 = 8_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerConfig {
    pub rate_bps: u64,
    /// Depth of the main bucket in nanobits.
    pub depth_nanobits: u128,
    /// Peak rate and the peak bucket's depth in nanobits.
    pub peak: Option<(u64, u128)>,
}

impl MarkerConfig {
    pub fn depth_bytes(rate_bps: u64, depth_bytes: u64, peak: Option<(u64, u64)>) -> Self {
        Self {
            rate_bps,
            depth_nanobits: depth_bytes as u128 * NANOBITS_PER_BYTE,
            peak: peak.map(|(r, b)| (r, b as u128 * NANOBITS_PER_BYTE)),
        }
    }

    /// A depth of `depth_ns` nanoseconds' worth of tokens at the rate.
    pub fn depth_time(rate_bps: u64, depth_ns: u64, peak: Option<(u64, u64)>) -> Self {
        Self { depth_nanobits: rate_bps as u128 * depth_ns as u128, ..Self::depth_bytes(rate_bps, 0, peak) }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    rate_bps: u64,
    depth: u128,
    tokens: u128,
}

impl Bucket {
    /// Add `dt` ns of tokens; returns the nanobits that did not fit.
    fn refill(&mut self, dt: u64) -> u128 {
        let t = self.tokens + self.rate_bps as u128 * dt as u128;
        self.tokens = t.min(self.depth);
        t - self.tokens
    }
}

#[derive(Debug, Clone)]
pub struct TokenBucket {
    main: Bucket,
    peak: Option<Bucket>,
    last: Time,
    lost: u128,
    /// Bytes of tokens lost per time bin, when series are recorded: (bin width, bytes).
    lost_series: Option<(Dur, Vec<f64>)>,
    pub marked_packets: u64,
    pub unmarked_packets: u64,
}

impl TokenBucket {
    /// A full bucket at `start` (the flow's start: no tokens are counted lost before it).
    pub fn new(cfg: MarkerConfig, start: Time) -> Self {
        let full = |rate_bps, depth| Bucket { rate_bps, depth, tokens: depth };
        Self {
            main: full(cfg.rate_bps, cfg.depth_nanobits),
            peak: cfg.peak.map(|(r, d)| full(r, d)),
            last: start,
            lost: 0,
            lost_series: None,
            marked_packets: 0,
            unmarked_packets: 0,
        }
    }

    /// Also record the tokens lost per `bin` of time.
    pub fn with_lost_series(mut self, bin: Dur) -> Self {
        self.lost_series = Some((bin, Vec::new()));
        self
    }

    fn advance(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last);
        if dt == 0 {
            return;
        }
        let (from, room) = (self.last, self.main.depth - self.main.tokens);
        self.last = now;
        let lost = self.main.refill(dt);
        self.lost += lost;
        if let (Some((bin, series)), true) = (&mut self.lost_series, lost > 0) {
            // The bucket filled at `full` and lost tokens at the full rate from then on:
            // spread them over the bins that interval covers.
            let full = from as f64 + room as f64 / self.main.rate_bps as f64;
            let per_ns = self.main.rate_bps as f64 / NANOBITS_PER_BYTE as f64;
            let (first, last) = ((full as u64 / *bin) as usize, (now / *bin) as usize);
            if series.len() <= last {
                series.resize(last + 1, 0.0);
            }
            for (i, v) in series.iter_mut().enumerate().take(last + 1).skip(first) {
                let (a, b) = ((i as u64 * *bin) as f64, ((i as u64 + 1) * *bin) as f64);
                *v += (b.min(now as f64) - a.max(full)).max(0.0) * per_ns;
            }
        }
        if let Some(p) = &mut self.peak {
            p.refill(dt);
        }
    }

    /// Whether a packet of `bytes` leaving at `now` would be marked.
    pub fn conforms(&mut self, now: Time, bytes: u32) -> bool {
        self.advance(now);
        let need = bytes as u128 * NANOBITS_PER_BYTE;
        self.main.tokens >= need && self.peak.is_none_or(|p| p.tokens >= need)
    }

    /// A packet of `bytes` leaves at `now`: returns whether it is marked (and takes tokens).
    pub fn mark(&mut self, now: Time, bytes: u32) -> bool {
        if !self.conforms(now, bytes) {
            self.unmarked_packets += 1;
            return false;
        }
        let need = bytes as u128 * NANOBITS_PER_BYTE;
        self.main.tokens -= need;
        if let Some(p) = &mut self.peak {
            p.tokens -= need;
        }
        self.marked_packets += 1;
        true
    }

    /// Bytes of tokens in the main bucket at `now`.
    pub fn tokens_bytes(&mut self, now: Time) -> f64 {
        self.advance(now);
        self.main.tokens as f64 / NANOBITS_PER_BYTE as f64
    }

    /// Whole bytes a packet may take at `now` and still be marked (both buckets).
    pub fn available_bytes(&mut self, now: Time) -> u64 {
        self.advance(now);
        let t = self.peak.map_or(self.main.tokens, |p| p.tokens.min(self.main.tokens));
        (t / NANOBITS_PER_BYTE) as u64
    }

    /// Bytes of tokens lost to a full bucket up to `now`.
    pub fn lost_bytes(&mut self, now: Time) -> f64 {
        self.advance(now);
        self.lost as f64 / NANOBITS_PER_BYTE as f64
    }
}

/// A flow's marking at its source and the marked segments its receiver got.
#[derive(Debug, Clone)]
pub struct FlowMarking {
    pub bucket: Option<TokenBucket>,
    pub marked_segments_delivered: u64,
    pub marked_bytes_delivered: u64,
    /// Marked payload bytes delivered per `series_bin`.
    series: Option<Series>,
}

/// What a run reports per flow when any flow has a marker.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MarkingReport {
    /// Packets that left with tokens (marked) and without.
    pub marked_packets: u64,
    pub unmarked_packets: u64,
    /// Bytes of tokens that arrived at a full bucket (0 without a marker).
    pub tokens_lost_bytes: f64,
    /// Marked data segments that reached the receiver (the paper's compliant throughput).
    pub marked_segments_delivered: u64,
    pub marked_bytes_delivered: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked_delivered_series: Option<Vec<u64>>,
    /// Bytes of tokens lost per `series_bin` (flows with a marker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_lost_series: Option<Vec<f64>>,
}

impl FlowMarking {
    pub fn new(cfg: Option<MarkerConfig>, start: Time, series_bin: Option<Dur>) -> Self {
        let bucket = |c| {
            let b = TokenBucket::new(c, start);
            match series_bin {
                Some(bin) => b.with_lost_series(bin),
                None => b,
            }
        };
        Self {
            bucket: cfg.map(bucket),
            marked_segments_delivered: 0,
            marked_bytes_delivered: 0,
            series: series_bin.map(Series::new),
        }
    }

    /// Whole bytes of tokens at `now` (0 without a bucket).
    pub fn available_bytes(&mut self, now: Time) -> u64 {
        self.bucket.as_mut().map_or(0, |b| b.available_bytes(now))
    }

    /// Mark a packet the flow's sender puts on the network at `now`.
    pub fn on_send(&mut self, now: Time, pkt: &mut Packet) {
        if let (Some(b), Dir::Forward) = (&mut self.bucket, pkt.dir) {
            pkt.marked = b.mark(now, pkt.wire_bytes);
        }
    }

    /// A packet of the flow reached its destination host.
    pub fn on_deliver(&mut self, now: Time, pkt: &Packet) {
        if pkt.marked && pkt.dir == Dir::Forward && pkt.payload > 0 {
            self.marked_segments_delivered += 1;
            self.marked_bytes_delivered += pkt.payload as u64;
            if let Some(s) = &mut self.series {
                s.add(now, pkt.payload as u64);
            }
        }
    }

    pub fn report(&mut self, end: Time) -> MarkingReport {
        let (marked, unmarked, lost) = match &mut self.bucket {
            Some(b) => (b.marked_packets, b.unmarked_packets, b.lost_bytes(end)),
            None => (0, 0, 0.0),
        };
        let lost_series = self.bucket.as_ref().and_then(|b| b.lost_series.as_ref()).map(|(_, v)| v.clone());
        MarkingReport {
            marked_packets: marked,
            unmarked_packets: unmarked,
            tokens_lost_bytes: lost,
            marked_segments_delivered: self.marked_segments_delivered,
            marked_bytes_delivered: self.marked_bytes_delivered,
            marked_delivered_series: self.series.as_ref().map(|s| s.bytes.clone()),
            tokens_lost_series: lost_series,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    /// 1 Mb/s = 125 bytes per ms; depth 2500 bytes; 1000-byte packets.
    #[test]
    fn hand_worked_sequence_marks_and_loses_tokens() {
        let mut tb = TokenBucket::new(MarkerConfig::depth_bytes(1_000_000, 2500, None), 0);
        // t=0: 2500 -> marked, 1500 -> marked, 500 -> unmarked (500 < 1000).
        assert!(tb.mark(0, 1000));
        assert!(tb.mark(0, 1000));
        assert!(!tb.mark(0, 1000));
        assert_eq!(tb.tokens_bytes(0), 500.0);
        // t=4 ms: 500 + 500 = 1000 -> marked, leaving 0.
        assert!(tb.mark(4 * MS, 1000));
        // t=34 ms: 0 + 30 x 125 = 3750 -> full at 2500, 1250 lost.
        assert_eq!(tb.lost_bytes(34 * MS), 1250.0);
        assert!(tb.mark(34 * MS, 1000));
        assert!(tb.mark(34 * MS, 1000));
        assert!(!tb.mark(35 * MS, 1000), "500 + 125 = 625 < 1000");
        assert_eq!((tb.marked_packets, tb.unmarked_packets), (5, 2));
        assert_eq!(tb.lost_bytes(35 * MS), 1250.0);
    }

    #[test]
    fn depth_as_time_is_the_rate_times_the_time() {
        // The paper's 50 ms at 4 Mb/s: 25,000 bytes.
        let mut tb = TokenBucket::new(MarkerConfig::depth_time(4_000_000, 50 * MS, None), 0);
        assert_eq!(tb.tokens_bytes(0), 25_000.0);
        let marked = (0..30).filter(|_| tb.mark(0, 1000)).count();
        assert_eq!(marked, 25);
        // 1 ms later: 500 bytes, not enough; after 2 ms, 1000 bytes exactly: enough.
        assert!(!tb.mark(MS, 1000));
        assert!(tb.mark(2 * MS, 1000));
        // Idle 1 s: 500,000 bytes arrive, 25,000 fit.
        assert_eq!(tb.lost_bytes(1002 * MS), 475_000.0);
    }

    #[test]
    fn lost_tokens_are_spread_over_the_bins_where_the_bucket_was_full() {
        // 1 Mb/s (125 bytes per ms), depth 2500 bytes, 10 ms bins. Emptied at 0, the bucket is
        // full at 20 ms; by 45 ms 25 ms of tokens (3125 bytes) are lost: 1250 in bin 2,
        // 1250 in bin 3, 625 in bin 4.
        let mut tb = TokenBucket::new(MarkerConfig::depth_bytes(1_000_000, 2500, None), 0).with_lost_series(10 * MS);
        assert!(tb.mark(0, 2500));
        assert_eq!(tb.lost_bytes(45 * MS), 3125.0);
        let series = tb.lost_series.as_ref().unwrap().1.clone();
        let expect = [0.0, 0.0, 1250.0, 1250.0, 625.0];
        assert_eq!(series.len(), expect.len());
        for (got, want) in series.iter().zip(expect) {
            assert!((got - want).abs() < 1e-6, "{series:?}");
        }
    }

    #[test]
    fn peak_rate_bucket_limits_back_to_back_marks() {
        // 1 Mb/s, depth 10,000 bytes, peak 2 Mb/s with a 1000-byte peak bucket.
        let mut tb = TokenBucket::new(MarkerConfig::depth_bytes(1_000_000, 10_000, Some((2_000_000, 1000))), 0);
        assert!(tb.mark(0, 1000));
        assert!(!tb.mark(0, 1000), "the peak bucket is empty");
        assert!(!tb.mark(3 * MS, 1000), "750 peak bytes");
        assert!(tb.mark(4 * MS, 1000));
    }
}
