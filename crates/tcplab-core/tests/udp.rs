//! UDP flows end to end: stop times and byte counts cut a source exactly, a trace is replayed
//! exactly, one-way delay percentiles match a hand-computed queue, every flow's packets are
//! conserved through queues and loss models, pcaps show UDP datagrams, and a TCP flow's stop
//! time ends its stream where the sender got to (ns-2's `Application/FTP stop`).

use pcap_file::pcap::PcapReader;
use tcplab_core::metrics::{FlowReport, RunReport};
use tcplab_core::udp::histogram::RELATIVE_ERROR;
use tcplab_core::udp::UdpReport;
use tcplab_core::{run_scenario, RunOptions};

/// Hosts a and b over one 10 Mb/s, 10 ms link with a 1000-packet queue, and `flows`.
fn scenario(duration: &str, link: &str, flows: &str) -> String {
    bottleneck(duration, "10Mbps", 1000, link, flows)
}

/// Hosts a and b over one link of `rate` and 10 ms with a queue of `queue` packets.
fn bottleneck(duration: &str, rate: &str, queue: u32, link: &str, flows: &str) -> String {
    format!(
        "duration = \"{duration}\"\nnodes = [\"a\", \"b\"]\n\
         [[link]]\na = \"a\"\nb = \"b\"\nrate = \"{rate}\"\ndelay = \"10ms\"\nqueue = {queue}\n{link}\n{flows}"
    )
}

fn run(text: &str) -> RunReport {
    run_scenario(text, &RunOptions::default()).expect("scenario runs").0
}

fn udp(f: &FlowReport) -> &UdpReport {
    f.udp.as_ref().expect("a UDP flow")
}

