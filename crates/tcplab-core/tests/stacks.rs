//! The stacks as specifications: the sender driven segment by segment under each preset
//! (`tcp.stack`), and two-host drop-list runs under ns-2 semantics. Every expectation names
//! the source file and function it is derived from; docs/stacks.md has the table.

mod common;

use tcplab_core::metrics::{FlowReport, FlowTrace};
use tcplab_core::packet::{payload_tag, Dir, Packet, SackBlock};
use tcplab_core::tcp::knobs::SackPipeStart;
use tcplab_core::tcp::rtt::TimerClock;
use tcplab_core::tcp::stack::Stack;
use tcplab_core::tcp::{DelayedAck, Handshake, TcpConfig, TcpKnobs, TcpReceiver, TcpSender};
use tcplab_core::time::{MS, SEC};

// ------------------------------------------------------------------ sender harness

/// A preset with 1000-byte segments, no handshake and the given changes.
fn config(stack: Stack, f: impl FnOnce(&mut TcpConfig)) -> TcpConfig {
    let set = TcpKnobs { mss: Some(1000), handshake: Some(Handshake::None), ..TcpKnobs::default() };
    let mut c = stack.config(&set);
    if !stack.counts_packets() {
        c.rcv_buf = 1 << 20;
        c.snd_buf = 1 << 20;
    }
    f(&mut c);
    c
}

fn sender(c: TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(c, 0, 0, None, 0, true);
    s.open(0);
    s
}

fn ack_pkt(off: u64, wnd: u32) -> Packet {
    Packet::test_ack(off, wnd)
}

/// Data segments sent at `t` ms, as offsets in segments (1000 bytes each).
fn drain(s: &mut TcpSender, t: u64) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(t * MS)).map(|p| p.seq.wrapping_sub(1) as u64 / 1000).collect()
}

/// The receiver acknowledges everything below segment `seg` at `t` ms.
fn ack(s: &mut TcpSender, t: u64, seg: u64, wnd: u32) {
    s.on_packet(t * MS, &ack_pkt(seg * 1000, wnd));
}

// ------------------------------------------------------------------ 4.4BSD-Lite

const BSD_WND: u32 = 1 << 20;

#[test]
fn bsd44_window_slow_starts_through_ssthresh_then_adds_an_eighth() {
    // tcp_input.c (tcp_input, "open the congestion window"): slow start unless
    // cw > snd_ssthresh, so the ACK that finds cwnd == ssthresh still adds maxseg; then
    // incr = maxseg*maxseg/cw + maxseg/8: 1e6/5000 + 125 = 325, 1e6/5325 + 125 = 312.
    let mut s = sender(config(Stack::Bsd44, |c| c.initial_ssthresh = 4000));
    assert_eq!(drain(&mut s, 0), [0]);
    let mut windows = vec![];
    for seg in 1..=6 {
        ack(&mut s, 10 * seg, seg, BSD_WND);
        drain(&mut s, 10 * seg);
        windows.push(s.window().cwnd);
    }
    assert_eq!(windows, [2000, 3000, 4000, 5000, 5325, 5637]);
}

/// Eight segments out, then `dups` duplicate ACKs of segment 0 and an ACK of everything.
fn bsd44_recovery(dups: u64) -> (Vec<Vec<u64>>, u64, u64) {
    let mut s = sender(config(Stack::Bsd44, |c| c.initial_cwnd = 8));
    assert_eq!(drain(&mut s, 0), (0..8).collect::<Vec<_>>());
    let mut sent = vec![];
    for i in 1..=dups {
        ack(&mut s, 100 + i, 0, BSD_WND);
        sent.push(drain(&mut s, 100 + i));
    }
    let during = s.window().cwnd;
    let top = s.snd_max() / 1000;
    ack(&mut s, 200, top, BSD_WND);
    (sent, during, s.window().cwnd)
}

#[test]
fn bsd44_fast_retransmit_on_the_third_duplicate_then_inflates() {
    // tcp_input.c (tcp_input, duplicate-ACK branch): on t_dupacks == tcprexmtthresh,
    // ssthresh = min(snd_wnd, cwnd)/2 = 4 segments, snd_nxt = th_ack with cwnd = maxseg to
    // resend one segment, then cwnd = ssthresh + 3 segments; each further duplicate adds a
    // segment and calls tcp_output, so the fifth duplicate opens room for segment 8.
    let (sent, during, _) = bsd44_recovery(5);
    assert_eq!(sent, vec![vec![], vec![], vec![0], vec![], vec![8]]);
    assert_eq!(during, 9000);
}

#[test]
fn bsd44_deflates_only_after_more_than_three_duplicates() {
    // tcp_input.c: `if (tp->t_dupacks > tcprexmtthresh && tp->snd_cwnd > tp->snd_ssthresh)
    // tp->snd_cwnd = tp->snd_ssthresh`, then the window opens as usual. With four
    // duplicates cwnd drops to ssthresh (4000) and, since cw > ssthresh is false, slow start
    // adds a whole segment: 5000. With exactly three it keeps ssthresh + 3 segments (7000)
    // and congestion avoidance adds 1e6/7000 + 125 = 267.
    assert_eq!(bsd44_recovery(4).2, 5000);
    assert_eq!(bsd44_recovery(3).2, 7267);
    // tcplab's own Reno deflates in both cases and then treats cwnd == ssthresh as
    // congestion avoidance: 4000 + 250.
    let mut s = sender(config(Stack::Tcplab, |c| {
        c.initial_cwnd = 8;
        c.rcv_buf = 1 << 20;
    }));
    drain(&mut s, 0);
    for i in 1..=3 {
        ack(&mut s, 100 + i, 0, BSD_WND);
        drain(&mut s, 100 + i);
    }
    ack(&mut s, 200, 8, BSD_WND);
    assert_eq!(s.window().cwnd, 4250);
}

#[test]
fn bsd44_first_timeouts_fall_on_slow_ticks_at_6_and_30_seconds() {
    // tcp_subr.c tcp_newtcpcb: t_rxtcur = 12 ticks of 500 ms before any RTT sample;
    // tcp_timer.c (tcp_timers, TCPT_REXMT): the next uses TCP_REXMTVAL (t_rttvar = 24 ticks)
    // * tcp_backoff[1] = 48 ticks. This host's ticks fall at multiples of 500 ms.
    let mut s = sender(config(Stack::Bsd44, |_| {}));
    assert_eq!(drain(&mut s, 0), [0]);
    assert_eq!(s.next_deadline(), Some(6 * SEC));
    s.on_timer(6 * SEC);
    assert_eq!(drain(&mut s, 6000), [0]);
    assert_eq!(s.next_deadline(), Some(30 * SEC));
}

// ------------------------------------------------------------------ ns-2

/// ns-2's window_: 20 packets, which the receiver advertises in tcplab.
const NS2_WND: u32 = 20_000;

#[test]
fn ns2_window_counts_whole_packets_and_adds_one_over_cwnd() {
    // tcp.cc TcpAgent::opencwnd (windowOption_ 1): cwnd_ += 1 while cwnd_ < ssthresh_,
    // else cwnd_ += 1/cwnd_; TcpAgent::window() = int(cwnd_). From ssthresh_ = 4:
    // 4 -> 4.25 -> 4.485 -> 4.708 -> 4.921 -> 5.124: the fifth packet may go only after
    // the fifth ACK in congestion avoidance.
    let mut s = sender(config(Stack::Ns2, |c| c.initial_ssthresh = 4000));
    drain(&mut s, 0);
    let mut seen = vec![];
    for t in 1..=8 {
        ack(&mut s, 10 * t, t, NS2_WND);
        drain(&mut s, 10 * t);
        seen.push((s.window().cwnd, (s.snd_max() - s.snd_una()) / 1000));
    }
    assert_eq!(seen, [(2000, 2), (3000, 3), (4000, 4), (4250, 4), (4485, 4), (4708, 4), (4920, 4), (5123, 5)]);
}

#[test]
fn ns2_reno_keeps_inflation_in_dupwnd_and_drops_it_on_the_new_ack() {
    // tcp-reno.cc RenoTcpAgent::recv: the third duplicate calls closecwnd(1) (cwnd_ =
    // window()/2 = 4, ssthresh_ 4), resends last_ack_ + 1 and sets dupwnd_ = 3; each later
    // duplicate adds one to dupwnd_, and window() = cwnd_ + dupwnd_ lets segment 8 go on
    // the fifth. The new ACK zeroes dupwnd_ and opencwnd (cwnd_ >= ssthresh_) adds 1/4.
    let mut s = sender(config(Stack::Ns2, |c| c.initial_cwnd = 8));
    assert_eq!(drain(&mut s, 0).len(), 8);
    let mut sent = vec![];
    for i in 1..=5 {
        ack(&mut s, 100 + i, 0, NS2_WND);
        sent.push(drain(&mut s, 100 + i));
    }
    assert_eq!(sent, vec![vec![], vec![], vec![0], vec![], vec![8]]);
    assert_eq!(s.window(), tcplab_core::tcp::window::Window { cwnd: 9000, ssthresh: 4000 });
    ack(&mut s, 200, 9, NS2_WND);
    assert_eq!(s.window().cwnd, 4250);
}

#[test]
fn ns2_timer_fires_exactly_and_is_reset_before_the_rtt_sample() {
    // tcp.cc 1.76: rtt_init sets t_rtxcur_ = rtxcur_init_ (6 s, ns-default.tcl 1.122, with
    // srtt_init_ 0, so the first sample sets srtt = rtt, rttvar = rtt / 2); rtt_timeout gives it
    // unrounded, and the ns timer fires exactly then. TcpAgent::newack calls newtimer()
    // before rtt_update(), so the first ACK still arms 6 s; the next one uses the sample:
    // sent at 0, acked at 250 ms, tick boundaries 100 and 200 ms -> t_rtt_ 2, srtt 16,
    // rttvar 4, t_rtxcur_ = (4 << 3 + 16) >> 3 = 6 ticks = 600 ms.
    let mut s = sender(config(Stack::Ns2, |c| c.initial_cwnd = 2));
    assert_eq!(drain(&mut s, 0), [0, 1]);
    assert_eq!(s.next_deadline(), Some(6 * SEC));
    ack(&mut s, 250, 1, NS2_WND);
    drain(&mut s, 250);
    assert_eq!(s.next_deadline(), Some(250 * MS + 6 * SEC), "newtimer before rtt_update");
    ack(&mut s, 260, 2, NS2_WND);
    assert_eq!(s.next_deadline(), Some(860 * MS));
    // TcpAgent::timeout -> reset_rtx_timer(0, 1): t_backoff_ 2, exactly 1.2 s later.
    s.on_timer(860 * MS);
    assert_eq!(drain(&mut s, 860), [2]);
    assert_eq!(s.next_deadline(), Some(2060 * MS));
}

