//! BBR v1 as published: Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016, and its specification
//! draft-cardwell-iccrg-bbr-congestion-control-00 (July 2017), whose pseudocode this follows
//! step by step (section numbers below are the draft's):
//!
//! - the model (`bbr_model.rs`): BtlBw, the windowed max of delivery-rate samples over 10
//!   round trips, and RTprop, the min RTT renewed after 10 s (4.1);
//! - STARTUP with pacing and cwnd gains 2/ln 2, until three round trips in a row fail to grow
//!   BtlBw by 25% (4.3.2); DRAIN at gain ln 2 / 2 until the flight is down to one BDP
//!   (4.3.3); PROBE_BW cycling its pacing gain through 1.25, 0.75, 1, 1, 1, 1, 1, 1, one
//!   phase per RTprop, from a random phase other than 0.75, with cwnd gain 2 (4.3.4);
//!   PROBE_RTT when RTprop is 10 s old: cwnd 4 segments for 200 ms and a round trip (4.3.5);
//! - pacing at pacing_gain * BtlBw, never below the initial rate before the pipe is full
//!   (4.2.1); cwnd = cwnd_gain * BDP + 3 send quanta, grown by what each ACK delivers
//!   (4.2.3); on entering fast recovery, packet conservation for one round trip, and the
//!   saved cwnd restored when recovery ends; a timeout restarts from one segment (4.2.3.4).
//!
//! Left out, as the draft -00 also leaves them to implementations: restarting from idle
//! (4.3.5's idle_restart; bulk flows never go idle), and the send quantum's bursts (the
//! sender paces every segment; the quantum still sizes the 3-quanta headroom of cwnd). The
//! loss recovery that decides what to resend is the `variant`'s; BBR owns cwnd and resets it
//! after every ACK, so the recovery policy's own window changes do not stand.

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::{Dur, Time, MS, SEC};

use super::super::window::Window;
use super::bbr_model::Model;
use super::{AckSample, CongestionControl, LossState};

/// BBRHighGain = 2 / ln 2, the smallest gain that doubles the sending rate each round trip.
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// PROBE_BW's pacing gains (BBRGainCycleLen = 8).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// BBRProbeRTTDuration.
pub const PROBE_RTT_DURATION: Dur = 200 * MS;
/// BBRMinPipeCwnd, segments.
pub const MIN_PIPE_SEGMENTS: u64 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Debug, Clone)]
pub struct Bbr {
    mss: u64,
    initial_cwnd: u64,
    /// maxcwnd_, bytes.
    cap: Option<u64>,
    model: Model,
    state: State,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// BBR's cwnd, bytes in flight (the recovery policy's changes to the sender's do not stand).
    cwnd: u64,
    /// Pacing rate, bytes per second; whether it was set from an RTT (else from 1 ms).
    pacing_rate: u64,
    /// BBR.send_quantum, bytes.
    send_quantum: u64,
    /// Full pipe detection (4.3.2).
    filled_pipe: bool,
    full_bw: u64,
    full_bw_count: u32,
    cycle_index: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    /// In loss recovery (fast recovery or after a timeout), as BBR last saw it.
    in_loss_recovery: bool,
    /// A fast retransmit began a loss episode; its first ACK sets the conservation window.
    entering_recovery: bool,
    /// After a timeout: recovery lasts until snd_una passes this offset.
    rto_recover: Option<u64>,
    /// Bytes above snd_una known delivered (from the last sample): the sender counts them
    /// against cwnd, BBR does not.
    out_of_order: u64,
    rng: Rng,
}

