//! Stopping a run from outside (Ctrl-C), and the test hook that breaks a run on purpose.

mod common;
use common::*;
use tcplab_core::interrupt::CHECK_PERIOD;
use tcplab_core::{run_scenario, run_scenario_limited, Error, RunOptions};

fn long_run() -> String {
    // About 0.8 M events: several interrupt periods on any machine.
    two_hosts("", "", 200_000_000, 200.0)
}

/// A run far longer than any test waits for: it ends only when it is interrupted (the checks
/// come by wall time, so a short run on a fast machine could end before the answer that
/// stops it is asked for).
fn endless_run() -> String {
    two_hosts("", "", 1 << 50, 2000.0)
}

#[test]
fn interrupt_stops_the_run_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("tcplab-interrupt-{}", std::process::id()));
    let opts = RunOptions { seed: Some(1), out_dir: Some(dir.clone()) };
    let mut asked = 0u64;
    let r = run_scenario_limited(&endless_run(), &opts, None, &mut || {
        asked += 1;
        asked == 3
    });
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.err());
    assert_eq!(asked, 3, "the run stops at the first yes");
    assert!(!dir.join("summary.json").exists() && !dir.exists(), "nothing written");
}

#[test]
fn the_check_is_asked_every_period_of_wall_time_and_changes_nothing() {
    let text = long_run();
    let (plain, _) = run_scenario(&text, &RunOptions { seed: Some(1), out_dir: None }).unwrap();
    let mut asked = 0u64;
    let start = std::time::Instant::now();
    let (checked, _) = run_scenario_limited(&text, &RunOptions { seed: Some(1), out_dir: None }, None, &mut || {
        asked += 1;
        false
    })
    .unwrap();
    let periods = start.elapsed().as_secs_f64() / CHECK_PERIOD.as_secs_f64();
    // Asked about once a period (a loaded machine may skip ticks, never add any).
    assert!(asked as f64 <= periods + 1.0, "{asked} checks in {periods:.1} periods");
    assert_eq!(plain.events, checked.events);
    assert_eq!(plain.flows[0].bytes_delivered, checked.flows[0].bytes_delivered);
}

#[test]
fn slow_events_are_interrupted_within_a_period() {
    // Each event is made slow by the check itself: 2 ms per call would have taken 2^18 x 2 ms
    // (nine minutes) with a check every 2^18 events; asked by wall time, the run stops at once.
    let mut asked = 0u32;
    let start = std::time::Instant::now();
    let r = run_scenario_limited(&endless_run(), &RunOptions { seed: Some(1), out_dir: None }, None, &mut || {
        asked += 1;
        std::thread::sleep(std::time::Duration::from_millis(2));
        asked == 2
    });
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.as_ref().map(|x| x.0.events));
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
}

#[test]
fn a_watched_run_shows_its_progress_and_stops_when_told() {
    use tcplab_core::interrupt::Watch;
    use tcplab_core::time::SEC;
    let watch = Watch::new();
    let opts = RunOptions { seed: Some(1), out_dir: None };
    let text = endless_run();
    std::thread::scope(|scope| {
        let run = scope.spawn(|| tcplab_core::run_scenario_until(&text, &opts, None, tcplab_core::Stop::Watch(&watch)));
        // Progress seen twice, moving forward within the run's 2000 s, before the stop.
        let mut seen = Vec::new();
        let start = std::time::Instant::now();
        while seen.len() < 2 && start.elapsed() < std::time::Duration::from_secs(60) {
            let (now, end) = watch.progress();
            if end > 0 && now > seen.last().copied().unwrap_or(0) {
                assert_eq!(end, 2000 * SEC);
                assert!(now < end);
                seen.push(now);
            }
            std::thread::sleep(CHECK_PERIOD / 2);
        }
        assert_eq!(seen.len(), 2, "the watch saw no progress: {seen:?}");
        watch.stop();
        let r = run.join().unwrap();
        assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.as_ref().map(|x| x.0.events));
    });
}

#[test]
fn test_hook_is_refused_unless_enabled_then_trips_conservation() {
    let text = format!("_test_corrupt = \"conservation\"\n{}", two_hosts("", "", 100_000, 5.0));
    // Both cases in one test: the environment is shared by the tests of this binary.
    std::env::remove_var("TCPLAB_TEST_HOOKS");
    let e = run_scenario(&text, &RunOptions::default()).unwrap_err().to_string();
    assert!(e.contains("_test_corrupt") && e.contains("TCPLAB_TEST_HOOKS"), "{e}");
    std::env::set_var("TCPLAB_TEST_HOOKS", "1");
    let e = run_scenario(&text, &RunOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Invariant(_)), "{e}");
    assert!(e.to_string().contains("packet conservation"), "{e}");
    let clean = text.replace("\"conservation\"", "\"\"");
    assert!(run_scenario(&clean, &RunOptions::default()).is_ok());
    let bad = text.replace("\"conservation\"", "\"everything\"");
    assert!(run_scenario(&bad, &RunOptions::default()).unwrap_err().to_string().contains("unknown corruption"));
    std::env::remove_var("TCPLAB_TEST_HOOKS");
}
