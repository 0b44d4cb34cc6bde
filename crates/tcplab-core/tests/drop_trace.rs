//! The drop trace (`trace_drops`) and the flow trace's RTT columns in whole runs: a dropped
//! packet shows with its cause, flow and offset, the rows agree with the drop counters, and
//! the RTT columns are the estimator's own values.

mod common;
use std::path::{Path, PathBuf};

use common::*;
use tcplab_core::tcp::rtt::Estimator;
use tcplab_core::tcp::TcpConfig;
use tcplab_core::time::SEC;
use tcplab_core::{run_scenario, RunOptions};

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tcplab-drops-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `text` with `lines` added to its link table.
fn with_link(text: &str, lines: &str) -> String {
    text.replace("queue = 1000\n", &format!("queue = 1000\n{lines}\n"))
}

/// Run `text` into a fresh folder; the drop trace of channel 0 (the data direction) as rows of
/// named columns, and the report.
fn drops_of(text: &str, name: &str) -> (Vec<Row>, tcplab_core::metrics::RunReport, PathBuf) {
    let dir = folder(name);
    let (report, _) = run_scenario(text, &RunOptions { seed: Some(7), out_dir: Some(dir.clone()) }).unwrap();
    (read_csv(&dir.join("drops-0.csv")), report, dir)
}

type Row = std::collections::HashMap<String, String>;

fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(String::from)).collect()).collect()
}

fn count(rows: &[Row], cause: &str) -> u64 {
    rows.iter().filter(|r| r["cause"] == cause).count() as u64
}