const CBR: &str = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
                   source = { kind = \"cbr\", rate = \"1Mbps\", size = \"1000B\" }\n";

#[test]
fn a_stop_time_ends_a_cbr_source_before_its_first_packet_at_or_after_it() {
    // 1000 B at 1 Mb/s from 1 s: packets at 1.000, 1.008, ..., 1.992 s: 125 before 2 s.
    let r = run(&scenario("5s", "", &format!("{CBR}start = \"1s\"\nstop = \"2s\"\n")));
    let u = udp(&r.flows[0]);
    assert_eq!((u.packets_sent, u.bytes_sent), (125, 125_000));
    assert_eq!((u.packets_delivered, u.packets_lost, u.packets_in_flight), (125, 0, 0));
    assert_eq!(r.flows[0].bytes_delivered, 125_000);
    assert_eq!(r.flows[0].stop_s, Some(2.0));
    // Complete when the last packet (sent at 1.992 s) arrived: 1028 B take 822.4 us at
    // 10 Mb/s, then 10 ms of propagation.
    let done = r.flows[0].completion_time_s.unwrap();
    assert!((done - (0.992 + 0.0008224 + 0.010)).abs() < 1e-9, "{done}");
    // Goodput over the flow's life, start to completion.
    assert!((r.flows[0].goodput_bps - 125_000.0 * 8.0 / done).abs() < 1e-6);
}

#[test]
fn a_byte_count_cuts_the_last_packet_to_what_is_left() {
    let r = run(&scenario("5s", "", &format!("{CBR}bytes = 10500\n")));
    let u = udp(&r.flows[0]);
    assert_eq!((u.packets_sent, u.bytes_sent, u.packets_delivered), (11, 10_500, 11));
    assert_eq!(r.flows[0].bytes_delivered, 10_500);
    // The last, 500-byte packet leaves at 80 ms and takes 528 * 8 / 10 Mb/s.
    let done = r.flows[0].completion_time_s.unwrap();
    assert!((done - (0.080 + 528.0 * 8.0 / 10e6 + 0.010)).abs() < 1e-9, "{done}");
}

#[test]
fn an_unstopped_source_runs_to_the_end_and_counts_what_is_still_travelling() {
    let r = run(&scenario("1s", "", CBR));
    let u = udp(&r.flows[0]);
    // Packets at 0, 8, ..., 992 ms; the one sent in the last 10.8224 ms is still on the way.
    assert_eq!(u.packets_sent, 125);
    assert_eq!(u.packets_in_flight, 1);
    assert_eq!(u.packets_delivered, 124);
    assert_eq!(r.flows[0].completion_time_s, None);
}

/// `n` packets of `size` bytes all at time 0: a trace.
fn burst(n: usize, size: u32) -> String {
    let pkts: Vec<String> = (0..n).map(|_| format!("[0, {size}]")).collect();
    format!(
        "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
         source = {{ kind = \"trace\", packets = [{}] }}\n",
        pkts.join(", ")
    )
}

#[test]
fn delay_percentiles_of_a_burst_through_a_queue_match_the_hand_computed_ones() {
    // 100 packets of 1000 B (1028 on the wire) at once onto 10 Mb/s, 10 ms: packet k leaves
    // after k + 1 serialisations of 822.4 us, so its delay is 10 ms + (k + 1) 0.8224 ms. The
    // nearest-rank p-th percentile is the delay of packet ceil(p) - 1.
    let r = run(&scenario("2s", "", &burst(100, 1000)));
    let u = udp(&r.flows[0]);
    let delay = |k: f64| 0.010 + (k + 1.0) * 1028.0 * 8.0 / 10e6;
    for (got, p) in [(u.delay_p50_s, 50.0), (u.delay_p95_s, 95.0), (u.delay_p99_s, 99.0)] {
        let want = delay(p - 1.0);
        let got = got.unwrap();
        assert!((got - want).abs() <= want * RELATIVE_ERROR, "p{p}: {got} vs {want}");
    }
    // The minimum, maximum and mean are exact.
    assert!((u.delay_min_s.unwrap() - delay(0.0)).abs() < 1e-12);
    assert!((u.delay_max_s.unwrap() - delay(99.0)).abs() < 1e-12);
    assert!((u.delay_mean_s.unwrap() - delay(49.5)).abs() < 1e-12);
    assert_eq!(u.packets_delivered, 100);
    assert_eq!(r.flows[0].completion_time_s, u.delay_max_s);
}

#[test]
fn a_trace_is_replayed_at_its_times_with_its_sizes() {
    // Captured where the link delivers: each packet arrives its serialisation and 10 ms after
    // its time in the trace (the link is idle in between).
    let dir = std::env::temp_dir().join(format!("tcplab-udp-trace-{}", std::process::id()));
    let flows = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\nstart = \"1s\"\n\
                 source = { kind = \"trace\", packets = [[0, 100], [\"2ms\", 1472], [0.005, 20], [\"7ms\", 500]] }\n";
    let text = scenario("2s", "pcap = \"receive\"", flows);
    let opts = RunOptions { seed: None, out_dir: Some(dir.clone()) };
    let r = run_scenario(&text, &opts).unwrap().0;
    assert_eq!(udp(&r.flows[0]).packets_delivered, 4);
    let pkts = datagrams(&dir.join("link-a-b.recv.pcap"));
    std::fs::remove_dir_all(&dir).unwrap();
    let want = [(0.0, 100), (0.002, 1472), (0.005, 20), (0.007, 500)];
    assert_eq!(pkts.len(), 4);
    for (d, (t, size)) in pkts.iter().zip(want) {
        let arrive = 1.0 + t + (size + 28) as f64 * 8.0 / 10e6 + 0.010;
        // pcap timestamps are whole microseconds.
        assert!((d.ts - arrive).abs() < 1e-6, "{} vs {arrive}", d.ts);
        assert_eq!(d.udp_len as u32, size + 8);
        assert_eq!(d.orig_len, 14 + 20 + 8 + size);
    }
}

struct Datagram {
    ts: f64,
    orig_len: u32,
    udp_len: u16,
}

/// The datagrams of a capture, checking the IPv4 and UDP headers and checksums on the way.
fn datagrams(path: &std::path::Path) -> Vec<Datagram> {
    let mut r = PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        let ip = &p.data[14..];
        assert_eq!(ip[9], 17, "protocol UDP");
        assert_eq!(sum(&ip[..20]), 0xffff, "IPv4 header checksum");
        let udp = &ip[20..28];
        assert_eq!(p.data.len(), 14 + 20 + 8, "captured up to the UDP header");
        let udp_len = u16::from_be_bytes([udp[4], udp[5]]);
        assert_eq!(udp_len as usize, u16::from_be_bytes([ip[2], ip[3]]) as usize - 20);
        // RFC 768: the checksum over the pseudo-header, header and (zero) payload verifies.
        let pseudo = [&ip[12..20], &[0, 17], &udp_len.to_be_bytes()[..]].concat();
        assert_eq!(sum(&[pseudo.as_slice(), udp].concat()), 0xffff, "UDP checksum");
        assert_eq!(u16::from_be_bytes([udp[0], udp[1]]), 10_000);
        assert_eq!(u16::from_be_bytes([udp[2], udp[3]]), 5001);
        out.push(Datagram { ts: p.timestamp.as_secs_f64(), orig_len: p.orig_len, udp_len });
    }
    out
}

/// The ones' complement sum of 16-bit words (0xffff when a checksum in them verifies).
fn sum(b: &[u8]) -> u16 {
    let mut s: u32 = b.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

#[test]
fn every_udp_packet_is_delivered_lost_or_still_travelling() {
    // A 2 Mb/s on-off source and a 3 Mb/s CBR over a 1 Mb/s bottleneck with a 20-packet queue
    // that also loses 5% at random: drops of both kinds, and the ledger still adds up (the
    // run checks it; here the report's numbers too).
    let flows = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
                 source = { kind = \"exponential\", rate = \"2Mbps\", size = \"500B\", burst_time = \"50ms\", idle_time = \"50ms\" }\n\
                 [[flow]]\nsrc = \"a\"\ndst = \"b\"\nprotocol = \"udp\"\n\
                 source = { kind = \"cbr\", rate = \"3Mbps\", size = \"1200B\", random = true }\n";
    let text = bottleneck("10s", "1Mbps", 20, "[link.ab]\nloss = { model = \"bernoulli\", p = 0.05 }", flows);
    let r = run(&text);
    let l = &r.links[0];
    assert!(l.stats.drops_queue > 0 && l.stats.drops_loss > 0, "{l:?}");
    let mut lost = 0;
    for f in &r.flows {
        let u = udp(f);
        assert_eq!(u.packets_sent, u.packets_delivered + u.packets_lost + u.packets_in_flight);
        assert!(u.packets_lost > 0 && u.packets_delivered > 0);
        lost += u.packets_lost;
    }
    assert_eq!(lost, l.stats.drops_queue + l.stats.drops_loss);
    assert_eq!(r.conservation.injected, r.flows.iter().map(|f| udp(f).packets_sent).sum::<u64>());
    // Same seed, same bytes; another seed, another run.
    let again = run(&text);
    assert_eq!(serde_json::to_string(&again.flows).unwrap(), serde_json::to_string(&r.flows).unwrap());
    let other = run_scenario(&text, &RunOptions { seed: Some(9), out_dir: None }).unwrap().0;
    assert_ne!(udp(&other.flows[0]).packets_sent, udp(&r.flows[0]).packets_sent);
}

#[test]
fn udp_and_tcp_share_a_bottleneck() {
    // A 5 Mb/s CBR beside a bulk TCP flow on 10 Mb/s: the CBR keeps its rate (it does not back
    // off) and TCP gets about what is left.
    let flows = format!(
        "{}[[flow]]\nsrc = \"a\"\ndst = \"b\"\n[flow.tcp]\nrcv_buf = \"1MiB\"\n",
        CBR.replace("1Mbps", "5Mbps")
    );
    let r = run(&bottleneck("20s", "10Mbps", 50, "", &flows));
    let (cbr, tcp) = (&r.flows[0], &r.flows[1]);
    assert!(cbr.goodput_bps > 4.9e6, "{}", cbr.goodput_bps);
    assert!(tcp.goodput_bps > 3.5e6 && tcp.goodput_bps < 5.0e6, "{}", tcp.goodput_bps);
    assert!(tcp.udp.is_none() && tcp.retransmits > 0);
}

#[test]
fn a_tcp_flows_stop_ends_its_stream_where_the_sender_got_to() {
    // A bulk flow stopped at 2 s: no new data after it, what was sent is delivered (a segment
    // lost just before the stop is resent after it), and the flow completes.
    let tcp = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\nstop = \"2s\"\n[flow.tcp]\nrcv_buf = \"64KiB\"\n";
    let stopped = run(&scenario("10s", "", tcp));
    let longer = run(&scenario("30s", "", tcp));
    let f = &stopped.flows[0];
    assert_eq!(f.bytes_delivered, longer.flows[0].bytes_delivered, "nothing new after the stop");
    let done = f.completion_time_s.expect("the flow completes");
    assert!((2.0..2.5).contains(&done), "{done}");
    let unstopped = run(&scenario("2s", "", &tcp.replace("stop = \"2s\"\n", "")));
    assert!(f.bytes_delivered >= unstopped.flows[0].bytes_delivered);
    // Lose the segment at the highest offset the sender reached before 2 s: it is resent
    // after the stop and the stream still completes.
    let seg = f.bytes_delivered.div_ceil(1460);
    let lossy = format!("[link.ab]\nloss = {{ model = \"drop_list\", flow = 0, by = \"segment\", values = [{seg}] }}");
    let r = run(&scenario("10s", &lossy, tcp));
    assert_eq!(r.flows[0].bytes_delivered, f.bytes_delivered);
    assert!(r.flows[0].retransmits >= 1);
    assert!(r.flows[0].completion_time_s.unwrap() > done);
}

#[test]
fn a_marker_meters_a_udp_flow() {
    // A 2 Mb/s CBR metered at 1 Mb/s: about half its packets are marked.
    let flows = format!("{}marker = {{ rate = \"1Mbps\", depth = \"10kB\" }}\n", CBR.replace("1Mbps", "2Mbps"));
    let r = run(&scenario("10s", "", &flows));
    let m = r.flows[0].marking.as_ref().unwrap();
    let share = m.marked_packets as f64 / udp(&r.flows[0]).packets_sent as f64;
    assert!((share - 1028.0 / 2056.0).abs() < 0.02, "{share}");
}
