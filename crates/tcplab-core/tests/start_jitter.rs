//! `start_jitter`: each flow starts at `start` plus a uniform draw in [0, start_jitter) from the
//! run's seed, so replications of a deterministic network (no random loss, ns-1's untick'd
//! timers) differ in their start times.

use tcplab_core::{run_scenario, Error, RunOptions};

fn two_flows(jitter: &str) -> String {
    format!(
        "duration = 5\nnodes = [\"a\", \"b\", \"c\"]\n[tcp]\nstack = \"ns1\"\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [[link]]\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\nqueue = 8\n\
         [[flow]]\nsrc = \"a\"\ndst = \"c\"\nstart = \"1s\"\n{jitter}\n\
         [[flow]]\nsrc = \"a\"\ndst = \"c\"\nstart = \"1.05s\"\n{jitter}\n"
    )
}

fn starts(text: &str, seed: u64) -> Vec<f64> {
    let r = run_scenario(text, &RunOptions { seed: Some(seed), out_dir: None }).expect("runs").0;
    r.flows.iter().map(|f| f.start_s).collect()
}

#[test]
fn starts_move_within_the_jitter_and_only_with_the_seed() {
    let text = two_flows("start_jitter = \"50ms\"");
    let (a, b) = (starts(&text, 1), starts(&text, 2));
    assert_eq!(a, starts(&text, 1), "same seed, same starts");
    assert_ne!(a, b, "another seed draws other starts");
    for s in [&a, &b] {
        assert!((1.0..1.05).contains(&s[0]) && (1.05..1.10).contains(&s[1]), "{s:?}");
    }
}

#[test]
fn without_jitter_the_seed_does_not_move_an_ns1_run() {
    // The reason the knob exists: with no random loss and ns-1's timers (no tick phase), two
    // seeds give the same run.
    let text = two_flows("");
    let run = |seed| run_scenario(&text, &RunOptions { seed: Some(seed), out_dir: None }).expect("runs").0;
    let (a, b) = (run(1), run(2));
    let delivered = |r: &tcplab_core::metrics::RunReport| r.flows.iter().map(|f| f.bytes_delivered).collect::<Vec<_>>();
    assert_eq!(delivered(&a), delivered(&b));
    assert_eq!(starts(&text, 1), vec![1.0, 1.05]);
}

#[test]
fn a_bad_jitter_names_its_field() {
    let text = two_flows("start_jitter = \"-1s\"");
    match run_scenario(&text, &RunOptions { seed: Some(1), out_dir: None }) {
        Err(Error::Scenario(e)) => assert!(e.to_string().contains("flow[0].start_jitter"), "{e}"),
        other => panic!("expected a scenario error, got {other:?}"),
    }
}

#[test]
fn a_flow_that_starts_as_the_run_ends_sends_nothing() {
    // The run covers [0, duration): a TCP or UDP flow starting at the end itself injected a
    // packet into a run that was over (its start was queued before the end).
    let text = |start: &str| {
        format!(
            "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n\
             [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"7ms\"\n\
             [[flow]]\nsrc = \"a\"\ndst = \"b\"\nbytes = 1000\nstart = \"{start}\"\n\
             [[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\nstart = \"{start}\"\n\
             source = {{ kind = \"cbr\", rate = \"1Mbps\", size = 1000 }}\n"
        )
    };
    let at_end = run_scenario(&text("1s"), &RunOptions::default()).unwrap().0;
    assert_eq!(at_end.conservation.injected, 0, "{:?}", at_end.conservation);
    let just_before = run_scenario(&text("999ms"), &RunOptions::default()).unwrap().0;
    assert!(just_before.conservation.injected >= 2, "{:?}", just_before.conservation);
}
