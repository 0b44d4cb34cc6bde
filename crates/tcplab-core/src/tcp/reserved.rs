//! Sender policies for a connection with a reservation (Feng, Kandlur, Saha and Shin, "TCP
//! Enhancements for an Integrated Services Internet", 1997), usable with any loss recovery:
//!
//! - Rate-adaptive window (Sec. 4.2, Fig. 4): RWND = reserved rate x estimated RTT. After a
//!   fast retransmit ssthresh = min(RWND + (cwnd - RWND)/2, AWND) and cwnd moves with it (so a
//!   Reno-style inflation by three segments is kept on top); after a timeout ssthresh is set
//!   the same way and cwnd = RWND + 1 segment. With no RTT sample yet RWND is 0 and the rules
//!   are the classic ones. The estimated RTT is the smoothed one (the paper's "estimated
//!   round-trip time", which "varies with the variation in the round-trip delay") or, as an
//!   alternative, the smallest RTT sample seen, which does not grow with the queue or with a
//!   long recovery (`WindowRtt`).
//! - Delayed send (Sec. 5, Fig. 7): when the window lets a segment go but the token bucket
//!   cannot mark it, hold it back by a uniform random delay (one timer per connection); an ACK
//!   that arrives while the timer is set releases its segments at once, marked or not; when the
//!   timer expires, one segment goes if the congestion and advertised windows have room,
//!   tokens or not.
//! - Timed send (Sec. 5, Fig. 8): a periodic timer; at each tick the sender sends new data as
//!   marked packets while the bucket holds a packet's worth of tokens and the advertised window
//!   has room, ignoring cwnd. The tick drains the bucket (not just one packet), since the
//!   paper's zero-token-loss interval, (depth - (packet - 1)) / rate, only guarantees no loss
//!   if a tick can spend everything above one packet's worth.
//!
//! The token count comes from the flow's token bucket (kept by the simulation, which marks the
//! packets) through `set_tokens` before each transmit decision.

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::{Dur, Time, SEC};

use super::window::Window;

/// What triggers transmissions besides the ACK clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendRule {
    AckClock,
    /// Delayed send, with delays uniform on [0, max_delay].
    Delayed {
        max_delay: Dur,
    },
    /// Timed send every `interval`.
    Timed {
        interval: Dur,
    },
}

/// The RTT the rate-adaptive window multiplies the reserved rate by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WindowRtt {
    /// The sender's smoothed RTT, in its timer's resolution (the paper's reading).
    #[default]
    Smoothed,
    /// The smallest RTT sample of a data segment, in ns: the clock's exact time, not the
    /// retransmission timer's ticks, as a base RTT is measured (TCP Vegas's BaseRTT), so the
    /// reservation window is rate x path delay rather than rate x a tick-rounded estimate.
    Min,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservedConfig {
    /// The reserved rate (the token bucket's rate).
    pub rate_bps: u64,
    pub adaptive_window: bool,
    /// Which RTT the rate-adaptive window uses.
    pub window_rtt: WindowRtt,
    pub send: SendRule,
}

impl ReservedConfig {
    /// The timer interval of Sec. 5 that guarantees no token loss: (depth - (packet - 1)) /
    /// rate, with depth and packet in bytes.
    pub fn zero_loss_interval(rate_bps: u64, depth_bytes: u64, packet_bytes: u64) -> Dur {
        let bits = (depth_bytes + 1).saturating_sub(packet_bytes) * 8;
        (bits as u128 * SEC as u128 / rate_bps.max(1) as u128) as Dur
    }
}

#[derive(Debug, Clone)]
pub struct Reserved {
    cfg: ReservedConfig,
    rng: Rng,
    /// Whole bytes of tokens in the bucket, as of the last `set_tokens`.
    tokens: u64,
    /// The delayed-send timer.
    delay_at: Option<Time>,
    /// The ACK being answered arrived while the delay timer was set.
    ack_during_delay: bool,
    /// The delay timer has expired and one segment may go, tokens or not.
    expired_credit: bool,
    /// The next timed-send tick, and whether a tick is being served.
    tick_at: Option<Time>,
    ticking: bool,
    /// The smallest RTT sample of a data segment so far, in ns.
    min_rtt: Option<Dur>,
}

impl Reserved {
    pub fn new(cfg: ReservedConfig, rng: Rng) -> Self {
        Self {
            cfg,
            rng,
            tokens: 0,
            delay_at: None,
            ack_during_delay: false,
            expired_credit: false,
            tick_at: None,
            ticking: false,
            min_rtt: None,
        }
    }

