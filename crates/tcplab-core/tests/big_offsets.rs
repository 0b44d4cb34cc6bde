//! Past 32 bits of sequence space: the window limit that keeps 32-bit sequence numbers exact,
//! and drop lists that name offsets beyond 4 GiB (issue 11's reproducer, scaled to the limit).

use tcplab_core::{run_scenario, RunOptions};

/// One 20 GB transfer over a 100 Gb/s, 200 ms link with 64 KB segments.
fn reproducer(rcv_buf: &str, drop: &str) -> String {
    format!(
        r#"
duration = "30s"
nodes = ["a", "b"]

[tcp]
variant = "newreno"
mss = 65495
rcv_buf = {rcv_buf}
initial_cwnd = 100
min_rto = "1s"

[[link]]
a = "a"
b = "b"
rate = "100Gbps"
delay = "200ms"
queue = 100000
[link.ab]
loss = {drop}

[[flow]]
src = "a"
dst = "b"
bytes = 20000000000
"#
    )
}

#[test]
fn a_window_beyond_rfc7323s_cap_is_refused_naming_the_field() {
    let text = reproducer("4294967295", r#"{ model = "drop_list", flow = 0, by = "segment", values = [10] }"#);
    let e = run_scenario(&text, &RunOptions::default()).unwrap_err().to_string();
    assert!(e.contains("tcp.rcv_buf") && e.contains("2^30"), "{e}");
    assert_eq!(e.lines().count(), 1);
}

#[test]
fn the_largest_window_runs_exactly_past_4_gib_and_drop_lists_reach_there() {
    // Segment 80,000 starts at 5.2 GB, beyond 2^32, where a 32-bit offset would have wrapped.
    let seg = 80_000u64;
    for (by, value) in [("segment", seg), ("offset", (seg - 1) * 65495)] {
        let drop = format!(r#"{{ model = "drop_list", flow = 0, by = "{by}", values = [{value}] }}"#);
        let (r, _) = run_scenario(&reproducer("\"1024MiB\"", &drop), &RunOptions::default()).unwrap();
        let f = &r.flows[0];
        assert_eq!(f.bytes_delivered, 20_000_000_000, "by {by}");
        let lost: u64 = r.links.iter().map(|l| l.stats.drops_loss).sum();
        assert_eq!(lost, 1, "by {by}: the drop past 4 GiB happened");
        assert!(f.retransmits >= 1, "by {by}");
    }
}
