use tcplab_core::{run_scenario, RunOptions};

#[test]
fn dumbbell_runs() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/bench_dumbbell_10.toml"
    ))
    .unwrap();
    let (r, _) = run_scenario(&text, &RunOptions::default()).unwrap();
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    eprintln!(
        "events {} wall {} goodput {} fwd {}",
        r.events, r.wall_s, total, r.packets_forwarded
    );
    for f in &r.flows {
        eprintln!("{:?}", f);
    }
    assert!(total > 9e6);
}
