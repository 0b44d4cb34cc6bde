//! RED as ns decided it (`red.cc`, REDQueue::enque and drop_early), beside the 1993 paper's
//! rule in `red.rs`. Read in ns-2's CVS history (the public `Raj64742/ns2` conversion; files
//! named by their RCS revision): the ns-1 code as ns-2 took it over with "bug fixes and updates
//! from ns-1" (red.cc 1.7 and 1.8, 1997-03-28) and ns-2.1b's (red.cc 1.30-1.34, 1997-11-27 to
//! 1999-05-13). Both differ from the 1993 paper in the same ways:
//!
//! - **Every arrival counts.** `count` (and `count_bytes`) grow on every arrival before any test.
//! - **The guard.** The early-drop logic runs only while the average is at least min_th *and*
//!   more than one packet is waiting (the FIFO before this arrival, not counting the packet on
//!   the wire); otherwise the period ends (`old = 0`). So a packet arriving at an idle or
//!   nearly idle queue is never dropped early.
//! - **The count restart.** The first arrival of a period (`old == 0`) is never dropped: it
//!   sets count = 1 and opens the period.
//! - **`wait_`** (ns's default in every era): p = 0 while count x p_b < 1, p_b / (2 - count x
//!   p_b) below 2, then 1, so drops come between 1/p_b and 2/p_b arrivals apart (the 1993
//!   rule: between 1 and 1/p_b). Without `wait_`, p_b / (1 - count x p_b).
//! - **Byte mode** (`bytes_`): the count is `int(count_bytes / mean_pktsize)`, and after the
//!   spacing a p below 1 is scaled by size / mean_pktsize.
//!
//! The eras differ at the forced region (average at max_th or above): ns-1 sends it through
//! drop_early with p = 1, so the arrival is dropped and the count reset, except the first
//! arrival of a period; ns-2.1b drops every arrival there ("FORCED", red.cc 1.17, 1997-07-18)
//! without resetting the count. ns-1 keeps p_b and p in `float` (edv's v_a, v_b, v_prob),
//! ns-2.1b in `double`; both run the average's EWMA in `float` (run_estimator).

use rand::Rng as _;

use crate::rng::Rng;

use super::red::{RedCurve, RedDrop, RedMode};

/// Which era of red.cc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NsEra {
    /// ns-1's code as of red.cc 1.7/1.8 (1997-03-28).
    Ns1,
    /// ns-2.1b (red.cc 1.30-1.34).
    Ns2,
    /// ns-2.35 (red.cc 1.90): ns-2.1b's skeleton with `gentle_`, no forced drop from the
    /// average (`use_mark_p_`), calculate_p_new's p_b (`red_ns235.rs`).
    Ns235,
}

/// One class's early-drop period: red.cc's `count`, `count_bytes` and `old`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Period {
    pub count: u64,
    pub count_bytes: u64,
    /// A period is open (red.cc's `old == 1`).
    pub open: bool,
}

impl Period {
    fn reset(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }
}

/// What red.cc's decision reads besides its state.
#[derive(Debug, Clone, Copy)]
pub struct NsRed {
    pub era: NsEra,
    pub curve: RedCurve,
    pub wait: bool,
    pub mode: RedMode,
    pub mean_pkt_bytes: u32,
    /// `gentle_` (ns-2.35 only).
    pub gentle: bool,
}

/// An arrival: the average after its update, what was waiting before it, and its size.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    pub avg: f64,
    pub packets: usize,
    pub bytes: u64,
    pub size: u32,
}

/// REDQueue::enque's drop logic for one arrival (the buffer's own limit is the queue's).
pub fn decide(r: &NsRed, a: Arrival, period: &mut Period, rng: &mut Rng) -> Option<RedDrop> {
    period.count += 1;
    period.count_bytes += a.size as u64;
    // ns-2.1b's queue-in-bytes mode compares bytes with 1 ("more than one byte"); ns-1's
    // guard is in packets in either mode (`q_.length() > 1`).
    let waiting = match (r.era, r.mode) {
        (NsEra::Ns2 | NsEra::Ns235, RedMode::Bytes) => a.bytes,
        _ => a.packets as u64,
    };
    if !(a.avg >= r.curve.min_th && waiting > 1) {
        period.open = false;
        return None;
    }
    let forced = a.avg >= r.curve.max_th;
    if r.era == NsEra::Ns2 && forced {
        return Some(RedDrop::Forced);
    }
    if !period.open {
        period.open = true;
        period.count = 1;
        period.count_bytes = a.size as u64;
        return None;
    }
    if forced && r.era == NsEra::Ns1 {
        // ns-1: drop_early's v_prob = 1 drops it and resets the count.
        period.reset();
        return Some(RedDrop::Forced);
    }
    let p = early_probability(r, a.avg, period, a.size);
    // red.cc: `if (u <= v_prob)`.
    if rng.random::<f64>() <= p {
        period.reset();
        return Some(RedDrop::Early);
    }
    None
}

