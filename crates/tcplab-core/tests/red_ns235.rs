//! ns-2.35's RED (`rule = "ns235"`, and the rule of every RED queue under `[tcp] stack =
//! "ns235"`), checked against red.cc 1.90's formulas (REDQueue::initialize_params, reset,
//! calculate_p_new, modify_p, enque) with ns-default.tcl 1.388's defaults, computed by hand.

mod common;

use tcplab_core::config::parse;
use tcplab_core::net::qdisc::QdiscModel;
use tcplab_core::net::queue::{Discipline, Queue, QueueLimit};
use tcplab_core::net::red::{Red, RedConfig, RedCurve, RedDrop, RedMode, RedRule};
use tcplab_core::net::red_ns235::{self, NsAuto};
use tcplab_core::net::PacketPool;
use tcplab_core::packet::Packet;
use tcplab_core::rng::stream;
use tcplab_core::time::US;

/// The RED config of a one-link scenario under `stack` whose link has this `qdisc`.
fn queue_of(stack: &str, qdisc: &str) -> Result<RedConfig, String> {
    let text = format!(
        "duration = 1\nnodes = [\"a\", \"b\"]\n[tcp]\nstack = \"{stack}\"\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = 50\nqdisc = {qdisc}\n"
    );
    let model = parse(&text).and_then(|s| s.validate(None)).map_err(|e| format!("{}: {}", e.field, e.message))?;
    match model.channels[0].qdisc.clone() {
        Some(QdiscModel::Red(c)) => Ok(c),
        other => Err(format!("not RED: {other:?}")),
    }
}

const ALL_AUTO: NsAuto = NsAuto { min_th: true, max_th: true, w_q: true };

