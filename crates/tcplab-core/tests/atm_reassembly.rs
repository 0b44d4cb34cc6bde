//! AAL5's maximum length and reassembly timer on a two-host cell path: frames that can never
//! complete are thrown away and counted as lost, and the ledgers still balance.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, Error, RunOptions};

/// Host a sends `segments` segments of 968 bytes (1008 on the wire: 21 cells under the flag
/// framing) to host b over one 10 Mb/s cell link; `atm` goes into `[atm]`, and `drops` lists
/// cells of the flow (1-based) lost on a->b.
fn path(atm: &str, drops: &[u64], segments: u64, duration: f64) -> String {
    let drops = drops.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
    format!(
        "duration = {duration}\nnodes = [\"a\", \"b\"]\n[atm]\nframing = \"flag\"\nllc_snap = false\n{atm}\n\
         [tcp]\nmss = 968\nhandshake = \"none\"\ninitial_cwnd = 4\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\natm = true\nqueue = 100000\n[link.ab]\n\
         loss = {{ model = \"drop_list\", flow = 0, by = \"tx_index\", values = [{drops}] }}\n\
         [[flow]]\nsrc = \"a\"\ndst = \"b\"\nbytes = {}\n",
        segments * 968
    )
}

fn run(text: &str) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(1), out_dir: None }).expect("runs, ledgers balanced").0
}

#[test]
fn frames_longer_than_max_frame_are_refused_before_the_run() {
    // 1008 bytes is more than a 500-byte maximum (11 cells): no data frame could ever be
    // reassembled, so the scenario is refused (issue 27) instead of running with nothing
    // delivered. Buffers that grow past the maximum by joining frames are cut at run time
    // (below).
    match run_scenario(&path("max_frame = 500", &[], 2, 10.0), &RunOptions::default()) {
        Err(Error::Scenario(e)) => {
            assert_eq!(e.field, "flow[0].tcp.mss");
            assert!(e.message.contains("21 cells") && e.message.contains("(11 cells)"), "{}", e.message);
        }
        other => panic!("expected a scenario error, got {:?}", other.map(|r| r.0.events)),
    }
}

/// Every frame of the flow loses its flagged last cell (the 21st, 42nd, ... cell), so no
/// frame ever ends: the receiving buffer only grows.
fn every_last_cell_lost(atm: &str) -> RunReport {
    let drops: Vec<u64> = (1..=200).map(|k| 21 * k).collect();
    run(&path(atm, &drops, 10, 60.0))
}

#[test]
fn frames_stuck_in_reassembly_are_lost_only_with_a_length_or_time_limit() {
    // No limit at all: nothing arrives, yet no packet is ever settled as lost; the frames sit
    // in the buffer as cells in flight (the defect the limits remove).
    let stuck = every_last_cell_lost("max_frame = 100000000");
    assert_eq!(stuck.flows[0].bytes_delivered, 0);
    assert_eq!(stuck.conservation.dropped, 0);
    assert!(stuck.conservation.in_flight >= stuck.flows[0].data_segments);

    // A 2000-byte maximum (42 cells) cuts the growing buffer every two frames or so.
    let length = every_last_cell_lost("max_frame = 2000");
    let (f, c) = (&length.flows[0], &length.conservation);
    assert_eq!(f.bytes_delivered, 0);
    assert!(c.cells.frames_discarded_length >= f.data_segments / 3, "{c:?} {f:?}");
    assert_eq!(c.cells.frames_discarded_timeout, 0);
    assert!(c.dropped > 0 && c.dropped == f.frames_lost_reassembly, "{c:?} {f:?}");
    assert!(c.in_flight <= 2, "at most the frames of the last, uncut buffer: {c:?}");

    // The reassembly timer alone does it too.
    let timer = every_last_cell_lost("max_frame = 100000000\nreassembly_timeout = \"500ms\"");
    let (f, c) = (&timer.flows[0], &timer.conservation);
    assert_eq!(c.cells.frames_discarded_length, 0);
    assert!(c.cells.frames_discarded_timeout >= 3, "{c:?}");
    assert!(c.dropped > 0 && c.dropped == f.frames_lost_reassembly, "{c:?} {f:?}");
}

