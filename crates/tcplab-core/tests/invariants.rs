//! Whole-run properties: conservation, byte-exact delivery, determinism.

mod common;
use common::*;
use tcplab_core::sim::Simulation;
use tcplab_core::{check_scenario, run_scenario, RunOptions};

#[test]
fn random_loss_both_ways_still_delivers_every_byte_in_order() {
    // Conservation and the payload digests are checked inside every run; a violation
    // fails run_scenario. Here: many seeds, loss on data and ACKs, handshake and delayed ACKs.
    for seed in 0..30 {
        let text = two_hosts(
            "handshake = \"sender\"\ndelayed_ack = true\ntimer = \"500ms\"",
            "{ model = \"bernoulli\", p = 0.05 }\n[link.ba]\nloss = { model = \"bernoulli\", p = 0.05 }",
            200_000,
            600.0,
        );
        let r = run_seed(&text, seed);
        let f = &r.flows[0];
        assert_eq!(f.bytes_delivered, 200_000, "seed {seed}");
        assert!(f.completion_time_s.is_some());
        let c = &r.conservation;
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
        assert!(c.dropped > 0);
    }
}

#[test]
fn gilbert_elliott_bursts_lose_more_in_runs() {
    let text = two_hosts(
        "",
        "{ model = \"gilbert_elliott\", p_good_to_bad = 0.01, p_bad_to_good = 0.3, loss_bad = 1.0 }",
        2_000_000,
        600.0,
    );
    let r = run_seed(&text, 3);
    assert_eq!(r.flows[0].bytes_delivered, 2_000_000);
    assert!(r.links[0].stats.drops_loss > 0);
}

#[test]
fn same_scenario_and_seed_give_identical_reports() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench_dumbbell_10.toml"))
        .unwrap()
        .replace("duration = \"60s\"", "duration = \"5s\"");
    let strip = |seed| {
        let (mut r, _) = run_scenario(&text, &RunOptions { seed: Some(seed), out_dir: None }).unwrap();
        r.wall_s = 0.0;
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(strip(7), strip(7));
    assert_ne!(strip(7), strip(8), "different seeds should change ISNs/phases and so the timing");
}

#[test]
fn summary_file_is_byte_identical_between_runs() {
    let text = two_hosts("", "{ model = \"bernoulli\", p = 0.02 }", 300_000, 60.0);
    let dir = std::env::temp_dir().join(format!("tcplab-det-{}", std::process::id()));
    let read = |sub: &str| {
        let d = dir.join(sub);
        run_scenario(&text, &RunOptions { seed: Some(5), out_dir: Some(d.clone()) }).unwrap();
        (std::fs::read(d.join("summary.json")).unwrap(), std::fs::read(d.join("trace-flow0.csv")).unwrap())
    };
    assert_eq!(read("a"), read("b"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bulk_flows_share_a_bottleneck_and_fill_it() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench_dumbbell_10.toml"))
        .unwrap()
        .replace("duration = \"60s\"", "duration = \"20s\"");
    let (r, _) = run_scenario(&text, &RunOptions::default()).unwrap();
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(total > 9.0e6 && total < 10.0e6, "goodput {total}");
    let bottleneck = &r.links[0];
    assert!(bottleneck.stats.drops_queue > 0 && bottleneck.utilization > 0.95);
    assert!(bottleneck.stats.peak_queue_packets <= 100);
}

#[test]
fn time_series_add_up_to_the_totals() {
    let text =
        format!("series_bin = \"1s\"\n{}", two_hosts("", "{ model = \"bernoulli\", p = 0.02 }", 2_000_000, 30.0))
            .replace("queue = 1000\n", "queue = 1000\nper_flow_series = true\n");
    let r = run_seed(&text, 4);
    for l in &r.links {
        let s = l.tx_bytes_series.as_ref().expect("series recorded");
        assert_eq!(s.iter().sum::<u64>(), l.stats.tx_bytes);
    }
    let per_flow = r.links[0].per_flow_tx_bytes_series.as_ref().expect("per-flow series asked for");
    assert_eq!(per_flow[0], *r.links[0].tx_bytes_series.as_ref().unwrap(), "one flow: the same bytes");
    let f = &r.flows[0];
    let d = f.delivered_series.as_ref().unwrap();
    assert_eq!(d.iter().sum::<u64>(), f.bytes_delivered);
    assert!(d.len() >= 2, "the transfer spans several one-second bins");
    // Without series_bin nothing is recorded (and nothing appears in the JSON).
    let plain = run_seed(&two_hosts("", "", 10_000, 5.0), 1);
    assert!(plain.links[0].tx_bytes_series.is_none());
    assert!(!serde_json::to_string(&plain).unwrap().contains("series"));
}

#[test]
fn packet_memory_stays_flat_as_simulated_time_grows() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench_dumbbell_10.toml");
    let text = std::fs::read_to_string(path).expect("bench scenario");
    assert!(text.contains("duration = \"60s\""));
    let peak_records = |secs: u32| {
        let model = check_scenario(&text.replace("duration = \"60s\"", &format!("duration = \"{secs}s\"")), None)
            .expect("valid");
        let mut sim = Simulation::new(model).expect("builds");
        let (r, _) = sim.run().expect("runs");
        (sim.peak_packet_records(), r.packets_forwarded)
    };
    let (short, forwarded_short) = peak_records(20);
    let (long, forwarded_long) = peak_records(200);
    assert!(forwarded_long > 9 * forwarded_short);
    // The 100-packet bottleneck queue, its 20 ms pipe and the access links hold a few hundred
    // records; ten times the simulated time must not need more of them.
    assert!(short < 1000, "{short} records for 20 s");
    assert!(long <= short + short / 10, "{short} records for 20 s but {long} for 200 s");
}