fn data_pkt(seg: u64) -> Packet {
    let off = seg * 1000;
    Packet {
        dir: Dir::Forward,
        seq: (off as u32).wrapping_add(1),
        ack: 1,
        payload: 1000,
        wire_bytes: 1040,
        tag: payload_tag(0, off, 1000),
        ..ack_pkt(0, NS2_WND)
    }
}

/// Cumulative ACKs (in segments) the receiver sends at `t` ms.
fn acks(r: &mut TcpReceiver, t: u64) -> Vec<u64> {
    std::iter::from_fn(|| r.poll_transmit(t * MS)).map(|p| p.ack.wrapping_sub(1) as u64 / 1000).collect()
}

#[test]
fn ns2_sinks_ack_every_packet_or_delay_exactly_100ms() {
    // tcp-sink.cc TCPSink::recv ACKs every packet at once (the ns2 preset).
    let mut r = TcpReceiver::new(config(Stack::Ns2, |_| {}), 0, 0, None, 0);
    r.open(0);
    r.on_packet(1010 * MS, &data_pkt(0));
    assert_eq!(acks(&mut r, 1010), [1]);
    // DelAckSink::recv: an in-order packet with no timer pending is held and the timer set
    // to interval_ (100 ms) from its arrival, not aligned to any clock; the next packet
    // cancels the timer and is ACKed at once; an out-of-order packet is ACKed at once.
    let delack = DelayedAck { timeout: 100 * MS, aligned: false, immediate_on_out_of_order: true };
    let mut r = TcpReceiver::new(config(Stack::Ns2, |c| c.delayed_ack = Some(delack)), 0, 0, None, 0);
    r.open(0);
    r.on_packet(1010 * MS, &data_pkt(0));
    assert_eq!(acks(&mut r, 1010), Vec::<u64>::new());
    assert_eq!(r.next_deadline(), Some(1110 * MS));
    r.on_timer(1110 * MS);
    assert_eq!(acks(&mut r, 1110), [1]);
    r.on_packet(1200 * MS, &data_pkt(1));
    r.on_packet(1201 * MS, &data_pkt(2));
    assert_eq!(acks(&mut r, 1201), [3]);
    r.on_packet(1202 * MS, &data_pkt(4));
    assert_eq!(acks(&mut r, 1202), [3], "out of order: a duplicate ACK at once");
}

#[test]
fn ns2_maxcwnd_caps_the_window_and_a_zero_floor_still_sends_one_packet() {
    // tcp.cc TcpAgent::opencwnd: `if (maxcwnd_ && (int(cwnd_) > maxcwnd_)) cwnd_ = maxcwnd_`.
    let mut s = sender(config(Stack::Ns2, |c| c.max_cwnd = Some(3)));
    drain(&mut s, 0);
    for t in 1..=6 {
        ack(&mut s, 10 * t, t, NS2_WND);
        drain(&mut s, 10 * t);
        assert!(s.window().cwnd <= 3000, "cwnd {} at ACK {t}", s.window().cwnd);
    }
    assert_eq!(s.snd_max() - s.snd_una(), 3000);
    // ssthresh_floor = 0: a timeout with one packet out leaves ssthresh 0, and the window
    // (cwnd_ = 1 after the timeout) still lets the retransmission go.
    let mut s = sender(config(Stack::Ns1, |c| c.ssthresh_floor = 0));
    assert_eq!(drain(&mut s, 0), [0]);
    s.on_timer(3 * SEC);
    assert_eq!(s.window().ssthresh, 0);
    assert_eq!(drain(&mut s, 3000), [0]);
}

/// (payload, bytes on the wire) of the first data packet under `stack`'s preset, and of the
/// ACK its receiver sends for it.
fn first_packet_and_its_ack(stack: Stack) -> ((u32, u32), (u32, u32)) {
    // The first data packet, after ns235's SYN (tested apart).
    let preset = TcpConfig { handshake: Handshake::None, ..stack.preset() };
    let mut s = sender(preset.clone());
    let p = s.poll_transmit(0).expect("the first segment");
    let mut r = TcpReceiver::new(preset, 0, 0, None, 0);
    r.open(0);
    r.on_packet(10 * MS, &Packet { wire_bytes: p.wire_bytes, ..data_pkt(0) });
    let a = r.poll_transmit(10 * MS).expect("an ACK");
    ((p.payload, p.wire_bytes), (a.payload, a.wire_bytes))
}

#[test]
fn ns2_a_packet_is_packet_size_on_the_wire_and_an_ack_40_bytes() {
    // ns-2.1b3: Agent::initpkt (agent.cc 1.43) gives every packet `size_` = packetSize_ 1000
    // (ns-default.tcl 1.122) and TcpAgent::output (tcp.cc 1.76) changes it only for a SYN; no
    // header is added (that came with useHeaders_ in 2001). TcpAgent::sendmsg counts
    // `nbytes / size_` packets, and TCPSink's ACKs are its packetSize_ 40.
    assert_eq!(first_packet_and_its_ack(Stack::Ns2), ((1000, 1000), (0, 40)));
    // A header set by hand goes on data segments only.
    let mut s = sender(config(Stack::Ns2, |c| c.header_bytes = 40));
    assert_eq!(s.poll_transmit(0).map(|p| p.wire_bytes), Some(1040));
    // The ns1 preset, derived from ns2's, keeps the 40 bytes its study's runs had.
    let mut s = sender(config(Stack::Ns1, |_| {}));
    assert_eq!(s.poll_transmit(0).map(|p| (p.payload, p.wire_bytes)), Some((1000, 1040)));
}

#[test]
fn ns2_timeouts_back_off_64_fold_with_no_ceiling() {
    // ns-default.tcl 1.122 (ns-2.1b3): `maxrto_ 100000`, from rev. 1.65 (1997/10/13) to 2007;
    // tcp.cc 1.76 rtt_backoff: `if (t_backoff_ < 64) t_backoff_ <<= 1`, and rtt_timeout:
    // t_rtxcur_ * t_backoff_, at most maxrto_. Before any sample t_rtxcur_ is rtxcur_init_
    // (6 s), which the srtt fold past a backoff of 8 does not touch: 6, 12, ... 384, 384 s.
    let mut s = sender(config(Stack::Ns2, |_| {}));
    assert_eq!(drain(&mut s, 0), [0]);
    assert_eq!(timeout_gaps(&mut s, 8), [6, 12, 24, 48, 96, 192, 384, 384]);
}

/// Seconds between `n` successive timeouts of packet 0 (each resending it alone), from 0.
fn timeout_gaps(s: &mut TcpSender, n: usize) -> Vec<u64> {
    let mut at = 0;
    let mut gaps = vec![];
    for _ in 0..n {
        let due = s.next_deadline().expect("armed");
        gaps.push((due - at) / SEC);
        at = due;
        s.on_timer(due);
        assert_eq!(drain(s, due / MS), [0]);
    }
    gaps
}

#[test]
fn ns2_fast_retransmit_restarts_the_timer_without_backing_it_off() {
    // RenoTcpAgent::dupack_action (tcp-reno.cc 1.28, inherited by NewReno 1.31) and
    // Sack1TcpAgent::dupack_action (tcp-sack1.cc 1.31, so since rev. 1.28 of 1998/05/12;
    // rev. 1.23 called reset_rtx_timer(1), whose default backoff argument doubled
    // t_backoff_) call reset_rtx_timer(1, 0): the timer is re-armed with the current
    // estimate and backoff. Packet 0's ACK at 100 ms is a 1-tick sample: t_rtxcur_ 300 ms.
    for variant in ["reno", "newreno_ns2", "sack"] {
        let mut s = sender(config(Stack::Ns2, |c| {
            c.recovery = tcplab_core::tcp::RecoveryKind::parse(variant).unwrap();
            c.initial_cwnd = 8;
        }));
        assert_eq!(drain(&mut s, 0).len(), 8);
        ack(&mut s, 100, 1, NS2_WND);
        drain(&mut s, 100);
        assert_eq!(s.rto(), 300 * MS);
        for t in 110..=112 {
            ack(&mut s, t, 1, NS2_WND);
        }
        assert_eq!(drain(&mut s, 112).first(), Some(&1), "{variant}");
        assert_eq!(s.next_deadline(), Some(412 * MS), "{variant}: not 112 ms + 600 ms");
    }
}

// ------------------------------------------------------------------ ns-1

/// Data segments sent at `t` ms, as (segment number, timestamp carried in ms).
fn drain_ts(s: &mut TcpSender, t: u64) -> Vec<(u64, u64)> {
    std::iter::from_fn(|| s.poll_transmit(t * MS)).map(|p| (p.seq.wrapping_sub(1) as u64 / 1000, p.ts / MS)).collect()
}

/// The sink ACKs everything below segment `seg` at `t` ms, echoing the timestamp `echo` ms of
/// the segment that triggered the ACK (tcp-sink.cc 1.2 Acker::build_ack: `ts_` copied).
fn ack_echo(s: &mut TcpSender, t: u64, seg: u64, echo: u64) {
    let mut p = ack_pkt(seg * 1000, NS2_WND);
    p.ts = echo * MS;
    s.on_packet(t * MS, &p);
}

#[test]
fn ns1_samples_the_rtt_on_every_ack_from_the_echoed_timestamp() {
    // ns-1 tcp.cc (1.1.1.1) TcpAgent::output stamps every packet with its send time;
    // TcpAgent::newack calls rtt_update(now - ts_) on every ACK of new data; rtt_update:
    // t_rtt_ = int(tao / tcp_tick_ + 0.5) ticks, then srtt/rttvar as ns-2 (first sample:
    // srtt = rtt << 3, rttvar = rtt << 1); rtt_timeout = (srtt >> 3) + rttvar ticks.
    let mut s = sender(config(Stack::Ns1, |c| c.initial_cwnd = 2));
    assert_eq!(drain_ts(&mut s, 0), [(0, 0), (1, 0)]);
    // rtt_init: t_srtt_ 0, t_rttvar_ int(3 / 0.1) = 30 ticks: 3 s before any sample.
    assert_eq!(s.rto(), 3 * SEC);
    ack_echo(&mut s, 300, 1, 0); // 300 ms: 3 ticks, srtt 24, rttvar 6 -> 3 + 6 = 9 ticks
    assert_eq!(s.rto(), 900 * MS);
    assert_eq!(drain_ts(&mut s, 300), [(2, 300), (3, 300)]);
    ack_echo(&mut s, 310, 2, 0); // 310 ms rounds to 3 ticks: delta 0, rttvar 6 - 1 = 5
    assert_eq!(s.rto(), 800 * MS, "the second ACK of the window is sampled too");
    ack_echo(&mut s, 549, 3, 300); // 249 ms rounds to 2: delta -1, srtt 23, rttvar 5
    assert_eq!(s.rto(), 700 * MS);
    ack_echo(&mut s, 550, 4, 300); // 250 ms rounds up to 3: delta 1, srtt 24, rttvar 5
    assert_eq!(s.rto(), 800 * MS);
    // ns-2.1b without timestamps_ (the ns1 preset with rtt_sample = "timed") samples only the
    // timed segment: the second ACK changes nothing.
    let mut t = sender(config(Stack::Ns1, |c| {
        c.initial_cwnd = 2;
        c.rtt_sample = tcplab_core::tcp::rtt_ns1::RttSample::Timed;
    }));
    drain(&mut t, 0);
    ack_echo(&mut t, 300, 1, 0);
    drain(&mut t, 300);
    ack_echo(&mut t, 310, 2, 0);
    assert_eq!(t.rto(), 900 * MS);
}

