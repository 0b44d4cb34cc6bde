//! ATM: cells, switches, drop policies, AAL5 reassembly, and TCP Boston over them.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, RunOptions};

/// Bestavros and Kim (1997)'s network: `n` sources and one sink on one output-buffered switch, all links
/// 1.5 Mb/s and 10 ms; `buffer` cells at the switch's output to the sink.
fn star(n: usize, tcp: &str, buffer: u32, drop: &str, extra_link: &str, duration: f64) -> String {
    let mss = if tcp.contains("mss") { "" } else { "mss = 9140\n" };
    let mut s = format!(
        "duration = {duration}\nnodes = [\"sw\", \"sink\", {}]\nswitches = [\"sw\"]\n[atm]\ntrailer = false\nllc_snap = false\n[tcp]\nvariant = \"reno\"\n{mss}rcv_buf = 65535\ntimer = \"100ms\"\n{tcp}\n",
        (0..n).map(|i| format!("\"s{i}\"")).collect::<Vec<_>>().join(", ")
    );
    s += &format!(
        "[[link]]\na = \"sw\"\nb = \"sink\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\natm = true\nqueue = 100000\n{extra_link}\n[link.ab]\nqueue = {buffer}\n{drop}\n"
    );
    for i in 0..n {
        s += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"sw\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\natm = true\nqueue = 100000\n"
        );
    }
    for i in 0..n {
        s += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"sink\"\nstart = {}\n", i as f64 * 0.05);
    }
    s
}

fn run(text: &str, seed: u64) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(seed), out_dir: None }).expect("runs").0
}

/// Application bytes delivered per second over the bottleneck's capacity in payload bytes.
fn goodput_fraction(r: &RunReport) -> f64 {
    let bytes: u64 = r.flows.iter().map(|f| f.bytes_delivered).sum();
    bytes as f64 * 8.0 / r.sim_time_s / 1.5e6
}

#[test]
fn cells_cross_the_switch_and_packets_are_rebuilt() {
    let r = run(&star(1, "", 4000, "", "", 10.0), 1);
    let f = &r.flows[0];
    assert!(f.bytes_delivered > 1_000_000, "{f:?}");
    assert_eq!(f.retransmits, 0, "a 4000-cell buffer holds a 64 KB window");
    let bottleneck = &r.links[0];
    assert!(bottleneck.atm);
    // 9180-byte packets are 192 cells; the sink link carries cells of 53 bytes.
    assert_eq!(bottleneck.stats.tx_bytes, bottleneck.stats.tx_packets * 53);
    assert!(r.conservation.cells.created > 0);
}

#[test]
fn sixteen_reno_sources_lose_whole_packets_to_single_cell_drops() {
    let r = run(&star(16, "", 512, "", "", 30.0), 1);
    let c = &r.conservation.cells;
    assert!(c.dropped > 0);
    // Most cells that crossed the bottleneck still belong to packets AAL5 threw away: the
    // delivered payload is far below what the link carried.
    let carried = r.links[0].stats.tx_bytes as f64 * 8.0 / r.sim_time_s / 1.5e6;
    assert!(goodput_fraction(&r) < carried - 0.1, "goodput {} of carried {carried}", goodput_fraction(&r));
}

/// Fraction of the cells crossing the bottleneck that belonged to frames AAL5 threw away.
fn wasted_fraction(r: &RunReport) -> f64 {
    r.conservation.cells.discarded as f64 / r.links[0].stats.tx_packets as f64
}

#[test]
fn epd_keeps_the_bottleneck_for_whole_packets() {
    let seed = 2;
    let plain = run(&star(16, "", 512, "", "", 30.0), seed);
    let epd = run(&star(16, "", 512, "drop = { policy = \"epd\", threshold = 0.5 }", "", 30.0), seed);
    let ppd = run(&star(16, "", 512, "drop = { policy = \"ppd\" }", "", 30.0), seed);
    let (w_plain, w_ppd, w_epd) = (wasted_fraction(&plain), wasted_fraction(&ppd), wasted_fraction(&epd));
    eprintln!(
        "wasted: plain {w_plain}, ppd {w_ppd}, epd {w_epd}; goodput plain {} ppd {} epd {}",
        goodput_fraction(&plain),
        goodput_fraction(&ppd),
        goodput_fraction(&epd)
    );
    assert!(
        w_epd < w_ppd && w_epd < 0.5 * w_plain && w_plain > 0.02,
        "wasted: plain {w_plain}, ppd {w_ppd}, epd {w_epd}"
    );
}

#[test]
fn boston_gets_more_goodput_than_reno_under_cell_loss() {
    let reno = run(&star(16, "", 512, "", "", 30.0), 1);
    let boston = run(&star(16, "codec = \"boston\"\nboston_verify_every = 20", 512, "", "", 30.0), 1);
    assert!(boston.flows.iter().map(|f| f.partial_segments).sum::<u64>() > 0);
    assert!(
        goodput_fraction(&boston) > goodput_fraction(&reno),
        "{} vs {}",
        goodput_fraction(&boston),
        goodput_fraction(&reno)
    );
}

