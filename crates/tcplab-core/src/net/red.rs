//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", 1993) and the enhanced RED (ERED) of Feng, Kandlur, Saha and Shin, "TCP
//! Enhancements for an Integrated Services Internet" (1997), which gives packets marked by a
//! source's token bucket their own, much lower drop probability in the same FIFO.
//!
//! The average is an EWMA with weight `w_q` updated at every arrival. While the link is idle
//! the average decays as if `m` small packets had been served (m = idle time / the time to send
//! a `mean_pkt_bytes` packet), then takes the arrival's sample, as ns-2's red.cc does. Drops in
//! [min_th, max_th) are spaced by the count since the last drop: p_b = max_p (avg - min_th) /
//! (max_th - min_th), p_a = p_b / (1 - count p_b), count starting at -1 below min_th (the
//! 1993 paper's Fig. 2). At max_th or above every arrival is dropped ("forced"); with `gentle`
//! p_b instead rises from max_p to 1 between max_th and 2 max_th.
//!
//! That is `RedRule::Paper1993`. `RedRule::Ns1` and `RedRule::Ns2` decide as ns's red.cc did
//! in its ns-1 and ns-2.1b eras (`red_ns.rs`: every arrival counted, no early drop unless more
//! than one packet waits, the first arrival of a period spared, `wait_` spacing, ns's byte
//! mode, a float average). ERED's rules for marked packets sit on top of either: a marked
//! packet never touches the unmarked packets' count or period.
//!
//! The decision for an arrival is a verdict (`None`: it may stay; `Some(Early)`,
//! `Some(Forced)`), so a caller can act on it as it chooses (drop, or mark instead).

use rand::Rng as _;

use crate::rng::Rng;
use crate::time::{Time, SEC};

use super::queue::QueueLimit;
use super::red_ns::{self, NsEra, NsRed, Period};
use super::red_ns235::{self, NsAuto};

/// Which RED algorithm decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedRule {
    /// Floyd and Jacobson (1993), Fig. 2.
    Paper1993,
    /// ns-1's red.cc (as ns-2 took it over, revs 1.7/1.8, 1997-03-28).
    Ns1,
    /// ns-2.1b's red.cc (revs 1.30-1.34, 1997-11 to 1999-05).
    Ns2,
    /// ns-2.35's red.cc (rev. 1.90, 2011-10-02) with its defaults (`red_ns235.rs`).
    Ns235,
}

impl RedRule {
    pub const NAMES: &'static [&'static str] = &["1993", "ns1", "ns2", "ns235"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "1993" => Self::Paper1993,
            "ns1" => Self::Ns1,
            "ns2" => Self::Ns2,
            "ns235" => Self::Ns235,
            _ => return None,
        })
    }

    fn era(self) -> Option<NsEra> {
        match self {
            Self::Paper1993 => None,
            Self::Ns1 => Some(NsEra::Ns1),
            Self::Ns2 => Some(NsEra::Ns2),
            Self::Ns235 => Some(NsEra::Ns235),
        }
    }
}

/// What the queue length and the thresholds count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedMode {
    Packets,
    /// Bytes waiting, and p_b scaled by size / `max_pkt_bytes` (the 1993 paper's byte mode).
    Bytes,
}

/// A drop-probability curve over the average queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedCurve {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
}

/// How ERED treats marked packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarkedRule {
    /// Never dropped early: only when the buffer is physically full (the default).
    Overflow,
    /// Spared the early region, dropped like any packet once the average reaches the forced
    /// region (max_th, or 2 max_th with `gentle`).
    Forced,
    /// A RED curve of their own over the same average, with its own count.
    Curve(RedCurve),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RedConfig {
    pub curve: RedCurve,
    pub w_q: f64,
    pub mode: RedMode,
    pub gentle: bool,
    /// Size of a "small packet" for the idle correction.
    pub mean_pkt_bytes: u32,
    /// Largest packet, for byte mode's scaling of p_b.
    pub max_pkt_bytes: u32,
    /// Some: ERED, with this rule for marked packets.
    pub ered: Option<MarkedRule>,
    pub rule: RedRule,
    /// ns's `wait_` (the ns rules only).
    pub wait: bool,
    /// An early verdict on an ECN-capable packet marks it CE instead of dropping it (RFC 3168
    /// sec. 7; ns's `setbit_`); forced verdicts and overflow still drop.
    pub ecn: bool,
    /// Rule `ns235`: the parameters worked out from the link when the queue is built
    /// (`red_ns235::resolve`); None: as given.
    pub auto: Option<NsAuto>,
}