    /// A data segment's round trip took `rtt` ns (Karn's rule applies: the sender only times
    /// segments that were not retransmitted).
    pub fn on_rtt_sample(&mut self, rtt: Dur) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// The RTT the rate-adaptive window uses, given the sender's smoothed RTT `srtt` in ns;
    /// 0 before the first sample (then RWND is 0 and the classic rules apply).
    pub fn window_rtt(&self, srtt: Dur) -> Dur {
        match self.cfg.window_rtt {
            WindowRtt::Smoothed => srtt,
            WindowRtt::Min => self.min_rtt.unwrap_or(0),
        }
    }

    pub fn set_tokens(&mut self, bytes: u64) {
        self.tokens = bytes;
    }

    /// The window reservation RWND in bytes for a smoothed RTT of `srtt` ns.
    pub fn rwnd(&self, srtt: Dur) -> u64 {
        (self.cfg.rate_bps as u128 * srtt as u128 / 8 / SEC as u128) as u64
    }

    fn adapted_ssthresh(&self, cwnd_before: u64, rwnd: u64, awnd: u64, mss: u64) -> u64 {
        // Fig. 4's CWND is the usable window, min(cwnd, AWND), as in the classic halving it
        // replaces (ns-2's slowdown halves window(), 4.4BSD min(snd_wnd, snd_cwnd)): a cwnd
        // that grew past AWND while the receiver's window held the sender back would otherwise
        // leave ssthresh at AWND, so a loss would not slow the sender at all.
        let usable = cwnd_before.min(awnd);
        let half = (usable as i128 - rwnd as i128) / 2;
        let ss = (rwnd as i128 + half).max(0) as u64;
        ss.min(awnd).max(2 * mss)
    }

    /// After the recovery policy reacted to a fast retransmit: `before` is the window it found.
    pub fn after_fast_retransmit(&self, win: &mut Window, before: Window, srtt: Dur, awnd: u64, mss: u64) {
        if !self.cfg.adaptive_window {
            return;
        }
        let ss = self.adapted_ssthresh(before.cwnd, self.rwnd(self.window_rtt(srtt)), awnd, mss);
        // Keep whatever the policy added above its new ssthresh (Reno's three segments).
        let above = win.cwnd as i128 - win.ssthresh as i128;
        win.ssthresh = ss;
        win.cwnd = (ss as i128 + above).max(mss as i128) as u64;
    }

    /// After a retransmission timeout reset the window; `before` is the window before it.
    pub fn after_timeout(&self, win: &mut Window, before: Window, srtt: Dur, awnd: u64, mss: u64) {
        if !self.cfg.adaptive_window {
            return;
        }
        let rwnd = self.rwnd(self.window_rtt(srtt));
        win.ssthresh = self.adapted_ssthresh(before.cwnd, rwnd, awnd, mss);
        win.cwnd = rwnd + mss;
    }

    /// The connection is established at `now`: start the periodic timer of timed send.
    pub fn start(&mut self, now: Time) {
        if let SendRule::Timed { interval } = self.cfg.send {
            self.tick_at.get_or_insert(now + interval);
        }
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self) {
        self.ack_during_delay = self.delay_at.is_some();
        self.expired_credit = false;
        self.ticking = false;
    }

    /// A timer event at `now`.
    pub fn on_timer(&mut self, now: Time) {
        if self.delay_at.is_some_and(|t| t <= now) {
            self.delay_at = None;
            self.expired_credit = true;
            self.ack_during_delay = false;
        }
        if let (Some(t), SendRule::Timed { interval }) = (self.tick_at, self.cfg.send) {
            if t <= now {
                self.ticking = true;
                self.tick_at = Some(t + interval * ((now - t) / interval + 1));
            }
        }
    }

