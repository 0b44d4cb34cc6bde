//! A packet's way from channel to channel: into the pool once and onto its next channel
//! (`forward`), on from an arrival without leaving its slot (`forward_stored`), cut into cells
//! at a cell link, offered with where it goes after that channel (`Onward`); and the records
//! an arrival starts loading before it needs them (issue 26).

use super::Simulation;
use crate::engine::Event;
use crate::net::channel::{Next, Offering};
use crate::net::drop_trace::DropCause;
use crate::net::route::{Onward, Step};
use crate::net::Channel;
use crate::net::PacketId;
use crate::packet::{Dir, Packet, PacketHead};

impl Simulation {
    /// Start loading what a packet's next step reads: the next channel's lines that an offer
    /// touches, or its flow's state (both ends: a delivery runs one end's handler, then polls
    /// both for what to send and for their timers). Hints with no bounds checks: an arriving
    /// head that is `InFlight::NONE` names no real step (`cache::prefetch_item`).
    #[inline]
    pub(super) fn prefetch_onward(&self, step: Step) {
        match step {
            Step::Hop(hop) => Channel::prefetch_for_offer(&self.channels, hop),
            Step::Deliver { flow, .. } => crate::cache::prefetch_item(&self.flows, flow as usize, usize::MAX),
        }
    }

    /// Start loading the channel that what a delivery at the far end of channel `c` sends in
    /// reply (an ACK, or data an ACK lets out) most likely leaves on: the other direction of
    /// the same link (a link's two channels are `2i` and `2i + 1`, `config::link::channels`),
    /// as it is for every host with one link. Only a hint: a reply that leaves elsewhere just
    /// loads its channel when it gets there.
    #[inline]
    pub(super) fn prefetch_reply(&self, c: u32) {
        Channel::prefetch_for_offer(&self.channels, c ^ 1);
    }

    /// Send a packet (or cell) onto its next link; a packet entering a cell link is cut into
    /// cells there. The record goes into the pool here, once: it stays in its slot until the
    /// packet is delivered or dropped (`forward_stored` moves it on from an arrival).
    pub(super) fn forward(&mut self, pkt: &Packet) {
        let c = self.routes.hops[pkt.route_pos as usize];
        if self.channels[c as usize].atm && !pkt.cell.is_cell() {
            return self.segment_onto(c, *pkt);
        }
        let id = self.pool.put(pkt);
        // SAFETY: `channels[c]` was looked up (bounds-checked) just above, `c` read at the
        // packet's route position; `id` was just put.
        unsafe { self.offer(c, id) };
    }

    /// `forward` for a packet its end has just written into pool slot `id`, with head `head`
    /// (`sim/pump.rs`'s `Outbox`): offered at its route's first channel without reading the
    /// head back from the slot. Inlined into the pumps: its call, six saved registers and
    /// frame were about 21 instructions per injected packet (issue 26).
    #[inline(always)]
    pub(super) fn forward_put(&mut self, id: PacketId, head: PacketHead) {
        debug_assert!(!head.cell.is_cell(), "an end sends packets, not cells");
        let c = self.routes.hops[head.route_pos as usize];
        self.forward_stored(c, id, head)
    }

    /// `forward` for a packet (not a cell) already in the pool (`id` live: it has just
    /// arrived, or its end has just put it), with head `head` (as `PacketPool::advance` or
    /// the end returned it) and its next channel `c` already read off its route: the
    /// arrival's `Onward`, or `forward_put`'s look-up. Inlined into `on_arrive` (every packet
    /// that is not delivered goes on from here at least once): its call, six saved registers
    /// and frame were 11 to 22 instructions per packet (issue 26).
    #[inline(always)]
    pub(super) fn forward_stored(&mut self, c: u32, id: PacketId, head: PacketHead) {
        debug_assert_eq!(head, self.pool.head(id));
        if self.channels[c as usize].atm {
            // A packet entering a cell link is taken back out and cut into cells, which then
            // take the slots `forward` would have given them (the freed one first).
            let pkt = self.pool.take(id);
            return self.segment_onto(c, pkt);
        }
        // SAFETY: `channels[c]` was looked up (bounds-checked) just above; `c` is
        // `routes.hops[head.route_pos]` (`offer`'s precondition), read there by `forward_put`
        // or, for an arrival, its `Onward` read at `route_pos + 1` when it was offered.
        unsafe { self.offer_head(c, id, head) };
    }