#[test]
fn ns1_times_out_at_3_then_3_then_6_seconds_and_samples_the_retransmission() {
    // ns-1 tcp.cc TcpAgent::timeout -> closecwnd(0): ssthresh_ = int(window() / 2) with no
    // floor (window() = 1 packet: 0), cwnd_ = window-init 1; then reset_rtx_timer(0), which
    // calls set_rtx_timer() *before* rtt_backoff(): the first retransmission is timed with
    // t_backoff_ 1 (3 s again), the next with 2 (6 s).
    let mut s = sender(config(Stack::Ns1, |_| {}));
    assert_eq!(drain_ts(&mut s, 0), [(0, 0)]);
    assert_eq!(s.next_deadline(), Some(3 * SEC));
    s.on_timer(3 * SEC);
    assert_eq!(s.window().ssthresh, 0, "closecwnd(0) has no ssthresh floor in ns-1");
    assert_eq!(drain_ts(&mut s, 3000), [(0, 3000)], "the retransmission carries its own send time");
    assert_eq!(s.next_deadline(), Some(6 * SEC));
    s.on_timer(6 * SEC);
    assert_eq!(drain_ts(&mut s, 6000), [(0, 6000)]);
    assert_eq!(s.next_deadline(), Some(12 * SEC));
    // The ACK echoes the last retransmission's time: a 200 ms sample (2 ticks: srtt 16,
    // rttvar 4, timeout 6 ticks), not 6.2 s from the first send. Karn's rule is not needed.
    ack_echo(&mut s, 6200, 1, 6000);
    assert_eq!(s.rto(), 600 * MS);
    // newack clears t_backoff_ only for an ACK at or past rtt_seq_, and reset_rtx_timer set
    // rtt_active_ = 0: the backoff (4 after two timeouts) stays until a segment sent since
    // is ACKed. ssthresh_ 0 puts cwnd_ 1 in congestion avoidance: 1 + 1/1 = 2 packets.
    assert_eq!(drain(&mut s, 6200), [1, 2]);
    assert_eq!(s.next_deadline(), Some(6200 * MS + 4 * 600 * MS));
    // Segment 1, the timed one, clears the backoff, but newack calls newtimer() first: the
    // timer restarted on this ACK still has the backoff of 4 (and the 600 ms estimate from
    // before this ACK's 2-tick sample, which leaves rttvar 3: 500 ms).
    ack_echo(&mut s, 6400, 2, 6200);
    drain(&mut s, 6400);
    assert_eq!(s.next_deadline(), Some(6400 * MS + 4 * 600 * MS));
    assert_eq!(s.rto(), 500 * MS);
    ack_echo(&mut s, 6410, 3, 6200);
    assert_eq!(s.next_deadline(), Some(6410 * MS + 500 * MS), "the next ACK: backoff 1");
}

#[test]
fn ns1_fast_retransmit_backs_the_timer_off() {
    // ns-1: every fast retransmit goes through reset_rtx_timer (tcp.cc 1.1.1.1 for Tahoe,
    // `reset_rtx_timer(1)` in tcp-newreno.cc 1.7, 1997, for the Reno family), which doubles
    // t_backoff_ after arming the timer, and clears rtt_active_. The resent segment's ACK
    // (echoing 102 ms: 98 ms, 1 tick: srtt 8, rttvar 2, timeout 3 ticks) leaves the backoff
    // at 2, so the next new segment is timed with 2 * 300 ms.
    let mut s = sender(config(Stack::Ns1, |c| c.initial_cwnd = 8));
    assert_eq!(drain(&mut s, 0).len(), 8);
    for t in 100..=102 {
        ack_echo(&mut s, t, 0, 0);
    }
    assert_eq!(drain_ts(&mut s, 102), [(0, 102)]);
    assert_eq!(s.next_deadline(), Some(102 * MS + 3 * SEC), "armed with the backoff before doubling");
    ack_echo(&mut s, 200, 8, 102);
    assert_eq!(s.rto(), 300 * MS);
    assert!(!drain(&mut s, 200).is_empty());
    assert_eq!(s.next_deadline(), Some(200 * MS + 2 * 300 * MS));
    // ns-2.1b (reset_rtx_timer(1, 0) on a fast retransmit: no backoff) under the same echoes.
    let mut n = sender(config(Stack::Ns2, |c| {
        c.initial_cwnd = 8;
        c.rtt_sample = tcplab_core::tcp::rtt_ns1::RttSample::Timestamp;
    }));
    drain(&mut n, 0);
    for t in 100..=102 {
        ack_echo(&mut n, t, 0, 0);
    }
    drain(&mut n, 102);
    ack_echo(&mut n, 200, 8, 102);
    drain(&mut n, 200);
    assert_eq!(n.next_deadline(), Some(200 * MS + 300 * MS));
}

#[test]
fn ns_sinks_echo_the_timestamp_of_the_packet_that_triggered_the_ack() {
    // tcp-sink.cc 1.2 Acker::build_ack: `newpkt->bd_.tcp_.ts_ = pkt->bd_.tcp_.ts_`;
    // DelAckSink's timer ACKs the packet it saved; a second packet is ACKed at once with its
    // own timestamp.
    let stamped = |seg: u64, ts_ms: u64| Packet { ts: ts_ms * MS, ..data_pkt(seg) };
    let echoes = |r: &mut TcpReceiver, t: u64| -> Vec<u64> {
        std::iter::from_fn(|| r.poll_transmit(t * MS)).map(|p| p.ts / MS).collect()
    };
    let mut r = TcpReceiver::new(config(Stack::Ns1, |_| {}), 0, 0, None, 0);
    r.open(0);
    r.on_packet(50 * MS, &stamped(0, 7));
    assert_eq!(echoes(&mut r, 50), [7]);
    r.on_packet(60 * MS, &stamped(2, 9));
    assert_eq!(echoes(&mut r, 60), [9], "out of order: the duplicate ACK echoes its trigger");
    let delack = DelayedAck { timeout: 100 * MS, aligned: false, immediate_on_out_of_order: true };
    let mut r = TcpReceiver::new(config(Stack::Ns1, |c| c.delayed_ack = Some(delack)), 0, 0, None, 0);
    r.open(0);
    r.on_packet(50 * MS, &stamped(0, 11));
    r.on_timer(150 * MS);
    assert_eq!(echoes(&mut r, 150), [11]);
    r.on_packet(200 * MS, &stamped(1, 20));
    r.on_packet(201 * MS, &stamped(2, 21));
    assert_eq!(echoes(&mut r, 201), [21]);
}

// ------------------------------------------------------------------ ns-2.35

// ns-2.35's defaults (tcl/lib/ns-default.tcl 1.388, 2010/07/03, the release's) where they
// differ from ns-2.1b3's; each test names the revision that changed the default.

#[test]
fn ns235_a_data_packet_carries_40_header_bytes_and_an_ack_is_40() {
    // ns-default.tcl 1.266 (2001/11/28) `useHeaders_ true`: TcpAgent::output (tcp.cc 1.126,
    // 2001/11/27) adds tcpip_base_hdr_size_ 40 to packetSize_ 1000; TCPSink's ACKs stay 40.
    assert_eq!(first_packet_and_its_ack(Stack::Ns235), ((1000, 1040), (0, 40)));
    assert_eq!(Stack::Ns2.preset().header_bytes, 0, "ns-2.1b3: packetSize_ is the whole packet");
}

#[test]
fn ns235_starts_with_a_window_of_two_packets() {
    // ns-default.tcl 1.242 (2001/05/27) `windowInit_ 2` (windowInitOption_ 1): TcpAgent::reset
    // sets cwnd_ = initial_window() = 2, then opencwnd's slow start: 2, 3, 4 packets.
    let mut s = sender(config(Stack::Ns235, |_| {}));
    assert_eq!(drain(&mut s, 0), [0, 1]);
    ack(&mut s, 100, 1, NS2_WND);
    assert_eq!(drain(&mut s, 100), [2, 3]);
    let mut s = sender(config(Stack::Ns2, |_| {}));
    assert_eq!(drain(&mut s, 0), [0], "ns-2.1b3: windowInit_ 1");
}

#[test]
fn ns235_first_timeout_is_3_s_and_the_backoff_stops_at_60_s() {
    // ns-default.tcl 1.357 (2006/01/23) `rtxcur_init_ 3.0`; 1.371 (2007/03/29) `maxrto_ 60`:
    // rtt_timeout is t_rtxcur_ * t_backoff_, at most maxrto_: 3, 6, 12, 24, 48, 60, 60 s.
    let mut s = sender(config(Stack::Ns235, |_| {}));
    assert_eq!(drain(&mut s, 0), [0, 1]);
    assert_eq!(timeout_gaps(&mut s, 7), [3, 6, 12, 24, 48, 60, 60]);
}

