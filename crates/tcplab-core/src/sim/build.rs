//! Building a run from a validated model: channels, flows with their routes and endpoints,
//! applications, captures, and the per-flow records the report needs.

use std::sync::Arc;

use rand::Rng as _;

use super::{Ends, FlowRt, Simulation, NO_APP};
use crate::app::{flow_owners, share_vcs, Apps};
use crate::atm::drop::CellDropper;
use crate::atm::runtime::AtmRuntime;
use crate::config::flow::FlowModel;
use crate::config::link::ChannelModel;
use crate::config::model::Model;
use crate::engine::EventQueue;
use crate::error::{Error, ScenarioError};
use crate::metrics::Conservation;
use crate::net::channel::Series;
use crate::net::loss::{FlowWire, LossModel};
use crate::net::marker::FlowMarking;
use crate::net::qdisc::packet_queue;
use crate::net::route::{RouteArena, Routes};
use crate::net::{Channel, PacketPool, Queue, QueueLimit};
use crate::pcap::{node_ip, wscale_for, PcapFlow, PcapWriter};
use crate::rng::stream;
use crate::tcp::knobs::TickPhase;
use crate::tcp::reserved::Reserved;
use crate::tcp::rtt::TimerClock;
use crate::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::time::{MS, SEC};
use crate::udp::UdpConfig;

impl Simulation {
    /// The run of `model`, ready to start. Fails only on a flow without a route, which a
    /// validated model never has.
    pub fn new(mut model: Model) -> Result<Self, Error> {
        jitter_starts(&mut model);
        if let Some(forced) = crate::test_hooks::forced_one_event_channels() {
            model.one_event_channels = forced;
        }
        let mut channels: Vec<Channel> =
            model.channels.iter().enumerate().map(|(i, c)| channel(&model, i, c)).collect();
        for (ch, n) in channels.iter_mut().zip(crate::budget::buffer_reserves(&model)) {
            ch.reserve(n);
        }
        crate::cache::advise_huge_pages(&channels); // 20 MB at 10^4 flows, read at random
        let mut built = Flows::build(&model, &channels)?;
        for d in channels.iter_mut().filter_map(|c| c.queue.drops.as_deref_mut()) {
            d.set_data_bases(built.wire.iter().map(|w| w.data_base));
        }
        let apps = Apps::new(&model.www, model.seed);
        // An application's connection opens when it first has something to send (a handshake,
        // if any, starts then), not at time 0.
        for (flow, open) in apps.flow_opens() {
            let f = &mut built.flows[flow as usize];
            f.start = f.start.max(open);
        }
        // At most one pending event per channel stage, flow and switch, plus the stop, and a
        // TCP flow's stop.
        let stops = model.flows.iter().filter(|f| f.stop.is_some() && f.udp.is_none()).count();
        let mut pending_bound = 2 * channels.len() + built.flows.len() + model.nodes.len() + apps.len() + 1 + stops;
        if model.atm.reassembly_timeout.is_some() {
            pending_bound += 2 * built.flows.len(); // one reassembly timer per open VC
        }
        let per_flow = |keep: bool| match model.series_bin {
            Some(bin) if keep => model.flows.iter().map(|_| Series::new(bin)).collect(),
            _ => Vec::new(),
        };
        let hot_bytes =
            channels.len() * std::mem::size_of::<Channel>() + built.flows.len() * std::mem::size_of::<FlowRt>();
        let mut pool = PacketPool::default();
        pool.reserve(crate::budget::pool_reserve(&model));
        pool.set_prefetch_onward(crate::cache::worth_prefetching(hot_bytes));
        Ok(Self {
            atm: AtmRuntime::new(model.atm, model.switches.clone(), channels.iter().map(|c| c.to)),
            cell_buf: Vec::new(),
            rebuilt_buf: Vec::new(),
            lost_as_cells: 0,
            cells_dropped_on_packet_links: 0,
            delivered_series: per_flow(true),
            written_series: per_flow(!apps.is_empty()),
            marking: marking(&model),
            violation: None,
            trace_files: Default::default(),
            apps,
            has_udp: model.flows.iter().any(|f| f.udp.is_some()),
            pcaps: model.pcaps.iter().map(|_| PcapWriter::default()).collect(),
            q: EventQueue::for_run(pending_bound, model.channels.iter().any(|c| c.atm)),
            events: 0,
            events_in_line: 0,
            event: super::EventQueued::BEFORE_RUN,
            channels,
            pool,
            routes: built.arena,
            flows: built.flows,
            wire: built.wire,
            pcap_flows: built.pcap_flows,
            ledger: Conservation::default(),
            now: 0,
            names: super::report::Names::new(&model),
            model,
        })
    }
}