    pub fn next_deadline(&self) -> Option<Time> {
        match (self.delay_at, self.tick_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The window lets a segment of `size` IP bytes go at `now`: may it go now? (Delayed
    /// send's rules; always yes under the other rules.)
    pub fn window_send(&mut self, now: Time, size: u64) -> bool {
        let SendRule::Delayed { max_delay } = self.cfg.send else { return true };
        if std::mem::take(&mut self.expired_credit) || self.ack_during_delay || self.tokens >= size {
            return true;
        }
        if self.delay_at.is_none() {
            self.delay_at = Some(now + self.rng.random_range(0..=max_delay));
        }
        false
    }

    /// The delay timer expired but the window path did not run (MaxBurst): may one segment
    /// go now under the windows?
    pub fn take_expired_credit(&mut self) -> bool {
        std::mem::take(&mut self.expired_credit)
    }

    /// A timed-send tick is being served: may a new segment of `size` IP bytes go, ignoring
    /// cwnd? Ends the tick once the tokens run short.
    pub fn timed_send(&mut self, size: u64) -> bool {
        if self.ticking && self.tokens >= size {
            return true;
        }
        self.ticking = false;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::MS;

    fn policy(send: SendRule, adaptive: bool) -> Reserved {
        Reserved::new(
            ReservedConfig { rate_bps: 4_000_000, adaptive_window: adaptive, window_rtt: WindowRtt::Smoothed, send },
            stream(1, "t", 0),
        )
    }

    /// Fig. 4 in segments of 1000 bytes: RWND = 4 Mb/s x 100 ms = 50 segments.
    #[test]
    fn rate_adaptive_window_after_fast_retransmit_and_timeout() {
        let p = policy(SendRule::AckClock, true);
        let srtt = 100 * MS;
        assert_eq!(p.rwnd(srtt), 50_000);
        // Reno found cwnd = 70 segments and set ssthresh = 35, cwnd = 35 + 3.
        let before = Window { cwnd: 70_000, ssthresh: 100_000 };
        let mut w = Window { cwnd: 38_000, ssthresh: 35_000 };
        p.after_fast_retransmit(&mut w, before, srtt, 100_000, 1000);
        // ssthresh = 50 + (70 - 50)/2 = 60; cwnd = 60 + 3 (Reno's inflation kept).
        assert_eq!((w.ssthresh, w.cwnd), (60_000, 63_000));
        // AWND caps ssthresh: RWND = 4 Mb/s x 150 ms = 75 segments, above AWND = 55;
        // 75 + (min(70, 55) - 75)/2 = 65, capped at 55.
        let mut w = Window { cwnd: 38_000, ssthresh: 35_000 };
        p.after_fast_retransmit(&mut w, before, 150 * MS, 55_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (55_000, 58_000));
        // Timeout: cwnd = RWND + 1, ssthresh as above.
        let mut w = Window { cwnd: 1000, ssthresh: 35_000 };
        p.after_timeout(&mut w, before, srtt, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (60_000, 51_000));
        // A window below RWND: ssthresh = 50 + (30 - 50)/2 = 40.
        let mut w = Window { cwnd: 1000, ssthresh: 15_000 };
        p.after_timeout(&mut w, Window { cwnd: 30_000, ssthresh: 0 }, srtt, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (40_000, 51_000));
    }

    /// A window-limited sender's cwnd keeps growing past AWND (ns-2 has no cap); Fig. 4 halves
    /// the usable window's part above RWND, not cwnd's, as the classic rule halves min(cwnd, AWND).
    #[test]
    fn rate_adaptive_window_halves_the_usable_window() {
        let p = policy(SendRule::AckClock, true);
        let srtt = 100 * MS; // RWND = 50 segments
        let before = Window { cwnd: 180_000, ssthresh: 100_000 };
        let mut w = Window { cwnd: 53_000, ssthresh: 50_000 };
        p.after_fast_retransmit(&mut w, before, srtt, 100_000, 1000);
        // 50 + (min(180, 100) - 50)/2 = 75 (with cwnd itself: min(50 + 65, 100) = 100, no backoff).
        assert_eq!((w.ssthresh, w.cwnd), (75_000, 78_000));
        let mut w = Window { cwnd: 1000, ssthresh: 50_000 };
        p.after_timeout(&mut w, before, srtt, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (75_000, 51_000));
    }

    /// The minimum-RTT reading: RWND from the smallest sample whatever the smoothed RTT; no
    /// sample yet gives RWND = 0, the classic rules.
    #[test]
    fn min_rtt_window_uses_the_smallest_sample() {
        let mut p = Reserved::new(
            ReservedConfig {
                rate_bps: 4_000_000,
                adaptive_window: true,
                window_rtt: WindowRtt::Min,
                send: SendRule::AckClock,
            },
            stream(1, "t", 0),
        );
        let before = Window { cwnd: 70_000, ssthresh: 100_000 };
        let mut w = Window { cwnd: 38_000, ssthresh: 35_000 };
        p.after_fast_retransmit(&mut w, before, 300 * MS, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (35_000, 38_000), "no sample: RWND = 0, plain halving");
        for rtt in [120 * MS, 80 * MS, 300 * MS] {
            p.on_rtt_sample(rtt);
        }
        assert_eq!(p.window_rtt(300 * MS), 80 * MS);
        // RWND = 4 Mb/s x 80 ms = 40 segments: ssthresh = 40 + (70 - 40)/2 = 55 (smoothed
        // 300 ms would give RWND = 150 segments, capped at AWND = 100).
        let mut w = Window { cwnd: 38_000, ssthresh: 35_000 };
        p.after_fast_retransmit(&mut w, before, 300 * MS, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (55_000, 58_000));
        let mut w = Window { cwnd: 1000, ssthresh: 35_000 };
        p.after_timeout(&mut w, before, 300 * MS, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (55_000, 41_000));
        let smoothed = policy(SendRule::AckClock, true);
        assert_eq!(smoothed.window_rtt(300 * MS), 300 * MS, "the default is the paper's smoothed RTT");
    }

    #[test]
    fn without_the_adaptive_window_nothing_changes() {
        let p = policy(SendRule::AckClock, false);
        let mut w = Window { cwnd: 38_000, ssthresh: 35_000 };
        p.after_fast_retransmit(&mut w, Window { cwnd: 70_000, ssthresh: 0 }, 100 * MS, 100_000, 1000);
        p.after_timeout(&mut w, Window { cwnd: 70_000, ssthresh: 0 }, 100 * MS, 100_000, 1000);
        assert_eq!((w.ssthresh, w.cwnd), (35_000, 38_000));
    }

    #[test]
    fn delayed_send_holds_unmarkable_segments_and_follows_fig7() {
        let mut p = policy(SendRule::Delayed { max_delay: 50 * MS }, false);
        p.on_ack();
        p.set_tokens(1040);
        assert!(p.window_send(0, 1040), "tokens for a marked packet: send at once");
        p.set_tokens(1039);
        assert!(!p.window_send(0, 1040), "tokens short, no timer: delay");
        let t = p.next_deadline().unwrap();
        assert!(t <= 50 * MS);
        assert!(!p.window_send(0, 1040), "still asleep until an ACK or the timer");
        assert_eq!(p.next_deadline(), Some(t), "one timer per connection");
        // An ACK while the timer is set: segments go at once, marked or not.
        p.on_ack();
        assert!(p.window_send(MS.min(t), 1040));
        assert!(p.window_send(MS.min(t), 1040));
        assert_eq!(p.next_deadline(), Some(t), "the ACK does not cancel the timer");
        // The timer expires: one segment goes regardless of tokens, then the rules resume.
        p.on_timer(t);
        assert_eq!(p.next_deadline(), None);
        assert!(p.window_send(t, 1040));
        assert!(!p.window_send(t, 1040), "only one segment per expiry");
        assert!(p.next_deadline().is_some(), "and the next short segment sets the timer again");
        // An ACK after the timer was set again but before it expired: released.
        p.on_ack();
        assert!(p.window_send(t, 1040));
    }

    #[test]
    fn delays_are_uniform_up_to_the_maximum() {
        let mut p = policy(SendRule::Delayed { max_delay: 50 * MS }, false);
        let mut sum = 0u64;
        for i in 0..2000u64 {
            let now = i * SEC;
            p.on_timer(now); // clears any pending timer
            p.expired_credit = false;
            p.on_ack();
            assert!(!p.window_send(now, 1040));
            let d = p.next_deadline().unwrap() - now;
            assert!(d <= 50 * MS);
            sum += d;
            p.on_timer(now + 50 * MS);
        }
        let mean = sum as f64 / 2000.0 / MS as f64;
        assert!((mean - 25.0).abs() < 1.5, "mean delay {mean} ms");
    }

    #[test]
    fn timed_send_ticks_periodically_and_drains_tokens() {
        let mut p = policy(SendRule::Timed { interval: 20 * MS }, false);
        p.start(0);
        assert_eq!(p.next_deadline(), Some(20 * MS));
        p.set_tokens(5000);
        assert!(!p.timed_send(1040), "no tick yet");
        p.on_timer(20 * MS);
        assert_eq!(p.next_deadline(), Some(40 * MS));
        assert!(p.timed_send(1040));
        p.set_tokens(1039);
        assert!(!p.timed_send(1040), "tokens ran short: the tick ends");
        p.set_tokens(5000);
        assert!(!p.timed_send(1040), "and stays over until the next tick");
        // A late timer event skips missed ticks and keeps the phase.
        p.on_timer(95 * MS);
        assert_eq!(p.next_deadline(), Some(100 * MS));
    }

    #[test]
    fn zero_token_loss_interval() {
        // 4 Mb/s, 50 ms depth (25,000 bytes), 1040-byte packets: (25000 - 1039) * 8 / 4e6.
        let i = ReservedConfig::zero_loss_interval(4_000_000, 25_000, 1040);
        assert_eq!(i, 47_922_000);
    }
}

#[cfg(test)]
#[path = "reserved_sender_tests.rs"]
mod sender_tests;