#[test]
fn ns235_counts_rtt_in_10ms_ticks_and_never_times_out_below_200ms() {
    // ns-default.tcl 1.279 (2002/03/08) `tcpTick_ 0.01`: a 100 ms round trip is 10 ticks
    // (rtt_update: tick boundaries crossed), srtt 80, rttvar 20 (x8, x4), so t_rtxcur_ =
    // ((20 << 3) + 80) >> 3 = 30 ticks, 300 ms. Steady 10-tick samples decay rttvar by a
    // quarter of its excess each time (20, 15, 12, 9, 7, 6, 5, 4, 3) and t_rtxcur_ to 13 ticks,
    // 130 ms, which ns-default.tcl 1.336's (2004/10/18) `minrto_ 0.2` lifts to 200 ms
    // (rtt_timeout with rfc2988_). Under ns-2.1b3's 100 ms tick the same path is a 1-tick
    // sample and a 300 ms timeout for ever.
    let rtos = |stack: Stack, before: Option<bool>| {
        let mut s = sender(config(stack, |c| c.min_rto_before_backoff = before.unwrap_or(c.min_rto_before_backoff)));
        let mut seen = vec![];
        drain(&mut s, 0);
        for k in 1..=9 {
            let top = s.snd_max() / 1000;
            ack(&mut s, 100 * k, top, NS2_WND);
            drain(&mut s, 100 * k);
            seen.push(s.rto() / MS);
        }
        let due = s.next_deadline().expect("armed");
        s.on_timer(due);
        let backed_off = s.next_deadline().expect("re-armed") - due;
        (seen, (due - 900 * MS) / MS, backed_off / MS)
    };
    // The timeout after it: rfc2988_ (tcp.cc 1.131, on since ns-default.tcl 1.279) raises
    // t_rtxcur_ to minrto_ before the backoff doubles it: 400 ms, not max(260, 200) ms.
    assert_eq!(rtos(Stack::Ns235, None), (vec![300, 250, 220, 190, 170, 160, 150, 140, 130], 200, 400));
    assert_eq!(rtos(Stack::Ns2, None), (vec![300; 9], 300, 600));
    // The knob alone: ns-2.1b's floor bounds the backed-off 2 x 130 ms instead.
    assert_eq!(rtos(Stack::Ns235, Some(false)).2, 260);
}

/// A sender of `stack` (with `f`) whose 100 ms round trips have brought t_rtxcur_ down to 130
/// ms (as in the test above), then the gaps in ms between `n` successive timeouts.
fn ns235_timeouts_after_130ms(stack: Stack, n: usize, f: impl FnOnce(&mut TcpConfig)) -> Vec<u64> {
    let mut s = sender(config(stack, f));
    drain(&mut s, 0);
    for k in 1..=9 {
        let top = s.snd_max() / 1000;
        ack(&mut s, 100 * k, top, NS2_WND);
        drain(&mut s, 100 * k);
    }
    let mut at = 900 * MS;
    let mut gaps = vec![];
    for _ in 0..n {
        let due = s.next_deadline().expect("armed");
        gaps.push((due - at) / MS);
        at = due;
        s.on_timer(due);
        drain(&mut s, due / MS);
    }
    gaps
}

#[test]
fn ns235_backoff_doubles_past_64_until_the_timeout_reaches_60_s() {
    // tcp.cc 1.181 (2010/04/02; 1.174, 2007/03/29, without the bound) rtt_backoff: `if
    // (t_backoff_ < 64 || (rfc2988_ && rtt_timeout() < maxrto_)) t_backoff_ <<= 1`, and
    // rtt_timeout: minrto_ (200 ms, above t_rtxcur_'s 130) times t_backoff_, at most maxrto_
    // (60 s): 0.2 s doubling to 51.2 s, then 60 s. ns-2.1b's `t_backoff_ < 64` stops at 12.8 s.
    let full = [200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 51_200, 60_000, 60_000, 60_000];
    assert_eq!(ns235_timeouts_after_130ms(Stack::Ns235, 12, |_| {}), full);
    let capped = ns235_timeouts_after_130ms(Stack::Ns235, 12, |c| c.backoff_to_max_rto = false);
    assert_eq!(capped[6..], [12_800; 6], "the knob alone: 64 times 200 ms at most");
    assert_eq!(capped[..7], full[..7]);
    // ns2's 100000 s maxrto_ and 64-fold backoff: from 300 ms, 19.2 s for ever; the knob
    // alone on ns2 doubles on toward 100000 s.
    assert_eq!(ns235_timeouts_after_130ms(Stack::Ns2, 10, |_| {})[6..], [19_200; 4]);
    let ns2_on = ns235_timeouts_after_130ms(Stack::Ns2, 10, |c| c.backoff_to_max_rto = true);
    assert_eq!(ns2_on[7..], [38_400, 76_800, 153_600]);
}

#[test]
fn ns235_restarts_the_timer_from_the_sample_the_ack_brings() {
    // tcp.cc 1.120 (2001/05/11, `timerfix_` on in ns-default.tcl 1.239 the same day):
    // TcpAgent::newack calls newtimer() after rtt_update() and the backoff's reset. Packet 0,
    // sent at 0 and ACKed at 250 ms, is 25 ticks of 10 ms: srtt 200, rttvar 50 (x8, x4),
    // t_rtxcur_ = (50 << 3 + 200) >> 3 = 75 ticks; the timer restarts 750 ms after the ACK,
    // where ns-2.1b's order (knob off) restarts it from rtxcur_init_'s 3 s.
    let restart = |f: fn(&mut TcpConfig)| {
        let mut s = sender(config(Stack::Ns235, f));
        assert_eq!(drain(&mut s, 0), [0, 1]);
        assert_eq!(s.next_deadline(), Some(3 * SEC));
        ack(&mut s, 250, 1, NS2_WND);
        s.next_deadline().expect("packet 1 is out")
    };
    assert_eq!(restart(|_| {}), 1000 * MS);
    assert_eq!(restart(|c| c.rearm_after_sample = false), 3250 * MS);
    // After a timeout (t_backoff_ 2) the ACK that ends the backoff restarts the timer with it
    // ended. Packet 0 resent at 3 s; ACK 2 at 3.25 s (packet 1 had arrived); packet 2, sent
    // then and timed, ACKed at 3.5 s: 25 ticks, the first sample, 750 ms. Knob off: 3 s times
    // the backoff of 2 the ACK is about to clear.
    let after_timeout = |f: fn(&mut TcpConfig)| {
        let mut s = sender(config(Stack::Ns235, f));
        drain(&mut s, 0);
        s.on_timer(3 * SEC);
        assert_eq!(drain(&mut s, 3000), [0]);
        ack(&mut s, 3250, 2, NS2_WND);
        assert_eq!(drain(&mut s, 3250), [2, 3]);
        ack(&mut s, 3500, 3, NS2_WND);
        s.next_deadline().expect("packet 3 is out") - 3500 * MS
    };
    assert_eq!(after_timeout(|_| {}), 750 * MS);
    assert_eq!(after_timeout(|c| c.rearm_after_sample = false), 6 * SEC);
}

/// Reno with ten packets out from a window of 10 (ssthresh_ 20): packets 0 and 2 are lost,
/// the other eight bring eight duplicates of packet 0, the resent 0 a partial ACK (up to 2),
/// and the three packets the inflated window sent meanwhile three duplicates of 2. Returns
/// what the duplicates of 2 sent and the fast retransmits.
fn reno_second_hole(stack: Stack, exit_fast_retrans: Option<bool>) -> (Vec<u64>, u64) {
    let mut s = sender(config(stack, |c| {
        c.initial_cwnd = 10;
        c.limited_transmit = false; // ns235's would send 10 and 11 on duplicates 1 and 2
        if let Some(on) = exit_fast_retrans {
            c.exit_fast_retrans = on;
        }
    }));
    let (at_partial, later) = two_holes(&mut s);
    assert_eq!(at_partial, Vec::<u64>::new(), "window() 5 from packet 2 reaches 6 only");
    (later, s.stats.fast_retransmits)
}

/// Ten packets out, 0 and 2 lost: the eight duplicates of 0 (the third resends 0, slowdown to
/// cwnd_ 5 with dupwnd_ 3, and the 6th to 8th open 10 to 12), the partial ACK of the resent 0
/// (up to 2) and the three duplicates of 2 that 10 to 12 bring. What the partial ACK sent,
/// and what the three duplicates sent.
fn two_holes(s: &mut TcpSender) -> (Vec<u64>, Vec<u64>) {
    assert_eq!(drain(s, 0).len(), 10);
    let sent: Vec<u64> = dup_sends(s, 8).concat();
    assert_eq!(sent, [0, 10, 11, 12]);
    ack(s, 200, 2, NS2_WND);
    let at_partial = drain(s, 200);
    let mut later = vec![];
    for t in 1..=3 {
        ack(s, 300 + t, 2, NS2_WND);
        later.extend(drain(s, 300 + t));
    }
    (at_partial, later)
}

#[test]
fn ns235_reno_fast_retransmits_once_per_window() {
    // ns-2.1b3, tcp-reno.cc 1.28 RenoTcpAgent::dupack_action: with bugFix_ a fast retransmit
    // is allowed when `last_cwnd_action_ == CWND_ACTION_DUPACK`, which nothing resets after
    // the first one: the three duplicates of 2 resend 2 and halve the window again.
    assert_eq!(reno_second_hole(Stack::Ns2, None), (vec![2], 2));
    // ns-2.35, tcp-reno.cc 1.43 RenoTcpAgent::recv: the partial ACK turns DUPACK into EXITED
    // (`exitFastRetrans_ true`, ns-default.tcl 1.319; working since 1.42, 2005/07/13), so
    // dupack_action finds neither `highest_ack_ > recover_` (recover_ = maxseq_ 12 from the
    // first fast retransmit) nor DUPACK and returns: no retransmission, and no dupwnd_ either,
    // which grows only while last_cwnd_action_ is DUPACK. Packet 2 waits for the timer.
    assert_eq!(reno_second_hole(Stack::Ns235, None), (vec![], 1));
    assert_eq!(reno_second_hole(Stack::Ns2, Some(true)), (vec![], 1), "the knob alone");
    assert_eq!(reno_second_hole(Stack::Ns235, Some(false)), (vec![2], 2));
}

/// `newreno_ns2` as in `reno_second_hole`: ten packets out, 0 and 2 lost; the eight
/// duplicates of 0 (fast retransmit, dupwnd_ 3 to 8: packets 10 to 12), the partial ACK of
/// the resent 0 (up to 2), then the three duplicates of 2 that 10 to 12 bring. Returns what the
/// partial ACK sent and what the three duplicates sent.
fn newreno_partial_ack(stack: Stack, deflation: Option<bool>) -> (Vec<u64>, Vec<u64>) {
    let mut s = sender(config(stack, |c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::NewRenoNs2;
        c.initial_cwnd = 10;
        c.limited_transmit = false; // as in reno_second_hole
        c.partial_window_deflation = deflation.unwrap_or(c.partial_window_deflation);
    }));
    two_holes(&mut s)
}

