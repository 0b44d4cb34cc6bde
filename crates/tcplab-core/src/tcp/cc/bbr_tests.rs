//! BBR's rules one ACK at a time, against draft-cardwell-iccrg-bbr-congestion-control-00.

use super::super::RateSample;
use super::*;

const MSS: u64 = 1000;

/// ACKs that each end a round trip (they deliver a segment sent after the round began).
struct Feed {
    delivered: u64,
}

impl Feed {
    fn new() -> Self {
        Self { delivered: 0 }
    }

    /// One ACK at `now` delivering a segment, with delivery rate `rate` bytes/s, RTT `rtt`
    /// and `in_flight` left.
    fn ack(&mut self, now: Time, rate: u64, rtt: Dur, in_flight: u64) -> AckSample {
        let prior = self.delivered;
        self.delivered += MSS;
        AckSample {
            now,
            delivered: MSS,
            total_delivered: self.delivered,
            in_flight,
            prior_in_flight: in_flight + MSS,
            rtt: Some(rtt),
            prior_delivered: Some(prior),
            rate: Some(RateSample { delivered: rate, interval: SEC, prior_delivered: prior, app_limited: false }),
            mss: MSS,
            snd_una: self.delivered,
            snd_max: self.delivered + in_flight,
            ..AckSample::default()
        }
    }
}

fn bbr() -> Bbr {
    Bbr::new(MSS, MSS, None, 1)
}

/// A BBR whose pipe is full, in PROBE_BW: BtlBw 1 MB/s, RTprop 100 ms (BDP 100 000 bytes).
fn probing() -> (Bbr, Feed) {
    let mut b = bbr();
    let mut f = Feed::new();
    for _ in 0..4 {
        b.on_sample(&f.ack(0, 1_000_000, 100 * MS, 0));
    }
    assert_eq!(b.state(), State::ProbeBw);
    (b, f)
}

#[test]
fn startup_runs_at_high_gain_and_paces_at_gain_times_btlbw() {
    let mut b = bbr();
    assert!((b.pacing_gain - 2.885).abs() < 1e-3 && b.cwnd_gain == b.pacing_gain, "2/ln 2");
    assert_eq!(b.pacing_rate(), Some((HIGH_GAIN * 1_000_000.0) as u64), "initial window over 1 ms");
    b.on_rtt(0, 100 * MS);
    assert_eq!(b.pacing_rate(), Some((HIGH_GAIN * 10_000.0) as u64), "initial window over the SRTT");
    let mut f = Feed::new();
    b.on_sample(&f.ack(0, 100_000, 100 * MS, 10 * MSS));
    assert_eq!(b.pacing_rate(), Some((HIGH_GAIN * 100_000.0) as u64));
}

#[test]
fn startup_exits_after_three_rounds_without_25_percent_growth() {
    let mut b = bbr();
    let mut f = Feed::new();
    for rate in [100_000, 200_000, 400_000, 450_000, 480_000] {
        b.on_sample(&f.ack(0, rate, 100 * MS, 60 * MSS));
        assert_eq!(b.state(), State::Startup, "rate {rate}");
    }
    // 450, 480 and now 499 thousand: three rounds below 1.25 * 400 000.
    b.on_sample(&f.ack(0, 499_000, 100 * MS, 60 * MSS));
    assert!(b.filled_pipe);
    assert_eq!(b.state(), State::Drain, "in flight 60 000 > BDP 49 900 + 3 quanta of 2 segments");
    assert!((b.pacing_gain - 1.0 / HIGH_GAIN).abs() < 1e-12 && b.cwnd_gain == HIGH_GAIN);
    // 25% growth in a round restarts the count.
    let mut g = bbr();
    let mut f = Feed::new();
    for rate in [100_000, 110_000, 120_000, 200_000, 210_000, 220_000] {
        g.on_sample(&f.ack(0, rate, 100 * MS, 50 * MSS));
    }
    assert_eq!(g.state(), State::Startup, "200 000 grew 25% over 100 000: the count restarted");
}

#[test]
fn drain_ends_once_the_flight_is_down_to_one_bdp() {
    let mut b = bbr();
    let mut f = Feed::new();
    for _ in 0..4 {
        b.on_sample(&f.ack(0, 1_000_000, 100 * MS, 300 * MSS));
    }
    assert_eq!(b.state(), State::Drain);
    // inflight(1) = BDP 100 000 + 3 quanta of 2 segments (the pacing rate is between 1.2
    // and 24 Mb/s) = 106 000.
    b.on_sample(&f.ack(0, 1_000_000, 100 * MS, 107 * MSS));
    assert_eq!(b.state(), State::Drain);
    b.on_sample(&f.ack(0, 1_000_000, 100 * MS, 106 * MSS));
    assert_eq!(b.state(), State::ProbeBw);
    assert!(b.pacing_gain != 0.75, "never starts in the draining phase");
}

#[test]
fn probe_bw_cycles_its_gains_one_phase_per_rtprop() {
    let (mut b, mut f) = probing();
    b.cycle_index = GAIN_CYCLE.len() - 1;
    b.advance_cycle_phase(0);
    let mut gains = vec![b.pacing_gain];
    let mut now = 0;
    for _ in 0..8 {
        // Each phase lasts a little more than RTprop; 1.25 needs the flight up to 1.25 BDP
        // (here the ACK reports it), 0.75 ends after RTprop (or once the flight is at 1 BDP).
        now += 101 * MS;
        b.on_sample(&f.ack(now, 1_000_000, 100 * MS, 200 * MSS));
        gains.push(b.pacing_gain);
    }
    assert_eq!(gains, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25]);
}

