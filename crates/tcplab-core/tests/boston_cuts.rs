//! Issue 27's conservation reproducers: a TCP Boston frame cut short at reassembly (by the
//! reassembly timer or by `max_frame`) is handed on as a partial packet while its later cells
//! are still on the link. The packet ledger must count it delivered once and no longer in
//! flight; the cell ledger still counts its cells in flight until they arrive.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, RunOptions};

/// Two hosts, one 64 kb/s cell link, Boston's codec, `flows` bulk flows; `atm` goes into `[atm]`.
fn slow_cell_link(atm: &str, flows: usize, duration: &str) -> String {
    format!(
        "duration = \"{duration}\"\nnodes = [\"a\", \"b\"]\n[atm]\n{atm}\n[tcp]\ncodec = \"boston\"\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"64kbps\"\ndelay = \"1ms\"\natm = true\n{}",
        "[[flow]]\nsrc = \"a\"\ndst = \"b\"\n".repeat(flows)
    )
}

fn run(text: &str) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(1), out_dir: None }).expect("runs with its ledgers balanced").0
}

#[test]
fn a_boston_frame_cut_by_the_reassembly_timer_is_delivered_once_and_not_in_flight() {
    // The 13 lines: a 1500-byte Boston frame is 33 cells, 218 ms on this link; the
    // 10 ms timer cuts it after its first cells and hands them on while the rest still travel.
    let r = run(&slow_cell_link("reassembly_timeout = \"10ms\"", 1, "200ms"));
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    assert!(c.cells.frames_discarded_timeout >= 1, "the timer cut a frame: {c:?}");
    assert!(c.cells.in_flight > 0, "the cut frame's later cells are still on their way: {c:?}");
    assert!(r.flows[0].partial_segments >= 1, "{:?}", r.flows[0]);
}

#[test]
fn boston_frames_cut_by_max_frame_are_delivered_once_and_not_in_flight() {
    // The second case, 4 flows with `max_frame = "48B"`, is refused now: no segment
    // fits (`config::paths`). A max_frame a segment fits (1460 bytes: 33 cells; 1600: 34) is
    // still exceeded when a lost last cell makes the next frame join the buffer.
    let refused = run_scenario(&slow_cell_link("max_frame = \"48B\"", 4, "200ms"), &RunOptions::default());
    assert!(matches!(refused, Err(tcplab_core::Error::Scenario(e)) if e.field == "flow[0].tcp.mss"));
    let lossy = slow_cell_link("max_frame = \"1600B\"", 4, "5s")
        .replace("atm = true\n", "atm = true\nloss = { model = \"bernoulli\", p = 0.05 }\n");
    // At 5 s a cut frame's later cells are still on the link (where the old count failed).
    let r = run(&lossy);
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    assert!(c.cells.frames_discarded_length >= 1, "{c:?}");
}
