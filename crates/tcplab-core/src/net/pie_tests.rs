//! PIE against RFC 8033: each expected value is computed here from the RFC's formulas, not
//! read back from the implementation.

use super::*;
use crate::rng::stream;

fn pie(cfg: PieConfig) -> Pie {
    Pie::new(cfg, stream(1, "pie-test", 0))
}

/// A queue whose every departure waited `delay` and left packets behind, sampled just before
/// each update from `from` to `to` (update times k * tupdate).
fn hold_delay(p: &mut Pie, delay: Dur, updates: std::ops::RangeInclusive<u64>) {
    let t = p.cfg.tupdate;
    for k in updates {
        p.on_dequeue(k * t - 1, delay, false);
        p.catch_up(k * t);
    }
}

/// RFC 8033 section 4.2: p = alpha (cur - ref) + beta (cur - old), divided by the tuning
/// factor of the probability before the update, capped at 2% from 10% up.
fn rfc_step(prob: f64, cur: f64, old: f64) -> f64 {
    let divisor = [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (0.1, 2.0)]
        .iter()
        .find(|(bound, _)| prob < *bound)
        .map_or(1.0, |d| d.1);
    let mut p = (0.125 * (cur - 0.015) + 1.25 * (cur - old)) / divisor;
    if prob >= 0.1 && p > 0.02 {
        p = 0.02;
    }
    (prob + p).clamp(0.0, 1.0)
}

#[test]
fn defaults_are_the_rfcs() {
    let c = PieConfig::default();
    assert_eq!((c.target, c.tupdate, c.max_burst), (15 * MS, 15 * MS, 150 * MS));
    assert_eq!((c.alpha, c.beta), (0.125, 1.25));
    assert!(!c.derandomize);
}

#[test]
fn a_constant_delay_drives_the_probability_update_by_update() {
    // A standing 40 ms queue from the first update on: the first step sees the jump from
    // 0 (beta's term), the later ones only alpha's distance from the 15 ms reference, each
    // divided by the range the probability is in.
    let mut p = pie(PieConfig::default());
    let mut want = 0.0;
    let mut old = 0.0;
    for k in 1..=200 {
        hold_delay(&mut p, 40 * MS, k..=k);
        want = rfc_step(want, 0.040, old);
        old = 0.040;
        assert!((p.drop_prob() - want).abs() < 1e-12, "update {k}: {} vs {want}", p.drop_prob());
    }
    // 200 updates (3 s) of a delay 25 ms over target climb through every range.
    assert!(want > 0.1, "{want}");
    // A delay exactly at target with no change leaves the probability as it is.
    let before = p.drop_prob();
    hold_delay(&mut p, 15 * MS, 201..=201);
    hold_delay(&mut p, 15 * MS, 202..=202);
    assert!((p.drop_prob() - rfc_step(rfc_step(before, 0.015, 0.040), 0.015, 0.015)).abs() < 1e-12);
}

#[test]
fn alpha_and_beta_scale_by_the_range_of_the_drop_probability() {
    // One update with the delay 10 ms over target and unchanged: alpha x 10 ms = 1.25e-3 raw.
    let raw = 0.125 * 0.010;
    for (prob, divisor) in
        [(5e-7, 2048.0), (5e-6, 512.0), (5e-5, 128.0), (5e-4, 32.0), (5e-3, 8.0), (0.05, 2.0), (0.5, 1.0)]
    {
        assert_eq!(tuning_divisor(prob), divisor);
        let mut p = pie(PieConfig::default());
        hold_delay(&mut p, 25 * MS, 1..=1);
        p.set_drop_prob(prob);
        hold_delay(&mut p, 25 * MS, 2..=2);
        let step = p.drop_prob() - prob;
        assert!((step - raw / divisor).abs() < 1e-15, "at {prob}: step {step}, want {}", raw / divisor);
    }
    // The boundaries belong to the range above: 10^-6 is divided by 512, 0.1 not at all.
    assert_eq!((tuning_divisor(1e-6), tuning_divisor(0.1)), (512.0, 1.0));
    // From 10% up an increase is capped at 2% (a 1 s jump in delay would add 1.25).
    let mut p = pie(PieConfig::default());
    p.set_drop_prob(0.3);
    hold_delay(&mut p, 1000 * MS, 1..=1);
    assert!((p.drop_prob() - 0.32).abs() < 1e-12, "{}", p.drop_prob());
}

