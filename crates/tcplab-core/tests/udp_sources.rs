//! The UDP traffic sources against the rules of ns-2's traffic generators (tools/ in ns-2's
//! tree: cbr_traffic.cc, expoo.cc, pareto.cc, trafgen.cc; `udp::source` names the revisions):
//! constant-bit-rate spacing exactly; the on-off sources' burst lengths, idle times and shape
//! from many periods of one fixed seed, within four standard errors of what ns's rules give;
//! a trace replayed exactly.

use std::sync::Arc;

use tcplab_core::rng::stream;
use tcplab_core::udp::source::{OnOffLaw, Source, SourceConfig};

const MS: u64 = 1_000_000;

/// The first `n` packets of a source: (time after the start, size).
fn packets(cfg: SourceConfig, n: usize) -> Vec<(u64, u32)> {
    let mut s = Source::new(cfg, stream(7, "udp-source-test", 0));
    (0..n).map_while(|_| s.next()).collect()
}

fn mean_and_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[test]
fn cbr_packets_leave_exactly_size_times_8_over_rate_apart() {
    // cbr_traffic.cc: the first packet at the start (CBR_Traffic::start calls timeout()),
    // then interval_ = (size_ << 3) / rate_. 1000 B at 3 Mb/s is 2666666.67 ns: the k-th
    // packet leaves at floor(k * 8000 / 3e6 s) to the nanosecond, with no drift after 10^6.
    let got = packets(SourceConfig::Cbr { rate_bps: 3_000_000, size: 1000, random: false }, 1_000_001);
    for (k, &(t, size)) in got.iter().enumerate() {
        assert_eq!(size, 1000);
        assert_eq!(t as u128, k as u128 * 8_000 * 1_000_000_000 / 3_000_000, "packet {k}");
    }
    assert_eq!(got[1_000_000].0, 2_666_666_666_666);
    let exact = packets(SourceConfig::Cbr { rate_bps: 1_000_000, size: 1000, random: false }, 4);
    assert_eq!(exact, vec![(0, 1000), (8 * MS, 1000), (16 * MS, 1000), (24 * MS, 1000)]);
}

#[test]
fn cbr_with_random_spreads_each_gap_uniformly_around_the_interval() {
    // ns's random_: t = interval_ + interval_ * U(-0.5, 0.5).
    let i = 8.0 * MS as f64;
    let got = packets(SourceConfig::Cbr { rate_bps: 1_000_000, size: 1000, random: true }, 100_001);
    assert_eq!(got[0].0, 0);
    let gaps: Vec<f64> = got.windows(2).map(|w| w[1].0 as f64 - w[0].0 as f64).collect();
    assert!(gaps.iter().all(|&g| g >= 0.5 * i - 1.0 && g <= 1.5 * i + 1.0));
    let (mean, se) = mean_and_se(&gaps);
    assert!((mean - i).abs() < 4.0 * se, "mean gap {mean} vs {i} (se {se})");
    // Uniform on [0.5i, 1.5i]: standard deviation i / sqrt(12).
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!((sd / (i / 12f64.sqrt()) - 1.0).abs() < 0.02, "sd {sd}");
}

/// An on-off source's bursts: packets per burst, and each idle time (the gap before a burst
/// less one interval), from `bursts` bursts. Inside a burst packets are `interval` apart.
fn bursts(cfg: SourceConfig, interval: u64, bursts: usize) -> (Vec<f64>, Vec<f64>) {
    let mut s = Source::new(cfg, stream(11, "udp-onoff-test", 0));
    let (mut counts, mut idles) = (Vec::new(), Vec::new());
    let mut last = 0u64;
    loop {
        let (t, _) = s.next().unwrap();
        let gap = t - last;
        last = t;
        // The clock is fractional and each time rounded: a gap inside a burst is the interval
        // to within a nanosecond.
        if gap <= interval + 1 {
            assert!(gap + 1 >= interval, "gap {gap} inside a burst");
            *counts.last_mut().unwrap() += 1.0;
            continue;
        }
        if counts.len() == bursts {
            return (counts, idles);
        }
        counts.push(1.0);
        idles.push((gap - interval) as f64);
    }
}

#[test]
fn exponential_on_off_bursts_and_idle_times_have_ns2s_means() {
    // expoo.cc: rem_ = int(Exp(burst_time / interval) + .5), at least 1; the gap after a
    // burst is interval + Exp(idle_time); TrafficGenerator::start draws that gap first. With
    // m = burst_time / interval the burst length's mean is
    // e^(-1/2m) / (1 - e^(-1/m)) + 1 - e^(-1/2m) (the rounding and the floor of one).
    // Bursts of 12.5 packets on average, and of 1.5 (where the floor of one is a quarter of
    // the mean).
    for burst in [100 * MS, 12 * MS] {
        exponential_case(burst);
    }
}