#[test]
fn boston_delivers_every_byte_under_random_cell_loss_and_decodes_them() {
    // Random cell loss on the sink link; every segment rebuilt with coded shards is decoded
    // from exactly the shards that arrived and compared with the application's bytes (a
    // mismatch fails the run).
    let text = star(1, "mss = 1000\ncodec = \"boston\"", 100_000, "", "", 60.0)
        .replace(
            "[[flow]]\nsrc = \"s0\"\ndst = \"sink\"\nstart = 0",
            "[[flow]]\nsrc = \"s0\"\ndst = \"sink\"\nbytes = 300000\nstart = 0",
        )
        .replace(
            "queue = 100000\n\n[link.ab]",
            "queue = 100000\n\n[link.ab]\nloss = { model = \"bernoulli\", p = 0.01 }",
        );
    for seed in 0..5 {
        let r = run(&text, seed);
        let f = &r.flows[0];
        assert_eq!(f.bytes_delivered, 300_000, "seed {seed}");
        assert!(f.partial_segments > 0, "seed {seed}: some segments must arrive incomplete");
    }
}

#[test]
fn boston_redundancy_masks_losses_without_retransmission() {
    // With 4 extra shards per segment, a segment survives up to 4 lost cells.
    let text = |red: u32| {
        star(1, &format!("mss = 1000\ncodec = \"boston\"\nboston_redundancy = {red}"), 100_000, "", "", 60.0)
            .replace("start = 0\n", "start = 0\nbytes = 200000\n")
            .replace(
                "queue = 100000\n\n[link.ab]",
                "queue = 100000\n\n[link.ab]\nloss = { model = \"bernoulli\", p = 0.005 }",
            )
    };
    let none = run(&text(0), 3);
    let four = run(&text(4), 3);
    assert_eq!(four.flows[0].bytes_delivered, 200_000);
    assert!(none.flows[0].retransmits > 0);
    assert_eq!(four.flows[0].retransmits, 0, "{:?}", four.flows[0]);
}

#[test]
fn the_bitmap_variant_also_delivers_everything() {
    let text = star(1, "mss = 1000\ncodec = \"boston_bitmap\"", 100_000, "", "", 60.0)
        .replace("start = 0\n", "start = 0\nbytes = 200000\n")
        .replace(
            "queue = 100000\n\n[link.ab]",
            "queue = 100000\n\n[link.ab]\nloss = { model = \"bernoulli\", p = 0.01 }",
        );
    let r = run(&text, 2);
    assert_eq!(r.flows[0].bytes_delivered, 200_000);
    assert!(r.flows[0].partial_segments > 0);
}

#[test]
fn atm_runs_are_deterministic() {
    // Decoding a 199-shard segment over GF(2^16) takes a large fraction of a second in a
    // test build: check one rebuilt segment in a hundred here.
    let text = star(
        4,
        "codec = \"boston\"\nboston_verify_every = 100",
        256,
        "drop = { policy = \"sd\", threshold = 0.8, z = 0.8 }",
        "",
        10.0,
    );
    let a = serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text, 9) }).unwrap();
    let b = serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text, 9) }).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_9180_byte_boston_segment_recovers_95_lost_cells_with_one_retransmission() {
    // 9140 payload bytes are m = 199 shards of 46 bytes (N = 398 > 256 needs 2-byte ids and
    // GF(2^16)); 95 of the first frame's cells are lost at the switch, so one retransmission
    // of 95 fresh shards completes the segment, decoded and checked against the bytes.
    let text = star(
        1,
        "codec = \"boston\"",
        100_000,
        "loss = { model = \"drop_list\", flow = 0, by = \"tx_index\", values = [DROPS] }",
        "",
        60.0,
    )
    .replace("start = 0\n", "start = 0\nbytes = 9140\n")
    .replace("DROPS", &(101..=195).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let r = run(&text, 1);
    let f = &r.flows[0];
    assert_eq!(f.bytes_delivered, 9140);
    assert_eq!((f.retransmits, f.timeouts + f.fast_retransmits), (1, 1), "{f:?}");
    assert_eq!(f.partial_segments, 1);
}

/// A switch leading onto a slow link, `atm` on that link as given: the shape of a hostile
/// probe's scenario (stop 53) whose cells crossed a packet link after the switch, as TCP
/// Boston's packet access links have them do, and were dropped there: the run then failed its
/// end-of-run check ("drop counters disagree"), the link counting them as packets.
fn switch_then_slow_link(atm: bool, queue: &str) -> String {
    format!(
        "duration = \"500ms\"\nnodes = [\"s\", \"sw\", \"d\"]\nswitches = [\"sw\"]\n\
         [[link]]\na = \"s\"\nb = \"sw\"\nrate = \"1Gbps\"\natm = true\n\
         [[link]]\na = \"sw\"\nb = \"d\"\nrate = \"1Mbps\"\natm = {atm}\n{queue}\n\
         [[flow]]\nsrc = \"s\"\ndst = \"d\"\n"
    )
}

#[test]
fn cells_dropped_by_a_packet_link_after_a_switch_are_counted_as_cells() {
    for (atm, queue) in [(false, ""), (false, "queue_bytes = 0"), (true, "")] {
        // `run` fails on the end-of-run checks, the drop counters' among them.
        let r = run(&switch_then_slow_link(atm, queue), 1);
        assert!(r.links[2].stats.drops_queue > 0, "{atm} {queue}: the slow link dropped nothing");
        assert_eq!(r.conservation.cells.dropped, r.links[2].stats.drops_queue, "{atm} {queue}");
    }
}
