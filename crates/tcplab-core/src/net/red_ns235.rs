//! What ns-2.35's RED adds to ns-2.1b's rule (`queue/red.cc` 1.90, 2011/10/02, the release's;
//! defaults from `tcl/lib/ns-default.tcl` 1.388; docs/scenario.md has each revision):
//!
//! - **Automatic parameters** (REDQueue::initialize_params, from 2001/12/30: `thresh_ 0`,
//!   `maxthresh_ 0`, `q_weight_ -1`): with ptc = the link's rate / (8 `mean_pktsize_`) packets
//!   per second, min_th = max(5, `targetdelay_` ptc / 2) packets, max_th = 3 min_th, and w_q =
//!   1 - exp(-1 / (10 rtt ptc)) with rtt = max(0.1 s, 3 (link delay + 1 / ptc)).
//! - **gentle_** (on from 1.236, 2001/04/24): p_b rises from max_p at max_th to 1 at 2 max_th
//!   (calculate_p_new: `v_c avg + v_d`, v_c = (1 - max_p) / max_th, v_d = 2 max_p - 1).
//! - **use_mark_p_** (on from 1.356, 2005/12/27): the average never forces a drop; at max_th
//!   and above the arrival still goes through drop_early, with p_b up to 1.
//! - **ns1_compat_ false** (red.cc 1.35, 1999/05/13): any forced drop (a full buffer) resets
//!   `count` and `count_bytes`.
//! - **Bytes** (`bytes_ true`, `queue_in_bytes_ true`, 1.335, 2004/10/13): the average and the
//!   thresholds in bytes (thresholds in packets of `mean_pktsize_`), and the buffer holds
//!   `limit_` x `mean_pktsize_` bytes: an arrival is refused when that many already wait.
//! - The average's EWMA in `double` (red.cc 1.53, 2000/10/05), m idle decays one by one.

use super::red::RedConfig;

/// `mark_p_` (ns-default.tcl 1.287, 2002/04/30; read with `use_mark_p_ true`, 1.356,
/// 2005/12/27): with `setbit_`, an early verdict marks only while p_b is below it.
pub const MARK_P: f64 = 0.1;

/// `targetdelay_` (ns-default.tcl 1.388): the queueing delay the automatic min_th aims at.
pub const TARGET_DELAY_S: f64 = 0.005;

/// Which parameters a RED queue under rule `ns235` works out from its link (those the scenario
/// left unset).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsAuto {
    /// `thresh_ 0`: min_th from the link.
    pub min_th: bool,
    /// `maxthresh_ 0`: max_th = 3 min_th.
    pub max_th: bool,
    /// `q_weight_ -1`: w_q from the link's rate and delay.
    pub w_q: bool,
}

/// The link's packet time constant: `mean_pkt`-byte packets per second (REDQueue::reset).
pub fn ptc(rate_bps: u64, mean_pkt: u32) -> f64 {
    rate_bps as f64 / (8.0 * mean_pkt as f64)
}

/// initialize_params's min_th, packets: 5, or half the queue `targetdelay_` takes to drain.
pub fn auto_min_th_packets(ptc: f64) -> f64 {
    let half_target = TARGET_DELAY_S * ptc / 2.0;
    if 5.0 < half_target {
        half_target
    } else {
        5.0
    }
}

/// initialize_params's w_q for `q_weight_ -1`.
pub fn auto_w_q(ptc: f64, delay_s: f64) -> f64 {
    let rtt = (3.0 * (delay_s + 1.0 / ptc)).max(0.1);
    1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
}

/// `cfg` with the automatic parameters of `auto` worked out for a link of `rate_bps` and
/// `delay_s` (thresholds in bytes under byte mode: packets x `mean_pkt`, REDQueue::reset).
pub fn resolve(mut cfg: RedConfig, auto: NsAuto, rate_bps: u64, delay_s: f64) -> RedConfig {
    let ptc = ptc(rate_bps, cfg.mean_pkt_bytes);
    let unit = match cfg.mode {
        super::red::RedMode::Bytes => cfg.mean_pkt_bytes as f64,
        super::red::RedMode::Packets => 1.0,
    };
    if auto.min_th {
        cfg.curve.min_th = auto_min_th_packets(ptc) * unit;
    }
    if auto.max_th {
        cfg.curve.max_th = 3.0 * cfg.curve.min_th;
    }
    if auto.w_q {
        cfg.w_q = auto_w_q(ptc, delay_s);
    }
    cfg
}

