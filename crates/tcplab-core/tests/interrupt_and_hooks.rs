//! Stopping a run from outside (Ctrl-C), and the test hook that breaks a run on purpose.

mod common;
use common::*;
use tcplab_core::interrupt::INTERRUPT_EVERY;
use tcplab_core::{run_scenario, run_scenario_limited, Error, RunOptions};

fn long_run() -> String {
    // About 2.5 M events: several interrupt checks.
    two_hosts("", "", 200_000_000, 200.0)
}

#[test]
fn interrupt_stops_the_run_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("tcplab-interrupt-{}", std::process::id()));
    let opts = RunOptions { seed: Some(1), out_dir: Some(dir.clone()) };
    let mut asked = 0u64;
    let r = run_scenario_limited(&long_run(), &opts, None, &mut || {
        asked += 1;
        asked == 3
    });
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.err());
    assert_eq!(asked, 3, "the run stops at the first yes");
    assert!(!dir.join("summary.json").exists() && !dir.exists(), "nothing written");
}

#[test]
fn the_check_is_asked_every_so_many_events_and_changes_nothing() {
    let text = long_run();
    let (plain, _) = run_scenario(&text, &RunOptions { seed: Some(1), out_dir: None }).unwrap();
    let mut asked = 0u64;
    let (checked, _) = run_scenario_limited(&text, &RunOptions { seed: Some(1), out_dir: None }, None, &mut || {
        asked += 1;
        false
    })
    .unwrap();
    assert!(plain.events > 2 * INTERRUPT_EVERY);
    // The stop event is popped too, but the loop ends before its check.
    assert!(asked == plain.events / INTERRUPT_EVERY || asked + 1 == plain.events / INTERRUPT_EVERY);
    assert_eq!(plain.events, checked.events);
    assert_eq!(plain.flows[0].bytes_delivered, checked.flows[0].bytes_delivered);
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
