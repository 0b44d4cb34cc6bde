//! Burst noise in time (`model = "burst"`): longer packets are hit more often, every byte still
//! arrives, and bad parameters are refused naming the field.

mod common;
use common::*;
use tcplab_core::{run_scenario, Error, RunOptions};

const NOISE: &str = "{ model = \"burst\", mean_good = \"20ms\", mean_bad = \"50us\" }";

fn loss_rate(mss: u32, seed: u64) -> (f64, u64) {
    let text = two_hosts(&format!("mss = {mss}"), NOISE, 2_000_000, 600.0);
    let r = run_seed(&text, seed);
    assert_eq!(r.flows[0].bytes_delivered, 2_000_000);
    let s = &r.links[0].stats;
    (s.drops_loss as f64 / s.tx_packets as f64, s.drops_loss)
}

#[test]
fn burst_noise_loses_fewer_small_packets_and_delivers_every_byte() {
    // Bursts (50 us) far shorter than a 1500-byte packet at 10 Mb/s (1.2 ms): the loss rate
    // is about proportional to the time a packet spends on the wire.
    let (big, drops_big) = loss_rate(1460, 1);
    let (small, drops_small) = loss_rate(500, 1);
    assert!(drops_big > 20 && drops_small > 20);
    assert!(small < 0.6 * big, "MSS 500: {small}, MSS 1460: {big}");
}

#[test]
fn burst_noise_is_deterministic_per_seed() {
    assert_eq!(loss_rate(1000, 4), loss_rate(1000, 4));
    assert_ne!(loss_rate(1000, 4), loss_rate(1000, 5));
}

#[test]
fn burst_periods_must_be_positive_durations() {
    for (loss, field) in [
        ("{ model = \"burst\", mean_good = 0, mean_bad = \"1ms\" }", "mean_good"),
        ("{ model = \"burst\", mean_good = \"1s\", mean_bad = \"-1ms\" }", "mean_bad"),
    ] {
        let text = two_hosts("", loss, 1000, 1.0);
        match run_scenario(&text, &RunOptions::default()) {
            Err(Error::Scenario(e)) => assert!(e.field.ends_with(field), "{} / {}", e.field, e.message),
            other => panic!("expected a scenario error naming {field}, got {:?}", other.map(|_| ())),
        }
    }
}
