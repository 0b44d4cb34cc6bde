//! Queues that mark ECN-capable packets Congestion Experienced instead of dropping them
//! (RFC 3168 sec. 7 for RED, RFC 8289 section 5 for CoDel, RFC 8033 section 5.1 for PIE, RFC
//! 8290 4.2 and 5.2 for FQ-CoDel; ns's red.cc `setbit_`: "marks reset count just like drops;
//! forced drops never mark"), segment by segment and in whole runs (PIE's and FQ-CoDel's
//! segment-by-segment tests are beside them: net/pie_tests.rs, net/fq_codel_tests.rs).

mod common;

use tcplab_core::metrics::RunReport;
use tcplab_core::net::codel::{Codel, CodelConfig, Head};
use tcplab_core::net::queue::{Discipline, Queue, QueueLimit};
use tcplab_core::net::red::{Red, RedConfig, RedCurve, RedMode, RedRule};
use tcplab_core::net::PacketPool;
use tcplab_core::packet::{Ecn, Packet};
use tcplab_core::rng::stream;
use tcplab_core::time::{Time, MS, US};
use tcplab_core::{run_scenario, Error, RunOptions};

fn red_cfg(rule: RedRule, min_th: f64, max_th: f64, max_p: f64, gentle: bool, ecn: bool) -> RedConfig {
    RedConfig {
        curve: RedCurve { min_th, max_th, max_p },
        // w_q = 1: the average is the queue, so a queue held at a length holds the average.
        w_q: 1.0,
        mode: RedMode::Packets,
        gentle,
        mean_pkt_bytes: 500,
        max_pkt_bytes: 1500,
        ered: None,
        rule,
        wait: rule != RedRule::Paper1993,
        ecn,
        auto: None,
    }
}

fn red_queue(cfg: RedConfig, limit: u32) -> Queue {
    let red = Red::new(cfg, 10_000_000, stream(7, "red", 0));
    let mut q = Queue::with_discipline(QueueLimit::Packets(limit), Discipline::Red(Box::new(red)));
    q.keep_stats();
    q
}

fn pkt(ecn: Ecn) -> Packet {
    let mut p = Packet::test_ack(0, 65535);
    p.payload = 1000;
    p.wire_bytes = 1040;
    p.ecn = ecn;
    p
}

/// What happened to each arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Kept,
    Marked,
    Dropped,
}

/// Fill the queue to `hold` packets with non-ECT arrivals, then offer `n` arrivals of `ecn`,
/// each kept one pushed and the head popped, so the queue (and, with w_q = 1, the average)
/// stays at `hold` whatever happens to them.
fn offer(q: &mut Queue, hold: usize, n: usize, ecn: Ecn) -> Vec<Fate> {
    let mut pool = PacketPool::default();
    let mut t: Time = 0;
    // Pushed without a verdict: with w_q = 1 the first arrival's average is the queue itself.
    while q.len() < hold {
        let p = pkt(Ecn::NotEct);
        q.push(t, pool.put(&p), &p);
    }
    (0..n)
        .map(|_| {
            t += US;
            let mut p = pkt(ecn);
            if !q.accepts(t, &mut p, false) {
                return Fate::Dropped;
            }
            q.push(t, pool.put(&p), &p);
            let head = q.pop(t).expect("a packet waits");
            pool.take(head.id);
            if p.ecn == Ecn::Ce && ecn != Ecn::Ce {
                Fate::Marked
            } else {
                Fate::Kept
            }
        })
        .collect()
}

/// The same arrivals with and without ECN: every early drop becomes a mark at the same
/// arrival (so a mark resets the count exactly as a drop does), and nothing else changes.
fn marks_where_it_dropped(rule: RedRule, hold: usize, gentle: bool) -> usize {
    let (min_th, max_th) = if gentle { (2.0, 8.0) } else { (2.0, 20.0) };
    let mut plain = red_queue(red_cfg(rule, min_th, max_th, 0.1, gentle, false), 100);
    let mut ecn = red_queue(red_cfg(rule, min_th, max_th, 0.1, gentle, true), 100);
    let dropped = offer(&mut plain, hold, 3000, Ecn::Ect0);
    let marked = offer(&mut ecn, hold, 3000, Ecn::Ect0);
    let n = dropped.iter().filter(|&&f| f == Fate::Dropped).count();
    assert!(n > 50, "{rule:?}: too few early drops to compare ({n})");
    let as_marks: Vec<Fate> = dropped.iter().map(|&f| if f == Fate::Dropped { Fate::Marked } else { f }).collect();
    assert_eq!(marked, as_marks, "{rule:?}: marks at exactly the arrivals that were dropped");
    let s = ecn.final_stats().unwrap();
    assert_eq!((s.marks_ecn, s.drops_early, s.drops_forced), (n as u64, 0, 0), "{rule:?}");
    assert_eq!(plain.final_stats().unwrap().marks_ecn, 0);
    n
}