#[test]
fn a_drop_list_drop_shows_with_its_cause_offset_and_time() {
    let text = with_link(&two_hosts("", &drop_segments(&[5, 9]), 30_000, 5.0), "trace_drops = true");
    let (rows, report, dir) = drops_of(&text, "list");
    assert_eq!(rows.len(), 2, "{rows:?}");
    let segments = read_csv(&dir.join("segments-flow0.csv"));
    for (row, offset) in rows.iter().zip(["4000", "8000"]) {
        assert_eq!((row["flow"].as_str(), row["kind"].as_str(), row["cause"].as_str()), ("0", "data", "loss"));
        assert_eq!((row["seq"].as_str(), row["ack"].as_str()), (offset, ""));
        assert_eq!((row["len"].as_str(), row["bytes"].as_str(), row["marked"].as_str()), ("1000", "1040", "0"));
        // The loss model drops a packet as its serialisation ends: whole 1040-byte
        // serialisations at 10 Mb/s after its first send (it may wait behind others of the burst).
        let sent: f64 = segments.iter().find(|s| s["offset"] == offset).unwrap()["time_s"].parse().unwrap();
        let at: f64 = row["time_s"].parse().unwrap();
        let slots = (at - sent) / (1040.0 * 8.0 / 10e6);
        assert!(slots > 0.5 && (slots - slots.round()).abs() < 1e-6, "sent {sent}, dropped {at}");
    }
    assert_eq!(report.links[0].stats.drops_loss, 2);
    // The ACK direction traced too, with nothing dropped: a header only.
    assert_eq!(std::fs::read_to_string(dir.join("drops-1.csv")).unwrap().lines().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn red_early_and_forced_drops_match_the_counters() {
    let red = "trace_drops = true\nqdisc = { kind = \"red\", min_th = 5, max_th = 15 }";
    let text = with_link(&two_hosts("", "", 3_000_000, 10.0), red);
    let (rows, report, dir) = drops_of(&text, "red");
    let q = report.links[0].stats.queue.clone().unwrap();
    assert!(q.drops_early > 0, "RED dropped nothing early: {q:?}");
    assert_eq!(count(&rows, "early"), q.drops_early);
    assert_eq!(count(&rows, "forced"), q.drops_forced);
    assert_eq!(count(&rows, "overflow"), q.drops_overflow);
    assert_eq!(rows.len() as u64, q.drops_early + q.drops_forced + q.drops_overflow);
    assert!(rows.iter().all(|r| r["kind"] == "data" && r["seq"].parse::<u64>().unwrap() % 1000 == 0));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn overflow_drops_of_a_drop_tail_queue_are_rows_too() {
    let text = two_hosts("", "", 3_000_000, 10.0).replace("queue = 1000\n", "queue = 8\ntrace_drops = true\n");
    let (rows, report, dir) = drops_of(&text, "overflow");
    let stats = &report.links[0].stats;
    assert!(stats.drops_queue > 0, "nothing overflowed: {stats:?}");
    assert_eq!(count(&rows, "overflow"), stats.drops_queue);
    assert_eq!(rows.len() as u64, stats.drops_queue);
    // Without the knob, no drop trace.
    let plain = folder("overflow-plain");
    run_scenario(
        &text.replace("trace_drops = true\n", ""),
        &RunOptions { seed: Some(7), out_dir: Some(plain.clone()) },
    )
    .unwrap();
    assert!(!plain.join("drops-0.csv").exists());
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(plain).unwrap();
}

#[test]
fn the_rtt_columns_are_the_estimators_values_on_a_known_path() {
    let (_, trace) = run(&two_hosts("", "", 300_000, 5.0));
    let sampled: Vec<_> = trace.rows.iter().filter(|r| r.rtt_sample.is_some()).collect();
    assert!(sampled.len() >= 5, "{} samples", sampled.len());
    // The first sample times one segment there and its ACK back over an idle 10 Mb/s, 10 ms
    // link: 1040 bytes and 40 bytes serialised, two propagation delays.
    let path = 20_000_000 + (1040 + 40) * 8 * 1000 / 10;
    assert_eq!(sampled[0].rtt_sample, Some(path));
    // Replaying the samples through the flow's own estimator gives every row's srtt and rto.
    let cfg = TcpConfig { min_rto: SEC, ..TcpConfig::default() };
    let mut est = Estimator::for_config(&cfg, 0);
    for r in &trace.rows {
        if let Some(s) = r.rtt_sample {
            est.sample(r.time - s, r.time);
        }
        assert_eq!((r.srtt, r.rto), (est.srtt_ns(), est.rto()), "row at {}", r.time);
        assert_eq!(r.flight, r.snd_nxt - r.snd_una, "a lossless flow never backs snd_nxt off");
    }
    assert!(trace.rows.iter().any(|r| r.flight >= 10_000));
    let mut csv = Vec::new();
    trace.write_csv(&mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with("time_s,cwnd,ssthresh,snd_una,snd_nxt,rtt_sample_s,srtt_s,rto_s,flight\n"));
}

#[test]
fn an_atm_cell_policys_drops_are_cell_rows_with_their_cause() {
    // Four sources share a switch's 200-cell output buffer under EPD (Bestavros and Kim, 1997's
    // network, smaller): frames refused at the threshold are the policy's, full-buffer drops overflow.
    let mut text = String::from(
        "duration = 5\nnodes = [\"sw\", \"sink\", \"s0\", \"s1\", \"s2\", \"s3\"]\nswitches = [\"sw\"]\n\
         [tcp]\nvariant = \"reno\"\nmss = 9140\nrcv_buf = 65535\ntimer = \"100ms\"\n\
         [[link]]\na = \"sw\"\nb = \"sink\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\natm = true\nqueue = 100000\n\
         trace_drops = true\n[link.ab]\nqueue = 200\ndrop = { policy = \"epd\", threshold = 0.5 }\n",
    );
    for i in 0..4 {
        text += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"sw\"\nrate = \"1.5Mbps\"\ndelay = \"10ms\"\natm = true\nqueue = 100000\n"
        );
    }
    for i in 0..4 {
        text += &format!("[[flow]]\nsrc = \"s{i}\"\ndst = \"sink\"\nstart = {}\n", i as f64 * 0.05);
    }
    let (rows, report, dir) = drops_of(&text, "atm");
    assert!(count(&rows, "cell_policy") > 0, "EPD refused nothing");
    assert_eq!(rows.len() as u64, report.links[0].stats.drops_queue);
    assert!(rows.iter().all(|r| r["bytes"] == "53" && r["kind"] == "data"));
    assert_eq!(count(&rows, "cell_policy") + count(&rows, "overflow"), rows.len() as u64);
    std::fs::remove_dir_all(dir).unwrap();
}
