//! The WWW application of Goyal et al. (1998) on a small copy of their satellite network.

use tcplab_core::metrics::RunReport;
use tcplab_core::{run_scenario, RunOptions};

/// `n` server-client pairs across two ATM switches joined by a 45 Mb/s trunk with `delay`
/// one way; the trunk's buffer holds `buffer` cells under `drop`.
fn network(n: usize, delay: &str, buffer: u32, drop: &str, www: &str, duration: f64) -> String {
    let mut s = format!(
        "duration = {duration}\nnodes = [\"sw1\", \"sw2\", {}, {}]\nswitches = [\"sw1\", \"sw2\"]\n\
         [tcp]\nvariant = \"newreno_ns2\"\nmss = 1024\nrcv_buf = 65535\ntimer = \"100ms\"\n\
         initial_ssthresh = \"bdp\"\nsws_avoidance = false\n\
         [[link]]\na = \"sw1\"\nb = \"sw2\"\nrate = \"45Mbps\"\ndelay = \"{delay}\"\natm = true\n\
         queue = {buffer}\ndrop = {drop}\n",
        (0..n).map(|i| format!("\"s{i}\"")).collect::<Vec<_>>().join(", "),
        (0..n).map(|i| format!("\"c{i}\"")).collect::<Vec<_>>().join(", "),
    );
    for (host, sw) in [("s", "sw1"), ("c", "sw2")] {
        for i in 0..n {
            s += &format!(
                "[[link]]\na = \"{host}{i}\"\nb = \"{sw}\"\nrate = \"149.76Mbps\"\ndelay = \"5us\"\natm = true\n\
                 queue = 100000\n[link.ba]\nqueue = {buffer}\ndrop = {drop}\n"
            );
        }
    }
    s += &format!("[www]\n{www}\n");
    for i in 0..n {
        s += &format!("[[www.pair]]\nclient = \"c{i}\"\nserver = \"s{i}\"\n");
    }
    s
}

const EPD: &str = "{ policy = \"epd\", threshold = 0.8 }";

fn run(text: &str, seed: u64) -> RunReport {
    run_scenario(text, &RunOptions { seed: Some(seed), out_dir: None }).expect("runs").0
}

#[test]
fn pairs_carry_several_responses_each_over_one_connection() {
    let r = run(&network(4, "5ms", 2300, EPD, "", 25.0), 1);
    assert_eq!(r.www.len(), 4);
    assert_eq!(r.flows.len(), 8, "two one-way flows per pair");
    for w in &r.www {
        let resp = &r.flows[w.response_flow as usize];
        assert_eq!((&*resp.src, &*resp.dst), (w.server.as_str(), w.client.as_str()));
        assert!(w.batches >= 2, "{w:?}");
        assert!(w.responses_completed >= 2, "several responses on one connection: {w:?}");
        assert!(w.requests_served <= w.requests_sent && w.responses_completed <= w.requests_served);
        // Bytes delivered on the response flow: every completed response, never more than asked.
        assert!(resp.bytes_delivered <= w.bytes_requested, "{resp:?} {w:?}");
        let req = &r.flows[w.request_flow as usize];
        assert_eq!(req.bytes_delivered, 128 * w.requests_served);
        assert!((w.scheduled_load_bps - w.bytes_requested as f64 * 8.0 / 25.0).abs() < 1e-6);
    }
}

#[test]
fn requests_occupy_cells_on_the_reverse_path() {
    let r = run(&network(4, "5ms", 2300, EPD, "", 25.0), 2);
    // Channel 1 is the trunk from the clients' switch to the servers' switch.
    let back = &r.links[1];
    assert_eq!((&*back.from, &*back.to), ("sw2", "sw1"));
    assert_eq!(back.stats.drops_queue, 0);
    let (mut req_segments, mut resp_acks) = (0, 0);
    for w in &r.www {
        req_segments += r.flows[w.request_flow as usize].data_segments;
        resp_acks += r.flows[w.response_flow as usize].acks_sent;
    }
    assert!(req_segments > 0);
    // A 128-byte request is 128 + 40 + 8 (LLC/SNAP) + 8 (AAL5) = 184 bytes: 4 cells; an
    // ACK is 2 cells. The trunk carried both (less what was still on its way at the end).
    let expected = 4 * req_segments + 2 * resp_acks;
    assert!(back.stats.tx_packets <= expected, "{} cells, {expected} sent", back.stats.tx_packets);
    assert!(back.stats.tx_packets + 64 >= expected, "{} cells, {expected} sent", back.stats.tx_packets);
    assert!(back.stats.tx_packets > 2 * resp_acks + 3 * req_segments);
}