#[test]
fn red_marks_instead_of_early_drops_and_marks_reset_the_count_like_drops() {
    // The 1993 paper's rule (count reset on a mark as on a drop: Floyd and Jacobson 1993,
    // Fig. 2 "mark the arriving packet; count <- 0") and ns's two eras (red.cc drop_early).
    for rule in [RedRule::Paper1993, RedRule::Ns1, RedRule::Ns2] {
        marks_where_it_dropped(rule, 10, false);
    }
    // The gentle region (between max_th and 2 max_th) is early, not forced: marks too.
    marks_where_it_dropped(RedRule::Paper1993, 12, true);
}

#[test]
fn red_forced_drops_and_overflow_always_drop() {
    // Average at max_th or above (2 max_th with gentle): forced, dropped even when ECT.
    for (rule, gentle) in [(RedRule::Paper1993, false), (RedRule::Paper1993, true), (RedRule::Ns2, false)] {
        let (min_th, max_th) = (2.0, 5.0);
        let mut q = red_queue(red_cfg(rule, min_th, max_th, 0.1, gentle, true), 100);
        let hold = if gentle { 11 } else { 6 };
        let fates = offer(&mut q, hold, 200, Ecn::Ect0);
        assert!(fates.iter().all(|&f| f == Fate::Dropped), "{rule:?} gentle {gentle}");
        let s = q.final_stats().unwrap();
        assert_eq!(s.marks_ecn, 0);
        assert!(s.drops_forced >= 200, "{s:?}");
    }
    // A full buffer drops an ECT arrival even when RED would have marked it (max_p = 1 and
    // the average near max_th: almost every verdict is early), as overflow.
    let mut q = red_queue(red_cfg(RedRule::Paper1993, 0.0, 100.0, 1.0, false, true), 10);
    let mut pool = PacketPool::default();
    for _ in 0..10 {
        let mut p = pkt(Ecn::NotEct);
        q.accepts(0, &mut p, false);
        q.push(0, pool.put(&p), &p);
    }
    assert_eq!(q.len(), 10);
    let fates: Vec<bool> = (0..50)
        .map(|_| {
            let mut p = pkt(Ecn::Ect0);
            q.accepts(MS, &mut p, false)
        })
        .collect();
    assert!(fates.iter().all(|ok| !ok));
    let s = q.final_stats().unwrap();
    assert_eq!((s.marks_ecn, s.drops_overflow + s.drops_early + s.drops_forced), (0, 50 + s.drops_early));
    assert!(s.drops_overflow > 0);
}

#[test]
fn red_still_drops_packets_that_are_not_ecn_capable() {
    let mut q = red_queue(red_cfg(RedRule::Paper1993, 2.0, 20.0, 0.1, false, true), 100);
    let fates = offer(&mut q, 10, 2000, Ecn::NotEct);
    assert!(fates.contains(&Fate::Dropped));
    assert!(!fates.contains(&Fate::Marked));
    assert_eq!(q.final_stats().unwrap().marks_ecn, 0);
}

/// CoDel over a standing queue of `n` packets all enqueued at 0, dequeued every ms for
/// `ms` ms: (times of marks, times of drops), the signal marking when `ect`.
fn codel_signals(ect: bool, n: u32, ms: u64) -> (Vec<Time>, Vec<Time>) {
    let mut codel = Codel::new(CodelConfig { ecn: true, ..CodelConfig::default() });
    let mut q: std::collections::VecDeque<u32> = (0..n).collect();
    for _ in 0..n {
        codel.on_enqueue(1000);
    }
    let (mut marks, mut drops) = (vec![], vec![]);
    for t in (1..=ms).map(|k| k * MS) {
        let pop = || q.pop_front().map(|id| Head { packet: id, enqueued_at: 0, bytes_left: 1000 * q.len() as u64 });
        let signal = |h: Head<u32>| {
            if ect {
                marks.push(t);
                Some(h)
            } else {
                drops.push(t);
                None
            }
        };
        codel.dequeue_with(t, pop, signal);
    }
    (marks, drops)
}

