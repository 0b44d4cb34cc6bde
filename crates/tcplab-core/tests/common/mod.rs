//! A two-host harness: sender `a` and receiver `b` joined by one link, driven by TOML.
#![allow(dead_code)]

use tcplab_core::metrics::{FlowTrace, RunReport};
use tcplab_core::{run_scenario, RunOptions};

pub const MS: f64 = 1e-3;

/// Two senders into router `r` of a dumbbell whose bottleneck `r`-`d` the scenario declares:
/// `s0` over 100 Mb/s and 5 ms, `s1` over 100 Mb/s and 20 ms (unequal round trips), a flow
/// from each to `d`; keys written right after it belong to `s1`'s flow.
pub const TWO_SOURCES_UNEQUAL_RTT: &str = r#"[[link]]
a = "s0"
b = "r"
rate = "100Mbps"
delay = "5ms"
[[link]]
a = "s1"
b = "r"
rate = "100Mbps"
delay = "20ms"
[[flow]]
src = "s0"
dst = "d"
[[flow]]
src = "s1"
dst = "d"
"#;

/// A scenario: one flow of `bytes` from a to b over a 10 Mb/s, 10 ms link (both ways),
/// with `tcp` lines for the flow's TCP table and `loss_ab` for the data direction.
pub fn two_hosts(tcp: &str, loss_ab: &str, bytes: u64, duration_s: f64) -> String {
    format!(
        r#"
duration = {duration_s}
nodes = ["a", "b"]

[tcp]
mss = 1000
rcv_buf = "1MiB"
min_rto = "1s"

[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"
queue = 1000
{loss}

[[flow]]
src = "a"
dst = "b"
bytes = {bytes}
trace = true

[flow.tcp]
{tcp}
"#,
        loss = if loss_ab.is_empty() { String::new() } else { format!("[link.ab]\nloss = {loss_ab}") },
    )
}

pub fn drop_segments(segs: &[u64]) -> String {
    let v: Vec<String> = segs.iter().map(|s| s.to_string()).collect();
    format!("{{ model = \"drop_list\", flow = 0, by = \"segment\", values = [{}] }}", v.join(", "))
}

pub fn run(text: &str) -> (RunReport, FlowTrace) {
    let (r, mut t) = run_scenario(text, &RunOptions::default()).expect("scenario runs");
    (r, t.remove(0))
}

pub fn run_seed(text: &str, seed: u64) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(seed), out_dir: None }).expect("scenario runs").0
}

/// Send times (s) of every transmission of the segment starting at `offset`.
pub fn sends_of(t: &FlowTrace, offset: u64) -> Vec<f64> {
    t.sends.iter().filter(|s| s.offset == offset).map(|s| s.time as f64 / 1e9).collect()
}

/// Offsets of the retransmitted segments, in order.
pub fn retransmitted(t: &FlowTrace) -> Vec<u64> {
    t.sends.iter().filter(|s| s.retransmit).map(|s| s.offset).collect()
}

/// Segments 60, 62, ... (every other one, inside one window), `n` of them.
pub fn every_other_from_60(n: u64) -> Vec<u64> {
    (0..n).map(|i| 60 + 2 * i).collect()
}

/// Time (s) of the first retransmission of each dropped segment (1-based, 1000-byte segments).
pub fn repair_times(t: &FlowTrace, drops: &[u64]) -> Vec<f64> {
    drops
        .iter()
        .map(|d| {
            let off = (d - 1) * 1000;
            t.sends.iter().find(|s| s.offset == off && s.retransmit).map(|s| s.time as f64 / 1e9).expect("resent")
        })
        .collect()
}