#[test]
fn the_burst_allowance_suppresses_drops_for_max_burst() {
    // A heavy standing queue from the start, the probability set high after the first
    // update: nothing is dropped until max_burst (150 ms, ten updates) has been used up.
    let mut p = pie(PieConfig::default());
    let full = 100 * 1500;
    let mut first_drop = None;
    for k in 1..=60u64 {
        hold_delay(&mut p, 200 * MS, k..=k);
        if k == 1 {
            p.set_drop_prob(0.5);
        }
        for i in 0..200 {
            let now = k * 15 * MS + i;
            if p.drop_early(now, full) && first_drop.is_none() {
                first_drop = Some(now);
            }
        }
        if k < 10 {
            assert!(p.burst_allowance() > 0, "update {k}");
        }
    }
    // 200 arrivals at p >= 0.5 after update 10: the first drop comes at once.
    let t = first_drop.expect("PIE dropped once the allowance was gone");
    assert!((150 * MS..150 * MS + 200).contains(&t), "first drop at {t} ns");
}

#[test]
fn the_probability_decays_when_the_queue_empties_and_the_allowance_returns() {
    let mut p = pie(PieConfig::default());
    hold_delay(&mut p, 60 * MS, 1..=100);
    let high = p.drop_prob();
    assert!(high > 0.05 && p.burst_allowance() == 0);
    // The queue drains: the last departure leaves it empty (the delay sample is 0).
    p.on_dequeue(100 * 15 * MS + 5, MS, true);
    // Update 101 sees cur 0, old 60 ms: alpha and beta's terms pull it down by a step.
    p.catch_up(101 * 15 * MS);
    let after_step = rfc_step(high, 0.0, 0.060);
    assert!((p.drop_prob() - after_step).abs() < 1e-12);
    // From update 102 on both samples are 0: the (negative) step, then x0.98 each update.
    let mut want = after_step;
    for k in 102..=110 {
        p.catch_up(k * 15 * MS);
        want = (rfc_step(want, 0.0, 0.0) * 0.98).clamp(0.0, 1.0);
        assert!((p.drop_prob() - want).abs() < 1e-12, "update {k}");
    }
    // Idle long enough, the probability reaches 0 and the allowance is whole again (less the
    // update that restored it, section 4.4's order); an idle queue at rest costs no updates.
    p.catch_up(10_000 * 15 * MS);
    assert_eq!(p.drop_prob(), 0.0);
    assert_eq!(p.burst_allowance(), 150 * MS - 15 * MS);
    p.catch_up(u64::MAX / 4);
    assert_eq!(p.drop_prob(), 0.0);
}

#[test]
fn safeguards_keep_pie_work_conserving() {
    let mut p = pie(PieConfig::default());
    hold_delay(&mut p, 200 * MS, 1..=60);
    p.set_drop_prob(0.95);
    assert_eq!(p.burst_allowance(), 0);
    let now = 60 * 15 * MS + 1;
    // Two mean packets or fewer waiting: never a drop.
    assert!((0..1000).all(|_| !p.drop_early(now, 3000)));
    assert!((0..1000).any(|_| p.drop_early(now, 3001)));
    // A low old delay (below target / 2) with a probability below 20%: no drop.
    let mut q = pie(PieConfig::default());
    hold_delay(&mut q, 200 * MS, 1..=60);
    hold_delay(&mut q, 7 * MS, 61..=61);
    let now = 61 * 15 * MS + 1;
    q.set_drop_prob(0.19);
    assert!((0..1000).all(|_| !q.drop_early(now, 1_000_000)));
    // At 20% the safeguard no longer holds.
    q.set_drop_prob(0.2);
    assert!((0..1000).any(|_| q.drop_early(now, 1_000_000)));
}

#[test]
fn random_drops_follow_the_probability_and_derandomisation_spaces_them() {
    let mut p = pie(PieConfig::default());
    hold_delay(&mut p, 30 * MS, 1..=40);
    p.set_drop_prob(0.25);
    let n = 40_000;
    let drops = (0..n).filter(|_| p.drop_early(40 * 15 * MS + 1, 1_000_000)).count() as f64;
    let se = (0.25 * 0.75 / n as f64).sqrt();
    assert!((drops / n as f64 - 0.25).abs() < 4.0 * se, "{drops}");
    // Derandomised (section 5.1): no drop until the sum of probabilities since the last drop
    // reaches 0.85, so at 0.25 never two drops within four arrivals.
    let cfg = PieConfig { derandomize: true, ..PieConfig::default() };
    let mut d = pie(cfg);
    hold_delay(&mut d, 30 * MS, 1..=40);
    d.set_drop_prob(0.25);
    let pattern: Vec<bool> = (0..n).map(|_| d.drop_early(40 * 15 * MS + 1, 1_000_000)).collect();
    let at: Vec<usize> = pattern.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| i).collect();
    assert!(at.windows(2).all(|w| w[1] - w[0] >= 4), "drops closer than 0.85 / 0.25 arrivals");
    assert!(at.len() > n / 8, "{}", at.len());
}