#[test]
fn codel_marks_where_it_would_drop_spaced_by_the_control_law() {
    // RFC 8289 section 5: in the dropping state an ECN-capable head is marked instead of
    // dropped; a mark counts for the control law (interval / sqrt(count)) as a drop does.
    let (marks, drops) = codel_signals(true, 2000, 600);
    assert!(drops.is_empty());
    // The dequeue at 5 ms first sees a sojourn at target: first_above_time = 105 ms.
    assert_eq!(marks[0], 105 * MS);
    let gaps: Vec<Time> = marks.windows(2).map(|w| w[1] - w[0]).collect();
    // Marks fall on whole-ms dequeues at or after drop_next: within 1 ms of the law (the
    // first gap interval / sqrt(1), then / sqrt(2), ...).
    for (i, g) in gaps.iter().enumerate().take(4) {
        let law = (100.0 * MS as f64 / ((i + 1) as f64).sqrt()) as Time;
        assert!(*g >= law.saturating_sub(MS) && *g <= law + MS, "gap {i}: {g} vs {law}");
    }
    // Not ECN-capable: the same schedule of signals, as drops (each a packet fewer).
    let (marks, drops) = codel_signals(false, 2000, 600);
    assert!(marks.is_empty());
    assert_eq!(drops[0], 105 * MS);
}

fn scenario(qdisc: &str, tcp_ecn: bool) -> String {
    let sources = common::TWO_SOURCES_UNEQUAL_RTT;
    format!(
        r#"
duration = "20s"
seed = 5
nodes = ["s0", "s1", "r", "d"]
[tcp]
mss = 1000
rcv_buf = "200kB"
cc = "cubic"
ecn = {tcp_ecn}
[[link]]
a = "r"
b = "d"
rate = "5Mbps"
delay = "10ms"
queue = 80
qdisc = {qdisc}
{sources}tcp = {{ cc = "reno" }}
"#
    )
}

fn run(text: &str) -> RunReport {
    run_scenario(text, &RunOptions { seed: None, out_dir: None }).unwrap().0
}

/// Whole runs: ECN-capable flows through a marking queue are marked, not dropped, every mark
/// reaches a receiver as CE and draws a reduction there, and the run balances.
fn marks_replace_drops(qdisc: &str) {
    let ecn = run(&scenario(qdisc, true));
    let plain = run(&scenario(qdisc, false));
    let q = ecn.links[0].stats.queue.as_ref().unwrap();
    assert!(q.marks_ecn > 20, "{q:?}");
    let (ce, reductions): (u64, u64) = ecn
        .flows
        .iter()
        .map(|f| f.ecn.as_ref().map_or((0, 0), |e| (e.ce_received, e.reductions)))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    // Marked packets still in flight at the end have not reached a receiver.
    assert!(ce <= q.marks_ecn && ce + 10 >= q.marks_ecn, "ce {ce} marks {}", q.marks_ecn);
    assert!(reductions > 0 && reductions <= ce);
    assert!(ecn.flows.iter().all(|f| f.ecn.as_ref().is_some_and(|e| e.negotiated)));
    // Without ECN the same queue drops, and retransmits; with it, far fewer retransmissions.
    let retx = |r: &RunReport| r.flows.iter().map(|f| f.retransmits).sum::<u64>();
    assert!(plain.links[0].stats.drops_queue > 20);
    assert!(retx(&ecn) < retx(&plain), "ecn {} plain {}", retx(&ecn), retx(&plain));
    assert!(plain.flows.iter().all(|f| f.ecn.is_none()));
    assert_eq!(plain.links[0].stats.queue.as_ref().unwrap().marks_ecn, 0);
    assert_eq!(run(&scenario(qdisc, true)).links, ecn.links, "same seed, same run");
}

