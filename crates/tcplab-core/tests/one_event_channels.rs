//! `[sim] one_event_channels` (the default): a packet crossing a drop-tail channel costs one
//! event. Runs of the same scenario both ways (`false` keeps the two-event path), on
//! scenarios full of same-instant ties (synchronised starts, equal round trips, links
//! without delay, 1-byte ACKs, full queues at departure instants).

use tcplab_core::metrics::{FlowTrace, RunReport};
use tcplab_core::{run_scenario, RunOptions};

/// The report (without its wall time) and the traces, as text.
fn outcome(text: &str) -> (RunReport, String, String) {
    let (mut report, traces) = run_scenario(text, &RunOptions::default()).expect("the scenario runs");
    report.wall_s = 0.0;
    let json = serde_json::to_string_pretty(&report).unwrap();
    (report, json, traces_text(&traces))
}

fn traces_text(traces: &[FlowTrace]) -> String {
    let mut out = Vec::new();
    for t in traces {
        t.write_csv(&mut out).unwrap();
        t.write_sends_csv(&mut out).unwrap();
    }
    String::from_utf8(out).unwrap()
}

fn one_event(text: &str) -> String {
    format!("{text}\n[sim]\none_event_channels = true\n")
}

fn two_event(text: &str) -> String {
    format!("{text}\n[sim]\none_event_channels = false\n")
}

/// A dumbbell of `n` flows, all starting at 0 with equal round trips: access links of
/// `access_delay` (none: arrivals at the instant of departure), a bottleneck queue of
/// `queue` (a TOML line), ACKs of `header` bytes.
fn dumbbell(n: usize, access_delay: &str, queue: &str, header: u32, jitter: bool) -> String {
    let mut s = format!(
        "duration = \"3s\"\nseed = 3\nnodes = [\"r\", \"d\"{}]\n\n[tcp]\nvariant = \"newreno\"\nmss = 1460\nheader_bytes = {header}\n\
         rcv_buf = \"1MiB\"\nmin_rto = \"200ms\"\n\n[[link]]\na = \"r\"\nb = \"d\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n{queue}\n",
        (0..n).map(|i| format!(", \"s{i}\"")).collect::<String>()
    );
    for i in 0..n {
        s += &format!("\n[[link]]\na = \"s{i}\"\nb = \"r\"\nrate = \"100Mbps\"\n{access_delay}\n");
    }
    for i in 0..n {
        s += &format!("\n[[flow]]\nsrc = \"s{i}\"\ndst = \"d\"\nbytes = 3000000\ntrace = {}\n", i < 2);
        if jitter {
            s += &format!("start = \"{}us\"\n", 37 * i + 11);
        }
    }
    s
}

/// A dumbbell of `n` flows starting `stagger_us` apart over access links of 1 ms (an ACK's
/// arrival was queued long before the instant it arrives), a bottleneck of `rate` and a queue
/// of `queue` packets: full queues at departure instants, offered by events queued before the
/// packet on the wire started (it is still there on the two-event path) and after (it has
/// left), and by the ACK whose arrival was queued by the one that started it (still there).
fn delayed_dumbbell(n: usize, queue: u32, rate: &str, stagger_us: u64) -> String {
    access_dumbbell(n, queue, rate, stagger_us, "delay = \"1ms\"")
}

/// `delayed_dumbbell` with access links of `access_delay` (a TOML line; empty: none).
fn access_dumbbell(n: usize, queue: u32, rate: &str, stagger_us: u64, access_delay: &str) -> String {
    let mut s = format!(
        "duration = \"2s\"\nseed = 3\nnodes = [\"r\", \"d\"{}]\n\n[tcp]\nvariant = \"newreno\"\nmss = 1460\n\
         rcv_buf = \"256KiB\"\nmin_rto = \"200ms\"\n\n[[link]]\na = \"r\"\nb = \"d\"\nrate = \"{rate}\"\ndelay = \"5ms\"\n\
         queue = {queue}\n",
        (0..n).map(|i| format!(", \"s{i}\"")).collect::<String>()
    );
    for i in 0..n {
        s += &format!("\n[[link]]\na = \"s{i}\"\nb = \"r\"\nrate = \"100Mbps\"\n{access_delay}\n");
    }
    for i in 0..n {
        s += &format!(
            "\n[[flow]]\nsrc = \"s{i}\"\ndst = \"d\"\nbytes = 3000000\nstart = \"{}us\"\n",
            stagger_us * i as u64
        );
    }
    s
}