/// calculate_p_new: p_b at average `avg`, capped at 1.
pub fn base_probability(min_th: f64, max_th: f64, max_p: f64, gentle: bool, avg: f64) -> f64 {
    let p = if gentle && avg >= max_th {
        (1.0 - max_p) / max_th * avg + (2.0 * max_p - 1.0)
    } else if avg >= max_th {
        1.0
    } else {
        let span = max_th - min_th;
        ((1.0 / span) * avg + -min_th / span) * max_p
    };
    p.min(1.0)
}

/// REDQueue::estimator in `double`: `m` idle decays, then one step with the sample `q`.
pub fn average(avg: f64, w_q: f64, idle_steps: u64, q: f64) -> f64 {
    let keep = 1.0 - w_q;
    let mut a = avg;
    for _ in 0..idle_steps {
        a *= keep;
        if a == 0.0 {
            break;
        }
    }
    a * keep + w_q * q
}

/// ns-2.35's buffer in byte mode: `limit_` packets of `mean_pkt` bytes; an arrival is refused
/// once that many bytes wait (enque: `qlen >= qlim`).
pub fn byte_limit(limit: super::queue::QueueLimit, mean_pkt: u32) -> u64 {
    match limit {
        super::queue::QueueLimit::Packets(n) => n as u64 * mean_pkt as u64,
        super::queue::QueueLimit::Bytes(b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_10_mbps_link_gets_6_25_and_18_75_packets_and_a_weight_from_its_delay() {
        // ptc = 10e6 / (8 x 500) = 2500 packets/s; targetdelay_ 0.005 s x 2500 / 2 = 6.25 > 5.
        let p = ptc(10_000_000, 500);
        assert_eq!(p, 2500.0);
        assert_eq!(auto_min_th_packets(p), 6.25);
        // rtt = 3 (0.01 + 1/2500) = 0.0312 s, raised to 0.1: w_q = 1 - exp(-1/2500).
        assert!((auto_w_q(p, 0.01) - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
        assert!((auto_w_q(p, 0.01) - 3.9992e-4).abs() < 1e-7);
        // A 50 ms link: rtt = 3 (0.05 + 0.0004) = 0.1512 s, w_q = 1 - exp(-1/3780).
        assert!((auto_w_q(p, 0.05) - (1.0 - (-1.0f64 / 3780.0).exp())).abs() < 1e-15);
        // 1.5 Mb/s: ptc 375, 375 x 0.005 / 2 = 0.94 < 5.
        assert_eq!(auto_min_th_packets(ptc(1_500_000, 500)), 5.0);
    }

    #[test]
    fn gentle_rises_from_max_p_at_max_th_to_one_at_twice_max_th() {
        let pb = |avg: f64| base_probability(3125.0, 9375.0, 0.1, true, avg);
        assert!((pb(6250.0) - 0.05).abs() < 1e-12, "half way between the thresholds");
        assert!((pb(9375.0) - 0.1).abs() < 1e-12);
        // (1 - 0.1) / 9375 x 14062.5 + (0.2 - 1) = 1.35 - 0.8 = 0.55.
        assert!((pb(14_062.5) - 0.55).abs() < 1e-12);
        assert_eq!(pb(18_750.0), 1.0);
        assert_eq!(pb(30_000.0), 1.0, "capped");
        assert_eq!(base_probability(3125.0, 9375.0, 0.1, false, 9375.0), 1.0, "not gentle: 1 at max_th");
    }

    #[test]
    fn the_average_decays_once_per_idle_packet_time_then_takes_the_sample() {
        let w = 0.01;
        assert!((average(100.0, w, 2, 50.0) - (100.0 * 0.99 * 0.99 * 0.99 + 0.5)).abs() < 1e-12);
        assert_eq!(average(0.0, w, 1_000_000, 0.0), 0.0);
    }
}