fn exponential_case(burst: u64) {
    let (rate, size, idle) = (1_000_000, 1000, 200 * MS);
    let interval = 8 * MS;
    let cfg =
        SourceConfig::OnOff { rate_bps: rate, size, burst_time: burst, idle_time: idle, law: OnOffLaw::Exponential };
    let (counts, idles) = bursts(cfg, interval, 20_000);
    let m = burst as f64 / interval as f64;
    let want = (-0.5 / m).exp() / (1.0 - (-1.0 / m).exp()) + 1.0 - (-0.5 / m).exp();
    let (mean, se) = mean_and_se(&counts);
    assert!((mean - want).abs() < 4.0 * se, "burst {mean} vs {want} packets (se {se})");
    assert!(counts.iter().all(|&c| c >= 1.0));
    let (mean_idle, se_idle) = mean_and_se(&idles);
    assert!((mean_idle - idle as f64).abs() < 4.0 * se_idle, "idle {mean_idle} vs {idle} (se {se_idle})");
    // The rate over the whole pattern: bursts at the full rate, then idle.
    let bits: f64 = counts.iter().sum::<f64>() * size as f64 * 8.0;
    let secs = (counts.iter().sum::<f64>() * interval as f64 + idles.iter().sum::<f64>()) / 1e9;
    let want_rate = rate as f64 * want * interval as f64 / (want * interval as f64 + idle as f64);
    assert!((bits / secs / want_rate - 1.0).abs() < 0.02, "rate {} vs {want_rate}", bits / secs);
}

#[test]
fn pareto_on_off_draws_its_idle_times_and_bursts_with_the_given_shape() {
    // pareto.cc: idle ~ Pareto(p2, shape), p2 = idle_time (shape - 1) / shape; burst =
    // int(Pareto(p1, shape) + .5), at least 1, p1 = (burst_time / interval)(shape - 1) / shape;
    // rng.h: Pareto(scale, shape) = scale / U^(1/shape).
    let (shape, idle, burst) = (1.5, 200 * MS, 100 * MS);
    let interval = 8 * MS;
    let cfg = SourceConfig::OnOff {
        rate_bps: 1_000_000,
        size: 1000,
        burst_time: burst,
        idle_time: idle,
        law: OnOffLaw::Pareto { shape },
    };
    let n = 20_000;
    let (counts, idles) = bursts(cfg, interval, n);
    let p2 = idle as f64 * (shape - 1.0) / shape;
    // No idle time below the scale (times are rounded to the nanosecond).
    assert!(idles.iter().all(|&x| x >= p2 - 2.0), "an idle time below the scale {p2}");
    // The maximum-likelihood shape of a Pareto with known scale, n / sum ln(x / p2), has
    // standard error shape / sqrt(n).
    let hat = n as f64 / idles.iter().map(|&x| (x.max(p2) / p2).ln()).sum::<f64>();
    let se = shape / (n as f64).sqrt();
    assert!((hat - shape).abs() < 4.0 * se, "idle shape {hat} vs {shape} (se {se})");
    // Bursts: P(length >= k) = P(Pareto >= k - 1/2) = (p1 / (k - 1/2))^shape beyond p1.
    let p1 = burst as f64 / interval as f64 * (shape - 1.0) / shape;
    for k in [10.0, 50.0] {
        let share = counts.iter().filter(|&&c| c >= k).count() as f64 / n as f64;
        let want = (p1 / (k - 0.5)).powf(shape);
        let se = (want * (1.0 - want) / n as f64).sqrt();
        assert!((share - want).abs() < 4.0 * se, "P(burst >= {k}) {share} vs {want} (se {se})");
    }
}

#[test]
fn a_trace_is_replayed_exactly_then_ends() {
    let list = vec![(0, 100), (1_500_000, 1472), (1_500_000, 20), (7 * MS + 3, 65_507)];
    let got = packets(SourceConfig::Trace { packets: Arc::from(list.clone()) }, 10);
    assert_eq!(got, list);
}

#[test]
fn the_same_seed_draws_the_same_pattern_and_another_seed_another() {
    let cfg = SourceConfig::OnOff {
        rate_bps: 64_000,
        size: 210,
        burst_time: 500 * MS,
        idle_time: 500 * MS,
        law: OnOffLaw::Pareto { shape: 1.5 },
    };
    let draw = |seed| {
        let mut s = Source::new(cfg.clone(), stream(seed, "udp", 0));
        (0..1000).map(|_| s.next().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(draw(1), draw(1));
    assert_ne!(draw(1), draw(2));
}