impl Bbr {
    /// `initial_cwnd`, `mss` and `cap` in bytes; `seed` draws PROBE_BW's starting phases.
    pub fn new(initial_cwnd: u64, mss: u64, cap: Option<u64>, seed: u64) -> Self {
        let mut b = Self {
            mss,
            initial_cwnd,
            cap,
            model: Model::default(),
            state: State::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cwnd: initial_cwnd,
            pacing_rate: 0,
            send_quantum: mss,
            filled_pipe: false,
            full_bw: 0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            packet_conservation: false,
            in_loss_recovery: false,
            entering_recovery: false,
            rto_recover: None,
            out_of_order: 0,
            rng: crate::rng::stream(seed, "bbr", 0),
        };
        b.init_pacing_rate(MS);
        b
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// BBRInitPacingRate: the initial window over the RTT (1 ms before any), at high gain.
    fn init_pacing_rate(&mut self, srtt: Dur) {
        let nominal = self.initial_cwnd as u128 * SEC as u128 / srtt.max(1) as u128;
        self.pacing_rate = (HIGH_GAIN * nominal as f64) as u64;
    }

    fn enter_startup(&mut self) {
        self.state = State::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.state = State::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        // A random phase, never the 0.75 one (which would follow no 1.25 probe).
        self.cycle_index = GAIN_CYCLE.len() - 1 - self.rng.random_range(0..=6usize);
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    /// BBRInflight(gain): gain * BDP plus three send quanta; the initial window before an RTT.
    fn inflight(&self, gain: f64) -> u64 {
        match self.model.bdp(gain) {
            Some(bdp) => bdp + 3 * self.send_quantum,
            None => self.initial_cwnd,
        }
    }

    /// BBRIsNextCyclePhase (4.3.4.3).
    fn is_next_cycle_phase(&self, s: &AckSample) -> bool {
        let full_length = self.model.rtprop.is_some_and(|r| s.now - self.cycle_stamp > r);
        if self.pacing_gain > 1.0 {
            full_length && (s.lost > 0 || s.prior_in_flight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full_length || s.prior_in_flight <= self.inflight(1.0)
        } else {
            full_length
        }
    }

    /// BBRCheckFullPipe (4.3.2).
    fn check_full_pipe(&mut self, s: &AckSample) {
        let app_limited = s.rate.is_some_and(|r| r.app_limited);
        if self.filled_pipe || !self.model.round_start || app_limited {
            return;
        }
        if self.model.btlbw_now as f64 >= self.full_bw as f64 * 1.25 {
            self.full_bw = self.model.btlbw_now;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    /// BBRCheckDrain (4.3.3).
    fn check_drain(&mut self, s: &AckSample) {
        if self.state == State::Startup && self.filled_pipe {
            self.state = State::Drain;
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.state == State::Drain && s.in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(s.now);
        }
    }

    /// BBRCheckProbeRTT and BBRHandleProbeRTT (4.3.5).
    fn check_probe_rtt(&mut self, s: &AckSample) {
        if self.state != State::ProbeRtt && self.model.rtprop_expired {
            self.state = State::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.prior_cwnd = self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.state != State::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if s.in_flight <= MIN_PIPE_SEGMENTS * self.mss => {
                self.probe_rtt_done = Some(s.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.model.restart_round(s.total_delivered);
            }
            Some(done) => {
                if self.model.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && s.now > done {
                    self.model.rtprop_stamp = s.now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(s.now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }

    /// BBRSetPacingRate and BBRSetSendQuantum (4.2.1, 4.2.2).
    fn set_pacing(&mut self) {
        let rate = (self.pacing_gain * self.model.btlbw_now as f64) as u64;
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
        // 1.2 Mb/s and 24 Mb/s, in bytes per second.
        self.send_quantum = if self.pacing_rate < 150_000 {
            self.mss
        } else if self.pacing_rate < 3_000_000 {
            2 * self.mss
        } else {
            (self.pacing_rate / 1000).min(64 * 1024)
        };
    }

    /// BBRSaveCwnd.
    fn save_cwnd(&self) -> u64 {
        if !self.in_loss_recovery && self.state != State::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        }
    }

    /// Loss recovery's entry, rounds and exit (4.2.3.4), then BBRSetCwnd (4.2.3.5).
    fn set_cwnd(&mut self, s: &AckSample, in_recovery: bool) {
        if self.rto_recover.is_some_and(|r| s.snd_una >= r) {
            self.rto_recover = None;
        }
        let recovering = in_recovery || self.rto_recover.is_some();
        if self.entering_recovery {
            self.entering_recovery = false;
            self.cwnd = s.in_flight + s.delivered.max(self.mss);
            self.packet_conservation = true;
            self.model.restart_round(s.total_delivered);
        } else if self.packet_conservation && self.model.round_start {
            // One round trip of packet conservation.
            self.packet_conservation = false;
        }
        if self.in_loss_recovery && !recovering {
            self.packet_conservation = false;
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        self.in_loss_recovery = recovering;
        let target = self.inflight(self.cwnd_gain);
        if s.lost > 0 {
            self.cwnd = self.cwnd.saturating_sub(s.lost).max(self.mss);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(s.in_flight + s.delivered);
        } else {
            if self.filled_pipe {
                self.cwnd = (self.cwnd + s.delivered).min(target);
            } else if self.cwnd < target || s.total_delivered < self.initial_cwnd {
                self.cwnd += s.delivered;
            }
            self.cwnd = self.cwnd.max(MIN_PIPE_SEGMENTS * self.mss);
        }
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(MIN_PIPE_SEGMENTS * self.mss);
        }
        if let Some(max) = self.cap {
            self.cwnd = self.cwnd.min(max);
        }
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, _now: Time, _win: &mut Window, _acked: u64, _mss: u64) {
        // BBR grows its window in `set_window`, on every ACK.
    }

    fn on_rtt(&mut self, _now: Time, srtt: Dur) {
        if self.model.btlbw_now == 0 && srtt > 0 {
            // BBRInitPacingRate with the first SRTT (the handshake's, when there is one).
            self.init_pacing_rate(srtt);
        }
    }

    /// BBRUpdateModelAndState and the pacing rate (4.1, 4.3, 4.2.1).
    fn on_sample(&mut self, s: &AckSample) {
        self.out_of_order = s.out_of_order;
        self.model.update_btlbw(s);
        if self.state == State::ProbeBw && self.is_next_cycle_phase(s) {
            self.advance_cycle_phase(s.now);
        }
        self.check_full_pipe(s);
        self.check_drain(s);
        self.model.update_rtprop(s);
        self.check_probe_rtt(s);
        self.set_pacing();
    }

    fn set_window(&mut self, s: &AckSample, in_recovery: bool, win: &mut Window) {
        self.set_cwnd(s, in_recovery);
        win.cwnd = self.cwnd;
    }

    fn on_congestion_event(&mut self, loss: &LossState) -> u64 {
        // Upon entering fast recovery (4.2.3.4): save cwnd; the next `set_window` sets the
        // conservation window. ssthresh is not BBR's: it stays.
        if !self.in_loss_recovery {
            self.prior_cwnd = self.save_cwnd();
            self.entering_recovery = true;
        }
        loss.win.ssthresh
    }

    fn on_timeout(&mut self, loss: &LossState) -> Window {
        self.prior_cwnd = self.save_cwnd();
        self.in_loss_recovery = true;
        self.entering_recovery = false;
        self.packet_conservation = false;
        self.rto_recover = Some(loss.snd_max);
        self.cwnd = self.mss;
        Window { cwnd: self.cwnd, ssthresh: loss.win.ssthresh }
    }

    /// The sender counts SACKed and duplicate-ACKed bytes against cwnd; BBR's cwnd is the
    /// data in the network, so they are added back.
    fn usable(&self, cwnd: u64, _mss: u64) -> u64 {
        cwnd + self.out_of_order
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate.max(1))
    }

    fn holds_back(&self) -> bool {
        self.state == State::ProbeRtt
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
