//! The simulation: builds the runtime from a validated model, runs the event loop, reports.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::atm::aal5::Rebuilt;
use crate::atm::runtime::AtmRuntime;
use crate::config::{self, model::Model};
use crate::engine::{Event, EventQueue};
use crate::error::Error;
use crate::metrics::{Conservation, FlowTrace, RunReport};
use crate::net::channel::Queued;
use crate::net::drop_trace::DropCause;
use crate::net::loss::FlowWire;
use crate::net::route::RouteArena;
use crate::net::{Channel, PacketId, PacketPool};
use crate::packet::{Dir, Packet};
use crate::pcap::{PcapFlow, PcapWriter};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::Time;
use crate::udp::UdpFlow;

/// How a run learns that it must stop early (Ctrl-C).
pub enum Stop<'a> {
    /// Ask this every `interrupt::CHECK_PERIOD` of wall time (a ticker thread keeps the time).
    Ask(&'a mut dyn FnMut() -> bool),
    /// Stop when another thread says so (`Watch::stop`, seen within `interrupt::CHECK_PERIOD`),
    /// and keep it told of the simulated time reached.
    Watch(&'a crate::interrupt::Watch),
}

/// Where and what to write besides the report.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub seed: Option<u64>,
    /// Folder for summary.json, traces and pcaps; nothing is written without one. With one,
    /// traces are streamed into it as the run goes (`trace_stream`) and not returned.
    pub out_dir: Option<PathBuf>,
}

mod build;
mod cells;
mod forward;
mod invariants;
mod output;
#[cfg(test)]
mod prefetch_tests;
mod pump;
mod report;
mod run_loop;
#[cfg(test)]
mod switch_service_tests;
mod udp;

/// One flow at run time: both endpoints and their routes. On whole cache lines, so that a
/// delivery prefetches the 14 lines a flow spans with as many instructions (`on_arrive`), and
/// no two flows share a line.
#[repr(align(64))]
struct FlowRt {
    ends: Ends,
    fwd_route: u32,
    rev_route: u32,
    start: Time,
    /// Time of the earliest FlowTimer event in the queue for this flow.
    timer_pending: Option<Time>,
    /// The application driving this flow and the flow's port in it (NO_APP: none).
    app: (u32, u8),
}

const NO_APP: u32 = u32::MAX;

/// A flow's two ends: a TCP connection, or a UDP source and the count of what reached its
/// destination (boxed: a UDP flow's delay histogram is large, and most flows are TCP; boxing
/// the TCP ends instead would cost a pointer chase per packet).
#[allow(clippy::large_enum_variant)]
enum Ends {
    Tcp { sender: TcpSender, receiver: TcpReceiver },
    Udp(Box<UdpFlow>),
}

impl FlowRt {
    /// When the receiving end held everything the flow will ever send (see `udp` for UDP).
    fn completed_at(&self) -> Option<Time> {
        match &self.ends {
            Ends::Tcp { receiver, .. } => receiver.completed_at(),
            Ends::Udp(u) => u.completed_at(),
        }
    }

    /// Bytes delivered (in order, for TCP) to the receiving application.
    fn delivered(&self) -> u64 {
        match &self.ends {
            Ends::Tcp { receiver, .. } => receiver.delivered(),
            Ends::Udp(u) => u.delivered_bytes(),
        }
    }
}

pub struct Simulation {
    model: Model,
    /// The model's node and flow names, shared with the report (`metrics::Name`).
    names: report::Names,
    q: EventQueue,
    channels: Vec<Channel>,
    /// The records of the packets and cells inside channels.
    pool: PacketPool,
    routes: RouteArena,
    flows: Vec<FlowRt>,
    wire: Vec<FlowWire>,
    pcap_flows: Vec<PcapFlow>,
    pcaps: Vec<PcapWriter>,
    ledger: Conservation,
    /// Events handled.
    events: u64,
    /// Of those, the ones handled at once, without going through the event queue: arrivals
    /// over links without delay (`on_tx_done`) and lone cells' switch services
    /// (`on_cell_arrival`).
    events_in_line: u64,
    atm: AtmRuntime<PacketId>,
    /// Reused buffers for cells being cut or moved, and packets being rebuilt.
    cell_buf: Vec<Packet>,
    rebuilt_buf: Vec<Rebuilt>,
    /// Packets lost while travelling as cells (frames settled with no packet rebuilt, or
    /// partial packets that could not go on).
    lost_as_cells: u64,
    /// Cells dropped by links that are not cell links (`dropped`), for the drop counters' check.
    cells_dropped_on_packet_links: u64,
    /// Per flow: bytes delivered per series bin.
    delivered_series: Vec<crate::net::channel::Series>,
    /// Per flow, when applications write into flows: bytes written per series bin.
    written_series: Vec<crate::net::channel::Series>,
    /// Per flow, when any flow has a token-bucket marker (empty otherwise).
    marking: Vec<crate::net::marker::FlowMarking>,
    /// A broken invariant found during the run (reported when it ends).
    violation: Option<String>,
    /// The traced flows whose records stream into files as the run goes (`stream_traces`).
    trace_files: crate::trace_stream::FlowFiles,
    now: Time,
    /// Applications (WWW pairs), their earliest queued timer, and a reused write list.
    apps: crate::app::Apps,
    /// Any UDP flow in the run (a drop is then told to its flow).
    has_udp: bool,
    /// When the event being handled was queued, for its offers (`Queued`).
    event: EventQueued,
}