/// Why RED refused a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedDrop {
    /// A random drop in the early region.
    Early,
    /// The average is in the forced region.
    Forced,
}

#[derive(Debug, Clone)]
pub struct Red {
    cfg: RedConfig,
    /// Nanoseconds to send one `mean_pkt_bytes` packet on this link.
    small_pkt_ns: f64,
    pub avg: f64,
    /// Packets since the last drop of unmarked (or all, for plain RED) packets; -1 below min_th.
    count: i64,
    /// The same for marked packets under `MarkedRule::Curve`.
    count_marked: i64,
    /// The ns rules' periods (count, count_bytes, old) of unmarked and of marked packets.
    period: Period,
    period_marked: Period,
    /// Packets and bytes waiting when the last arrival came (the ns rules' guard).
    waiting: (usize, u64),
    /// When the link went idle, until the next arrival.
    idle_since: Option<Time>,
    /// The last early verdict may mark instead of drop (ns-2.35's `mark_p_`: only while p_b
    /// is below it; every other rule always).
    markable: bool,
    rng: Rng,
}

impl Red {
    pub fn new(cfg: RedConfig, rate_bps: u64, rng: Rng) -> Self {
        let small_pkt_ns = cfg.mean_pkt_bytes as f64 * 8.0 * SEC as f64 / rate_bps.max(1) as f64;
        // The link starts idle at time 0, so the first arrival sees the idle correction.
        Self {
            cfg,
            small_pkt_ns,
            avg: 0.0,
            count: -1,
            count_marked: -1,
            period: Period::default(),
            period_marked: Period::default(),
            waiting: (0, 0),
            idle_since: Some(0),
            markable: true,
            rng,
        }
    }

    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// The link has nothing left to send at `now`.
    pub fn went_idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// Update the average for an arrival at `now` that finds `packets` / `bytes` waiting.
    pub fn update_average(&mut self, now: Time, packets: usize, bytes: u64) {
        let q = match self.cfg.mode {
            RedMode::Packets => packets as f64,
            RedMode::Bytes => bytes as f64,
        };
        self.waiting = (packets, bytes);
        let idle = self.idle_since.take().map(|since| ((now.saturating_sub(since)) as f64 / self.small_pkt_ns).floor());
        let steps = idle.unwrap_or(0.0) as u64;
        match self.cfg.rule {
            RedRule::Ns235 => return self.avg = red_ns235::average(self.avg, self.cfg.w_q, steps, q),
            RedRule::Ns1 | RedRule::Ns2 => return self.avg = red_ns::float_average(self.avg, self.cfg.w_q, steps, q),
            RedRule::Paper1993 => {}
        }
        if let Some(m) = idle {
            self.avg *= (1.0 - self.cfg.w_q).powf(m);
        }
        self.avg = (1.0 - self.cfg.w_q) * self.avg + self.cfg.w_q * q;
    }

    /// Decide on an arrival of `size` bytes after `update_average`: None lets it stay (if the
    /// buffer has room), else why RED refuses it.
    pub fn verdict(&mut self, size: u32, marked: bool) -> Option<RedDrop> {
        match self.cfg.rule.era() {
            None => self.verdict_1993(size, marked),
            Some(era) => self.verdict_ns(era, size, marked),
        }
    }

