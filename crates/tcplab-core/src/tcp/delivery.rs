//! The delivery log of a sender whose congestion controller samples delivery (Vegas, BBR):
//! one record per segment in flight, written when it leaves and read when an ACK delivers it,
//! from which every ACK yields an RTT sample and a delivery-rate sample as
//! draft-cheng-iccrg-delivery-rate-estimation-00 (Cheng, Cardwell, Hassas Yeganeh and
//! Jacobson, 2017) specifies them:
//!
//! - each transmission records C.delivered, C.delivered_time and C.first_sent_time, and
//!   whether the application had run dry (`app_limited`); a retransmission overwrites its
//!   segment's record (Sec. 3.2);
//! - each segment an ACK delivers (cumulatively or by SACK) adds its bytes to C.delivered;
//!   the newest of them gives the sample: rs.delivered = C.delivered - P.delivered over
//!   rs.interval = max(send elapsed, ACK elapsed), refused when shorter than the min RTT
//!   (Sec. 3.3);
//! - without SACK, a duplicate ACK counts one segment delivered (as Linux does for Reno),
//!   and the cumulative ACK that follows does not count those bytes again.
//!
//! The records sit in a ring ordered by offset that grows to the largest flight and is then
//! reused: nothing is allocated per packet.

use std::collections::VecDeque;

use crate::time::{Dur, Time};

use super::cc::{AckSample, RateSample};

/// One segment in flight, as it was when its last copy left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sent {
    start: u64,
    end: u64,
    /// When its last copy left.
    sent: Time,
    /// C.delivered, C.delivered_time and C.first_sent_time then.
    delivered: u64,
    delivered_time: Time,
    first_sent: Time,
    app_limited: bool,
    /// It was sent more than once (no RTT sample from it: Karn).
    retransmitted: bool,
    /// Already counted delivered (SACKed).
    sacked: bool,
}

/// The newest segment an ACK delivered, for the rate sample (the draft's rs fields).
#[derive(Debug, Clone, Copy)]
struct Newest {
    delivered: u64,
    delivered_time: Time,
    sent: Time,
    first_sent: Time,
    app_limited: bool,
}

#[derive(Debug, Clone, Default)]
pub struct DeliveryLog {
    sent: VecDeque<Sent>,
    /// C.delivered, bytes.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: Time,
    /// C.first_sent_time.
    first_sent_time: Time,
    /// C.app_limited: 0, or the C.delivered at which the application-limited phase ends.
    app_limited: u64,
    /// Bytes resent so far, and the part of them already reported as lost.
    lost: u64,
    lost_reported: u64,
    /// Bytes of SACKed segments above snd_una.
    sacked_out: u64,
    /// Bytes counted delivered by duplicate ACKs and not yet cumulatively acknowledged.
    dup_credit: u64,
    /// Smallest RTT sample, ns (the rate sample's floor on its interval).
    min_rtt: Option<Dur>,
    /// In flight after the last ACK.
    in_flight: u64,
}

impl DeliveryLog {
    /// A segment [off, off + len) leaves at `now`; `idle`: nothing was outstanding before it.
    pub fn on_send(&mut self, now: Time, off: u64, len: u64, resend: bool, idle: bool) {
        if idle {
            // Sec. 3.2: a send after an idle period starts both clocks afresh.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let rec = Sent {
            start: off,
            end: off + len,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
            app_limited: self.app_limited != 0,
            retransmitted: resend,
            sacked: false,
        };
        if !resend || self.sent.back().is_none_or(|b| off >= b.end) {
            self.sent.push_back(rec);
            return;
        }
        self.lost += len;
        // A retransmission takes over the records it covers (segments are resent whole, but
        // a go-back-N resend may cut them differently: each overlapped record is renewed).
        let from = self.sent.partition_point(|s| s.end <= off);
        for s in self.sent.range_mut(from..).take_while(|s| s.start < off + len) {
            *s = Sent { start: s.start, end: s.end, sacked: s.sacked, ..rec };
        }
    }