#[test]
fn the_ns235_stack_and_rule_take_ns_2_35s_defaults() {
    // ns-default.tcl 1.388: gentle_ true, bytes_ and queue_in_bytes_ true, wait_ true,
    // linterm_ 10, mean_pktsize_ 500, thresh_ 0, maxthresh_ 0, q_weight_ -1 (automatic).
    for (stack, q) in [("ns235", r#"{ kind = "red" }"#), ("tcplab", r#"{ kind = "red", rule = "ns235" }"#)] {
        let c = queue_of(stack, q).unwrap();
        assert_eq!((c.rule, c.gentle, c.mode, c.wait), (RedRule::Ns235, true, RedMode::Bytes, true), "{stack}");
        assert_eq!((c.curve.max_p, c.mean_pkt_bytes, c.auto), (0.1, 500, Some(ALL_AUTO)), "{stack}");
    }
    // Given fields stay; min_th alone gives max_th = 3 min_th (reset: `maxthresh_ 0`).
    let c = queue_of("ns235", r#"{ kind = "red", min_th = 4000, w_q = 0.002, mode = "packets" }"#).unwrap();
    assert_eq!((c.curve.min_th, c.w_q, c.mode), (4000.0, 0.002, RedMode::Packets));
    assert_eq!(c.auto, Some(NsAuto { min_th: false, max_th: true, w_q: false }));
    let e = queue_of("ns235", r#"{ kind = "red", max_th = 9000 }"#).unwrap_err();
    assert!(e.starts_with("link[0].qdisc.min_th: rule ns235 works out max_th"), "{e}");
    // ns2 keeps ns-2.1b's rule, and refuses gentle_, which ns235 takes.
    assert_eq!(queue_of("ns2", r#"{ kind = "red" }"#).unwrap().rule, RedRule::Ns2);
    assert!(queue_of("ns2", r#"{ kind = "red", gentle = true }"#).is_err());
    assert!(queue_of("ns2", r#"{ kind = "red", rule = "ns235", gentle = false }"#).is_ok());
}

#[test]
fn a_10_mbps_link_gets_thresholds_of_3125_and_9375_bytes_and_its_weight_from_its_delay() {
    // REDQueue::reset: ptc = 10e6 / (8 x mean_pktsize_ 500) = 2500 packets/s, whatever size
    // the packets really are (1000 or 1040 bytes: mean_pktsize_ is a setting, not a measure).
    // initialize_params: targetdelay_ 0.005 x 2500 / 2 = 6.25 > 5, so th_min 6.25 packets,
    // th_max 3 x 6.25 = 18.75; queue_in_bytes_: x 500 = 3125 and 9375 bytes. q_weight_ -1:
    // rtt = 3 (0.010 + 1/2500) = 0.0312 s, raised to 0.1, so w_q = 1 - exp(-1/(10 x 0.1 x
    // 2500)) = 1 - exp(-0.0004) = 3.99920e-4.
    let c = queue_of("ns235", r#"{ kind = "red" }"#).unwrap();
    let r = red_ns235::resolve(c.clone(), c.auto.unwrap(), 10_000_000, 0.010);
    assert_eq!((r.curve.min_th, r.curve.max_th), (3125.0, 9375.0));
    assert!((r.w_q - 3.99920e-4).abs() < 1e-9, "{}", r.w_q);
    // A 100 ms link: rtt = 3 x 0.1004 = 0.3012 s, w_q = 1 - exp(-1/7530) = 1.32793e-4.
    let r = red_ns235::resolve(c.clone(), c.auto.unwrap(), 10_000_000, 0.100);
    assert!((r.w_q - 1.32793e-4).abs() < 1e-9, "{}", r.w_q);
    // 1.5 Mb/s: ptc 375, 375 x 0.005 / 2 < 5: 5 and 15 packets, 2500 and 7500 bytes.
    let r = red_ns235::resolve(c.clone(), c.auto.unwrap(), 1_500_000, 0.010);
    assert_eq!((r.curve.min_th, r.curve.max_th), (2500.0, 7500.0));
    // In packet mode the thresholds stay in packets.
    let p = RedConfig { mode: RedMode::Packets, ..c };
    let r = red_ns235::resolve(p.clone(), p.auto.unwrap(), 10_000_000, 0.010);
    assert_eq!((r.curve.min_th, r.curve.max_th), (6.25, 18.75));
}

/// ns235 in packet mode with thresholds 5 and 15 (p_b 0.55 at avg 22.5 under gentle).
fn packets(gentle: bool) -> RedConfig {
    RedConfig {
        curve: RedCurve { min_th: 5.0, max_th: 15.0, max_p: 0.1 },
        w_q: 0.002,
        mode: RedMode::Packets,
        gentle,
        mean_pkt_bytes: 500,
        max_pkt_bytes: 1500,
        ered: None,
        rule: RedRule::Ns235,
        wait: true,
        ecn: false,
        auto: None,
    }
}

/// Verdicts of `n` arrivals of 1000 bytes at a fixed average, 5 packets waiting.
fn verdicts(red: &mut Red, avg: f64, n: usize) -> Vec<Option<RedDrop>> {
    (0..n)
        .map(|i| {
            red.update_average(i as u64, 5, 5000);
            red.avg = avg;
            red.verdict(1000, false)
        })
        .collect()
}

/// Gaps in arrivals between drops (the first, which holds the spared first arrival, left out).
fn gaps(v: &[Option<RedDrop>]) -> Vec<u32> {
    let (mut out, mut since) = (Vec::new(), 0);
    for d in v {
        since += 1;
        if d.is_some() {
            out.push(since);
            since = 0;
        }
    }
    out.remove(0);
    out
}

#[test]
fn gentle_drops_above_max_th_with_p_b_from_max_p_to_one_never_forced() {
    // calculate_p_new with gentle_: avg 22.5 >= th_max 15, p_b = (1 - 0.1)/15 x 22.5 + (2 x 0.1
    // - 1) = 0.55. modify_p with wait_: count 1, 0.55 < 1, p = 0; count 2, 1.1, p = 0.55 / 0.9
    // = 0.6111; count 3, 1.65, p = 0.55 / 0.35 > 1, so 1. Gaps 2 (0.6111) or 3 (0.3889), mean
    // 2.3889. use_mark_p_ (on since 2005) means no forced drop from the average at all.
    let mut red = Red::new(packets(true), 10_000_000, stream(11, "red", 0));
    let v = verdicts(&mut red, 22.5, 300_000);
    assert!(v.iter().all(|d| *d != Some(RedDrop::Forced)));
    let g = gaps(&v);
    assert!(g.iter().all(|x| (2..=3).contains(x)));
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!((mean - (2.0 * 0.55 / 0.9 + 3.0 * (1.0 - 0.55 / 0.9))).abs() < 0.01, "{mean}");
    // At 2 th_max p_b = 1: every arrival after the period's first is dropped (count 1: p =
    // 1 / (2 - 1) = 1), as drop_early's, not forced.
    let mut red = Red::new(packets(true), 10_000_000, stream(11, "red", 0));
    let v = verdicts(&mut red, 30.0, 100);
    assert_eq!(v[0], None, "the period's first arrival is spared");
    assert!(v[1..].iter().all(|d| *d == Some(RedDrop::Early)));
    // ns-2.1b at 22.5 forces every arrival; ns235 without gentle_ drops every one early (p_b 1).
    let mut ns2 = Red::new(RedConfig { rule: RedRule::Ns2, ..packets(false) }, 10_000_000, stream(11, "red", 0));
    assert!(verdicts(&mut ns2, 22.5, 10).iter().all(|d| *d == Some(RedDrop::Forced)));
    let mut red = Red::new(packets(false), 10_000_000, stream(11, "red", 0));
    assert!(verdicts(&mut red, 22.5, 10)[1..].iter().all(|d| *d == Some(RedDrop::Early)));
    // Below th_max the curve is ns-2.1b's: avg 10, p_b 0.05, gaps uniform on 20..39.
    let mut red = Red::new(packets(true), 10_000_000, stream(11, "red", 0));
    let g = gaps(&verdicts(&mut red, 10.0, 400_000));
    assert!(g.iter().all(|x| (20..=39).contains(x)) && g.len() > 10_000);
}

#[test]
fn a_full_buffer_of_limit_times_500_bytes_drops_and_restarts_the_count() {
    // enque: qlim = limit_ x mean_pktsize_ = 50 x 500 = 25000 bytes under queue_in_bytes_, and
    // `qlen >= qlim` (the bytes waiting before the arrival) refuses it: 1040-byte packets, 24
    // waiting = 24960 bytes, so the 25th is taken and the 26th refused.
    let mut cfg = packets(true);
    cfg.mode = RedMode::Bytes;
    cfg.curve = RedCurve { min_th: 3125.0, max_th: 9375.0, max_p: 0.1 };
    cfg.w_q = 1e-9; // the average stays near 0: only the buffer decides
    let red = Red::new(cfg, 10_000_000, stream(3, "red", 0));
    let mut q = Queue::with_discipline(QueueLimit::Packets(50), Discipline::Red(Box::new(red)));
    let mut pool = PacketPool::default();
    let mut kept = 0;
    for i in 0..30u64 {
        let mut p = Packet::test_ack(0, 65535);
        (p.payload, p.wire_bytes) = (1000, 1040);
        if q.accepts(i * US, &mut p, false) {
            q.push(i * US, pool.put(&p), &p);
            kept += 1;
        }
    }
    assert_eq!((kept, q.len()), (25, 25));
    // The count restarts on that forced drop (red.cc 1.35, `ns1_compat_ false`): at avg 10,
    // p_b 0.05, nothing can drop until count reaches 20 again.
    let mut red = Red::new(packets(true), 10_000_000, stream(3, "red", 0));
    verdicts(&mut red, 10.0, 19); // opens the period: count 19
    red.overflowed();
    assert!(verdicts(&mut red, 10.0, 19).iter().all(Option::is_none), "count 1..19 after the reset");
    // ns-2.1b keeps counting: 20..38, where this seed's draws drop one.
    let mut ns2 = Red::new(RedConfig { rule: RedRule::Ns2, ..packets(false) }, 10_000_000, stream(3, "red", 0));
    verdicts(&mut ns2, 10.0, 19);
    ns2.overflowed();
    assert!(verdicts(&mut ns2, 10.0, 19).iter().any(Option::is_some));
}

/// Two flows of `stack` (window_ raised to 200 kB, so the queue fills) through a 10 Mb/s, 10 ms bottleneck with a RED queue of 50
/// `qdisc` (first link, forward direction), for 20 s.
fn bottleneck_run(stack: &str, qdisc: &str) -> tcplab_core::metrics::RunReport {
    let sources = common::TWO_SOURCES_UNEQUAL_RTT;
    let text = format!(
        r#"
duration = "20s"
seed = 3
nodes = ["s0", "s1", "r", "d"]
[tcp]
stack = "{stack}"
rcv_buf = "200kB"
[[link]]
a = "r"
b = "d"
rate = "10Mbps"
delay = "10ms"
queue = 50
qdisc = {qdisc}
{sources}"#
    );
    tcplab_core::run_scenario(&text, &tcplab_core::RunOptions::default()).expect("runs").0
}

#[test]
fn an_ns235_bottleneck_drops_early_and_at_its_byte_limit_but_never_forced_by_the_average() {
    // The whole run balances (checked at its end); ns-2.35's defaults give early drops and
    // overflows of the 25000-byte buffer, never a drop forced by the average (use_mark_p_), where
    // ns-2.1b's rule at its 5/15-packet thresholds forces drops.
    let r = bottleneck_run("ns235", r#"{ kind = "red" }"#);
    let q = r.links[0].stats.queue.as_ref().expect("queue counters");
    assert!(q.drops_early > 0 && q.drops_overflow > 0 && q.drops_forced == 0, "{q:?}");
    let r = bottleneck_run("ns235", r#"{ kind = "red", rule = "ns2" }"#);
    let q2 = r.links[0].stats.queue.as_ref().expect("queue counters");
    assert!(q2.drops_forced > 0, "{q2:?}");
}

#[test]
fn the_ns235_example_of_docs_stacks_md_runs_with_ns_2_35s_red() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/stacks.md")).unwrap();
    let section = &doc[doc.find("## Using ns-2.35").expect("the section")..];
    let start = section.find("```toml\n").expect("its example") + "```toml\n".len();
    let text = &section[start..start + section[start..].find("```").unwrap()];
    let r = tcplab_core::run_scenario(text, &tcplab_core::RunOptions::default()).expect("the example runs").0;
    let q = r.links[0].stats.queue.as_ref().expect("queue counters");
    assert!(q.drops_early > 0 && q.drops_forced == 0, "{q:?}");
    assert!(r.flows.iter().all(|f| f.bytes_delivered > 0 && f.syn_retransmits == 0));
}

/// An ns235 queue of 80 packets (thresholds 5 and 15 packets, w_q 1 so the average is the
/// queue, `ecn` on) held at `hold` packets: of `n` ECN-capable arrivals, (marked, dropped).
fn marks_and_drops(hold: usize, n: usize) -> (usize, usize) {
    let cfg = RedConfig { w_q: 1.0, ecn: true, ..packets(true) };
    let red = Red::new(cfg, 10_000_000, stream(13, "red", 0));
    let mut q = Queue::with_discipline(QueueLimit::Packets(80), Discipline::Red(Box::new(red)));
    let mut pool = PacketPool::default();
    let arrival = |ecn| {
        let mut p = Packet::test_ack(0, 65535);
        (p.payload, p.wire_bytes, p.ecn) = (1000, 1040, ecn);
        p
    };
    while q.len() < hold {
        let p = arrival(tcplab_core::packet::Ecn::NotEct);
        q.push(0, pool.put(&p), &p);
    }
    let (mut marked, mut dropped) = (0, 0);
    for i in 1..=n as u64 {
        let mut p = arrival(tcplab_core::packet::Ecn::Ect0);
        if !q.accepts(i * US, &mut p, false) {
            dropped += 1;
            continue;
        }
        marked += (p.ecn == tcplab_core::packet::Ecn::Ce) as usize;
        q.push(i * US, pool.put(&p), &p);
        let head = q.pop(i * US).expect("a packet waits");
        pool.take(head.id);
    }
    (marked, dropped)
}

#[test]
fn with_ecn_it_marks_only_while_p_b_is_below_mark_p() {
    // drop_early (red.cc 1.90): `setbit_ && ect() && (!use_mark_p_ || v_prob1 < mark_p_)` marks,
    // anything else drops; mark_p_ 0.1 = max_p, so below max_th (10 waiting: p_b 0.05) every
    // early verdict is a mark, and in gentle's region (20 waiting: p_b = 0.9/15 x 20 - 0.8 =
    // 0.4) every one a drop.
    let (marked, dropped) = marks_and_drops(10, 4000);
    assert!(marked > 50 && dropped == 0, "{marked} marked, {dropped} dropped");
    let (marked, dropped) = marks_and_drops(20, 4000);
    assert!(marked == 0 && dropped > 500, "{marked} marked, {dropped} dropped");
}
