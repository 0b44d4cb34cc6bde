//! The delay-based AQMs (CoDel, RFC 8289; PIE, RFC 8033; FQ-CoDel, RFC 8290) in whole runs:
//! the per-departure sojourn trace (`sojourn-N.csv`) and what it shows, drops counted as the
//! queue's and in the UDP table, conservation (every run checks it at its end), runs repeat.

use std::path::PathBuf;

use tcplab_core::metrics::RunReport;
use tcplab_core::sim::Simulation;
use tcplab_core::{config, run_scenario, RunOptions};

/// Hosts s and d over a 10 Mb/s, 20 ms bottleneck (r to d) with a 1000-packet buffer and
/// `qdisc`, fed by a 100 Mb/s access link; `flows` from s to d.
fn dumbbell(duration: &str, qdisc: &str, flows: &str) -> String {
    format!(
        "duration = \"{duration}\"\nseed = 5\nnodes = [\"s\", \"r\", \"d\"]\n\
         [[link]]\na = \"r\"\nb = \"d\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 1000\n\
         trace_queue = true\nqdisc = {qdisc}\n\
         [[link]]\na = \"s\"\nb = \"r\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n{flows}"
    )
}

/// `n` Reno flows from s to d.
fn reno(n: usize) -> String {
    let flows = "[[flow]]\nsrc = \"s\"\ndst = \"d\"\n".repeat(n);
    format!("{flows}[tcp]\nvariant = \"reno\"\nrcv_buf = \"2MB\"\n")
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tcplab-aqm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run(text: &str, out: Option<PathBuf>) -> RunReport {
    let mut r = run_scenario(text, &RunOptions { seed: None, out_dir: out }).expect("scenario runs").0;
    r.wall_s = 0.0;
    r
}

/// The rows of `sojourn-0.csv` in `dir` (the r-to-d direction is channel 0): (time, sojourn,
/// drops), the header checked.
fn sojourn_rows(dir: &std::path::Path) -> Vec<(f64, f64, u64)> {
    let text = std::fs::read_to_string(dir.join("sojourn-0.csv")).expect("an AQM queue writes its sojourn trace");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time_s,sojourn_s,aqm_drops"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

/// The median sojourn of the packets that left after the first 5 s (slow start's overshoot
/// is over by then), from the trace in `dir`.
fn steady_median(dir: &std::path::Path) -> f64 {
    let mut xs: Vec<f64> = sojourn_rows(dir).iter().filter(|r| r.0 >= 5.0).map(|r| r.1).collect();
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Reno through CoDel's defaults (target 5 ms, interval 100 ms) on a 10 Mb/s, 42 ms RTT path
/// (a 35-packet pipe). Drop-tail lets the windows fill the 1000-packet buffer (up to 1.2 s of
/// queue). CoDel enters dropping only after a whole interval at or above target and leaves
/// it on the first packet below, so the queue's delay is held around target; where in the
/// band depends on how much one drop takes out of the load (RFC 8289 section 4.2, 6):
/// - one flow: each drop halves the only window and the queue drains, so most packets wait
///   less than target: the median in [target / 10, target] (measured 1.2 ms);
/// - four flows: a drop halves a quarter of the load, the queue stays standing and straddles
///   target: the median in [target, 2 target] (measured 8.3 ms).
///
/// A median above 2 target, or the single flow's above target, would mean CoDel is not
/// holding the delay it is given; drop-tail's median is asserted to be far above both.
#[test]
fn reno_over_codel_holds_the_median_sojourn_near_target() {
    let dir = out_dir("reno");
    let text = dumbbell("40s", r#"{ kind = "codel" }"#, &reno(1));
    let r = run(&text, Some(dir.clone()));
    let rows = sojourn_rows(&dir);
    let ch = &r.links[0].stats;
    // One row per packet put on the wire (the last may still be on it when the run ends).
    assert!(rows.len() as u64 - ch.tx_packets <= 1, "{} rows, {} sent", rows.len(), ch.tx_packets);
    let q = ch.queue.as_ref().unwrap();
    assert!(q.drops_sojourn > 0 && q.drops_overflow == 0, "{q:?}");
    // Drops reported in rows are CoDel's, at most all of them (a drop that emptied the queue
    // is reported at the next departure).
    let reported: u64 = rows.iter().map(|r| r.2).sum();
    assert!(reported <= q.drops_sojourn && reported + 5 >= q.drops_sojourn, "{reported} vs {q:?}");
    let one = steady_median(&dir);
    assert!((0.0005..=0.005).contains(&one), "one flow: median sojourn {one} s");
    let four_dir = out_dir("reno4");
    run(&dumbbell("40s", r#"{ kind = "codel" }"#, &reno(4)), Some(four_dir.clone()));
    let four = steady_median(&four_dir);
    assert!((0.005..=0.010).contains(&four), "four flows: median sojourn {four} s");
    // Drop-tail on the same path writes no sojourn trace; its queue trace (a row per arrival)
    // shows the standing queue: a median of hundreds of packets, not CoDel's few.
    let tail_dir = out_dir("reno-tail");
    run(&dumbbell("40s", r#"{ kind = "drop_tail" }"#, &reno(1)), Some(tail_dir.clone()));
    assert!(!tail_dir.join("sojourn-0.csv").exists(), "drop-tail writes no sojourn trace");
    let trace = std::fs::read_to_string(tail_dir.join("queue-0.csv")).unwrap();
    let mut waiting: Vec<f64> = trace.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    waiting.sort_by(f64::total_cmp);
    // 10 Mb/s drains 1500-byte packets in 1.2 ms: 100 packets are 120 ms, 24 CoDel targets.
    assert!(waiting[waiting.len() / 2] > 100.0, "drop-tail median queue {}", waiting[waiting.len() / 2]);
    // Same seed: the same run; kept in memory and written after it, the same bytes.
    let mut sim = Simulation::new(config::parse(&text).unwrap().validate(None).unwrap()).unwrap();
    let (mut again, _) = sim.run().unwrap();
    again.wall_s = 0.0;
    assert_eq!(again, r);
    let mem = out_dir("reno-mem");
    std::fs::create_dir_all(&mem).unwrap();
    sim.write_queue_traces(&mem).unwrap();
    assert_eq!(std::fs::read(mem.join("sojourn-0.csv")).unwrap(), std::fs::read(dir.join("sojourn-0.csv")).unwrap());
    for d in [dir, four_dir, tail_dir, mem] {
        std::fs::remove_dir_all(d).ok();
    }
}

/// A 12 Mb/s CBR source into the 10 Mb/s CoDel bottleneck: the queue's delay grows until
/// CoDel drops at dequeue; every drop is the UDP flow's, counted in its table as lost, and
/// sent = delivered + lost + in flight.
#[test]
fn a_cbr_source_over_codel_loses_what_codel_drops() {
    let cbr = "[[flow]]\nsrc = \"s\"\ndst = \"d\"\nprotocol = \"udp\"\n\
               source = { kind = \"cbr\", rate = \"12Mbps\", size = \"1000B\" }\n";
    let r = run(&dumbbell("20s", r#"{ kind = "codel" }"#, cbr), None);
    let u = r.flows[0].udp.as_ref().unwrap();
    let ch = &r.links[0].stats;
    let q = ch.queue.as_ref().unwrap();
    assert!(q.drops_sojourn > 0 && q.drops_overflow == 0, "{q:?}");
    assert_eq!(u.packets_lost, ch.drops_queue, "{u:?} {ch:?}");
    assert_eq!(u.packets_sent, u.packets_delivered + u.packets_lost + u.packets_in_flight);
    // An unresponsive source: CoDel's control law drops faster and faster until the drop
    // rate matches the excess, about 1/6 of what arrives (12 Mb/s into 10 Mb/s, 1028-byte
    // wire packets), never much more.
    let loss = u.packets_lost as f64 / u.packets_sent as f64;
    assert!(loss > 0.10 && loss < 0.20, "loss {loss}");
}

/// PIE (RFC 8033) with its defaults (target 15 ms) on the same path: drops at enqueue,
/// counted as the queue's random early drops, and the delay held near target. PIE's PI
/// controller raises the probability while the delay sample is above target and lowers it
/// below, so the delay straddles target: the median in [target / 2, 2 target] for one and for
/// four flows (measured 11.8 and 17.8 ms; one flow's halving drains the queue below target
/// more often, as under CoDel).
#[test]
fn reno_over_pie_holds_the_delay_near_target_with_drops_at_enqueue() {
    for n in [1, 4] {
        let dir = out_dir(&format!("pie{n}"));
        let r = run(&dumbbell("40s", r#"{ kind = "pie" }"#, &reno(n)), Some(dir.clone()));
        let q = r.links[0].stats.queue.as_ref().unwrap();
        assert!(q.drops_early > 0 && q.drops_overflow == 0 && q.drops_sojourn == 0, "{q:?}");
        assert_eq!(q.drops_early, r.links[0].stats.drops_queue);
        let reported: u64 = sojourn_rows(&dir).iter().map(|r| r.2).sum();
        assert!(reported <= q.drops_early && reported + 5 >= q.drops_early, "{reported} vs {q:?}");
        let m = steady_median(&dir);
        assert!((0.0075..=0.030).contains(&m), "{n} flows: median sojourn {m} s");
        std::fs::remove_dir_all(dir).ok();
    }
}

/// FQ-CoDel (RFC 8290): two Reno flows and a sparse 200 kb/s CBR source share the
/// bottleneck. The CBR flow's queue is new at nearly every packet and is served before the
/// backlogged ones, so its packets wait about one packet time, where one shared CoDel queue
/// makes them wait its standing delay; a 30-packet limit makes the overflow rule drop from the
/// fattest (a Reno flow's) queue, never the sparse flow's.
#[test]
fn fq_codel_isolates_a_sparse_flow_and_drops_from_the_fattest_queue() {
    let cbr = "[[flow]]\nsrc = \"s\"\ndst = \"d\"\nprotocol = \"udp\"\n\
               source = { kind = \"cbr\", rate = \"200kbps\", size = \"200B\" }\n";
    let flows = format!("{cbr}{}", reno(2));
    let p50 = |qdisc: &str| {
        let dir = out_dir("fq");
        let r = run(&dumbbell("30s", qdisc, &flows), Some(dir.clone()));
        let rows = sojourn_rows(&dir);
        assert!(rows.len() as u64 - r.links[0].stats.tx_packets <= 1);
        std::fs::remove_dir_all(dir).ok();
        let u = r.flows[0].udp.clone().unwrap();
        (u.delay_p50_s.unwrap(), u.delay_p99_s.unwrap(), u.packets_lost, r)
    };
    let (fq50, fq99, fq_lost, fq) = p50(r#"{ kind = "fq_codel" }"#);
    let (co50, _, _, _) = p50(r#"{ kind = "codel" }"#);
    // One way: 21 ms of propagation and 0.16 ms of the CBR packet's own serialisation; a
    // 1500-byte packet on the 10 Mb/s link is 1.2 ms. The sparse flow's packet waits for the
    // one on the wire (half of one, on average: the median) and, at worst, for the queues
    // that are new at the same time (each Reno queue whose backlog had drained: a quantum of
    // 1514 bytes lets up to two 1500-byte packets through): 1 + 2 x 2 packets, 6 ms.
    assert_eq!(fq_lost, 0);
    assert!(fq50 < 0.021 + 0.0002 + 0.0012, "FQ-CoDel: sparse flow's median {fq50}");
    assert!(fq99 < 0.021 + 0.0002 + 0.006, "FQ-CoDel: sparse flow's 99th percentile {fq99}");
    // One shared CoDel queue: the sparse flow waits in the standing queue like the others.
    assert!(co50 > fq50 + 0.002, "shared CoDel {co50} vs FQ-CoDel {fq50}");
    let q = fq.links[0].stats.queue.as_ref().unwrap();
    assert!(q.drops_sojourn > 0, "{q:?}");
    // The two Reno flows share the rest about equally (DRR with equal quanta).
    let (a, b) = (fq.flows[1].goodput_bps, fq.flows[2].goodput_bps);
    assert!((a / b - 1.0).abs() < 0.1, "{a} vs {b}");
    let (_, _, lost, small) = p50(r#"{ kind = "fq_codel", limit = 30 }"#);
    let q = small.links[0].stats.queue.as_ref().unwrap();
    assert!(q.drops_overflow > 0, "{q:?}");
    assert_eq!(q.drops_overflow + q.drops_sojourn, small.links[0].stats.drops_queue);
    assert_eq!(lost, 0, "the overflow rule took a packet of the sparse flow");
    assert!(small.links[0].stats.peak_queue_packets <= 30);
}