/// Channel `i` at run time: its queue (a cell link's drops cells by its policy, with a WWW
/// pair's flows sharing VCs), loss model, captures and series.
fn channel(model: &Model, i: usize, c: &ChannelModel) -> Channel {
    let seed = model.seed;
    let queue = match (c.cell_policy, c.limit) {
        (Some(policy), QueueLimit::Packets(cells)) => {
            let dropper = CellDropper::new(policy, cells as usize, 2 * model.flows.len());
            Queue::with_cell_policy(c.limit, share_vcs(dropper, &model.www, model.flows.len()))
        }
        _ => packet_queue(c.limit, c.qdisc.as_ref(), c.rate_bps, c.delay, c.trace_queue, seed, i as u64),
    };
    let mut queue = queue;
    if c.trace_drops {
        queue.keep_drops();
    }
    let loss = LossModel::new(&c.loss, seed, i as u64);
    let mut ch = Channel::new(c.from, c.to, c.rate_bps, c.delay, queue, loss);
    ch.watch_receive(c.pcap_rx);
    ch.atm = c.atm;
    let series = model.series_bin.map(|bin| Box::new(Series::new(bin)));
    let per_flow = match (c.per_flow_series, model.series_bin) {
        (true, Some(bin)) => Some(Box::new(model.flows.iter().map(|_| Series::new(bin)).collect())),
        _ => None,
    };
    ch.watch(c.pcap, series, per_flow);
    if model.one_event_channels && ch.may_be_one_event() {
        ch.set_one_event();
    }
    ch
}

/// Per flow, when any flow has a token-bucket marker (empty otherwise).
fn marking(model: &Model) -> Vec<FlowMarking> {
    if !model.flows.iter().any(|f| f.marker.is_some()) {
        return Vec::new();
    }
    model.flows.iter().map(|f| FlowMarking::new(f.marker, f.start, model.series_bin)).collect()
}

/// The flows of a run: their endpoints and routes, what the loss models and captures read off
/// their packets.
struct Flows {
    flows: Vec<FlowRt>,
    arena: RouteArena,
    wire: Vec<FlowWire>,
    pcap_flows: Vec<PcapFlow>,
}

impl Flows {
    fn build(model: &Model, channels: &[Channel]) -> Result<Self, Error> {
        let n = model.flows.len();
        let mut routes = Routes::new(model.nodes.len(), channels.iter().map(|c| (c.from, c.to)));
        let mut out = Flows {
            flows: Vec::with_capacity(n),
            arena: RouteArena::default(),
            wire: Vec::with_capacity(n),
            pcap_flows: Vec::with_capacity(n),
        };
        let mut configs = ConfigTable::default();
        let app_of_flow = flow_owners(&model.www, n);
        for (i, f) in model.flows.iter().enumerate() {
            let no_route = |a: u32, b: u32| {
                let (a, b) = (&model.nodes[a as usize], &model.nodes[b as usize]);
                Error::Scenario(ScenarioError::new(format!("flow[{i}].dst"), format!("no route from '{a}' to '{b}'")))
            };
            let fwd = routes.path(f.src, f.dst).ok_or_else(|| no_route(f.src, f.dst))?;
            let rev = routes.path(f.dst, f.src).ok_or_else(|| no_route(f.dst, f.src))?;
            let (rt, wire) = match &f.udp {
                // A datagram's sequence number is its stream offset (`udp::sender`).
                Some(u) => (udp_endpoints(model.seed, i, f, u), FlowWire { data_base: 0, mss: u.source.max_size() }),
                None => {
                    let mut tcp = f.tcp.clone();
                    if tcp.initial_ssthresh_bdp {
                        tcp.initial_ssthresh = path_bdp_bytes(channels, &fwd, &rev).max(2 * tcp.mss as u64);
                    }
                    let (rt, data_base) = endpoints(model.seed, i, f, configs.intern(tcp), app_of_flow[i]);
                    (rt, FlowWire { data_base, mss: f.tcp.mss })
                }
            };
            let (fwd, rev) = (out.arena.add(&fwd), out.arena.add(&rev));
            out.flows.push(FlowRt { fwd_route: fwd, rev_route: rev, ..rt });
            out.wire.push(wire);
            out.pcap_flows.push(pcap_flow(i, f));
        }
        crate::cache::advise_huge_pages(&out.flows); // each flow's TCP state, 0.7 kB
        Ok(out)
    }
}

