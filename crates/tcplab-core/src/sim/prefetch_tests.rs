//! The event loop compiled with and without the prefetches of what an arrival leads to, and
//! for either kind of event queue (`run_loop::<Q, PREFETCH_ONWARD>`): the run's size picks
//! one, and all are the same run.

use super::{prepare, RunOptions};

/// A dumbbell of `n` NewReno flows into one 10 Mb/s bottleneck, for `duration` seconds.
fn dumbbell(n: usize, duration: f64) -> String {
    let mut s = format!("duration = {duration}\nnodes = [\"r\", \"d\"");
    for i in 0..n {
        s += &format!(", \"s{i}\"");
    }
    s += "]\n[tcp]\nvariant = \"newreno\"\n[[link]]\na = \"r\"\nb = \"d\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = 20\n";
    for i in 0..n {
        s += &format!("[[link]]\na = \"s{i}\"\nb = \"r\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n", 1 + i % 7);
    }
    for i in 0..n {
        s += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"d\"\nstart = {}\n", i as f64 * 0.01);
    }
    s
}

/// The run's report as JSON without its wall time.
fn report(text: &str, prefetch_onward: Option<bool>) -> serde_json::Value {
    report_on(text, prefetch_onward, None)
}

/// `report`, on the radix heap or the 4-ary heap if `radix` says (else the run's own choice).
fn report_on(text: &str, prefetch_onward: Option<bool>, radix: Option<bool>) -> serde_json::Value {
    let mut sim = prepare(text, &RunOptions::default(), None).expect("valid scenario");
    if let Some(on) = prefetch_onward {
        sim.pool.set_prefetch_onward(on);
    }
    if let Some(radix) = radix {
        sim.q = crate::engine::EventQueue::for_run(if radix { usize::MAX } else { 0 }, false);
    }
    let (report, _) = sim.run().expect("run ends well");
    let mut json = serde_json::to_value(&report).expect("report serialises");
    json.as_object_mut().expect("report is an object").remove("wall_s");
    json
}

#[test]
fn small_runs_do_not_prefetch_onward_and_large_ones_do() {
    let small = prepare(&dumbbell(10, 1.0), &RunOptions::default(), None).expect("valid");
    assert!(!small.pool.prefetches_onward(), "10 flows fit in the cache");
    let large = prepare(&dumbbell(2000, 1.0), &RunOptions::default(), None).expect("valid");
    assert!(large.pool.prefetches_onward(), "2,000 flows' records are MBs");
}

#[test]
fn both_loops_make_the_same_run() {
    let text = dumbbell(12, 3.0);
    let with = report(&text, Some(true));
    assert_eq!(with, report(&text, Some(false)));
    assert_eq!(with, report(&text, None));
    assert!(with["flows"][0]["bytes_delivered"].as_u64().unwrap_or(0) > 0, "{with}");
}

/// The loop compiled for the 4-ary heap and for the radix heap (`QueueKind`) make the same
/// run, on a run that picks either.
#[test]
fn both_queue_kinds_make_the_same_run() {
    for (n, picks_radix) in [(4, false), (12, true)] {
        let text = dumbbell(n, 3.0);
        let sim = prepare(&text, &RunOptions::default(), None).expect("valid");
        assert_eq!(sim.q.uses_radix(), picks_radix, "{n} flows");
        let own = report_on(&text, None, None);
        assert_eq!(own, report_on(&text, None, Some(!picks_radix)), "{n} flows");
        assert!(own["flows"][0]["bytes_delivered"].as_u64().unwrap_or(0) > 0, "{own}");
    }
}