/// When the event being handled was queued (`Queued`), kept as cheaply as each handler can:
/// an arrival records its channel and the low bits of the previous arrival over it, worked
/// out (`Queued::of_arrival`) only if an offer asks, which it does only at the very instant
/// a one-event channel's packet finishes serialisation; other kinds record `other`.
#[derive(Debug, Clone, Copy)]
struct EventQueued {
    /// The channel an arrival came over, or `NOT_ARRIVAL`.
    chan: u32,
    /// `Channel::arrival_low` of `chan` before this arrival.
    prev_low: u32,
    other: Queued,
}

impl EventQueued {
    const NOT_ARRIVAL: u32 = Queued::NO_CHANNEL;
    const BEFORE_RUN: Self = Self::other(Queued::BEFORE_RUN);

    const fn other(other: Queued) -> Self {
        Self { chan: Self::NOT_ARRIVAL, prev_low: 0, other }
    }

    fn resolve(self, now: Time, channels: &[Channel]) -> Queued {
        if self.chan == Self::NOT_ARRIVAL {
            return self.other;
        }
        Queued::of_arrival(now, channels[self.chan as usize].delay, self.prev_low, self.chan)
    }
}

impl Simulation {
    /// Run to the end of the scenario's duration.
    pub fn run(&mut self) -> Result<(RunReport, Vec<FlowTrace>), Error> {
        self.run_loop_sized(&crate::interrupt::NEVER, &mut |_| false)
    }