    fn verdict_ns(&mut self, era: NsEra, size: u32, marked: bool) -> Option<RedDrop> {
        let c = &self.cfg;
        let mut ns = NsRed {
            era,
            curve: c.curve,
            wait: c.wait,
            mode: c.mode,
            mean_pkt_bytes: c.mean_pkt_bytes,
            gentle: c.gentle,
        };
        let arrival = red_ns::Arrival { avg: self.avg, packets: self.waiting.0, bytes: self.waiting.1, size };
        let period = match (marked, c.ered) {
            (false, _) | (true, None) => &mut self.period,
            (true, Some(MarkedRule::Overflow)) => return None,
            (true, Some(MarkedRule::Forced)) => {
                let guard = self.waiting.0 > 1 && self.avg >= c.curve.min_th;
                return (guard && self.avg >= c.curve.max_th).then_some(RedDrop::Forced);
            }
            (true, Some(MarkedRule::Curve(own))) => {
                ns.curve = own;
                &mut self.period_marked
            }
        };
        let verdict = red_ns::decide(&ns, arrival, period, &mut self.rng);
        if era == NsEra::Ns235 && verdict == Some(RedDrop::Early) {
            // drop_early (red.cc 1.90) with `use_mark_p_ true`: CE only while v_prob1, the
            // curve's p_b before the spacing, is below `mark_p_` 0.1 (ns-default.tcl 1.287).
            let c = ns.curve;
            self.markable =
                red_ns235::base_probability(c.min_th, c.max_th, c.max_p, ns.gentle, self.avg) < red_ns235::MARK_P;
        }
        verdict
    }

    /// Whether an arrival the rule let in fits the buffer, with `len` packets of `bytes`
    /// waiting: None, the queue's own test; rule `ns235` in byte mode refuses it once `limit_`
    /// x `mean_pktsize_` bytes wait (REDQueue::enque's `qlen >= qlim`).
    pub fn fits(&self, limit: QueueLimit, bytes: u64) -> Option<bool> {
        (self.cfg.rule == RedRule::Ns235 && self.cfg.mode == RedMode::Bytes)
            .then(|| bytes < red_ns235::byte_limit(limit, self.cfg.mean_pkt_bytes))
    }

    /// Whether the last early verdict may be a CE mark rather than a drop (with `ecn`).
    #[inline]
    pub fn may_mark(&self) -> bool {
        self.markable
    }

    /// The buffer refused an arrival RED let in: ns-2.35's forced drop resets the count
    /// (red.cc 1.35, 1999/05/13, `ns1_compat_ false`); the older rules leave it.
    pub fn overflowed(&mut self) {
        if self.cfg.rule == RedRule::Ns235 {
            self.period.count = 0;
            self.period.count_bytes = 0;
        }
    }

    fn verdict_1993(&mut self, size: u32, marked: bool) -> Option<RedDrop> {
        let (curve, gentle, max_pkt, avg) = (self.cfg.curve, self.cfg.gentle, self.cfg.max_pkt_bytes, self.avg);
        if marked {
            match self.cfg.ered {
                None => {}
                Some(MarkedRule::Overflow) => return None,
                Some(MarkedRule::Forced) => {
                    return (avg >= forced_from(&curve, gentle)).then_some(RedDrop::Forced);
                }
                Some(MarkedRule::Curve(c)) => {
                    let mode = self.cfg.mode;
                    let u = &mut self.rng;
                    return decide(&c, gentle, mode, max_pkt, avg, size, &mut self.count_marked, u);
                }
            }
        }
        decide(&curve, gentle, self.cfg.mode, max_pkt, avg, size, &mut self.count, &mut self.rng)
    }
}

fn forced_from(c: &RedCurve, gentle: bool) -> f64 {
    if gentle {
        2.0 * c.max_th
    } else {
        c.max_th
    }
}

/// The initial drop probability p_b at average `avg` (before byte scaling and count spacing).
pub fn base_probability(c: &RedCurve, gentle: bool, avg: f64) -> f64 {
    if avg < c.min_th {
        0.0
    } else if avg < c.max_th {
        c.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
    } else if gentle && avg < 2.0 * c.max_th {
        c.max_p + (1.0 - c.max_p) * (avg - c.max_th) / c.max_th
    } else {
        1.0
    }
}

