//! BBR's path model (draft-cardwell-iccrg-bbr-congestion-control-00, Sec. 4.1): round trips
//! counted in delivered data, BtlBw as the largest delivery rate of the last 10 round trips,
//! RTprop as the smallest RTT, renewed once it is 10 s old.

use crate::time::{Dur, Time, SEC};

use super::AckSample;

/// BtlBwFilterLen: round trips.
pub const BTLBW_ROUNDS: u64 = 10;
/// RTpropFilterLen.
pub const RTPROP_WINDOW: Dur = 10 * SEC;

/// The largest value seen in each of the last `BTLBW_ROUNDS` rounds: an exact windowed max.
#[derive(Debug, Clone, Default)]
struct RoundMax {
    /// (round, largest value in it), slot = round % BTLBW_ROUNDS.
    slots: [(u64, u64); BTLBW_ROUNDS as usize],
}

impl RoundMax {
    fn update(&mut self, round: u64, v: u64) {
        let slot = &mut self.slots[(round % BTLBW_ROUNDS) as usize];
        if slot.0 != round {
            *slot = (round, v);
        } else {
            slot.1 = slot.1.max(v);
        }
    }

    /// The largest value of rounds `round - 9 ..= round`.
    fn max(&self, round: u64) -> u64 {
        self.slots.iter().filter(|(r, _)| *r + BTLBW_ROUNDS > round && *r <= round).map(|s| s.1).max().unwrap_or(0)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Round trips counted so far (BBR.round_count), and whether this ACK began one.
    pub round_count: u64,
    pub round_start: bool,
    /// C.delivered at which the next round begins (BBR.next_round_delivered).
    next_round_delivered: u64,
    btlbw: RoundMax,
    /// BtlBw, bytes per second.
    pub btlbw_now: u64,
    /// RTprop, ns (None until the first sample: the draft's Inf) and when it was measured.
    pub rtprop: Option<Dur>,
    pub rtprop_stamp: Time,
    /// RTprop is older than its window (BBR.rtprop_expired).
    pub rtprop_expired: bool,
}

impl Model {
    /// BBRUpdateRound and BBRUpdateBtlBw (Sec. 4.1.1).
    pub fn update_btlbw(&mut self, s: &AckSample) {
        self.round_start = false;
        if s.prior_delivered.is_some_and(|p| p >= self.next_round_delivered) {
            self.next_round_delivered = s.total_delivered;
            self.round_count += 1;
            self.round_start = true;
        }
        // BtlBw changes only when a sample is taken in: rounds without one (PROBE_RTT's, whose
        // samples are application-limited) do not age the estimate away to nothing.
        if let Some(rs) = s.rate {
            let rate = rs.rate();
            if rate >= self.btlbw_now || !rs.app_limited {
                self.btlbw.update(self.round_count, rate);
                self.btlbw_now = self.btlbw.max(self.round_count);
            }
        }
    }

    /// BBRUpdateRTprop (Sec. 4.1.2).
    pub fn update_rtprop(&mut self, s: &AckSample) {
        self.rtprop_expired = s.now > self.rtprop_stamp + RTPROP_WINDOW;
        if let Some(rtt) = s.rtt {
            if self.rtprop.is_none_or(|p| rtt <= p) || self.rtprop_expired {
                self.rtprop = Some(rtt);
                self.rtprop_stamp = s.now;
            }
        }
    }

    /// Start a round now (PROBE_RTT's first full round, a loss episode's first).
    pub fn restart_round(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }

    /// The estimated bandwidth-delay product times `gain`, bytes; None before an RTT sample.
    pub fn bdp(&self, gain: f64) -> Option<u64> {
        let rtprop = self.rtprop?;
        let bdp = self.btlbw_now as u128 * rtprop as u128 / SEC as u128;
        Some((gain * bdp as f64) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::RateSample;
    use super::*;
    use crate::time::MS;

    fn sample(now: Time, prior: u64, total: u64, rate: Option<(u64, bool)>) -> AckSample {
        AckSample {
            now,
            total_delivered: total,
            prior_delivered: Some(prior),
            rate: rate.map(|(r, app_limited)| RateSample {
                delivered: r,
                interval: SEC,
                prior_delivered: prior,
                app_limited,
            }),
            ..AckSample::default()
        }
    }

    #[test]
    fn a_round_ends_when_a_segment_sent_after_its_start_is_delivered() {
        let mut m = Model::default();
        m.update_btlbw(&sample(0, 0, 1000, None));
        assert_eq!((m.round_count, m.round_start), (1, true));
        m.update_btlbw(&sample(0, 500, 2000, None));
        assert!(!m.round_start, "sent before the round began at 1000 delivered");
        m.update_btlbw(&sample(0, 1000, 3000, None));
        assert_eq!((m.round_count, m.round_start), (2, true));
    }

    #[test]
    fn btlbw_is_the_largest_rate_of_the_last_ten_rounds() {
        let mut m = Model::default();
        let rates = [9_000, 5_000, 4_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 2_000];
        for (round, rate) in rates.into_iter().enumerate() {
            // One byte delivered per round: each sample was sent as the previous round ended.
            let delivered = round as u64;
            m.update_btlbw(&sample(0, delivered, delivered + 1, Some((rate, false))));
            let expected = if round < 10 { 9_000 } else { 5_000 };
            assert_eq!(m.btlbw_now, expected, "round {}", m.round_count);
        }
    }

    #[test]
    fn an_application_limited_sample_counts_only_if_it_raises_btlbw() {
        let mut m = Model::default();
        m.update_btlbw(&sample(0, 0, 1, Some((5000, false))));
        m.update_btlbw(&sample(0, 0, 2, Some((1000, true))));
        assert_eq!(m.btlbw_now, 5000);
        m.update_btlbw(&sample(0, 0, 3, Some((7000, true))));
        assert_eq!(m.btlbw_now, 7000);
    }

    #[test]
    fn rounds_without_a_sample_taken_in_keep_btlbw() {
        // Twelve rounds of application-limited samples below BtlBw (PROBE_RTT's): BtlBw stays,
        // and the next full sample, the old ones now out of the window, replaces it.
        let mut m = Model::default();
        m.update_btlbw(&sample(0, 0, 1, Some((5000, false))));
        for d in 1..=12 {
            m.update_btlbw(&sample(0, d, d + 1, Some((800, true))));
        }
        assert_eq!((m.round_count, m.btlbw_now), (13, 5000));
        m.update_btlbw(&sample(0, 13, 14, Some((4000, false))));
        assert_eq!(m.btlbw_now, 4000);
    }

    #[test]
    fn rtprop_is_the_min_rtt_renewed_after_ten_seconds() {
        let mut m = Model::default();
        let rtt = |now, r| AckSample { now, rtt: Some(r), ..AckSample::default() };
        m.update_rtprop(&rtt(0, 50 * MS));
        m.update_rtprop(&rtt(SEC, 60 * MS));
        assert_eq!(m.rtprop, Some(50 * MS));
        m.update_rtprop(&rtt(11 * SEC, 70 * MS));
        assert_eq!((m.rtprop, m.rtprop_stamp), (Some(70 * MS), 11 * SEC), "expired: the new sample replaces it");
    }
}