    /// Run, asking `interrupted` every `interrupt::CHECK_PERIOD` of wall time whether to stop
    /// (Ctrl-C): the loop reads a flag a ticker thread raises, so it keeps its speed and a stop
    /// is seen promptly however long each event takes.
    pub fn run_interruptible(
        &mut self,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<(RunReport, Vec<FlowTrace>), Error> {
        self.run_until(Stop::Ask(interrupted))
    }

    /// Run until the end, or until `stop` says to (`Error::Interrupted`).
    pub fn run_until(&mut self, stop: Stop<'_>) -> Result<(RunReport, Vec<FlowTrace>), Error> {
        match stop {
            Stop::Ask(ask) => crate::interrupt::with_ticks(crate::interrupt::CHECK_PERIOD, |tick| {
                self.run_loop_sized(tick, &mut |_| ask())
            }),
            Stop::Watch(watch) => {
                watch.started(self.model.duration);
                crate::interrupt::with_ticks(crate::interrupt::CHECK_PERIOD, |tick| {
                    self.run_loop_sized(tick, &mut |now| watch.check(now))
                })
            }
        }
    }

    /// The most packet records the run held at once. Bounded by what the queues and pipes
    /// can hold, not by simulated time: nothing keeps a per-packet history.
    pub fn peak_packet_records(&self) -> usize {
        self.pool.peak()
    }

    /// Waiting packets the queue's discipline dropped at its last dequeue (`Sojourn`: CoDel,
    /// FQ-CoDel) or its last enqueue (`Overflow`: FQ-CoDel's fattest queue): out of the pool,
    /// counted and traced by the channel, and into the ledger.
    #[cold]
    fn take_discipline_drops(&mut self, c: u32, cause: DropCause) {
        fn listed(q: &crate::net::Queue, cause: DropCause) -> &[crate::net::PacketId] {
            if cause == DropCause::Overflow {
                q.enqueue_drops()
            } else {
                q.dequeue_drops()
            }
        }
        for i in 0..listed(&self.channels[c as usize].queue, cause).len() {
            let id = listed(&self.channels[c as usize].queue, cause)[i];
            let pkt = self.pool.take(id);
            self.channels[c as usize].note_discipline_drop(self.now, &pkt, cause);
            self.dropped(c, &pkt);
        }
    }

    /// Packet or cell `p`, dropped at channel `c`, into the ledger.
    fn dropped(&mut self, c: u32, p: &Packet) {
        if !p.cell.is_cell() {
            self.ledger.dropped += 1;
            if self.has_udp {
                self.udp_dropped(p);
            }
            return;
        }
        if !self.channels[c as usize].atm {
            // A cell leaving a switch onto a packet link crosses it as a cell (TCP Boston's
            // packet access links): its drop there is a cell's, counted by a packet link.
            self.cells_dropped_on_packet_links += 1;
        }
        let d = self.atm.cell_dropped(p);
        if d.lost {
            self.lose_as_cells(1);
        }
        if let Some(slot) = d.end_frame {
            // Judged next, at this instant: the drop may come in the middle of a send.
            self.q.schedule(self.now, Event::Reassembly(slot));
        }
    }

    fn record_delivery(&mut self, flow: u32, before: u64) {
        let now_delivered = self.flows[flow as usize].delivered();
        if now_delivered > before {
            self.record_delivered_bytes(flow, now_delivered - before);
        }
    }

    /// `bytes` more of `flow` delivered now, into its delivery series if it keeps one.
    #[inline(always)]
    fn record_delivered_bytes(&mut self, flow: u32, bytes: u64) {
        if let Some(s) = self.delivered_series.get_mut(flow as usize) {
            s.add(self.now, bytes);
        }
    }

    /// TCP Boston: a segment the receiver rebuilt from coded shards that its codec did not
    /// decode to the bytes sent breaks the run (`tcp::boston`).
    fn check_rebuilt(&mut self, flow: u32) {
        if let Ends::Tcp { receiver, .. } = &mut self.flows[flow as usize].ends {
            if let Some(problem) = receiver.take_decode_failure() {
                self.violation.get_or_insert(problem);
            }
        }
    }

    /// Hand a packet to its flow's end. Inlined (into `on_arrive`, where nearly every packet
    /// is delivered from): its own call and frame were a tenth of its cost (issue 26).
    #[inline(always)]
    fn deliver(&mut self, pkt: Packet) {
        self.ledger.delivered += 1;
        if let Some(m) = self.marking.get_mut(pkt.flow as usize) {
            m.on_deliver(self.now, &pkt);
        }
        debug_assert!((pkt.flow as usize) < self.flows.len());
        // SAFETY: every packet is made by one of the run's flows, with its index as `flow`,
        // and the run never adds or removes a flow (issue 26: the check was 3 per delivery).
        let f = unsafe { self.flows.get_unchecked_mut(pkt.flow as usize) };
        let (app, port) = f.app;
        let Ends::Tcp { sender, receiver } = &mut f.ends else {
            return self.deliver_udp(&pkt);
        };
        if pkt.dir == Dir::Reverse {
            // An ACK (or the receiver's SYN) moves the sender alone: no byte reaches the
            // receiver's application, so there is no delivery to record nor application to
            // tell (issue 26: those checks were made per ACK, for nothing).
            sender.on_packet(self.now, &pkt);
            return self.pump_sender(pkt.flow);
        }
        // Every event that touches a sender ends in a pump that asked it until it had nothing,
        // so a segment for the receiver leaves a sender that answers by its state alone with
        // nothing to send still (issue 26: its `poll_transmit` skipped per data segment).
        let sender_done = sender.polls_by_state();
        let before = receiver.delivered();
        receiver.on_packet(self.now, &pkt);
        let delivered = receiver.delivered();
        if delivered > before {
            self.record_delivered_bytes(pkt.flow, delivered - before);
        }
        if pkt.shards.m > 0 {
            self.check_rebuilt(pkt.flow);
        }
        if app != NO_APP && delivered > before {
            self.apps.delivered(app, port, self.now, delivered);
            self.app_io(app);
        }
        self.pump_ends(pkt.flow, sender_done)
    }

    fn on_app_timer(&mut self, a: u32) {
        self.event = EventQueued::other(Queued::UNKNOWN);
        if self.apps.timer_fired(a, self.now) {
            self.app_io(a);
        }
    }

    /// Hand application `a`'s writes to its flows, send, and queue its next timer.
    fn app_io(&mut self, a: u32) {
        let now = self.now;
        let mut writes = std::mem::take(&mut self.apps.io.writes);
        for &(port, bytes) in &writes {
            let flow = self.apps.flow(a, port);
            let restart = self.apps.idle_restart(a);
            if let Some(s) = self.written_series.get_mut(flow as usize) {
                s.add(now, bytes);
            }
            if let Ends::Tcp { sender, .. } = &mut self.flows[flow as usize].ends {
                sender.app_write(now, bytes, restart);
            }
            self.pump(flow);
        }
        writes.clear();
        self.apps.io.writes = writes;
        if let Some(t) = self.apps.timer_to_queue(a) {
            self.q.schedule(t.max(now), Event::AppTimer(a));
        }
    }

    fn on_flow_timer(&mut self, i: u32) {
        self.event = EventQueued::other(Queued::UNKNOWN);
        let f = &mut self.flows[i as usize];
        if f.timer_pending == Some(self.now) {
            f.timer_pending = None;
        }
        if let Ends::Tcp { sender, receiver } = &mut f.ends {
            sender.on_timer(self.now);
            receiver.on_timer(self.now);
        }
        self.pump(i);
    }

    fn on_flow_start(&mut self, i: u32) {
        self.event = EventQueued::BEFORE_RUN; // queued as the run started
        if let Ends::Udp(u) = &mut self.flows[i as usize].ends {
            u.start(self.now);
        }
        self.pump(i);
    }

    /// A TCP flow's application stops writing, as ns-2's `Application/FTP stop` does
    /// (`advance 0`: TcpAgent::command sets curseq_ to maxseq_, so no new data leaves and what
    /// was sent is still delivered); its stream now ends where the sender got to.
    fn on_flow_stop(&mut self, i: u32) {
        self.event = EventQueued::BEFORE_RUN; // queued as the run started
        if let Ends::Tcp { sender, receiver } = &mut self.flows[i as usize].ends {
            let end = sender.stop_writing();
            receiver.end_stream(self.now, end);
        }
        self.pump(i);
    }

    /// Stream the traces (flows' and queues') into files in `dir` from now on, instead of
    /// keeping them in memory, as many as `StreamPlan` lets `files` open files hold; they
    /// get their own names in `finish_trace_files`.
    pub fn stream_traces(&mut self, dir: &Path, files: usize) -> Result<(), Error> {
        use crate::trace_stream::{queue_file, FlowFiles, Rows, StreamPlan};
        let plan = StreamPlan::new(&self.model, files);
        if !plan.any() {
            return Ok(());
        }
        std::fs::create_dir_all(dir)?;
        self.trace_files = FlowFiles::open(dir, &plan)?;
        for (i, c) in self.channels.iter_mut().enumerate().filter(|(i, _)| plan.channels[*i]) {
            if let Some(t) = c.queue.trace.as_deref_mut() {
                *t = Rows::file(dir.join(queue_file(i)))?;
            }
            if let Some(t) = c.queue.sojourn_trace_mut() {
                t.rows = Rows::file(dir.join(crate::net::sojourn_trace::sojourn_file(i)))?;
            }
        }
        self.stream_drops(dir, &plan.drops)
    }

    /// Complete the streamed trace files of a run that ended well (see `trace_stream`).
    pub fn finish_trace_files(&mut self) -> Result<(), Error> {
        for (i, f) in self.flows.iter_mut().enumerate() {
            if let Ends::Tcp { sender, .. } = &mut f.ends {
                self.trace_files.drain(i as u32, sender.trace_mut());
            }
        }
        self.trace_files.finish()?;
        for c in &mut self.channels {
            c.queue.trace.as_deref_mut().map_or(Ok(()), |t| t.finish())?;
            c.queue.drops.as_deref_mut().map_or(Ok(()), |d| d.rows.finish())?;
            c.queue.sojourn_trace_mut().map_or(Ok(()), |t| t.rows.finish())?;
        }
        Ok(())
    }

    /// Break the run on purpose (test hook, see `test_hooks`) so an invariant check must fire.
    pub fn corrupt_for_test(&mut self, c: crate::test_hooks::Corruption) {
        match c {
            crate::test_hooks::Corruption::Conservation => self.ledger.injected += 1,
        }
    }
}

/// Parse and validate a scenario, routes included, without running it.
pub fn check_scenario(text: &str, seed: Option<u64>) -> Result<Model, Error> {
    let scenario = config::parse(text)?;
    crate::test_hooks::corruption(scenario.test_corrupt.as_deref())?;
    Ok(scenario.validate(seed)?)
}

/// Parse, validate, run, and (with an output folder) write summary.json, traces and pcaps.
pub fn run_scenario(text: &str, opts: &RunOptions) -> Result<(RunReport, Vec<FlowTrace>), Error> {
    run_scenario_limited(text, opts, None, &mut || false)
}

/// `run_scenario`, stopping with `Error::Interrupted` (and writing nothing) when `interrupted`
/// answers true (it is asked every `interrupt::CHECK_PERIOD` of wall time), and refusing first a
/// run whose memory estimate
/// (`budget::estimate`) exceeds `max_memory` bytes (default, and cap: `mem_limit::effective`).
pub fn run_scenario_limited(
    text: &str,
    opts: &RunOptions,
    max_memory: Option<u64>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<(RunReport, Vec<FlowTrace>), Error> {
    run_scenario_until(text, opts, max_memory, Stop::Ask(interrupted))
}

/// `run_scenario_limited`, told to stop by `stop`: a caller that cannot wait for an event to
/// end (one event can take seconds) runs this on a thread of its own, stops it through a
/// `Stop::Watch`, and returns at once.
pub fn run_scenario_until(
    text: &str,
    opts: &RunOptions,
    max_memory: Option<u64>,
    stop: Stop<'_>,
) -> Result<(RunReport, Vec<FlowTrace>), Error> {
    let mut sim = prepare(text, opts, max_memory)?;
    let Some(dir) = &opts.out_dir else { return sim.run_until(stop) };
    let made = !dir.exists();
    let result = run_into(sim, dir, stop);
    if result.is_err() && made {
        // The traces streamed so far are gone with the run; leave no empty folder either.
        let _ = std::fs::remove_dir(dir);
    }
    result
}

/// The run of a scenario, parsed, validated and checked against the memory limit, not started.
pub fn prepare(text: &str, opts: &RunOptions, max_memory: Option<u64>) -> Result<Simulation, Error> {
    let limit = crate::mem_limit::effective(max_memory);
    crate::budget::check_parse_cost(text, &limit)?;
    let scenario = config::parse(text)?;
    let corrupt = crate::test_hooks::corruption(scenario.test_corrupt.as_deref())?;
    let model = scenario.validate(opts.seed)?;
    drop(scenario); // the parsed text's tables: the model holds what the run needs
    crate::budget::check_run(&model, &limit, opts.out_dir.as_deref())?;
    let mut sim = Simulation::new(model)?;
    if let Some(c) = corrupt {
        sim.corrupt_for_test(c);
    }
    Ok(sim)
}

/// Run with traces and captures streamed into `dir`, then write summary.json and the traces
/// kept in memory there. On an error `sim` is dropped here, and its partial files are removed
/// with it.
fn run_into(mut sim: Simulation, dir: &Path, stop: Stop<'_>) -> Result<(RunReport, Vec<FlowTrace>), Error> {
    sim.stream_traces(dir, crate::trace_stream::file_budget())?;
    if !sim.model.pcaps.is_empty() {
        std::fs::create_dir_all(dir)?;
        sim.stream_pcaps(dir)?;
    }
    let (mut report, traces) = sim.run_until(stop)?;
    std::fs::create_dir_all(dir)?;
    let wall_s = std::mem::replace(&mut report.wall_s, 0.0); // keep the file byte-identical between equal runs
    let summary = serde_json::to_vec_pretty(&report).expect("report serialises");
    report.wall_s = wall_s;
    crate::csv::write_file(&dir.join("summary.json"), &summary)?;
    drop(summary);
    // Traces beyond the open-file budget were kept in memory: written now, one file at a time.
    for t in &traces {
        let create = |name: String| crate::csv::create_file(&dir.join(name)).map(std::io::BufWriter::new);
        let mut rows = create(crate::trace_stream::trace_file(t.flow))?;
        t.write_csv(&mut rows)?;
        rows.flush()?;
        let mut sends = create(crate::trace_stream::segments_file(t.flow))?;
        t.write_sends_csv(&mut sends)?;
        sends.flush()?;
    }
    sim.write_queue_traces(dir)?;
    sim.finish_pcaps()?;
    // Last: a trace file appears under its own name only once everything else is written.
    sim.finish_trace_files()?;
    Ok((report, traces))
}