#[test]
fn ns235_newreno_deflates_the_window_by_the_packets_a_partial_ack_covers_less_one() {
    // ns-2.1b3 (tcp-newreno.cc 1.31 partialnewack): `dupwnd_ = 0`, cwnd_ 5 as the fast
    // retransmit left it: the partial ACK resends 2 and the window (5 from packet 2, so up
    // to 6) sends nothing new, nor do the duplicates of 2 (dupwnd_ 1 to 3: up to 9 < 13).
    assert_eq!(newreno_partial_ack(Stack::Ns2, None), (vec![2], vec![]));
    // ns-2.35 (`partial_window_deflation_ 1`, ns-default.tcl 1.315, 2003/05/06; partialnewack
    // as in tcp-newreno.cc 1.45, 2001/06/16): the ACK covers d = 2 packets and dupwnd_ 8 > 2
    // loses d - 1: window 5 + 7 = 12 from packet 2 sends 13 after the resent 2 (send_much(0,
    // 0, 2) while dupacks_ >= 3), and each duplicate of 2 adds one to dupwnd_: 14, 15, 16.
    assert_eq!(newreno_partial_ack(Stack::Ns235, None), (vec![2, 13], vec![14, 15, 16]));
    assert_eq!(newreno_partial_ack(Stack::Ns235, Some(false)), (vec![2], vec![]), "the knob alone");
    assert_eq!(newreno_partial_ack(Stack::Ns2, Some(true)), (vec![2, 13], vec![14, 15, 16]));
}

/// Four packets out (window 4), packet 0 lost: what each of the three duplicates sends.
fn limited_transmit_dups(stack: Stack, variant: &str, on: Option<bool>) -> Vec<Vec<u64>> {
    let mut s = sender(config(stack, |c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::parse(variant).expect("a variant");
        c.initial_cwnd = 4;
        c.limited_transmit = on.unwrap_or(c.limited_transmit);
    }));
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3]);
    dup_sends(&mut s, 3)
}

/// Duplicate ACKs 1 to `n` of packet 0, at 101, 102, ... ms: what leaves on each.
fn dup_sends(s: &mut TcpSender, n: u64) -> Vec<Vec<u64>> {
    (1..=n)
        .map(|t| {
            ack(s, 100 + t, 0, NS2_WND);
            drain(s, 100 + t)
        })
        .collect()
}

#[test]
fn ns235_limited_transmit_sends_one_new_packet_on_each_of_the_first_two_duplicates() {
    // ns-2.35 (`singledup_ 1`, ns-default.tcl 1.267, 2001/11/29): recv calls send_one on
    // duplicates 1 and 2 (tcp.cc 1.101, 2000/03/15, and 8c70a774's second duplicate of
    // 2000/03/16): packet t_seqno_ goes if `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`,
    // -1 + 4 + 1 = 4 then 5. The third resends 0; cwnd_ 2 + dupwnd_ 3 from packet 0 reaches 4,
    // already sent. ns-2.1b3 sends nothing on the first two, and the inflated window sends 4
    // after the fast retransmit. (Tahoe with bugFix_ does not fast-retransmit packet 0: before
    // any ACK `highest_ack_ > recover_` fails, and this sender has no SYN for bugfix_ss_.)
    for variant in ["reno", "newreno_ns2", "tahoe"] {
        let ns235 = limited_transmit_dups(Stack::Ns235, variant, None);
        assert_eq!(ns235[..2], [vec![4], vec![5]], "{variant}");
        assert_eq!(limited_transmit_dups(Stack::Ns2, variant, Some(true))[..2], [vec![4], vec![5]], "{variant}");
        assert_eq!(
            limited_transmit_dups(Stack::Ns235, variant, Some(false))[..2],
            [Vec::<u64>::new(), vec![]],
            "{variant}"
        );
    }
    for variant in ["reno", "newreno_ns2"] {
        assert_eq!(limited_transmit_dups(Stack::Ns235, variant, None)[2], [0]);
        assert_eq!(limited_transmit_dups(Stack::Ns2, variant, None)[2], [0, 4]);
    }
}

/// Five packets out, cwnd_ 5 in congestion avoidance (ssthresh_ 3): packet 0's ACK makes it
/// 5 + 1/5 = 5.2; packet 1 is lost and 2 to 4 bring three duplicates. (ssthresh_, cwnd_ +
/// dupwnd_) in bytes after the fast retransmit.
fn halving_after(stack: Stack, variant: &str, on: Option<bool>) -> (u64, u64) {
    let mut s = sender(config(stack, |c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::parse(variant).expect("a variant");
        c.initial_cwnd = 5;
        c.initial_ssthresh = 3000;
        c.limited_transmit = false;
        c.dupack_needs_new_sack = false; // these duplicates carry no SACK blocks
        c.precision_reduce = on.unwrap_or(c.precision_reduce);
    }));
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3, 4]);
    ack(&mut s, 100, 1, NS2_WND);
    assert_eq!(drain(&mut s, 100), [5]);
    assert_eq!(s.window().cwnd, 5200);
    for t in 1..=3 {
        ack(&mut s, 200 + t, 1, NS2_WND);
    }
    assert_eq!(drain(&mut s, 203)[0], 1, "the fast retransmit");
    (s.window().ssthresh, s.window().cwnd)
}

#[test]
fn ns235_fast_retransmit_halves_the_window_keeping_its_fraction() {
    // ns-2.35 (`precisionReduce_ true`, ns-default.tcl 1.358, 2006/01/24; tcp.cc 1.110,
    // 2000/08/08) slowdown: `halfwin = windowd() / 2` = 2.6, `cwnd_ = halfwin`, `ssthresh_ =
    // int(halfwin)` = 2; Reno and NewReno add dupwnd_ 3. ns-2.1b3: `int(window() / 2)` = 2.
    for variant in ["reno", "newreno_ns2"] {
        assert_eq!(halving_after(Stack::Ns235, variant, None), (2000, 5600), "{variant}");
        assert_eq!(halving_after(Stack::Ns2, variant, None), (2000, 5000), "{variant}");
        assert_eq!(halving_after(Stack::Ns235, variant, Some(false)), (2000, 5000), "{variant}: the knob alone");
    }
    // Sack1 (no dupwnd_): cwnd_ = 2.6 packets under ns235, ssthresh's 2 under ns2's `sack`.
    assert_eq!(halving_after(Stack::Ns235, "sack", None), (2000, 2600));
    assert_eq!(halving_after(Stack::Ns2, "sack", None), (2000, 2000));
}

/// SACK with cwnd_ 8 and an advertised window of 6 packets: packets 0 to 5 out, 0 and 2
/// lost, and the four duplicates of 0 that 1, 3, 4 and 5 bring, each SACKing what arrived.
/// Returns what each duplicate sent.
fn sack_pipe_start(stack: Stack, pipe: Option<SackPipeStart>) -> Vec<Vec<u64>> {
    let blocks: [&[(u64, u64)]; 4] = [&[(1, 2)], &[(3, 4), (1, 2)], &[(3, 5), (1, 2)], &[(3, 6), (1, 2)]];
    sack_dups(config(stack, |c| c.sack_pipe = pipe.unwrap_or(c.sack_pipe)), &blocks)
}

/// `sack` with cwnd_ 8 and an advertised window of 6 packets, packets 0 to 5 out: duplicate
/// ACKs of 0 with these SACK blocks (in packets), at 100, 101, ... ms. What each one sent.
fn sack_dups(mut c: TcpConfig, blocks: &[&[(u64, u64)]]) -> Vec<Vec<u64>> {
    c.recovery = tcplab_core::tcp::RecoveryKind::Sack;
    c.initial_cwnd = 8;
    let mut s = sender(c);
    s.on_packet(0, &ack_pkt(0, 6000));
    assert_eq!(drain(&mut s, 0), [0, 1, 2, 3, 4, 5]);
    let mut sent = vec![];
    for (i, b) in blocks.iter().enumerate() {
        let mut p = ack_pkt(0, 6000);
        for (k, (l, r)) in b.iter().enumerate() {
            p.sack[k] = SackBlock { left: (l * 1000 + 1) as u32, right: (r * 1000 + 1) as u32 };
        }
        p.n_sack = b.len() as u8;
        s.on_packet((100 + i as u64) * MS, &p);
        sent.push(drain(&mut s, 100 + i as u64));
    }
    sent
}

#[test]
fn ns235_sack_pipe_starts_from_the_packets_outstanding() {
    // ns-2.1b3, tcp-sack1.cc 1.31 Sack1TcpAgent::dupack_action: the third duplicate resends 0,
    // `pipe_ = int(cwnd_) - NUMDUPACKS` = 8 - 3 = 5, and cwnd_ = ssthresh_ = 6 / 2 = 3; the
    // fourth takes pipe_ to 4, still not below cwnd_: nothing more.
    assert_eq!(sack_pipe_start(Stack::Ns2, None), vec![vec![], vec![], vec![0], vec![]]);
    // ns-2.35, tcp-sack1.cc 1.44 (2000/08/20, reinstated 1.47, 2000/10/03; `oldCode_ false`):
    // `pipe_ = maxseq_ - highest_ack_ - numdupacks_` = 6 - 3 = 3, so the fourth duplicate takes
    // it to 2, below cwnd_ 3, and send_much resends the scoreboard's hole, packet 2.
    assert_eq!(sack_pipe_start(Stack::Ns235, None), vec![vec![], vec![], vec![0], vec![2]]);
    // The knob alone, either way.
    assert_eq!(sack_pipe_start(Stack::Ns2, Some(SackPipeStart::Flight)), sack_pipe_start(Stack::Ns235, None));
    assert_eq!(sack_pipe_start(Stack::Ns235, Some(SackPipeStart::Cwnd)), sack_pipe_start(Stack::Ns2, None));
}

/// SACK, six packets out in a window of 6, packet 0 lost; duplicates SACK 1, then 1 again (a
/// duplicate that reports nothing new), then 3 and 4. Which duplicate resent packet 0.
fn sack_fast_retransmit_at(stack: Stack, on: Option<bool>) -> usize {
    let blocks: [&[(u64, u64)]; 4] = [&[(1, 2)], &[(1, 2)], &[(3, 4), (1, 2)], &[(3, 5), (1, 2)]];
    let c = config(stack, |c| c.dupack_needs_new_sack = on.unwrap_or(c.dupack_needs_new_sack));
    sack_dups(c, &blocks).iter().position(|sent| sent.first() == Some(&0)).map_or(0, |i| i + 1)
}

#[test]
fn ns235_sack_counts_only_duplicates_that_sack_new_data() {
    // tcp-sack1.cc 1.41 (2000/07/23) Sack1TcpAgent::recv: `if (scb_->CheckUpdate()) { if
    // (++dupacks_ == numdupacks(cwnd_)) dupack_action(); ... }`: the second duplicate SACKs
    // nothing new, so the fourth is the third that counts. ns-2.1b3 counts every one.
    assert_eq!(sack_fast_retransmit_at(Stack::Ns235, None), 4);
    assert_eq!(sack_fast_retransmit_at(Stack::Ns2, None), 3);
    assert_eq!(sack_fast_retransmit_at(Stack::Ns235, Some(false)), 3, "the knob alone");
    assert_eq!(sack_fast_retransmit_at(Stack::Ns2, Some(true)), 4);
}