    /// The application has nothing more to send now (draft Sec. 3.4): samples taken until
    /// what is in flight has been delivered are marked application-limited.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// An ACK at `now` that moved snd_una to `ack` (or repeated it: `dupack`), with SACK
    /// `blocks` (offsets); `snd_nxt` is the next byte to send and `snd_max` the highest sent + 1.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        blocks: &[(u64, u64)],
        dupack: bool,
        snd_nxt: u64,
        snd_max: u64,
        mss: u64,
    ) -> AckSample {
        let before = self.delivered;
        let mut newest: Option<Newest> = None;
        let mut rtt = None;
        let mut credit_used = 0;
        while let Some(s) = self.sent.front().copied().filter(|s| s.end <= ack) {
            self.sent.pop_front();
            if s.sacked {
                self.sacked_out -= s.end - s.start;
            } else {
                // Bytes already counted by duplicate ACKs are not counted again.
                let take = self.dup_credit.min(s.end - s.start);
                self.dup_credit -= take;
                credit_used += take;
                self.deliver(now, &s, &mut newest, &mut rtt);
            }
        }
        self.delivered -= credit_used;
        for &(left, right) in blocks {
            let from = self.sent.partition_point(|s| s.end <= left);
            let mut i = from;
            while i < self.sent.len() && self.sent[i].end <= right {
                let s = self.sent[i];
                if !s.sacked && s.start >= left {
                    self.sent[i].sacked = true;
                    self.sacked_out += s.end - s.start;
                    self.deliver(now, &s, &mut newest, &mut rtt);
                }
                i += 1;
            }
        }
        if dupack && blocks.is_empty() {
            // One segment reached the receiver out of order (at most what is outstanding
            // beyond the hole).
            let room = (snd_max - ack).saturating_sub(mss + self.dup_credit);
            let seg = mss.min(room);
            self.dup_credit += seg;
            self.delivered += seg;
            if seg > 0 {
                self.delivered_time = now;
            }
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m: Dur| m.min(r)));
        }
        let prior_in_flight = self.in_flight;
        let out_of_order = self.sacked_out + self.dup_credit;
        self.in_flight = snd_nxt.saturating_sub(ack).saturating_sub(out_of_order);
        let lost = self.lost - self.lost_reported;
        self.lost_reported = self.lost;
        AckSample {
            now,
            delivered: self.delivered - before,
            total_delivered: self.delivered,
            lost,
            in_flight: self.in_flight,
            prior_in_flight,
            out_of_order,
            rtt,
            prior_delivered: newest.map(|p| p.delivered),
            rate: newest.and_then(|p| self.rate_sample(p)),
            mss,
            snd_una: ack,
            snd_max,
        }
    }

    /// Sec. 3.3 UpdateRateSample for one delivered segment.
    fn deliver(&mut self, now: Time, s: &Sent, newest: &mut Option<Newest>, rtt: &mut Option<Dur>) {
        self.delivered += s.end - s.start;
        self.delivered_time = now;
        let is_newer = newest.is_none_or(|n| (s.delivered, s.sent) >= (n.delivered, n.sent));
        if is_newer {
            *newest = Some(Newest {
                delivered: s.delivered,
                delivered_time: s.delivered_time,
                sent: s.sent,
                first_sent: s.first_sent,
                app_limited: s.app_limited,
            });
            self.first_sent_time = s.sent;
        }
        // The RTT of the most recently sent segment among those sent once (Karn).
        if !s.retransmitted {
            let r = now - s.sent;
            *rtt = Some(rtt.map_or(r, |old: Dur| old.min(r)));
        }
    }

    /// Sec. 3.3 GenerateRateSample.
    fn rate_sample(&self, p: Newest) -> Option<RateSample> {
        let send_elapsed = p.sent - p.first_sent;
        let ack_elapsed = self.delivered_time - p.delivered_time;
        let interval = send_elapsed.max(ack_elapsed);
        // "Normally we expect interval >= MinRTT": a shorter one would overestimate the rate.
        // Nothing delivered since the segment left (the duplicate ACKs' bytes taken back by
        // the cumulative ACK after a go-back-N resend) says nothing about the path's rate.
        let delivered = self.delivered.saturating_sub(p.delivered);
        if interval == 0 || delivered == 0 || self.min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample { delivered, interval, prior_delivered: p.delivered, app_limited: p.app_limited })
    }

    /// Bytes delivered over the connection so far (C.delivered).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The most records a flow holds at once with windows up to `window` bytes of `mss`: the
    /// budget's bound.
    pub fn bound_bytes(window: u64, mss: u64) -> u64 {
        (window / mss.max(1) + 2) * std::mem::size_of::<Sent>() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    const MSS: u64 = 1000;

    /// `n` segments sent at `at`, `spacing` apart, from offset 0.
    fn sent(n: u64, at: Time, spacing: Dur) -> DeliveryLog {
        let mut log = DeliveryLog::default();
        for i in 0..n {
            log.on_send(at + i * spacing, i * MSS, MSS, false, i == 0);
        }
        log
    }

    #[test]
    fn each_cumulative_ack_gives_an_rtt_and_after_a_round_a_delivery_rate() {
        // 10 segments, 1 ms apart, each ACKed 100 ms after it left.
        let mut log = sent(10, 0, MS);
        let mut last = AckSample::default();
        for i in 0..10 {
            last = log.on_ack(100 * MS + i * MS, (i + 1) * MSS, &[], false, 10 * MSS, 10 * MSS, MSS);
            assert_eq!(last.rtt, Some(100 * MS), "ack {i}");
            assert_eq!(last.delivered, MSS);
        }
        assert_eq!(last.total_delivered, 10 * MSS);
        // The last segment was sent 9 ms after the first (send elapsed), and its ACK came
        // 109 ms after the connection's first delivery time, the first send (ACK elapsed):
        // 10 segments over 109 ms.
        let rs = last.rate.unwrap();
        assert_eq!((rs.delivered, rs.interval), (10 * MSS, 109 * MS));
        assert_eq!(rs.rate(), 10_000 * 1000 / 109);
        assert_eq!(last.in_flight, 0);
    }

    #[test]
    fn a_rate_sample_shorter_than_the_min_rtt_is_refused() {
        // (A spuriously resent segment can be ACKed sooner than an RTT after its resend.)
        let mut log = sent(1, 0, 0);
        assert!(log.on_ack(100 * MS, MSS, &[], false, MSS, MSS, MSS).rate.is_some(), "100 ms: the min RTT");
        let p = |delivered_time| Newest {
            delivered: 0,
            delivered_time,
            sent: 60 * MS,
            first_sent: 50 * MS,
            app_limited: false,
        };
        assert_eq!(log.rate_sample(p(0)).map(|r| r.interval), Some(100 * MS));
        assert!(log.rate_sample(p(40 * MS)).is_none(), "max(10, 60) ms < 100 ms");
    }

    #[test]
    fn a_retransmitted_segment_gives_no_rtt_and_counts_as_lost() {
        let mut log = sent(3, 0, 0);
        log.on_send(300 * MS, 0, MSS, true, false);
        let s = log.on_ack(400 * MS, 3 * MSS, &[], false, 3 * MSS, 3 * MSS, MSS);
        assert_eq!(s.lost, MSS);
        assert_eq!(s.rtt, Some(400 * MS), "from the newest segment sent once, not the resend");
        let again = log.on_ack(400 * MS, 3 * MSS, &[], false, 3 * MSS, 3 * MSS, MSS);
        assert_eq!(again.lost, 0, "reported once");
    }

    #[test]
    fn duplicate_acks_count_a_segment_each_and_the_cumulative_ack_does_not_count_them_again() {
        let mut log = sent(5, 0, 0);
        for _ in 0..3 {
            let d = log.on_ack(100 * MS, 0, &[], true, 5 * MSS, 5 * MSS, MSS);
            assert_eq!(d.delivered, MSS);
            assert!(d.rate.is_none(), "a duplicate ACK names no segment");
        }
        let s = log.on_ack(100 * MS, 0, &[], true, 5 * MSS, 5 * MSS, MSS);
        assert_eq!((s.delivered, s.out_of_order, s.in_flight), (MSS, 4 * MSS, MSS));
        let dup5 = log.on_ack(100 * MS, 0, &[], true, 5 * MSS, 5 * MSS, MSS);
        assert_eq!(dup5.delivered, 0, "never more than what is outstanding beyond the hole");
        let cum = log.on_ack(200 * MS, 5 * MSS, &[], false, 5 * MSS, 5 * MSS, MSS);
        assert_eq!((cum.delivered, cum.total_delivered), (MSS, 5 * MSS), "only the hole is new");
    }

    #[test]
    fn sacked_segments_are_delivered_once_and_leave_the_flight() {
        let mut log = sent(5, 0, 0);
        let s = log.on_ack(100 * MS, 0, &[(2 * MSS, 4 * MSS)], true, 5 * MSS, 5 * MSS, MSS);
        assert_eq!((s.delivered, s.in_flight, s.out_of_order), (2 * MSS, 3 * MSS, 2 * MSS));
        assert_eq!(s.rtt, Some(100 * MS));
        let again = log.on_ack(110 * MS, 0, &[(2 * MSS, 5 * MSS)], true, 5 * MSS, 5 * MSS, MSS);
        assert_eq!(again.delivered, MSS, "only segment 5 is new");
        let cum = log.on_ack(200 * MS, 5 * MSS, &[], false, 5 * MSS, 5 * MSS, MSS);
        assert_eq!((cum.delivered, cum.total_delivered, cum.out_of_order), (2 * MSS, 5 * MSS, 0));
    }

    #[test]
    fn samples_sent_while_the_application_ran_dry_are_marked() {
        let mut log = sent(2, 0, 0);
        log.on_app_limited(2 * MSS);
        log.on_send(MS, 2 * MSS, MSS, false, false);
        let a = log.on_ack(100 * MS, 2 * MSS, &[], false, 3 * MSS, 3 * MSS, MSS);
        assert!(!a.rate.unwrap().app_limited, "sent before the application ran dry");
        let b = log.on_ack(101 * MS, 3 * MSS, &[], false, 3 * MSS, 3 * MSS, MSS);
        assert!(b.rate.unwrap().app_limited);
    }
}
