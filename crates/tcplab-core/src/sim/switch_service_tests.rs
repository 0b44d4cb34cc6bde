//! A switch serving a lone cell inline (no other event at its instant) must give the very run
//! that a service event for every batch gives, one queued event fewer per inline service.

use super::{prepare, RunOptions};

/// The run's report as JSON without the wall time, and the events that went through the queue.
fn run(text: &str, service_events_only: bool) -> (serde_json::Value, u64) {
    let mut sim = prepare(text, &RunOptions::default(), None).expect("valid scenario");
    sim.atm.service_events_only = service_events_only;
    let (report, _) = sim.run().expect("run ends well");
    let mut json = serde_json::to_value(&report).expect("report serialises");
    let fields = json.as_object_mut().expect("report is an object");
    fields.remove("wall_s");
    (json, report.queued_events)
}

fn shipped(name: &str, duration: f64) -> String {
    let path = format!("{}/../../python/tcplab/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("shipped scenario");
    let mut doc: toml::Table = text.parse().expect("scenario parses");
    doc.insert("duration".into(), toml::Value::Float(duration));
    doc.to_string()
}

fn assert_same_run_fewer_events(text: &str) {
    let (by_events, events_before) = run(text, true);
    let (inline, events_after) = run(text, false);
    // The whole report, its event count included: an inline service still counts as an event.
    assert_eq!(inline, by_events, "serving lone cells inline changed the run");
    assert!(events_after < events_before, "no service was done inline ({events_after} queued events)");
}

/// `n` sources on one switch, all links 1.5 Mb/s and 10 ms, a small output buffer: the
/// sources start `stagger` seconds apart, so lone cells and cells that reach the switch at
/// the same instant as others (inputs served round robin) mix, and the order decides drops.
fn star(n: usize, stagger: f64) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
    let mut s = format!(
        "duration = 20.0\nnodes = [\"sw\", \"sink\", {}]\nswitches = [\"sw\"]\n[tcp]\nvariant = \"reno\"\n\
         mss = 1460\nrcv_buf = 65535\n[[link]]\na = \"sw\"\nb = \"sink\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\n\
         atm = true\nqueue = 100000\n[link.ab]\nqueue = 64\n",
        names.join(", ")
    );
    for i in 0..n {
        s += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"sw\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\natm = true\nqueue = 100000\n"
        );
    }
    for i in 0..n {
        s += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"sink\"\nstart = {}\n", i as f64 * stagger);
    }
    s
}

#[test]
fn staggered_sources_on_a_small_buffer_run_the_same_with_inline_service() {
    // Fails if a lone cell served inline does not move the round robin on as its own batch
    // would (the order of later batches, hence which cells the 64-cell buffer drops, changes).
    assert_same_run_fewer_events(&star(8, 0.01));
}

#[test]
fn sixteen_sources_on_one_switch_run_the_same_with_inline_service() {
    // Equal-rate inputs: many cells reach the switch at the same instant, so batches of
    // several cells (served by event, round robin) mix with lone cells served inline.
    assert_same_run_fewer_events(&shipped("bench_atm_16", 30.0));
}

#[test]
fn the_satellite_network_runs_the_same_with_inline_service() {
    // Two switches in series, WWW traffic, selective drop at the switches' buffers.
    assert_same_run_fewer_events(&shipped("bench_satellite_meo", 0.5));
}