    /// Cut `pkt` into cells onto cell link `c`.
    #[cold]
    fn segment_onto(&mut self, c: u32, pkt: Packet) {
        let mut cells = std::mem::take(&mut self.cell_buf);
        let first = cells.len();
        self.atm.segment(pkt, &mut cells);
        for cell in cells.drain(first..) {
            let id = self.pool.put(&cell);
            // SAFETY: both callers (`forward`, `forward_stored`) looked `channels[c]` up, `c`
            // at the packet's route position, which its cells keep; `id` was just put.
            unsafe { self.offer(c, id) };
        }
        self.cell_buf = cells;
    }

    /// Offer packet `id`, whose route is at channel `c`, to that channel. Inlined into its
    /// callers: a packet is offered at every hop, and the call and its frame cost about as
    /// much as the work around `Channel::offer` (issue 26).
    ///
    /// # Safety
    /// `c` is a channel of the run (`c < channels.len()`): each caller has just looked
    /// `channels[c]` up, bounds-checked, and the run never adds or removes a channel. Looking it
    /// up again unchecked, after the pool's writes between, saves a reload and a compare and
    /// branch per hop (issue 26).
    /// `id` is live in the pool (`PacketPool::head_live`): each caller has just put it there,
    /// or it has just arrived.
    /// `c` is the channel at the packet's route position (`routes.hops[route_pos]`): each
    /// caller read it there (`forward`, `segment_onto`'s callers, `sim/cells.rs`), or it is
    /// the arrival's `Onward`, read at `route_pos + 1` when it was offered, and the arrival
    /// advanced `route_pos` (`PacketPool::advance`) since.
    #[inline(always)]
    pub(super) unsafe fn offer(&mut self, c: u32, id: PacketId) {
        // SAFETY: the same preconditions.
        unsafe { self.offer_head(c, id, self.pool.head_live(id)) }
    }

    /// `offer` of packet `id` whose head `pkt` the caller has (`PacketPool::head`, or the
    /// values it was written from).
    ///
    /// # Safety
    /// As `offer`: `c < channels.len()`, and `c` is `routes.hops[pkt.route_pos]`.
    #[inline(always)]
    unsafe fn offer_head(&mut self, c: u32, id: PacketId, pkt: PacketHead) {
        debug_assert_eq!(self.routes.hops[pkt.route_pos as usize], c);
        // SAFETY: `hops[route_pos]` is channel `c`, not `END` (`END` is `u32::MAX`, and a run
        // has fewer than 2^31 channels, `Onward`), and `hops` is the run's `RouteArena`,
        // built before the run and never changed in it (issue 26: no bounds check per hop).
        let next =
            unsafe { Onward::after_unchecked(&self.routes.hops, pkt.route_pos + 1, pkt.flow, pkt.dir == Dir::Reverse) };
        debug_assert!((c as usize) < self.channels.len());
        // SAFETY: `c < channels.len()`, this function's precondition.
        let ch = unsafe { self.channels.get_unchecked_mut(c as usize) };
        let offered = ch.offer(self.now, Offering::ask(self.event.chan), id, &pkt, next, &mut self.pool);
        self.offered(c, id, offered);
    }

    /// What follows an offer of a packet to channel `c`.
    #[inline(always)]
    fn offered(&mut self, c: u32, id: PacketId, offered: Result<Next, PacketId>) {
        match offered {
            Ok(Next::TxDoneAt(t)) => self.q.schedule(t, Event::TxDone(c)),
            Ok(Next::ArriveAt(t)) => self.q.schedule(t, Event::Arrive(c)),
            Ok(Next::Nothing) => {}
            Ok(Next::DroppedWaiting) => self.take_discipline_drops(c, DropCause::Overflow),
            Ok(Next::Undecided) => self.offer_undecided(c, id),
            Err(id) => {
                let p = self.pool.take(id);
                self.dropped(c, &p);
            }
        }
    }

    /// An offer that found the packet on the wire finishing now, again with when the event
    /// making it was queued (`Channel::judge_tie`).
    #[cold]
    #[inline(never)]
    fn offer_undecided(&mut self, c: u32, id: PacketId) {
        let queued = self.event.resolve(self.now, &self.channels);
        let pkt = self.pool.head(id);
        let next = Onward::after(&self.routes.hops, pkt.route_pos + 1, pkt.flow, pkt.dir == Dir::Reverse);
        let ch = &mut self.channels[c as usize];
        let offering = ch.judge_tie(queued);
        let offered = ch.offer(self.now, offering, id, &pkt, next, &mut self.pool);
        debug_assert!(offered != Ok(Next::Undecided));
        self.offered(c, id, offered);
    }
}
