//! TCP Boston's IDA sender and the per-packet AAL it relies on, on a two-host cell path with
//! chosen cells dropped: every retransmitted shard is one the receiver lacks while the
//! dispersal has fresh ones (Bestavros and Kim 1997, Sec. 2.1: "every cell that makes it
//! through the network is used"), and a frame whose flagged last cell was dropped is judged
//! when its last surviving cell arrives, so its partial ACK is not late.

mod common;
use common::sends_of;
use tcplab_core::metrics::{FlowTrace, RunReport};
use tcplab_core::{run_scenario, RunOptions};

/// One 470-byte Boston segment (m = 10 shards: a header cell and 10 shard cells) from a to b
/// over a 10 Mb/s cell link of `delay`; `drops` lists cells of the flow (1-based) lost on a->b;
/// `extra` goes into `[tcp]` and `reassembly` into `[atm]`.
fn path(extra: &str, reassembly: &str, delay: &str, drops: &str) -> String {
    format!(
        "duration = 60\nnodes = [\"a\", \"b\"]\n[atm]\ntrailer = false\nllc_snap = false\nframing = \"flag\"\n\
         reassembly = \"{reassembly}\"\n\
         [tcp]\nmss = 470\ncodec = \"boston\"\nhandshake = \"none\"\nmax_cwnd = 1\n{extra}\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"{delay}\"\natm = true\nqueue = 100000\n[link.ab]\n\
         loss = {{ model = \"drop_list\", flow = 0, by = \"tx_index\", values = [{drops}] }}\n\
         [[flow]]\nsrc = \"a\"\ndst = \"b\"\nbytes = 470\ntrace = true\n"
    )
}

fn run(text: &str) -> (RunReport, FlowTrace) {
    let (r, mut t) = run_scenario(text, &RunOptions { seed: Some(1), out_dir: None }).expect("runs");
    (r, t.remove(0))
}

/// The first copy (cells 1-11) keeps its header cell and shards 0 and 1 (r = 2); the answer
/// of 8 fresh shards (cells 12-20: a header cell and shards 10-17) loses its last four, so the
/// receiver holds 6 shards, two of them coded ones from the first answer's head.
const TAIL_DROPS: &str = "4, 5, 6, 7, 8, 9, 10, 11, 17, 18, 19, 20";

#[test]
fn with_n_much_larger_than_m_every_retransmitted_shard_is_new_to_the_receiver() {
    // N = 8m: the second answer is shards 18-21, all never sent, and completes the segment.
    let (r, t) = run(&path("boston_partial = \"fresh\"\nboston_dispersal = 8", "per_packet", "5ms", TAIL_DROPS));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 470);
    assert_eq!((f.retransmits, f.timeouts), (2, 0), "{f:?}");
    assert_eq!(f.boston_repeated_shards, Some(0));
    // 11 cells first, then a header cell and 8 shards, then one and 4: the retransmission
    // rate counts them at their size, 14 of 25.
    assert_eq!((f.boston_cells_sent, f.boston_cells_retransmitted), (Some(25), Some(14)));
    assert!(f.completion_time_s.unwrap() < 0.1, "{f:?}");
    assert_eq!(sends_of(&t, 0).len(), 3);
}

#[test]
fn with_n_twice_m_the_last_fresh_shards_go_first_and_only_then_old_ones() {
    // N = 2m leaves 10 coded shards. The second answer asks for 4 and gets the two fresh ones
    // left (18 and 19), not shards 10-13 again, which the receiver holds; only then, all N
    // sent, do coded shards go again (the oldest, 10 and 11, which it also holds), so the
    // segment takes more rounds and the timer. The study disperses into N = 8m for this.
    let (r, _) = run(&path("boston_partial = \"fresh\"", "per_packet", "5ms", TAIL_DROPS));
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 470);
    assert!(f.retransmits > 3 && f.timeouts > 0, "{f:?}");
    assert!(f.boston_repeated_shards.unwrap() >= 2, "{f:?}");
}

#[test]
fn per_packet_reassembly_ends_a_frame_that_lost_its_flagged_cell_at_its_last_survivor() {
    // Cell 11, the flagged last cell, is dropped. Per packet, the receiver's AAL judges the
    // frame when its tenth cell arrives: the partial ACK (9 shards held) comes one round trip
    // after the first send and the missing shard leaves at once ("fresh"). Real AAL5 has no
    // end for the frame until more cells come on the circuit, here the timer's resend 3 s later.
    for delay in ["5ms", "1us"] {
        // With 1 us of propagation the first ten cells are in before cell 11 is dropped at the
        // sender's link: the drop itself ends the frame.
        let (r, t) = run(&path("boston_partial = \"fresh\"", "per_packet", delay, "11"));
        let f = &r.flows[0];
        assert_eq!(f.bytes_delivered, 470);
        assert_eq!((f.retransmits, f.timeouts, f.partial_segments), (1, 0, 1), "{delay}: {f:?}");
        let sends = sends_of(&t, 0);
        assert!(sends[1] - sends[0] < 0.02, "{delay}: {sends:?}");
    }
    let (aal5, _) = run(&path("boston_partial = \"fresh\"", "aal5", "5ms", "11"));
    let f = &aal5.flows[0];
    assert_eq!(f.bytes_delivered, 470);
    assert!(f.timeouts >= 1 && f.completion_time_s.unwrap() > 3.0, "{f:?}");
}

#[test]
fn a_lost_frame_is_settled_per_packet_without_waiting_for_the_next() {
    // Plain TCP: the frame's flagged cell is dropped; per packet its loss is settled when the
    // last surviving cell arrives (no cells are left in reassembly), so the ledger balances
    // with nothing in flight at the end.
    let text = path("", "per_packet", "5ms", "11").replace("codec = \"boston\"\n", "");
    let (r, _) = run(&text.replace("bytes = 470", "bytes = 940").replace("max_cwnd = 1", "max_cwnd = 2"));
    let c = &r.conservation;
    assert_eq!(r.flows[0].bytes_delivered, 940);
    assert_eq!(r.flows[0].frames_lost_reassembly, 1);
    assert_eq!((c.in_flight, c.cells.in_flight), (0, 0), "{c:?}");
}