#[test]
fn a_frame_whose_cells_stop_arriving_is_discarded_when_the_timer_runs_out() {
    // One segment; its flagged cell is lost. Without a timer the buffer waits for the
    // retransmission 3 s later (the initial RTO), whose cells join it: both copies are lost
    // and a second timeout is needed. With a 1 s timer the first copy is thrown away (and
    // counted) before the retransmission arrives, which is then delivered.
    let without = run(&path("", &[21], 1, 30.0));
    assert_eq!(without.flows[0].bytes_delivered, 968);
    assert_eq!((without.flows[0].timeouts, without.conservation.dropped), (2, 2));
    assert_eq!(without.conservation.cells.frames_discarded_timeout, 0);

    let with = run(&path("reassembly_timeout = \"1s\"", &[21], 1, 30.0));
    let (f, c) = (&with.flows[0], &with.conservation);
    assert_eq!(f.bytes_delivered, 968);
    assert_eq!((f.timeouts, f.retransmits), (1, 1), "{f:?}");
    assert_eq!(c.cells.frames_discarded_timeout, 1);
    assert_eq!((c.dropped, f.frames_lost_reassembly), (1, 1));
    assert_eq!(c.cells.discarded, 20);
}

#[test]
fn reassembly_limits_name_their_field_when_wrong() {
    for (atm, field) in [
        ("max_frame = 0", "atm.max_frame"),
        ("max_frame = \"lots\"", "atm.max_frame"),
        ("reassembly_timeout = 0", "atm.reassembly_timeout"),
        ("reassembly_timeout = \"soon\"", "atm.reassembly_timeout"),
    ] {
        match run_scenario(&path(atm, &[], 1, 1.0), &RunOptions::default()) {
            Err(Error::Scenario(e)) => assert_eq!(e.field, field, "{atm}: {}", e.message),
            other => panic!("{atm}: expected a scenario error, got {:?}", other.map(|r| r.0.events)),
        }
    }
}

#[test]
fn runs_with_reassembly_timers_are_deterministic() {
    let drops: Vec<u64> = (1..=60).map(|k| 21 * k).collect();
    let text = path("max_frame = 3000\nreassembly_timeout = \"300ms\"", &drops, 10, 40.0);
    let once = || serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text) }).unwrap();
    let a = once();
    assert!(a.contains("\"frames_discarded_timeout\":") && !a.contains("\"frames_discarded_timeout\":0"), "{a}");
    assert_eq!(a, once());
}

#[test]
fn a_boston_frame_cut_before_its_end_is_handed_on_once() {
    // TCP Boston's receiving AAL hands on what arrived of a frame (partial mode). A length cut
    // or an expired timer can hand on the first part of a frame whose other cells are still
    // on their way; those cells must not make a second packet of the same frame, or the packet
    // ledger counts one packet as delivered twice (the run then fails its conservation check).
    let boston = |atm: &str, drops: &[u64]| path(atm, drops, 6, 10.0).replace("[tcp]\n", "[tcp]\ncodec = \"boston\"\n");
    // A Boston frame of 968 bytes is a header cell and 21 shards: 22 cells; 1100 bytes hold 23.
    // Its lost last cell (the 22nd) makes the next frame join its buffer, which is cut.
    for (atm, drops) in [("max_frame = 1100", &[22][..]), ("max_frame = 100000000\nreassembly_timeout = \"1us\"", &[])]
    {
        let r = run(&boston(atm, drops));
        let c = &r.conservation;
        assert!(c.cells.frames_discarded_length + c.cells.frames_discarded_timeout > 0, "{atm}: {c:?}");
    }
}