#[test]
fn ns235_is_ns2_but_for_its_changed_defaults() {
    // Every other knob is ns-2.1b3's: window_ 20, packetSize_ 1000, bugFix_, the sinks, the
    // RTT arithmetic (docs/stacks.md, "ns235").
    let (n235, n2) = (Stack::Ns235.preset(), Stack::Ns2.preset());
    let same = TcpConfig {
        header_bytes: n2.header_bytes,
        initial_cwnd: n2.initial_cwnd,
        clock: n2.clock,
        min_rto: n2.min_rto,
        min_rto_before_backoff: n2.min_rto_before_backoff,
        backoff_to_max_rto: n2.backoff_to_max_rto,
        rearm_after_sample: n2.rearm_after_sample,
        max_rto: n2.max_rto,
        initial_rto: n2.initial_rto,
        exit_fast_retrans: n2.exit_fast_retrans,
        sack_pipe: n2.sack_pipe,
        newreno_changes1: n2.newreno_changes1,
        limited_transmit: n2.limited_transmit,
        precision_reduce: n2.precision_reduce,
        dupack_needs_new_sack: n2.dupack_needs_new_sack,
        partial_window_deflation: n2.partial_window_deflation,
        handshake: n2.handshake,
        ns_syn: n2.ns_syn,
        bugfix_ss: n2.bugfix_ss,
        stack: Stack::Ns2,
        ..n235.clone()
    };
    assert_eq!(same, n2);
    // minrto_ is its own knob in ns-2.35, not two ticks: a tick set by hand leaves it.
    let c = Stack::Ns235.config(&TcpKnobs { timer: Some(TimerClock::Ns2 { tick: 500 * MS }), ..TcpKnobs::default() });
    assert_eq!(c.min_rto, 200 * MS);
}

/// An ns235 sender (the preset with its SYN, then `f`) and a sink, both opened at 0.
fn ns235_pair(f: impl FnOnce(&mut TcpConfig)) -> (TcpSender, TcpReceiver) {
    let mut c = Stack::Ns235.preset();
    f(&mut c);
    let mut r = TcpReceiver::new(c.clone(), 0, 0, None, 0);
    r.open(0);
    (sender(c), r)
}

/// What the sender sends at `t` (ns): (payload, bytes on the wire, SYN) per packet.
fn sent_at(s: &mut TcpSender, t: u64) -> Vec<(u32, u32, bool)> {
    std::iter::from_fn(|| s.poll_transmit(t)).map(|p| (p.payload, p.wire_bytes, p.is_syn())).collect()
}

/// The sink takes `syn` at `t` (ns) and the sender its answer 50 ms later.
fn answer_syn(s: &mut TcpSender, r: &mut TcpReceiver, syn: &Packet, t: u64) {
    r.on_packet(t, syn);
    let synack = r.poll_transmit(t).expect("the sink answers the SYN");
    assert_eq!((synack.payload, synack.wire_bytes), (0, 40), "TCPSink's 40-byte ACK");
    s.on_packet(t + 50 * MS, &synack);
}

#[test]
fn ns235_opens_with_a_timed_40_byte_syn_and_sends_data_one_round_trip_later() {
    // ns-default.tcl 1.241 (2001/05/17) `syn_ true`, `delay_growth_ true`: packet 0 is a SYN of
    // `tcpip_base_hdr_size_` 40 bytes carrying no data (TcpAgent::output, tcp.cc 1.171),
    // sent with cwnd_ 1 (set_initial_window) and timed (output: `seqno > maxseq_`); its ACK
    // gives the first RTT sample and `cwnd_ = initial_window()` = windowInit_ 2 (TcpAgent::
    // recv: `last_ack_ == 0 && delay_growth_`). A one-way agent sends no separate third
    // packet: the handshake's last ACK rides on the data.
    let (mut s, mut r) = ns235_pair(|_| {});
    let syn = s.poll_transmit(0).expect("the SYN");
    assert_eq!((syn.payload, syn.wire_bytes, syn.is_syn()), (0, 40, true));
    assert!(s.poll_transmit(0).is_none(), "no data before the SYN's ACK");
    assert_eq!(s.next_deadline(), Some(3 * SEC), "rtxcur_init_ 3.0 (ns-default.tcl 1.357)");
    answer_syn(&mut s, &mut r, &syn, 50 * MS);
    assert_eq!(sent_at(&mut s, 100 * MS), [(1000, 1040, false); 2]);
    // The SYN's 100 ms is 10 ticks of tcpTick_ 0.01: srtt 10, rttvar 5, RTO 30 ticks.
    assert_eq!(s.rto(), 300 * MS);
    assert_eq!(s.next_deadline(), Some(400 * MS));
    // ns-2.1b3 (syn_ false, ns-default.tcl 1.122) sends data at once.
    assert_eq!(Stack::Ns2.preset().handshake, Handshake::None);
}

/// ns235 (with `f`) loses its first SYN: (the timeout, ms; the next one's distance; packets
/// sent on the resent SYN's ACK; cwnd and ssthresh then, packets; the first data packet's
/// timeout, ms after it was sent; the window after the first data packet's ACK).
fn ns235_lost_syn(f: impl FnOnce(&mut TcpConfig)) -> (u64, u64, usize, u64, u64, u64, u64) {
    let (mut s, mut r) = ns235_pair(f);
    s.poll_transmit(0).expect("the SYN, lost");
    let due = s.next_deadline().expect("armed");
    s.on_timer(due);
    let again = s.poll_transmit(due).expect("the SYN again");
    assert!(again.is_syn());
    let next = s.next_deadline().expect("re-armed") - due;
    answer_syn(&mut s, &mut r, &again, due + 50 * MS);
    let opened = due + 100 * MS;
    let data = sent_at(&mut s, opened).len();
    let w = s.window();
    let data_rto = s.next_deadline().expect("armed") - opened;
    s.on_packet(opened + 100 * MS, &ack_pkt(1000, NS2_WND));
    (due / MS, next / MS, data, w.cwnd / 1000, w.ssthresh / 1000, data_rto / MS, s.window().cwnd / 1000)
}

#[test]
fn ns235_a_lost_syn_times_out_at_3_s_and_then_sends_one_packet() {
    // TcpAgent::timeout (tcp.cc 1.171, 2006/06/14) on the SYN: highest_ack_ == -1, so
    // bugfix_ss_ (on from ns-default.tcl 1.366, the same day) sets wnd_init_ = 1; then
    // slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) from cwnd_ 1: ssthresh_ = int(1 / 2),
    // floored at 2; reset_rtx_timer(0, 1) doubles t_backoff_: the next SYN timeout is 6 s
    // away. The resent SYN is not timed (maxseq_ is already 0), so its ACK takes no sample and
    // leaves t_backoff_ 2: the first data packet's timeout is 2 x rtxcur_init_ = 6 s. On that
    // ACK, `cwnd_ = initial_window()` = 1; the next ACK is slow start (1 < ssthresh_ 2): 2.
    assert_eq!(ns235_lost_syn(|_| {}), (3000, 6000, 1, 1, 2, 6000, 2));
    // bugfix_ss_ alone off: windowInit_ 2 after all, ssthresh_ still 2 (the timeout's), so
    // the next ACK is congestion avoidance: 2 + 1/2.
    assert_eq!(ns235_lost_syn(|c| c.bugfix_ss = false), (3000, 6000, 2, 2, 2, 6000, 2));
    // ns_syn off: tcplab's own handshake (its SYN timeout leaves ssthresh, and the SYN's ACK
    // clears the backoff); bugfix_ss still makes the window 1.
    assert_eq!(ns235_lost_syn(|c| c.ns_syn = false), (3000, 6000, 1, 1, 20, 3000, 2));
    assert_eq!(
        ns235_lost_syn(|c| (c.ns_syn, c.bugfix_ss) = (false, false)),
        (3000, 6000, 2, 2, 20, 3000, 3),
        "both off: the handshake as before"
    );
}

/// ns235 with `variant` (and `f`) opens with windowInit_ 8 after its SYN; data packet `lost`
/// (0-based) is lost and the three after it arrive: whether the third duplicate ACK resends it.
fn ns235_first_loss_fast_retransmits(variant: &str, lost: u64, f: impl FnOnce(&mut TcpConfig)) -> bool {
    let (mut s, mut r) = ns235_pair(|c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::parse(variant).expect("a variant");
        c.initial_cwnd = 8;
        f(c);
    });
    let syn = s.poll_transmit(0).expect("the SYN");
    answer_syn(&mut s, &mut r, &syn, 50 * MS);
    assert_eq!(drain(&mut s, 100), (0..8).collect::<Vec<_>>());
    for k in 0..lost {
        ack(&mut s, 200 + k, k + 1, NS2_WND);
        drain(&mut s, 200 + k);
    }
    (1..=3).any(|k| {
        ack(&mut s, 300 + k, lost, NS2_WND);
        drain(&mut s, 300 + k).first() == Some(&lost)
    })
}

#[test]
fn ns235_tahoe_fast_retransmits_the_first_data_packet() {
    // TcpAgent::dupack_action with bugFix_: `highest_ack_ > recover_`, recover_ starting at 0,
    // which with syn_ is the SYN: one data packet acknowledged is enough. bugfix_ss_ (tcp.cc
    // 1.172, 2006/06/14) adds `|| (bugfix_ss_ && highest_ack_ == 0)`: the first data packet
    // itself (the three duplicates acknowledge only the SYN).
    assert!(ns235_first_loss_fast_retransmits("tahoe", 0, |_| {}));
    assert!(ns235_first_loss_fast_retransmits("tahoe", 1, |_| {}));
    assert!(!ns235_first_loss_fast_retransmits("tahoe", 0, |c| c.bugfix_ss = false), "knob alone");
    assert!(ns235_first_loss_fast_retransmits("tahoe", 1, |c| c.bugfix_ss = false));
    // Without ns_syn recover_ 0 is a data packet, as in ns-2.1b3: two must be acknowledged.
    assert!(!ns235_first_loss_fast_retransmits("tahoe", 1, |c| (c.ns_syn, c.bugfix_ss) = (false, false)));
    // Reno, NewReno and Sack1 block only after a timeout or a recovery (their unit tests);
    // these hand-made duplicates carry no SACK blocks, which Sack1's CheckUpdate would ignore.
    for variant in ["reno", "newreno_ns2", "sack"] {
        assert!(ns235_first_loss_fast_retransmits(variant, 0, |c| c.dupack_needs_new_sack = false), "{variant}");
    }
}

// ------------------------------------------------------------------ two hosts, ns-2

