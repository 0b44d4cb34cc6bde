//! The event loop and the handlers of a packet's crossing (`TxDone`, `Arrive`), inlined
//! into it; the rarer events go out of line (`on_rare_event`). Apart from `sim.rs` so that
//! the loop's instantiations and their hot path are read in one place.

use std::time::Instant;

use super::Simulation;
use crate::engine::{Event, QuadHeap, QueueKind, RadixQueue};
use crate::error::Error;
use crate::metrics::{FlowTrace, RunReport};
use crate::net::drop_trace::DropCause;
use crate::net::route::Step;
use crate::packet::Dir;

impl Simulation {
    /// The run: `run_loop` compiled for the run's size (with the prefetches of what an
    /// arrival leads to only where the records outgrow the cache, `cache::worth_prefetching`:
    /// a flag tested per arrival cost about 10 instructions per packet of the 64 saved, issue
    /// 26) and for its kind of event queue (`QueueKind`: the kind tested at every schedule and
    /// pop cost 16 to 21 instructions per packet, issue 26; the 4-ary heap serves only runs of
    /// a few flows, whose records fit the cache, so it gets no prefetching copy), then the
    /// end-of-run checks and the report. Those two stay out of `run_loop` so that a profile of
    /// the simulation (bench/htsim_compare samples `run_loop` only) does not count the output,
    /// as it does not count htsim's logging.
    pub(super) fn run_loop_sized(
        &mut self,
        tick: &std::sync::atomic::AtomicBool,
        interrupted: &mut dyn FnMut(crate::time::Time) -> bool,
    ) -> Result<(RunReport, Vec<FlowTrace>), Error> {
        let wall_s = match (self.q.uses_radix(), self.pool.prefetches_onward()) {
            (false, _) => self.run_loop::<QuadHeap, false>(tick, interrupted)?,
            (true, false) => self.run_loop::<RadixQueue, false>(tick, interrupted)?,
            (true, true) => self.run_loop::<RadixQueue, true>(tick, interrupted)?,
        };
        self.check_invariants()?;
        Ok(self.report(wall_s))
    }

    /// The event loop, from the flows' start to `Stop`; the wall-clock seconds it took.
    // Out of line, each instantiation its own function: inlined into `run_loop_sized`, the
    // two shared one frame and the event queue's pop was no longer inlined (callgrind: 60
    // more instructions per packet).
    #[inline(never)]
    fn run_loop<Q: QueueKind, const PREFETCH_ONWARD: bool>(
        &mut self,
        tick: &std::sync::atomic::AtomicBool,
        interrupted: &mut dyn FnMut(crate::time::Time) -> bool,
    ) -> Result<f64, Error> {
        let wall = Instant::now();
        let end = self.model.duration;
        // The run covers [0, duration): an event due at the end itself never happens, since
        // `Stop` is queued before it. A start was queued before `Stop`, so one at the end
        // would happen, and inject a packet into a run that is over: it is not queued.
        for (i, f) in self.flows.iter().enumerate() {
            if f.start < end {
                self.q.schedule(f.start, Event::FlowStart(i as u32));
            }
        }
        for (i, f) in self.model.flows.iter().enumerate() {
            if let (Some(stop), None) = (f.stop, &f.udp) {
                self.q.schedule(stop, Event::FlowStop(i as u32));
            }
        }
        for a in 0..self.apps.len() as u32 {
            self.apps.start(a, 0);
            self.app_io(a);
        }
        self.q.schedule(end, Event::Stop);
        while let Some((t, ev)) = self.q.kind::<Q>().pop() {
            self.events += 1;
            if crate::interrupt::take(tick) && interrupted(t) {
                return Err(Error::Interrupted);
            }
            self.now = t;
            // The two events of a packet's crossing (nearly all events) by two compares and
            // direct branches, the rest out of line: a match over all nine was a jump table,
            // whose target computation waited for the event just popped (issue 26).
            match ev {
                Event::TxDone(c) => self.on_tx_done::<Q, PREFETCH_ONWARD>(c),
                Event::Arrive(c) => self.on_arrive::<Q, PREFETCH_ONWARD>(c),
                rare => {
                    if self.on_rare_event(rare) {
                        break;
                    }
                }
            }
        }
        Ok(wall.elapsed().as_secs_f64())
    }

    /// An event other than a crossing's `TxDone` and `Arrive` (`run_loop`); true at `Stop`.
    #[inline(never)]
    fn on_rare_event(&mut self, ev: Event) -> bool {
        match ev {
            Event::TxDone(_) | Event::Arrive(_) => unreachable!("run_loop handles {ev:?}"),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowTimer(f) => self.on_flow_timer(f),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::SwitchService(n) => self.on_switch_service(n),
            Event::AppTimer(a) => self.on_app_timer(a),
            Event::Reassembly(slot) => self.on_reassembly_timer(slot),
            Event::Stop => return true,
        }
        false
    }

    fn on_tx_done<Q: QueueKind, const PREFETCH_ONWARD: bool>(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let out = ch.tx_done(self.now, &self.wire, &self.pool);
        if let Some(p) = ch.pcap() {
            let pkt = self.pool.get(out.id);
            self.pcaps[p].record(self.now, &pkt, &self.pcap_flows[pkt.flow as usize]);
        }
        if out.lost {
            let pkt = self.pool.take(out.id);
            self.dropped(c, &pkt);
        }
        if self.channels[c as usize].queue.dequeue_signalled() {
            if let Some(id) = self.channels[c as usize].queue.take_dequeue_mark() {
                self.pool.mark_ce(id);
            }
            self.take_discipline_drops(c, DropCause::Sojourn);
        }
        if let Some(t) = out.next_tx {
            self.q.kind::<Q>().schedule(t, Event::TxDone(c));
        }
        if let Some(t) = out.arrive_at {
            if t == self.now && self.run_in_line_on::<Q>() {
                // A link without propagation delay: the Arrive runs now (`run_in_line`).
                self.on_arrive::<Q, PREFETCH_ONWARD>(c);
            } else {
                self.q.kind::<Q>().schedule(t, Event::Arrive(c));
            }
        }
    }