#[test]
fn a_www_run_is_reproducible_and_seeds_differ() {
    let text = network(3, "5ms", 531, "{ policy = \"sd\", threshold = 0.8, z = 0.8 }", "pipelining = false", 15.0);
    let a = serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text, 4) }).unwrap();
    let b = serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text, 4) }).unwrap();
    let c = serde_json::to_string(&RunReport { wall_s: 0.0, ..run(&text, 5) }).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn bad_www_settings_name_their_field() {
    let bad = |www: &str, field: &str| {
        let e = run_scenario(&network(1, "5ms", 100, EPD, www, 1.0), &RunOptions::default()).unwrap_err();
        assert!(e.to_string().contains(field), "{e} should name {field}");
    };
    bad("idle_restart = \"sometimes\"", "www.idle_restart");
    bad("request_gap_min = \"1s\"\nrequest_gap_max = \"10ms\"", "www.request_gap_max");
    bad("batch_period = 0", "www.batch_period");
    bad("client_start = \"staggered\"", "www.client_start");
    bad("handshake = \"server\"", "www.handshake");
    let e = run_scenario(
        &network(1, "5ms", 100, EPD, "", 1.0).replace("server = \"s0\"", "server = \"sw1\""),
        &RunOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("www.pair[0].server"), "{e}");
}

/// With `series_bin`, each flow reports the bytes its application wrote per bin: the response
/// flow's writes are exactly the responses asked for and the request flow's the requests sent,
/// and the client never holds more than the server wrote by the end of any bin (the difference is
/// the server's backlog, queued or in flight).
#[test]
fn written_series_counts_the_applications_writes() {
    let text = format!("series_bin = \"1s\"\n{}", network(4, "5ms", 531, EPD, "", 25.0));
    let r = run(&text, 3);
    for w in &r.www {
        let resp = &r.flows[w.response_flow as usize];
        let written = resp.written_series.as_ref().expect("a written series");
        assert_eq!(written.iter().sum::<u64>(), w.bytes_requested);
        let req = &r.flows[w.request_flow as usize];
        assert_eq!(req.written_series.as_ref().unwrap().iter().sum::<u64>(), 128 * w.requests_sent);
        let delivered = resp.delivered_series.as_ref().unwrap();
        let (mut cw, mut cd) = (0, 0);
        for i in 0..written.len().max(delivered.len()) {
            cw += written.get(i).copied().unwrap_or(0);
            cd += delivered.get(i).copied().unwrap_or(0);
            assert!(cd <= cw, "pair {}: bin {i}: delivered {cd} > written {cw}", w.pair);
        }
    }
    // Without applications the field stays out of the report.
    let greedy = "duration = 1\nseries_bin = \"0.5s\"\nnodes = [\"a\", \"b\"]\n\
                  [[link]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
                  [[flow]]\nsrc = \"a\"\ndst = \"b\"\n";
    assert!(run(greedy, 1).flows[0].written_series.is_none());
}

#[test]
fn synchronized_clients_open_at_time_zero_random_ones_at_their_phase() {
    let sync = run(&network(4, "5ms", 2300, EPD, "client_start = \"synchronized\"", 12.0), 1);
    assert!(sync.flows.iter().all(|f| f.start_s == 0.0), "every connection opens at 0");
    let random = run(&network(4, "5ms", 2300, EPD, "", 12.0), 1);
    let starts: Vec<f64> = random.www.iter().map(|w| random.flows[w.request_flow as usize].start_s).collect();
    assert!(starts.iter().all(|&s| (0.0..10.0).contains(&s)), "{starts:?}");
    assert!(starts.windows(2).any(|p| p[0] != p[1]), "{starts:?}");
    for w in &random.www {
        // A pair's two flows open together, when the client's first batch starts.
        assert_eq!(random.flows[w.response_flow as usize].start_s, random.flows[w.request_flow as usize].start_s);
    }
}

#[test]
fn one_seed_offers_every_network_the_same_workload() {
    // Each draw kind has its own stream, so a longer trunk delay moves when the servers draw,
    // not what they draw: the clients send the same requests, and pairs whose servers answered
    // as many requests were asked for the same bytes.
    let wan = run(&network(4, "5ms", 2300, EPD, "", 25.0), 7);
    let geo = run(&network(4, "275ms", 2300, EPD, "", 25.0), 7);
    let mut same_count = 0;
    for (a, b) in wan.www.iter().zip(&geo.www) {
        assert_eq!((a.batches, a.requests_sent), (b.batches, b.requests_sent));
        if a.requests_served == b.requests_served {
            same_count += 1;
            assert_eq!(a.bytes_requested, b.bytes_requested, "pair {}", a.pair);
            assert_eq!(a.responses_by_class, b.responses_by_class, "pair {}", a.pair);
        }
    }
    assert!(same_count >= 2, "{same_count} pairs served as many requests");
}

#[test]
fn a_client_handshake_costs_a_round_trip_before_the_first_request() {
    let www = "client_start = \"synchronized\"\nrequest_gap_min = \"1s\"\nrequest_gap_max = \"1s\"";
    let plain = run(&network(1, "100ms", 2300, EPD, www, 0.21), 1);
    let opened = run(&network(1, "100ms", 2300, EPD, &format!("{www}\nhandshake = \"client\""), 0.21), 1);
    // Without a handshake the request reaches the server one trip (100 ms) after it leaves; with
    // one it leaves after the SYN and SYN-ACK (a round trip), so it arrives at 300 ms.
    assert_eq!(plain.www[0].requests_served, 1);
    assert_eq!(opened.www[0].requests_served, 0);
    let later = run(&network(1, "100ms", 2300, EPD, &format!("{www}\nhandshake = \"client\""), 0.41), 1);
    assert_eq!(later.www[0].requests_served, 1);
}