/// a -> b over one 1 Mb/s, 50 ms link with a queue that never overflows: ns-2 semantics
/// (stack = "ns2": 1000-byte packets + 40 header bytes, window_ 20, ssthresh_ 20, TCPSink
/// ACKing every packet, 100 ms tcpTick_). 150 packets; slow start reaches window_ = 20
/// packets near packet 40, so from then on every window is exactly 20 packets and the
/// sender is limited by window_, not cwnd_. `drops` are packet numbers (1-based), each
/// lost once on its first transmission.
fn ns2_run(variant: &str, drops: &[u64]) -> (FlowReport, FlowTrace) {
    ns_run("ns2", variant, drops)
}

/// `ns2_run` under another ns stack.
fn ns_run(stack: &str, variant: &str, drops: &[u64]) -> (FlowReport, FlowTrace) {
    let v: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let text = format!(
        r#"
duration = 120
nodes = ["a", "b"]
[[link]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "50ms"
queue = 1000
[link.ab]
loss = {{ model = "drop_list", flow = 0, by = "segment", values = [{}] }}
[[flow]]
src = "a"
dst = "b"
bytes = 150000
trace = true
[flow.tcp]
stack = "{stack}"
variant = "{variant}"
"#,
        v.join(", ")
    );
    let (r, t) = common::run(&text);
    let f = r.flows[0].clone();
    assert_eq!(f.bytes_delivered, 150_000, "{variant} must deliver everything");
    (f, t)
}

/// Packets 60, 62, ... (every other one, inside one window of 20).
fn drops(n: u64) -> Vec<u64> {
    common::every_other_from_60(n)
}

/// First retransmission time (s) of each dropped packet.
fn repairs(t: &FlowTrace, drops: &[u64]) -> Vec<f64> {
    common::repair_times(t, drops)
}

#[test]
fn ns235_runs_end_to_end_and_repairs_one_drop_by_fast_retransmit() {
    // A scenario names the stack (`stack = "ns235"`) and runs to the end with conservation
    // checked; one drop in a window of 20 packets is one fast retransmit under every ns-2
    // variant, as under ns2: the changed defaults leave these rules alone. The report's RTO
    // is the estimator's t_rtxcur_ before any bound (docs/scenario.md, `final_rto_s`): whole
    // 10 ms ticks, and here below minrto_, which only the armed timer applies.
    for variant in ["tahoe", "reno", "newreno_ns2", "sack"] {
        let (f, _) = ns_run("ns235", variant, &[60]);
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmits), (1, 0, 1), "{variant}");
        let ticks = f.final_rto_s / 0.01;
        assert!((ticks - ticks.round()).abs() < 1e-6 && f.final_rto_s < 0.2, "{variant}: {} s", f.final_rto_s);
        // The first data packet lost (the SYN is no data segment of the drop list): the SYN's
        // ACK at 100.64 ms gave the first sample, a 300 ms RTO (10 ticks: srtt + 4 rttvar), so
        // the data leaving then times out at 400.64 ms, before limited transmit (singledup_)
        // from a window of 2 can bring a third duplicate (one per round trip of ~109 ms).
        let (f, t) = ns_run("ns235", variant, &[1]);
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmits, f.syn_retransmits), (0, 1, 1, 0), "{variant}");
        assert!((repairs(&t, &[1])[0] - 0.40064).abs() < 1e-6, "{variant}: {:?}", repairs(&t, &[1]));
    }
}

#[test]
fn ns2_tahoe_one_fast_retransmit_then_go_back_n_and_never_a_timeout() {
    // tcp.cc TcpAgent::recv/dupack_action: the third duplicate with highest_ack_ >
    // recover_ runs tahoe_action: ssthresh_ = window()/2 = 10, cwnd_ = 1, recover_ =
    // maxseq_, reset_rtx_timer(0,0) sets t_seqno_ = highest_ack_ + 1 (go back N). Slow start
    // then resends the rest of the window in order, filling every hole; the few duplicates
    // it provokes are below recover_, which bugFix_ ignores. So one fast retransmit and no
    // timeout for one to four drops.
    for n in 1..=4 {
        let (f, t) = ns2_run("tahoe", &drops(n));
        assert_eq!((f.fast_retransmits, f.timeouts), (1, 0), "{n} drops");
        let rtx = repairs(&t, &[60])[0];
        let after = t.rows.iter().find(|r| r.time as f64 / 1e9 >= rtx).unwrap();
        assert_eq!((after.cwnd, after.ssthresh), (1000, 10_000), "{n} drops: cwnd_ 1, ssthresh_ 10");
    }
}

#[test]
fn ns2_reno_recovers_one_drop_but_times_out_on_two_to_four() {
    // tcp-reno.cc RenoTcpAgent::recv: third duplicate: closecwnd(1) (cwnd_ 10, ssthresh_
    // 10), resend 60, dupwnd_ = 3, then +1 per duplicate; window() = min(cwnd_ + dupwnd_,
    // wnd_) stays at window_ = 20, so nothing new leaves (t_seqno_ = 80 is already
    // highest_ack_ + 20). With one drop the resent packet's ACK covers the window. With two
    // or more, that ACK is partial (up to 62): dupwnd_ = 0, opencwnd gives 10.1, 18 packets
    // are outstanding, no more duplicates can come, and the timer (restarted by newtimer on
    // that ACK) fires: one timeout. TcpAgent::timeout then goes back N from the hole with
    // cwnd_ 1; recover_ = maxseq_ with recover_cause_ 2 blocks further fast retransmits
    // (bugFix_), and go-back-N fills the holes in order.
    let (one, _) = ns2_run("reno", &drops(1));
    assert_eq!((one.fast_retransmits, one.timeouts), (1, 0));
    for n in 2..=4 {
        let (f, t) = ns2_run("reno", &drops(n));
        assert_eq!((f.fast_retransmits, f.timeouts), (1, 1), "{n} drops");
        // The second hole is resent only after the timeout: later than 62's partial ACK
        // by at least the 200 ms (2 * tcpTick_) floor of rtt_timeout.
        let r = repairs(&t, &drops(n));
        assert!(r[1] - r[0] > 0.2, "{n} drops: second repair {:.3} s after the first", r[1] - r[0]);
    }
}

#[test]
fn ns2_newreno_resends_one_hole_per_round_trip_without_a_timeout() {
    // tcp-newreno.cc NewRenoTcpAgent::recv: a new ACK below recover_ is partial:
    // partialnewack (dupwnd_ = 0, newtimer restarts the timer, cwnd_ unchanged) and
    // output(last_ack_ + 1) resends the next hole at once; recovery ends only when the ACK
    // reaches recover_. newreno_changes_ is 0 (ns-default.tcl), so no flywheel packets.
    // One hole per round trip (about 100 ms of propagation plus queueing), each well
    // inside the restarted timer, so no timeout.
    for n in 1..=4 {
        let (f, t) = ns2_run("newreno_ns2", &drops(n));
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmits), (1, 0, n), "{n} drops");
        let r = repairs(&t, &drops(n));
        for w in r.windows(2) {
            let gap = w[1] - w[0];
            assert!((0.1..0.5).contains(&gap), "{n} drops: holes resent {gap:.3} s apart");
        }
    }
}

/// ns2 NewReno, 8 packets out, duplicate ACKs 1 to 7 of packet 0: what leaves on each.
fn ns2_newreno_dupacks(recovery_send: &str, changes: bool) -> Vec<Vec<u64>> {
    let mut s = sender(config(Stack::Ns2, |c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::NewRenoNs2;
        c.initial_cwnd = 8;
        c.newreno_changes = changes;
        c.recovery_send_ns2 = recovery_send == "ns2";
    }));
    assert_eq!(drain(&mut s, 0).len(), 8);
    dup_sends(&mut s, 7)
}

#[test]
fn ns2_newreno_sends_only_flywheel_packets_in_recovery_with_newreno_changes() {
    // tcp-newreno.cc (1.7, 1997; unchanged in 1.44, 2001) NewRenoTcpAgent::recv: the third
    // duplicate resends packet 0 (closecwnd(1): cwnd_ 4, dupwnd_ 3); every later duplicate
    // adds to dupwnd_, and with newreno_changes_ an odd dupacks_ (5, 7) sends one new packet
    // by output(t_seqno_++). The closing `if (dupacks_ == 0) send(...); else if (dupacks_ >
    // NUMDUPACKS - 1 && newreno_changes_ == 0) send(0, 0, 2)` never calls send() in
    // recovery with newreno_changes_, so the inflated window itself sends nothing.
    let ns2 = ns2_newreno_dupacks("ns2", true);
    assert_eq!(ns2, vec![vec![], vec![], vec![0], vec![], vec![8], vec![], vec![9]]);
    // recovery_send = "window" (tcplab's earlier rule): the inflated window sends as well,
    // one more packet on the 5th and 7th duplicates (the flywheel's packet then fills the
    // room the 6th would have opened).
    let window = ns2_newreno_dupacks("window", true);
    assert_eq!(window, vec![vec![], vec![], vec![0], vec![], vec![8, 9], vec![], vec![10, 11]]);
    // Without newreno_changes_ send(0, 0, 2) lets the window send, one packet per duplicate
    // here (dupwnd_ grows by one), so the limit of 2 does not bind.
    let plain = ns2_newreno_dupacks("ns2", false);
    assert_eq!(plain, vec![vec![], vec![], vec![0], vec![], vec![8], vec![9], vec![10]]);
}

/// ns2 NewReno with 8 packets out from a window of 8 at ssthresh_ 8: packets 0 and 1 are
/// ACKed (opencwnd: 8.125, 8.248, so 8 and 9 go), then 2 and 5 are lost and 3, 4, 6 to 9 bring
/// six duplicates of packet 1. Returns the sender after them and what each duplicate sent.
fn ns2_newreno_two_holes(changes: bool) -> (TcpSender, Vec<Vec<u64>>) {
    let mut s = sender(config(Stack::Ns2, |c| {
        c.recovery = tcplab_core::tcp::RecoveryKind::NewRenoNs2;
        c.initial_cwnd = 8;
        c.initial_ssthresh = 8000;
        c.newreno_changes = changes;
    }));
    assert_eq!(drain(&mut s, 0).len(), 8);
    ack(&mut s, 10, 1, NS2_WND);
    ack(&mut s, 11, 2, NS2_WND);
    assert_eq!(drain(&mut s, 11), [8, 9]);
    let sent = (12..18).map(|t| {
        ack(&mut s, t, 2, NS2_WND);
        drain(&mut s, t)
    });
    let sent = sent.collect();
    (s, sent)
}