    /// Whether an event due now may run at once instead of through the queue, and if so count
    /// it (as an event run in line: `events` is an output, and counts it either way). It may
    /// when no other event is queued at this instant: ties pop first-in first-out, so an
    /// event scheduled now would be the very next one popped, and running it at once takes the
    /// same steps in the same order without the queue's push and pop (issue 26).
    pub(super) fn run_in_line(&mut self) -> bool {
        let queued_now = self.q.has_event_at(self.now);
        self.in_line_unless(queued_now)
    }

    /// `run_in_line` in code compiled for the run's kind of queue (`QueueKind`).
    #[inline(always)]
    fn run_in_line_on<Q: QueueKind>(&mut self) -> bool {
        let queued_now = self.q.kind::<Q>().has_event_at(self.now);
        self.in_line_unless(queued_now)
    }

    #[inline(always)]
    fn in_line_unless(&mut self, queued_now: bool) -> bool {
        if queued_now {
            return false;
        }
        self.events += 1;
        self.events_in_line += 1;
        true
    }

    /// A packet (or cell) reaches the far end of channel `c`. Inlined into the event loop
    /// (and `on_tx_done`): about half of all events are arrivals, and the call, its six saved
    /// registers and its frame cost about 14 instructions per packet (issue 26; a single
    /// out-of-line copy for `on_tx_done` measured worse).
    #[inline(always)]
    fn on_arrive<Q: QueueKind, const PREFETCH_ONWARD: bool>(&mut self, c: u32) {
        // Loads that do not wait for one another: the packet's record, the record it goes to
        // next (the next channel, or its flow's TCP state), and (in `arrive`) the pipe's buffer
        // for the packet behind it. All of them are known from the head, on the channel's
        // line 1; the packet's own record says the same, but only once it has come from memory.
        let head = self.channels[c as usize].arriving();
        let prev_low = self.channels[c as usize].arrival_low();
        self.pool.prefetch(head.id);
        let step = head.next.step();
        if PREFETCH_ONWARD {
            self.prefetch_onward(step);
            if let Step::Deliver { .. } = step {
                self.prefetch_reply(c);
            }
        }
        // The channel again, three times: looked up unchecked, as `c` was checked at the
        // top, and the run never adds or removes a channel. Each look-up after a call that
        // takes `&mut self` reloaded the length and compared (issue 26).
        debug_assert!((c as usize) < self.channels.len());
        // SAFETY: `channels[c]` was looked up, bounds-checked, at the top (`arriving`).
        let arrived = unsafe { self.channels.get_unchecked_mut(c as usize) }.arrive(self.now, &self.pool);
        // For the offers this arrival makes (`EventQueued`; `prev_low` read before `arrive`
        // writes this arrival's time). Stored here, not at the top: stores to `self` before
        // the arrival's reads of the channel and the pool made the compiler read the head's id
        // and more again after them, as it cannot tell that they do not overwrite those
        // (issue 26: 6 fewer instructions per packet at 10 and 100 flows).
        (self.event.chan, self.event.prev_low) = (c, prev_low);
        if let Some(t) = arrived {
            self.q.kind::<Q>().schedule(t, Event::Arrive(c));
            // The packet behind it arrives a few events from now on a busy link (1.2 us at
            // 10 Gb/s), some hundreds on an access link: early enough to load where it goes
            // into the cache by then, not so early that it is evicted again (`arrive` loads
            // its record).
            // SAFETY: as above.
            if PREFETCH_ONWARD {
                let behind = unsafe { self.channels.get_unchecked(c as usize) }.arriving();
                self.prefetch_onward(behind.next.step());
            }
        }
        // The record stays in its slot while the packet moves on: taken only if it leaves the
        // pool here (delivered, or a cell whose path goes on as cells or ends in AAL5).
        let id = head.id;
        // SAFETY: as above.
        if let Some(p) = unsafe { self.channels.get_unchecked(c as usize) }.pcap_rx() {
            let pkt = self.pool.get(id);
            self.pcaps[p].record(self.now, &pkt, &self.pcap_flows[pkt.flow as usize]);
        }
        // SAFETY (each use of `id` below): a channel holds only live ids of the run's pool;
        // the packet it arrives leaves the pool at most here (`take_live`), after its last
        // read.
        if unsafe { self.pool.is_cell_live(id) } {
            // A cell stays in the pool across a switch (`sim/cells.rs`).
            unsafe { self.pool.advance(id) };
            return self.on_cell_arrival(c, id);
        }
        match step {
            Step::Hop(hop) => {
                let head = unsafe { self.pool.advance(id) };
                self.forward_stored(hop, id, head)
            }
            Step::Deliver { flow, reverse } => {
                // Its slot is freed here, so its route position moves on in the copy only: a
                // store to the slot just before `take_live`'s 16-byte loads of it stalled them
                // (`PacketPool::advance`; issue 26: 9% of the loop's own time at 100 flows).
                let mut pkt = unsafe { self.pool.take_live(id) };
                pkt.route_pos += 1;
                debug_assert_eq!((flow, reverse), (pkt.flow, pkt.dir == Dir::Reverse));
                self.deliver(pkt)
            }
        }
    }
}