/// Flow `i`'s two ends, opened, with its routes unset; and the wire sequence number of its
/// stream offset 0.
fn endpoints(seed: u64, i: usize, f: &FlowModel, tcp: Arc<TcpConfig>, app: (u32, u8)) -> (FlowRt, u32) {
    let mut rng = stream(seed, "flow", i as u64);
    let (isn_s, isn_r): (u32, u32) = (rng.random(), rng.random());
    // Each host's coarse clock ticks at its own phase (hosts are not synchronised), unless the
    // scenario aligns them; the draws are made either way, so nothing else moves.
    let tick = match f.tcp.clock {
        TimerClock::Coarse { tick } | TimerClock::Ns2 { tick } | TimerClock::Ns1 { tick } => tick,
        TimerClock::Fine => 500 * MS,
    };
    let (phase_s, phase_r) = (rng.random_range(0..tick), rng.random_range(0..200 * MS));
    let (phase_s, phase_r) = match f.tcp.tick_phase {
        TickPhase::Random => (phase_s, phase_r),
        TickPhase::Aligned => (0, 0),
    };
    // An application's flow starts with nothing written.
    let total = if app.0 == NO_APP { f.bytes } else { Some(0) };
    let mut sender = TcpSender::new(tcp.clone(), i as u32, isn_s, total, phase_s, f.trace);
    sender.reserved = f.reservation.map(|r| Box::new(Reserved::new(r, stream(seed, "reserved", i as u64))));
    let mut receiver = TcpReceiver::new(tcp, i as u32, isn_r, f.bytes, phase_r);
    sender.open(isn_r);
    receiver.open(isn_s);
    let ends = Ends::Tcp { sender, receiver };
    let rt = FlowRt { ends, fwd_route: 0, rev_route: 0, start: f.start, timer_pending: None, app };
    (rt, isn_s.wrapping_add(1))
}

/// UDP flow `i`'s source and sink, drawing from a random stream of its own.
fn udp_endpoints(seed: u64, i: usize, f: &FlowModel, cfg: &UdpConfig) -> FlowRt {
    let rng = stream(seed, "udp", i as u64);
    let flow = crate::udp::flow(cfg, i as u32, f.start, f.stop, f.bytes, rng);
    let ends = Ends::Udp(Box::new(flow));
    FlowRt { ends, fwd_route: 0, rev_route: 0, start: f.start, timer_pending: None, app: (NO_APP, 0) }
}

/// How flow `i` looks in a pcap: its hosts' addresses, ports and SYN options. Without window
/// scaling the SYNs offer none and the window field is the window itself (it announced a
/// shift and divided a 65535-byte window by it: Wireshark showed 2047).
fn pcap_flow(i: usize, f: &FlowModel) -> PcapFlow {
    let wscale = if f.tcp.window_scaling { wscale_for(f.tcp.rcv_buf) } else { 0 };
    let (sender_port, receiver_port) = crate::pcap::flow_ports(i);
    PcapFlow {
        sender_ip: node_ip(f.src),
        receiver_ip: node_ip(f.dst),
        sender_port,
        receiver_port,
        mss: f.tcp.mss.min(65535) as u16,
        sender_wscale: wscale,
        receiver_wscale: wscale,
        sack: f.tcp.recovery.uses_sack(),
        udp: f.udp.is_some(),
    }
}

/// One shared copy of each distinct TCP configuration: thousands of flows with the same
/// settings then share one cache-resident config instead of carrying a copy each.
#[derive(Default)]
struct ConfigTable {
    distinct: Vec<Arc<TcpConfig>>,
}

impl ConfigTable {
    fn intern(&mut self, cfg: TcpConfig) -> Arc<TcpConfig> {
        if let Some(c) = self.distinct.iter().find(|c| ***c == cfg) {
            return c.clone();
        }
        let c = Arc::new(cfg);
        self.distinct.push(c.clone());
        c
    }
}

/// The path's bandwidth-delay product: the slowest rate on the way out times the round-trip
/// propagation delay (Hoe 1996's initial ssthresh).
fn path_bdp_bytes(channels: &[Channel], fwd: &[u32], rev: &[u32]) -> u64 {
    let rate = fwd.iter().map(|&c| channels[c as usize].rate_bps).min().unwrap_or(0);
    let rtt: u64 = fwd.iter().chain(rev).map(|&c| channels[c as usize].delay).sum();
    (rate as u128 * rtt as u128 / 8 / SEC as u128) as u64
}

/// Move each flow's start by its uniform draw in [0, start_jitter), from a stream of its own so
/// that no other random draw of the run moves (a study gets replications that differ in their
/// start times and nothing else).
fn jitter_starts(model: &mut Model) {
    for (i, f) in model.flows.iter_mut().enumerate() {
        if f.start_jitter > 0 {
            f.start += stream(model.seed, "start", i as u64).random_range(0..f.start_jitter);
        }
    }
}