#[test]
fn red_with_ecn_marks_tcp_flows_end_to_end() {
    marks_replace_drops(r#"{ kind = "red", min_th = 5, max_th = 40, max_p = 0.1, ecn = true }"#);
}

#[test]
fn codel_with_ecn_marks_tcp_flows_end_to_end() {
    marks_replace_drops(r#"{ kind = "codel", ecn = true }"#);
}

#[test]
fn pie_with_ecn_marks_tcp_flows_end_to_end() {
    marks_replace_drops(r#"{ kind = "pie", ecn = true }"#);
}

#[test]
fn fq_codel_with_ecn_marks_tcp_flows_end_to_end() {
    marks_replace_drops(r#"{ kind = "fq_codel", ecn = true }"#);
}

#[test]
fn the_qdisc_ecn_field_is_checked() {
    // Inside the tagged table serde names the table; its message names the unknown field, or
    // the type a bad value should have had (as for every qdisc field).
    for (qdisc, says) in [
        (r#"{ kind = "drop_tail", ecn = true }"#, "ecn"),
        (r#"{ kind = "red", min_th = 5, max_th = 40, ecn = 1 }"#, "expected a boolean"),
        (r#"{ kind = "codel", ecn = "yes" }"#, "expected a boolean"),
        (r#"{ kind = "pie", ecn = 1 }"#, "expected a boolean"),
        (r#"{ kind = "fq_codel", ecn = "on" }"#, "expected a boolean"),
        (r#"{ kind = "pie", ecn = true, mark_ecnth = 1.5 }"#, "must be in [0, 1]"),
    ] {
        match run_scenario(&scenario(qdisc, true), &RunOptions::default()) {
            Err(Error::Scenario(e)) => {
                assert!(e.field.starts_with("link[0].qdisc") && e.message.contains(says), "{qdisc}: {e:?}")
            }
            other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
        }
    }
}

/// The capture of a marking bottleneck: (IP ECN codepoint counts by value, TCP segments with
/// ECE, with CWR), and the pcap's path.
fn ecn_capture(dir: &std::path::Path) -> ([u64; 4], u64, u64, std::path::PathBuf) {
    let text = scenario(r#"{ kind = "red", min_th = 5, max_th = 40, max_p = 0.1, ecn = true }"#, true)
        .replace("queue = 80", "queue = 80\npcap = true");
    run_scenario(&text, &RunOptions { seed: None, out_dir: Some(dir.to_path_buf()) }).unwrap();
    let path = dir.join("link-r-d.pcap");
    let pcap = std::fs::read(&path).unwrap();
    let (mut pos, mut codepoints, mut ece, mut cwr) = (24, [0u64; 4], 0, 0);
    while pos + 16 <= pcap.len() {
        let incl = u32::from_le_bytes(pcap[pos + 8..pos + 12].try_into().unwrap()) as usize;
        let ip = &pcap[pos + 16 + 14..pos + 16 + incl];
        codepoints[(ip[1] & 3) as usize] += 1;
        let tcp_flags = ip[20 + 13];
        ece += (tcp_flags & 0x40 != 0) as u64;
        cwr += (tcp_flags & 0x80 != 0) as u64;
        pos += 16 + incl;
    }
    (codepoints, ece, cwr, path)
}

#[test]
fn the_pcap_carries_the_ecn_field_and_ece_cwr() {
    // RFC 3168 sec. 5: the ECN field is the TOS byte's low two bits (ECT(0) = 10, CE = 11);
    // sec. 6.1: ECE is TCP flag bit 0x40, CWR 0x80.
    let dir = std::env::temp_dir().join(format!("tcplab-ecn-pcap-{}", std::process::id()));
    let (codepoints, ece, cwr, path) = ecn_capture(&dir);
    assert!(codepoints[0] > 0, "ACKs and retransmissions are not ECT: {codepoints:?}");
    assert!(codepoints[2] > 0 && codepoints[3] > 0, "ECT(0) and CE data: {codepoints:?}");
    assert_eq!(codepoints[1], 0, "no ECT(1)");
    assert!(ece > 0 && cwr > 0, "ece {ece} cwr {cwr}");
    if std::process::Command::new("tshark").arg("--version").output().is_ok() {
        let out = std::process::Command::new("tshark")
            .args(["-r", path.to_str().unwrap(), "-T", "fields", "-e", "ip.dsfield.ecn"])
            .args(["-e", "tcp.flags.ece", "-e", "tcp.flags.cwr"])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let count = |col: usize, v: &[&str]| {
            text.lines().filter(|l| l.split('\t').nth(col).is_some_and(|x| v.contains(&x))).count() as u64
        };
        assert_eq!(count(0, &["3"]), codepoints[3], "tshark's CE count");
        assert_eq!(count(0, &["2"]), codepoints[2], "tshark's ECT(0) count");
        assert_eq!(count(1, &["1", "True"]), ece);
        assert_eq!(count(2, &["1", "True"]), cwr);
    } else {
        eprintln!("tshark not installed: its check skipped");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_shipped_mixed_traffic_example_runs_over_red_and_codel_marking() {
    let red = include_str!("../../../examples/mixed_traffic.toml");
    let qdisc = r#"qdisc = { kind = "red", min_th = 5, max_th = 50, max_p = 0.1, ecn = true }"#;
    assert!(red.contains(qdisc));
    let codel = red.replace(qdisc, r#"qdisc = { kind = "codel", ecn = true }"#);
    for text in [red.to_string(), codel] {
        let r = run(&text);
        let q = r.links[2].stats.queue.as_ref().expect("the bottleneck's counters");
        assert!(q.marks_ecn > 0, "{q:?}");
        assert!(r.flows.iter().all(|f| f.bytes_delivered > 0), "every flow delivers");
        let tcp: Vec<_> = r.flows.iter().filter(|f| f.ecn.is_some()).collect();
        assert_eq!(tcp.len(), 2);
        assert!(tcp.iter().all(|f| f.ecn.as_ref().unwrap().ce_received > 0));
    }
}