#[test]
fn ns2_newreno_leaves_recovery_on_an_ordinary_new_ack_that_opens_cwnd() {
    // tcp-newreno.cc 1.31 (ns-2.1b3) NewRenoTcpAgent::recv: the third duplicate calls
    // RenoTcpAgent::dupack_action (slowdown: cwnd_ = ssthresh_ = int(8 / 2) = 4; resend 2) and
    // sets dupwnd_ = 3, the 5th and 6th open window() = 4 + dupwnd_ to packets 10 and 11
    // (send_much(0, 0, 2)). The resent 2 brings a partial ACK (below recover_ = 9):
    // partialnewack_helper resends 5, dupwnd_ = 0, cwnd_ stays 4, no opencwnd. The resent 5
    // brings an ACK past recover_: recv_newack_helper, i.e. newack and opencwnd, 4 + 1/4.
    let (mut s, sent) = ns2_newreno_two_holes(false);
    assert_eq!(sent, vec![vec![], vec![], vec![2], vec![], vec![10], vec![11]]);
    ack(&mut s, 100, 5, NS2_WND);
    assert_eq!(drain(&mut s, 100), [5]);
    assert_eq!(s.window().cwnd, 4000, "partialnewack leaves cwnd_");
    ack(&mut s, 101, 5, NS2_WND);
    ack(&mut s, 102, 5, NS2_WND);
    assert_eq!(drain(&mut s, 102), Vec::<u64>::new(), "window() 4 + 2 from packet 5 reaches 10 only");
    ack(&mut s, 200, 12, NS2_WND);
    assert_eq!(s.window().cwnd, 4250, "the ACK that ends recovery opens cwnd_ as any new ACK");
    assert_eq!(drain(&mut s, 200), [12, 13, 14, 15]);
}

#[test]
fn ns2_newreno_flywheel_counts_duplicates_across_partial_acks() {
    // tcp-newreno.cc 1.31 with newreno_changes_: a duplicate with an odd dupacks_ past 3
    // sends output(t_seqno_++) (the 5th: packet 10), and nothing else leaves from the window
    // in recovery. partialnewack does not reset dupacks_ (6 after the six duplicates), so the
    // first duplicate after the partial ACK is the 7th: another flywheel packet, 11.
    let (mut s, sent) = ns2_newreno_two_holes(true);
    assert_eq!(sent, vec![vec![], vec![], vec![2], vec![], vec![10], vec![]]);
    ack(&mut s, 100, 5, NS2_WND);
    assert_eq!(drain(&mut s, 100), [5]);
    ack(&mut s, 101, 5, NS2_WND);
    assert_eq!(drain(&mut s, 101), [11]);
}

#[test]
fn ns2_newreno_after_a_timeout_inflates_but_does_not_fast_retransmit_until_past_recover() {
    // tcp-newreno.cc NewRenoTcpAgent::timeout: dupwnd_ = 0, dupacks_ = 0, `if (bug_fix_)
    // recover_ = maxseq_`, then TcpAgent::timeout (ssthresh_ 4, cwnd_ 1, go back N). Three
    // duplicates below recover_ do not fast-retransmit (rev. 1.7: `recover_cause_ != 2`; rev.
    // 1.44: dupack_action with bug_fix_), but `dupwnd_ = NUMDUPACKS` inflates the window all
    // the same, and dupacks_ >= 3 limits the window to send(0, 0, 2). The next new ACK zeroes
    // dupwnd_ and opens cwnd_ (rev. 1.44's new-ACK branch after a timeout).
    let run = |bug_fix: bool| {
        let mut s = sender(config(Stack::Ns2, |c| {
            c.recovery = tcplab_core::tcp::RecoveryKind::NewRenoNs2;
            c.initial_cwnd = 8;
            c.bug_fix = bug_fix;
        }));
        assert_eq!(drain(&mut s, 0).len(), 8);
        s.on_timer(6 * SEC);
        assert_eq!(drain(&mut s, 6000), [0]);
        ack(&mut s, 6100, 1, NS2_WND); // cwnd_ 1 -> 2: packets 1 and 2 again
        assert_eq!(drain(&mut s, 6100), [1, 2]);
        let mut sent = vec![];
        for t in 6101..=6104 {
            ack(&mut s, t, 1, NS2_WND);
            sent.push(drain(&mut s, t));
        }
        (s, sent)
    };
    let (mut s, sent) = run(true);
    assert_eq!(s.stats.fast_retransmits, 0);
    // Third duplicate: window 2 + 3 = 5 from packet 1 allows 3, 4 and 5, send(0, 0, 2) lets
    // two go; the fourth opens one more, and the two left leave.
    assert_eq!(sent, vec![vec![], vec![], vec![3, 4], vec![5, 6]]);
    ack(&mut s, 6200, 3, NS2_WND);
    assert_eq!(s.window().cwnd, 3000, "dupwnd_ dropped (6 - 4 packets), then slow start");
    // Without bugFix_ the third duplicate is a fast retransmit of packet 1 (output), then
    // send(0, 0, 2).
    let (s, sent) = run(false);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(sent[2], [1, 3, 4]);
}

#[test]
fn ns2_sack_repairs_every_hole_in_one_round_trip() {
    // Fall and Floyd's sack1 (ns-2 tcp-sack1.cc): on the third duplicate, resend the first
    // hole, pipe = cwnd - 3, cwnd = ssthresh = 10; each duplicate takes one off pipe, and
    // once pipe < cwnd the scoreboard's holes go first. With 16+ duplicates still to come
    // every hole is resent before the resent first packet is acknowledged: no timeout, one
    // retransmission per drop.
    for n in 1..=4 {
        let (f, t) = ns2_run("sack", &drops(n));
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmits), (1, 0, n), "{n} drops");
        let r = repairs(&t, &drops(n));
        // The first ACK past packet 60 (the resent 60 arriving) comes after the last repair.
        let ack60 = t.rows.iter().find(|row| row.snd_una > 59_000).map(|row| row.time as f64 / 1e9).unwrap();
        assert!(r[n as usize - 1] < ack60, "{n} drops: holes resent at {r:?}, 60 acknowledged at {ack60}");
    }
}

#[test]
fn ns1_end_to_end_samples_every_ack_of_the_queued_window() {
    // The timestamps ride through the network: each ACK echoes its segment's send time
    // (tcp-sink.cc 1.2), so the ns-1 sender samples the true round trip of every packet. Once
    // window_ (20 packets) is reached the window fills the pipe (12 packets) and the queue,
    // and every packet's RTT is 20 transmissions of 8.32 ms, 166 ms: 2 ticks after rounding
    // (rtt_update), srtt 16 and rttvar decaying to 3 (its floor under `>> 2`), so
    // rtt_timeout = 2 + 3 = 5 ticks. Had the echo been lost on the way, every sample would
    // be the time since the start of the run.
    let (f, _) = ns_run("ns1", "reno", &[]);
    assert_eq!((f.timeouts, f.retransmits), (0, 0));
    assert!((f.final_rto_s - 0.5).abs() < 1e-9, "final RTO {} s", f.final_rto_s);
    // One drop: Reno recovers it as under ns-2, and the resent packet's ACK is a sample of its
    // own round trip, not of the time since the first transmission.
    let (f, _) = ns_run("ns1", "reno", &[60]);
    assert_eq!((f.fast_retransmits, f.timeouts), (1, 0));
    assert!(f.final_rto_s <= 0.8, "final RTO {} s", f.final_rto_s);
}

// ------------------------------------------------------------------ two hosts, 4.4BSD

/// The same drops under `stack = "bsd44"` (delayed ACKs on the 200 ms clock, handshake,
/// 500 ms slow timer), with 1 MiB socket buffers so that cwnd, not the 8 KiB default
/// buffers, limits the window, and ssthresh 16 segments: about 17 segments are in flight
/// when packet 60 leaves. 10 Mb/s, 10 ms link; 200 packets.
fn bsd44_run(drops: &[u64]) -> FlowReport {
    let tcp = "stack = \"bsd44\"\nmss = 1000\nrcv_buf = \"1MiB\"\nsnd_buf = \"1MiB\"\ninitial_ssthresh = 16000";
    let (r, _) = common::run(&common::two_hosts(tcp, &common::drop_segments(drops), 200_000, 60.0));
    let f = r.flows[0].clone();
    assert_eq!(f.bytes_delivered, 200_000);
    f
}

#[test]
fn bsd44_reno_two_fast_retransmits_for_two_drops_a_timeout_for_three_or_four() {
    // tcp_input.c (tcp_input), counting with W ~ 17 segments when packet 60 is lost and
    // out-of-order segments ACKed at once (TCP_REASS sets TF_ACKNOW):
    // - 1 drop: 16 duplicates; fast retransmit on the third (ssthresh 8, cwnd 11), each
    //   later one adds a segment, so new data flows; the resent 60 is ACKed with the rest.
    // - 2 drops (60, 62): 15 duplicates inflate cwnd to 8 + 15 = 23 against a flight of 17,
    //   so 6 new segments leave. The resent 60 brings a partial ACK (62): t_dupacks 15 > 3
    //   deflates to ssthresh, slow start adds one (cw > ssthresh is false). The 6 new
    //   segments then give 6 duplicates of 62: a second fast retransmit, whose ACK covers
    //   the window. No timeout.
    // - 3 drops: 14 duplicates, 5 new segments; after the partial ACK for 62 they give the
    //   second fast retransmit (ssthresh 4); its partial ACK (64) leaves cwnd 5 against 18
    //   segments in flight and no duplicates to come: the retransmit timer fires.
    // - 4 drops: 13 duplicates, 4 new segments, the same second fast retransmit, the same
    //   stall: one timeout.
    assert_eq!(
        [1, 2, 3, 4].map(|n| {
            let f = bsd44_run(&(0..n).map(|i| 60 + 2 * i).collect::<Vec<_>>());
            (f.fast_retransmits, f.timeouts)
        }),
        [(1, 0), (2, 0), (2, 1), (2, 1)]
    );
}

/// `delayed_ack = false` switches off the bsd44 preset's delayed ACKs: with every segment
/// ACKed, slow start grows faster and the same lossless transfer finishes sooner.
#[test]
fn bsd44_delayed_ack_false_overrides_the_preset() {
    let run = |extra: &str| {
        let tcp = format!("stack = \"bsd44\"\nmss = 1000\nrcv_buf = \"1MiB\"\nsnd_buf = \"1MiB\"\n{extra}");
        let (r, _) = common::run(&common::two_hosts(&tcp, "", 200_000, 60.0));
        r.flows[0].completion_time_s.expect("finishes")
    };
    let delayed = run("");
    let every = run("delayed_ack = false");
    assert!(every < delayed, "every-segment ACKs {every} s, delayed ACKs {delayed} s");
}