/// drop_early's probability for an arrival of `size` bytes with the average at `avg`
/// (min_th <= avg < max_th) and the period's counts as they stand (this arrival counted).
pub fn early_probability(r: &NsRed, avg: f64, period: &Period, size: u32) -> f64 {
    let c = &r.curve;
    let span = c.max_th - c.min_th;
    // p_b = (v_a avg + v_b) / linterm_, with linterm_ = 1 / max_p.
    let linterm = 1.0 / c.max_p;
    let mut p = match r.era {
        NsEra::Ns1 => {
            let (v_a, v_b) = ((1.0 / span) as f32, (-c.min_th / span) as f32);
            (v_a as f64 * avg + v_b as f64) / linterm
        }
        NsEra::Ns2 => ((1.0 / span) * avg + -c.min_th / span) / linterm,
        NsEra::Ns235 => super::red_ns235::base_probability(c.min_th, c.max_th, c.max_p, r.gentle, avg),
    };
    let bytes = r.mode == RedMode::Bytes;
    let mean = r.mean_pkt_bytes.max(1) as u64;
    let count = if bytes { (period.count_bytes / mean) as f64 } else { period.count as f64 };
    p = spaced(p, count, r.wait);
    if bytes && p < 1.0 {
        p = p * size as f64 / mean as f64;
    }
    let p = p.min(1.0);
    match r.era {
        NsEra::Ns1 => p as f32 as f64, // edv_.v_prob is a float
        NsEra::Ns2 | NsEra::Ns235 => p,
    }
}

/// The count spacing of drop_early: with `wait`, 0 while c p_b < 1, p_b / (2 - c p_b) below
/// 2, then 1; without, p_b / (1 - c p_b) below 1, then 1.
pub fn spaced(pb: f64, count: f64, wait: bool) -> f64 {
    let cp = count * pb;
    if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            pb / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        pb / (1.0 - cp)
    } else {
        1.0
    }
}

/// run_estimator's EWMA in `float`: `m` idle decays (stopping early once the float no longer
/// changes), then one step with the sample `q`.
pub fn float_average(avg: f64, w_q: f64, idle_steps: u64, q: f64) -> f64 {
    let keep = 1.0 - w_q;
    let mut f = avg as f32;
    for _ in 0..idle_steps {
        let next = (f as f64 * keep) as f32;
        if next == f {
            break;
        }
        f = next;
    }
    f = (f as f64 * keep) as f32;
    f = (f as f64 + w_q * q) as f32;
    f as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn ns(era: NsEra) -> NsRed {
        NsRed {
            era,
            curve: RedCurve { min_th: 5.0, max_th: 15.0, max_p: 0.1 },
            wait: true,
            mode: RedMode::Packets,
            mean_pkt_bytes: 500,
            gentle: false,
        }
    }

    fn at(avg: f64, packets: usize) -> Arrival {
        Arrival { avg, packets, bytes: packets as u64 * 1000, size: 1000 }
    }

    #[test]
    fn wait_spacing_is_zero_then_rises_to_one_between_one_and_two_over_p_b() {
        assert_eq!(spaced(0.05, 19.0, true), 0.0);
        assert!((spaced(0.05, 20.0, true) - 0.05).abs() < 1e-12);
        assert!((spaced(0.05, 30.0, true) - 0.1).abs() < 1e-12);
        assert_eq!(spaced(0.05, 40.0, true), 1.0);
        assert!((spaced(0.05, 10.0, false) - 0.1).abs() < 1e-12);
        assert_eq!(spaced(0.05, 20.0, false), 1.0);
    }

    #[test]
    fn ns2_forced_region_keeps_the_count_and_ns1_resets_it() {
        let mut rng = stream(1, "red", 0);
        let mut p = Period { count: 7, count_bytes: 7000, open: true };
        assert_eq!(decide(&ns(NsEra::Ns2), at(15.0, 5), &mut p, &mut rng), Some(RedDrop::Forced));
        assert_eq!(p.count, 8, "ns-2.1b: a forced drop leaves count alone");
        assert_eq!(decide(&ns(NsEra::Ns1), at(15.0, 5), &mut p, &mut rng), Some(RedDrop::Forced));
        assert_eq!(p.count, 0, "ns-1: drop_early's p = 1 resets it");
        // ns-1: the first arrival of a period is exempt even above max_th; ns-2.1b: not.
        let mut p = Period::default();
        assert_eq!(decide(&ns(NsEra::Ns1), at(20.0, 5), &mut p, &mut rng), None);
        let mut p = Period::default();
        assert_eq!(decide(&ns(NsEra::Ns2), at(20.0, 5), &mut p, &mut rng), Some(RedDrop::Forced));
    }

    #[test]
    fn the_float_average_matches_repeated_float_steps() {
        let a = float_average(8.0, 0.002, 25, 0.0);
        let mut f = 8.0f32;
        for _ in 0..26 {
            f = (f as f64 * 0.998) as f32;
        }
        assert_eq!(a, f as f64);
        // A long idle period stops once the float stops changing.
        assert_eq!(float_average(3.0, 0.002, u64::MAX, 0.0), float_average(3.0, 0.002, 1 << 20, 0.0));
    }
}