/// p_a = p_b / (1 - count p_b), 1 once count p_b reaches 1.
pub fn spaced_probability(pb: f64, count: i64) -> f64 {
    let d = 1.0 - count as f64 * pb;
    if d <= pb {
        1.0
    } else {
        pb / d
    }
}

#[allow(clippy::too_many_arguments)]
fn decide(
    c: &RedCurve,
    gentle: bool,
    mode: RedMode,
    max_pkt: u32,
    avg: f64,
    size: u32,
    count: &mut i64,
    rng: &mut Rng,
) -> Option<RedDrop> {
    if avg < c.min_th {
        *count = -1;
        return None;
    }
    if avg >= forced_from(c, gentle) {
        *count = 0;
        return Some(RedDrop::Forced);
    }
    *count += 1;
    let mut pb = base_probability(c, gentle, avg);
    if mode == RedMode::Bytes {
        pb = (pb * size as f64 / max_pkt.max(1) as f64).min(1.0);
    }
    let pa = spaced_probability(pb, *count);
    if rng.random::<f64>() < pa {
        *count = 0;
        return Some(RedDrop::Early);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::MS;

    fn cfg(ered: Option<MarkedRule>) -> RedConfig {
        RedConfig {
            curve: RedCurve { min_th: 5.0, max_th: 15.0, max_p: 0.1 },
            w_q: 0.002,
            mode: RedMode::Packets,
            gentle: false,
            mean_pkt_bytes: 500,
            max_pkt_bytes: 1000,
            ered,
            rule: RedRule::Paper1993,
            wait: false,
            ecn: false,
            auto: None,
        }
    }

    #[test]
    fn drop_probability_follows_the_1993_curve() {
        let c = RedCurve { min_th: 5.0, max_th: 15.0, max_p: 0.1 };
        assert_eq!(base_probability(&c, false, 4.9), 0.0);
        assert!((base_probability(&c, false, 10.0) - 0.05).abs() < 1e-12);
        assert!((base_probability(&c, false, 12.5) - 0.075).abs() < 1e-12);
        assert_eq!(base_probability(&c, false, 15.0), 1.0);
        // Gentle: from max_p at max_th to 1 at 2 max_th.
        assert!((base_probability(&c, true, 15.0) - 0.1).abs() < 1e-12);
        assert!((base_probability(&c, true, 22.5) - 0.55).abs() < 1e-12);
        assert_eq!(base_probability(&c, true, 30.0), 1.0);
    }

    #[test]
    fn count_spacing_raises_the_probability_until_a_drop_is_certain() {
        let pb = 0.05;
        assert_eq!(spaced_probability(pb, 0), 0.05);
        assert!((spaced_probability(pb, 10) - 0.05 / 0.5).abs() < 1e-12);
        // count p_b reaches 1 - p_b at count 19: the 20th packet after a drop is dropped surely.
        assert_eq!(spaced_probability(pb, 19), 1.0);
        assert_eq!(spaced_probability(pb, 25), 1.0);
    }

    /// With the average held fixed, the gaps between early drops are uniform. The 1993 paper's
    /// Fig. 2 counts the first packet after a drop as count = 1, so with 1/p_b = 20 the gap is
    /// uniform on 1..=19 (each 1/19, mean 10), never 20 or more.
    #[test]
    fn early_drops_are_spaced_uniformly_at_a_fixed_seed() {
        let mut red = Red::new(cfg(None), 10_000_000, stream(7, "red", 0));
        red.avg = 10.0; // p_b = 0.05
        red.idle_since = None;
        let mut gaps = Vec::new();
        let mut since = 0u32;
        for _ in 0..200_000 {
            since += 1;
            if red.verdict(1000, false) == Some(RedDrop::Early) {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "a gap reached 1/p_b");
        let mean = gaps.iter().map(|&g| g as f64).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.1, "mean gap {mean}");
        for g in 1..=19 {
            let share = gaps.iter().filter(|&&x| x == g).count() as f64 / gaps.len() as f64;
            assert!((share - 1.0 / 19.0).abs() < 0.006, "gap {g}: share {share}");
        }
    }

    #[test]
    fn forced_region_drops_everything_and_below_min_th_nothing() {
        let mut red = Red::new(cfg(None), 10_000_000, stream(1, "red", 0));
        red.avg = 15.0;
        assert!((0..100).all(|_| red.verdict(1000, false) == Some(RedDrop::Forced)));
        red.avg = 4.99;
        assert!((0..100).all(|_| red.verdict(1000, false).is_none()));
    }

    #[test]
    fn the_average_decays_over_idle_time_as_if_small_packets_were_served() {
        // 500-byte packets at 10 Mb/s take 400 us: 10 ms idle is m = 25 packet times.
        let mut red = Red::new(cfg(None), 10_000_000, stream(1, "red", 0));
        red.avg = 8.0;
        red.idle_since = None;
        red.went_idle(100 * MS);
        red.update_average(110 * MS, 0, 0);
        let expected = 8.0 * 0.998f64.powi(25) * 0.998;
        assert!((red.avg - expected).abs() < 1e-12, "{} vs {expected}", red.avg);
        // Busy: one ordinary EWMA step, no decay.
        red.update_average(111 * MS, 3, 3000);
        assert!((red.avg - (0.998 * expected + 0.002 * 3.0)).abs() < 1e-12);
    }

    #[test]
    fn byte_mode_scales_the_probability_by_packet_size() {
        let mut c = cfg(None);
        c.mode = RedMode::Bytes;
        c.curve = RedCurve { min_th: 5000.0, max_th: 15000.0, max_p: 0.1 };
        let mut red = Red::new(c, 10_000_000, stream(3, "red", 0));
        red.idle_since = None;
        red.update_average(0, 0, 1_000_000); // the sample is in bytes
        assert!((red.avg - 2000.0).abs() < 1e-9);
        red.avg = 10_000.0; // p_b = 0.05 for a 1000-byte packet, 0.002 for a 40-byte one
        let drops = |red: &mut Red, size| {
            (0..100_000).filter(|_| red.verdict(size, false).is_some()).count() as f64 / 100_000.0
        };
        let big = drops(&mut red, 1000);
        let small = drops(&mut red, 40);
        // Spaced drops of p_b come every 1/(2 p_b) packets on average (uniform gaps).
        assert!((big - 0.1).abs() < 0.003, "{big}");
        assert!((small - 0.004).abs() < 0.0005, "{small}");
    }

    #[test]
    fn ered_spares_marked_packets_where_its_rule_says() {
        let mut red = Red::new(cfg(Some(MarkedRule::Overflow)), 10_000_000, stream(1, "red", 0));
        for avg in [6.0, 10.0, 14.9, 15.0, 100.0] {
            red.avg = avg;
            assert!((0..1000).all(|_| red.verdict(1000, true).is_none()), "marked dropped at {avg}");
        }
        red.avg = 15.0;
        assert_eq!(red.verdict(1000, false), Some(RedDrop::Forced), "unmarked still dropped");

        let mut red = Red::new(cfg(Some(MarkedRule::Forced)), 10_000_000, stream(1, "red", 0));
        red.avg = 14.9;
        assert!((0..1000).all(|_| red.verdict(1000, true).is_none()));
        assert!((0..1000).any(|_| red.verdict(1000, false).is_some()));
        red.avg = 15.0;
        assert_eq!(red.verdict(1000, true), Some(RedDrop::Forced));

        let own = RedCurve { min_th: 12.0, max_th: 40.0, max_p: 0.01 };
        let mut red = Red::new(cfg(Some(MarkedRule::Curve(own))), 10_000_000, stream(1, "red", 0));
        red.avg = 11.9;
        assert!((0..1000).all(|_| red.verdict(1000, true).is_none()), "below the marked min_th");
        red.avg = 20.0; // unmarked: forced; marked: p_b = 0.01 * 8/28
        assert_eq!(red.verdict(1000, false), Some(RedDrop::Forced));
        let n = (0..100_000).filter(|_| red.verdict(1000, true).is_some()).count() as f64;
        let pb: f64 = 0.01 * 8.0 / 28.0;
        assert!((n / 100_000.0 - 2.0 * pb).abs() < 0.0006, "{n}");
    }
}