/// Scenarios full of ties: the two paths agree on them (they may not agree on every
/// scenario: docs/scenario.md, "One event per channel crossing").
fn tie_scenarios() -> Vec<(&'static str, String)> {
    vec![
        // Both differ from the two-event path if an offer at a departure instant counts the
        // departure as done whenever its event was queued (the rule before the queue time).
        ("delayed access links, full queues at departures, synchronised", delayed_dumbbell(10, 20, "200Mbps", 0)),
        ("delayed access links, full small queues at departures", delayed_dumbbell(30, 5, "1Gbps", 120)),
        // These differ if such a tie always counts the packet gone (the rule before the
        // channel of the arrival that started it was kept): the ACK-clocked sender.
        ("synchronised, small queue, delayed access links", delayed_dumbbell(10, 5, "200Mbps", 0)),
        ("synchronised, 30 flows, delayed access links", delayed_dumbbell(30, 20, "1Gbps", 0)),
        ("synchronised, 15 flows, delayed access links", delayed_dumbbell(15, 8, "300Mbps", 0)),
        ("synchronised, small queue, zero-delay access links", access_dumbbell(10, 5, "200Mbps", 0, "")),
        ("zero-delay access links, 1-byte ACKs, packet queue", dumbbell(10, "", "queue = 20", 1, false)),
        ("equal round trips, byte queue", dumbbell(10, "delay = \"1ms\"", "queue_bytes = 30000", 40, false)),
        ("staggered starts, packet queue", dumbbell(10, "delay = \"1ms\"", "queue = 20", 40, true)),
        ("one flow, small queue", dumbbell(1, "delay = \"1ms\"", "queue = 5", 40, false)),
        ("zero-delay access links, 1-byte ACKs, tiny queue", dumbbell(20, "", "queue = 3", 1, false)),
    ]
}

#[test]
fn both_paths_give_the_same_report_and_traces_on_scenarios_full_of_ties() {
    for (what, text) in tie_scenarios() {
        let (r2, j2, t2) = outcome(&two_event(&text));
        let (r1, j1, t1) = outcome(&text);
        assert!(outcome(&one_event(&text)).1 == j1, "{what}: one event per crossing is the default");
        assert!(r2.links.iter().map(|l| l.stats.drops_queue).sum::<u64>() > 0, "{what}: the queue drops");
        assert!(j1 == j2, "{what}: the reports differ");
        assert!(t1 == t2, "{what}: the traces differ");
        // Every packet's departure is a TxDone handled at once: `events` is the same, and
        // fewer go through the queue.
        assert_eq!(r1.events, r2.events, "{what}");
        assert!(r1.queued_events * 10 < r2.queued_events * 7, "{what}: {} vs {}", r1.queued_events, r2.queued_events);
    }
}

#[test]
fn one_event_runs_conserve_packets_and_repeat_byte_for_byte() {
    // A short run ends with packets waiting, on the wire and propagating.
    let text = one_event(&dumbbell(20, "", "queue = 3", 1, false).replace("duration = \"3s\"", "duration = \"150ms\""));
    let (r, json, traces) = outcome(&text);
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
    assert!(c.in_flight > 0 && c.dropped > 0, "{c:?}");
    let bottleneck = &r.links[0].stats;
    assert!(bottleneck.arrivals > bottleneck.tx_packets + bottleneck.drops_queue, "packets still waiting");
    for l in &r.links {
        let s = &l.stats;
        assert!(s.tx_packets >= s.delivered && s.arrivals >= s.tx_packets + s.drops_queue, "{s:?}");
    }
    assert_eq!(outcome(&text), (r, json, traces));
}

#[test]
fn a_bad_value_names_the_field() {
    let text = dumbbell(1, "", "queue = 5", 40, false);
    for (bad, field) in [("one_event_channels = \"yes\"", "sim.one_event_channels"), ("fast = true", "sim.fast")] {
        match run_scenario(&format!("{text}\n[sim]\n{bad}\n"), &RunOptions::default()) {
            Err(tcplab_core::Error::Scenario(e)) => assert_eq!(e.field, field, "{}", e.message),
            Err(e) => panic!("expected a scenario error, got {e}"),
            Ok(_) => panic!("{bad} was accepted"),
        }
    }
}
