//! AAL framing on a two-host cell path: the header-flag framing of Bestavros and Kim (1997),
//! Sec. 3 (no trailer), against real AAL5.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, Error, RunOptions};

/// Host a sends `segments` segments of 968 bytes (1008 on the wire: 21 cells bare, 22 with the
/// AAL5 trailer) to host b over one 10 Mb/s cell link; `atm` is the `[atm]` table's body and
/// `loss` extra keys of the a->b direction.
fn path(atm: &str, loss: &str, segments: u64) -> String {
    format!(
        "duration = 20\nnodes = [\"a\", \"b\"]\n[atm]\nllc_snap = false\n{atm}\n[tcp]\nmss = 968\nhandshake = \"none\"\ninitial_cwnd = 4\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\natm = true\nqueue = 100000\n[link.ab]\n{loss}\n\
         [[flow]]\nsrc = \"a\"\ndst = \"b\"\nbytes = {}\n",
        segments * 968
    )
}

fn run(text: &str) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(1), out_dir: None }).expect("runs").0
}

fn error_field(text: &str) -> (String, String) {
    match run_scenario(text, &RunOptions::default()) {
        Err(Error::Scenario(e)) => (e.field, e.message),
        Err(e) => panic!("expected a scenario error, got {e}"),
        Ok(_) => panic!("expected a scenario error, the run succeeded"),
    }
}

/// Drop the n-th cell (1-based) of flow 0 crossing a->b.
fn drop_cell(n: u64) -> String {
    format!("loss = {{ model = \"drop_list\", flow = 0, by = \"tx_index\", values = [{n}] }}")
}

#[test]
fn flag_framing_sends_no_trailer() {
    let flag = run(&path("framing = \"flag\"", "", 10));
    let aal5 = run(&path("", "", 10));
    for r in [&flag, &aal5] {
        assert_eq!(r.flows[0].bytes_delivered, 9680);
        assert_eq!((r.flows[0].data_segments, r.flows[0].retransmits), (10, 0));
    }
    assert_eq!(flag.flows[0].acks_sent, aal5.flows[0].acks_sent);
    // Each data segment is one cell shorter without the 8-byte trailer; an ACK is one cell
    // either way.
    assert_eq!(aal5.conservation.cells.created - flag.conservation.cells.created, 10);
    assert_eq!(flag.conservation.cells.created, 10 * 21 + flag.flows[0].acks_sent);
}

#[test]
fn a_lost_flagged_cell_under_flag_framing_loses_its_frame_and_the_next() {
    // Cell 21 is the first segment's flagged last cell: the second segment's cells join the
    // open frame, its first cell's IP length (21 cells) disagrees with the 41 cells before the
    // next flag, and both segments are lost.
    let r = run(&path("framing = \"flag\"", &drop_cell(21), 10));
    let c = &r.conservation;
    assert_eq!(r.flows[0].bytes_delivered, 9680, "recovery resends both");
    assert_eq!(c.dropped, 2, "{c:?}");
    assert_eq!(c.cells.dropped, 1);
    assert_eq!(c.cells.discarded, 20 + 21);
    assert!(r.flows[0].retransmits >= 2, "{:?}", r.flows[0]);
    // A simulator that knows the packet boundaries loses only the first.
    let per_packet = run(&path("framing = \"flag\"\nreassembly = \"per_packet\"", &drop_cell(21), 10));
    assert_eq!((per_packet.conservation.dropped, per_packet.conservation.cells.discarded), (1, 20));
}

#[test]
fn a_lost_first_cell_under_flag_framing_loses_only_its_frame() {
    // Without its first cell the frame has no IP header to read; the flag still ends it, so
    // the next segment is delivered.
    let r = run(&path("framing = \"flag\"", &drop_cell(1), 10));
    assert_eq!(r.conservation.dropped, 1);
    assert_eq!(r.conservation.cells.discarded, 20);
    assert_eq!(r.flows[0].bytes_delivered, 9680);
}

#[test]
fn flag_framing_refuses_a_trailer_and_unknown_framings() {
    let (f, m) = error_field(&path("framing = \"flag\"\ntrailer = true", "", 1));
    assert_eq!(f, "atm.trailer");
    assert!(m.contains("flag"), "{m}");
    let (f, m) = error_field(&path("framing = \"pti\"", "", 1));
    assert_eq!(f, "atm.framing");
    assert!(m.contains("aal5 or flag"), "{m}");
    // An explicit `trailer = false` is fine.
    assert_eq!(run(&path("framing = \"flag\"\ntrailer = false", "", 1)).flows[0].bytes_delivered, 968);
}