#[test]
fn the_probing_phase_waits_for_the_flight_or_a_loss_and_draining_ends_early_at_one_bdp() {
    let (mut b, mut f) = probing();
    b.cycle_index = GAIN_CYCLE.len() - 1;
    b.advance_cycle_phase(0);
    b.on_sample(&f.ack(200 * MS, 1_000_000, 100 * MS, 100 * MSS));
    assert_eq!(b.pacing_gain, 1.25, "flight 101 000 below inflight(1.25) = 131 000: keep probing");
    let mut lossy = f.ack(300 * MS, 1_000_000, 100 * MS, 100 * MSS);
    lossy.lost = MSS;
    b.on_sample(&lossy);
    assert_eq!(b.pacing_gain, 0.75, "a loss ends the probe");
    b.on_sample(&f.ack(310 * MS, 1_000_000, 100 * MS, 50 * MSS));
    assert_eq!(b.pacing_gain, 1.0, "flight at or below one BDP ends the drain before RTprop");
}

#[test]
fn cwnd_grows_by_what_is_delivered_up_to_two_bdp_plus_three_quanta() {
    let (mut b, mut f) = probing();
    let mut w = Window { cwnd: 0, ssthresh: u64::MAX };
    let target = 2 * 100_000 + 3 * 2000;
    for _ in 0..300 {
        let s = f.ack(0, 1_000_000, 100 * MS, 50 * MSS);
        b.set_window(&s, false, &mut w);
    }
    assert_eq!(w.cwnd, target, "cwnd_gain 2 in PROBE_BW");
    b.cwnd = 500_000;
    b.set_window(&f.ack(0, 1_000_000, 100 * MS, 50 * MSS), false, &mut w);
    assert_eq!(w.cwnd, target, "cut to the target at once once the pipe is full");
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_new_min_rtt() {
    let (mut b, mut f) = probing();
    let mut w = Window { cwnd: 0, ssthresh: u64::MAX };
    b.cwnd = 150_000;
    b.on_sample(&f.ack(9 * SEC, 1_000_000, 120 * MS, 100 * MSS));
    assert_eq!(b.state(), State::ProbeBw, "RTprop 100 ms is 9 s old");
    b.on_sample(&f.ack(10 * SEC + 1, 1_000_000, 120 * MS, 100 * MSS));
    assert_eq!(b.state(), State::ProbeRtt, "10 s without an RTT at or below 100 ms");
    assert!(b.holds_back());
    b.set_window(&f.ack(10 * SEC + 2, 1_000_000, 120 * MS, 100 * MSS), false, &mut w);
    assert_eq!(w.cwnd, 4 * MSS, "4 segments");
    // Once the flight is down to 4 segments the 200 ms start, and a round trip must pass too.
    b.on_sample(&f.ack(10 * SEC + 100 * MS, 1_000_000, 50 * MS, 4 * MSS));
    let done = b.probe_rtt_done.unwrap();
    assert_eq!(done, 10 * SEC + 300 * MS);
    b.on_sample(&f.ack(done, 1_000_000, 50 * MS, 4 * MSS));
    assert_eq!(b.state(), State::ProbeRtt, "not past the 200 ms yet");
    b.on_sample(&f.ack(done + 1, 1_000_000, 50 * MS, 4 * MSS));
    assert_eq!(b.state(), State::ProbeBw, "back to PROBE_BW (the pipe was full)");
    assert_eq!(b.model.rtprop, Some(50 * MS));
    assert_eq!(b.cwnd, 150_000, "the saved cwnd restored");
}

#[test]
fn fast_recovery_conserves_packets_for_a_round_then_restores_the_window() {
    let (mut b, mut f) = probing();
    let mut w = Window { cwnd: 0, ssthresh: u64::MAX };
    b.cwnd = 150_000;
    let loss = LossState {
        win: Window { cwnd: 150_000, ssthresh: 7 },
        peer_wnd: u64::MAX,
        flight: 150_000,
        mss: MSS,
        snd_una: 0,
        snd_max: 150_000,
    };
    assert_eq!(b.on_congestion_event(&loss), 7, "ssthresh is left alone");
    // The ACK that began recovery: cwnd = in flight + what it delivered.
    let mut s = f.ack(0, 1_000_000, 100 * MS, 140 * MSS);
    s.prior_delivered = Some(0); // not a new round
    b.set_window(&s, true, &mut w);
    assert_eq!(w.cwnd, 141 * MSS);
    let mut s = f.ack(0, 1_000_000, 100 * MS, 100 * MSS);
    s.prior_delivered = Some(0);
    s.lost = 2 * MSS;
    b.on_sample(&s);
    b.set_window(&s, true, &mut w);
    assert_eq!(w.cwnd, 139 * MSS, "losses come off, but never below in flight + delivered");
    let end = f.ack(0, 1_000_000, 100 * MS, 100 * MSS);
    b.on_sample(&end);
    b.set_window(&end, false, &mut w);
    assert_eq!(w.cwnd, 151_000, "recovery over: the saved window, grown by what this ACK delivered");
}

#[test]
fn a_timeout_restarts_from_one_segment_and_counts_sacked_bytes_back_into_the_window() {
    let (mut b, mut f) = probing();
    let loss = LossState {
        win: Window { cwnd: 150_000, ssthresh: 9 },
        peer_wnd: u64::MAX,
        flight: 150_000,
        mss: MSS,
        snd_una: 0,
        snd_max: 150_000,
    };
    assert_eq!(b.on_timeout(&loss), Window { cwnd: MSS, ssthresh: 9 });
    let mut s = f.ack(0, 1_000_000, 100 * MS, 10 * MSS);
    s.out_of_order = 5 * MSS;
    b.on_sample(&s);
    assert_eq!(b.usable(10 * MSS, MSS), 15 * MSS);
}