#[test]
fn marks_instead_of_drops_only_below_mark_ecnth() {
    // RFC 8033 section 5.1: "if drop_prob_ < mark_ecnth && ecn_capable_packet == TRUE: mark
    // packet; else: drop packet", mark_ecnth 0.1 by default.
    let mut p = pie(PieConfig { ecn: true, ..PieConfig::default() });
    assert_eq!(PieConfig::default().mark_ecnth, 0.1);
    p.set_drop_prob(0.0999);
    assert!(p.marks_instead(true) && !p.marks_instead(false));
    p.set_drop_prob(0.1);
    assert!(!p.marks_instead(true), "at mark_ecnth the packet is dropped");
    let mut q = pie(PieConfig { ecn: true, mark_ecnth: 0.2, ..PieConfig::default() });
    q.set_drop_prob(0.15);
    assert!(q.marks_instead(true));
    let mut off = pie(PieConfig::default());
    off.set_drop_prob(0.01);
    assert!(!off.marks_instead(true), "without ecn PIE never marks");
}

/// What PIE's queue did with an arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Kept,
    Marked,
    Dropped,
}

/// `n` arrivals of `ecn` at a PIE queue with `ecn` on or off, its drop probability `prob`
/// (the delay held at 200 ms, so the safeguards are off and the burst allowance spent), 20
/// packets of 1500 bytes waiting; all arrive before the next update, so each sees the same
/// state, and the same random draws come in the same order whatever the setting.
fn pie_fates(
    prob: f64,
    ecn_on: bool,
    n: usize,
    ecn: crate::packet::Ecn,
) -> (Vec<Fate>, super::super::queue::QueueStats) {
    use super::super::queue::{Discipline, PieQueue, Queue, QueueLimit};
    let mut p = pie(PieConfig { ecn: ecn_on, ..PieConfig::default() });
    hold_delay(&mut p, 200 * MS, 1..=60);
    p.set_drop_prob(prob);
    let now = 60 * 15 * MS + 1;
    let mut q = Queue::with_discipline(QueueLimit::Packets(1000), Discipline::Pie(Box::new(PieQueue::new(p))));
    q.keep_stats();
    let packet = |ecn| {
        let mut k = crate::packet::Packet::test_ack(0, 65535);
        k.wire_bytes = 1500;
        k.ecn = ecn;
        k
    };
    let mut pool = super::super::PacketPool::default();
    for _ in 0..20 {
        let k = packet(crate::packet::Ecn::NotEct);
        q.push(now, pool.put(&k), &k);
    }
    let fates = (0..n)
        .map(|_| {
            // Accepted arrivals are not queued: the queue (and so PIE's input) stays the same.
            let mut k = packet(ecn);
            match q.accepts(now, &mut k, false) {
                false => Fate::Dropped,
                true if k.ecn != ecn => Fate::Marked,
                true => Fate::Kept,
            }
        })
        .collect();
    (fates, q.final_stats().unwrap())
}

#[test]
fn the_queue_marks_ecn_capable_arrivals_below_mark_ecnth_and_drops_the_rest() {
    use crate::packet::Ecn;
    let n = 4000;
    // Below mark_ecnth (5%): with ECN, every arrival PIE chose is marked CE and kept, at
    // exactly the arrivals the queue without ECN drops (section 5.1).
    let (plain, _) = pie_fates(0.05, false, n, Ecn::Ect0);
    let (marked, s) = pie_fates(0.05, true, n, Ecn::Ect0);
    let drops = plain.iter().filter(|&&f| f == Fate::Dropped).count();
    assert!((120..=280).contains(&drops), "{drops} of {n} at 5%");
    let as_marks: Vec<Fate> = plain.iter().map(|&f| if f == Fate::Dropped { Fate::Marked } else { f }).collect();
    assert_eq!(marked, as_marks);
    assert_eq!((s.marks_ecn, s.drops_early), (drops as u64, 0));
    // A packet that is not ECN-capable, in the same state of the same marking queue: dropped.
    let (not_ect, s) = pie_fates(0.05, true, n, Ecn::NotEct);
    assert_eq!(not_ect, plain);
    assert_eq!((s.marks_ecn, s.drops_early), (0, drops as u64));
    // At and above mark_ecnth (10%, 30%): ECN-capable arrivals are dropped as without ECN.
    for prob in [0.1, 0.3] {
        let (plain, _) = pie_fates(prob, false, n, Ecn::Ect0);
        let (ecn, s) = pie_fates(prob, true, n, Ecn::Ect0);
        assert_eq!(ecn, plain, "at {prob}");
        assert!(s.drops_early > (prob * n as f64 / 2.0) as u64 && s.marks_ecn == 0, "at {prob}: {s:?}");
    }
}
