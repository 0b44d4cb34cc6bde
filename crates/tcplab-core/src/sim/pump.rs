//! A flow's ends asked for what they have to send (`pump`): each packet injected onto its
//! route, then a timer queued for the ends' earliest deadline.

use super::{Ends, Simulation};
use crate::engine::{Event, EventQueue};
use crate::net::marker::FlowMarking;
use crate::net::{PacketId, PacketPool};
use crate::packet::{Packet, PacketHead, PacketSink};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::Time;

impl Simulation {
    /// Send whatever both endpoints of flow `i` have ready, then make sure a timer event
    /// is queued for their earliest deadline.
    pub(super) fn pump(&mut self, i: u32) {
        self.pump_ends(i, false);
    }

    /// `pump`, told whether the sender is known to have nothing to send (`sender_done`).
    ///
    /// The sender is asked first, again after each packet, until it has nothing; then the
    /// receiver. A sender that had nothing is not asked again at this instant unless it has a
    /// reservation: its answer depends only on its own state and the time, which the
    /// receiver's packets do not change (`inject_stored` only queues them: nothing arrives inside
    /// it), except a reservation's tokens (`marking`), which they spend (issue 26: one
    /// `poll_transmit` fewer per data segment received).
    ///
    /// Such a sender (`sender_done` on entry, which `polls_by_state` gave: no reservation) is
    /// not touched here at all, and the pump that last touched it queued a timer no later
    /// than its deadline, as `pump_sender` argues for a quiet receiver: so only the
    /// receiver's deadline is read for the timer (issue 26: the sender's, per data segment,
    /// could not lower it). The debug assertion checks it.
    pub(super) fn pump_ends(&mut self, i: u32, mut sender_done: bool) {
        let now = self.now;
        let sender_untouched = sender_done;
        // The loop ends holding its last look-up of the flow, which the timer below reuses
        // rather than indexing (and bounds-checking) the flow again (issue 26).
        let (sender, receiver, timer_pending) = loop {
            let f = &mut self.flows[i as usize];
            let Ends::Tcp { sender, receiver } = &mut f.ends else { return self.pump_udp(i) };
            refresh_tokens(sender, &mut self.marking, i, now);
            // Each end writes its packet into its pool slot (`Outbox`), then it goes on by id.
            if !sender_done {
                let mut out = Outbox::new(&mut self.pool, &mut self.marking, now, f.fwd_route);
                if sender.poll_transmit_into(now, &mut out) {
                    let (id, head) = (out.sent, out.head);
                    self.inject_stored(id, head);
                    continue;
                }
            }
            // Asked only when it has something (`is_quiet`): the sink is not even built for
            // the poll that ends the loop (issue 26: its stores were per data segment).
            if receiver.is_quiet() {
                break (sender, receiver, &mut f.timer_pending);
            }
            let mut out = Outbox::new(&mut self.pool, &mut self.marking, now, f.rev_route);
            let sent = receiver.poll_transmit_into(now, &mut out);
            debug_assert!(sent, "flow {i}: a receiver that is not quiet sent nothing");
            sender_done = sender.reserved.is_none();
            let (id, head) = (out.sent, out.head);
            if sender_done && receiver.is_quiet() {
                // The pump's last packet (the ACK of a data segment, nearly always): the next
                // pass would only find both ends with nothing, so it is not made (issue 26:
                // about 10 instructions per data segment). The ends' deadline is read and
                // their trace drained before the packet goes, which touches neither (nothing
                // arrives inside `inject_stored`), and the timer is queued after it, as the
                // next pass would have.
                let deadline = ends_deadline(sender, receiver, sender_untouched, f.timer_pending, i);
                self.trace_files.drain(i, sender.trace_mut());
                self.inject_stored(id, head);
                let timer_pending = &mut self.flows[i as usize].timer_pending;
                return queue_flow_timer(&mut self.q, timer_pending, deadline, now, i);
            }
            self.inject_stored(id, head);
        };
        self.trace_files.drain(i, sender.trace_mut());
        let deadline = ends_deadline(sender, receiver, sender_untouched, *timer_pending, i);
        queue_flow_timer(&mut self.q, timer_pending, deadline, now, i);
    }

    /// `pump_ends` after an ACK reached flow `i`'s sender: the receiver is neither asked nor
    /// its deadline read (issue 26). Only `on_packet`, `on_partial_packet`, `on_timer` and a
    /// `poll_transmit` that returns a packet make a receiver's packet due or move its
    /// deadline; the first three run in `deliver` (forward), `deliver_partial` and
    /// `on_flow_timer`, each followed by a full pump, and the fourth only inside one. That
    /// pump left the receiver with nothing due (its loop ends on the receiver's `None`) and a
    /// timer queued no later than its deadline, and `timer_pending` only falls until
    /// `on_flow_timer` clears it (and pumps in full). The debug assertions check both. So the
    /// receiver's deadline is never below `timer_pending`, and the sender's deadline alone
    /// queues exactly the timer the earlier of the two would.
    pub(super) fn pump_sender(&mut self, i: u32) {
        let now = self.now;
        let (sender, receiver, timer_pending) = loop {
            let f = &mut self.flows[i as usize];
            let Ends::Tcp { sender, receiver } = &mut f.ends else { return self.pump_udp(i) };
            refresh_tokens(sender, &mut self.marking, i, now);
            // The sink is built only for a packet that leaves (the last poll finds nothing).
            let route = f.fwd_route;
            let (pool, marking) = (&mut self.pool, &mut self.marking);
            let Some(out) = sender.poll_transmit_lazy(now, || Outbox::new(pool, marking, now, route)) else {
                break (sender, receiver, &mut f.timer_pending);
            };
            let (id, head) = (out.sent, out.head);
            self.inject_stored(id, head);
        };
        debug_assert!(receiver.is_quiet(), "flow {i}: a receiver thought quiet has a packet due");
        debug_assert!(
            receiver.next_deadline().is_none_or(|r| timer_pending.is_some_and(|p| p <= r)),
            "flow {i}: a quiet receiver's deadline has no timer queued"
        );
        self.trace_files.drain(i, sender.trace_mut());
        queue_flow_timer(&mut self.q, timer_pending, sender.next_deadline(), now, i);
    }

    /// Send the packet an end's poll wrote into pool slot `id`, with head `head` (`Outbox`),
    /// onto its route.
    #[inline(always)]
    fn inject_stored(&mut self, id: PacketId, head: PacketHead) {
        self.ledger.injected += 1;
        self.forward_put(id, head);
    }

    /// Send a packet an end built itself (a UDP source's) onto `route`, through the same
    /// sink as a TCP end's (`Outbox`: its mark, its route, its slot).
    pub(super) fn inject(&mut self, pkt: Packet, route: u32) {
        let mut out = Outbox::new(&mut self.pool, &mut self.marking, self.now, route);
        out.send(pkt);
        let (id, head) = (out.sent, out.head);
        self.inject_stored(id, head);
    }
}

/// The pool as the sink of a TCP end's poll (`PacketSink`): the packet is written once, from
/// the values its end computed, into the slot it lives in until it is delivered or dropped,
/// with its reservation's mark (`FlowMarking::on_send`) and its route set on the way. Built on the stack and then copied whole into the slot, each 16-byte
/// load of the copy waited for the narrow stores of the build (a failed store forward: a
/// third of a data segment's build and of `pump_ends`' samples, issue 26).
struct Outbox<'a> {
    pool: &'a mut PacketPool,
    marking: &'a mut [FlowMarking],
    now: Time,
    route: u32,
    /// The slot of the packet sent (meaningful once the poll says it sent one).
    sent: PacketId,
    /// Its head as written there, from the values in registers: the offer that follows
    /// needs it, and read back from the slot it cost loads and a bounds check per injected
    /// packet (issue 26).
    head: PacketHead,
}

impl<'a> Outbox<'a> {
    #[inline(always)]
    fn new(pool: &'a mut PacketPool, marking: &'a mut [FlowMarking], now: Time, route: u32) -> Self {
        Self { pool, marking, now, route, sent: PacketId::NONE, head: PacketHead::NONE }
    }
}

impl PacketSink for Outbox<'_> {
    #[inline(always)]
    fn send(&mut self, mut p: Packet) {
        if let Some(m) = self.marking.get_mut(p.flow as usize) {
            m.on_send(self.now, &mut p);
        }
        p.route_pos = self.route;
        self.sent = self.pool.put(&p);
        self.head = PacketHead::of(&p);
    }
}

/// A reserved sender's tokens brought up to `now` before it is asked what to send: the
/// marker's bucket fills with time, and the sender's own packets spend it.
#[inline(always)]
fn refresh_tokens(sender: &mut TcpSender, marking: &mut [FlowMarking], i: u32, now: Time) {
    if let (Some(r), Some(m)) = (&mut sender.reserved, marking.get_mut(i as usize)) {
        r.set_tokens(m.available_bytes(now));
    }
}

/// The earlier of flow `i`'s ends' deadlines; only the receiver's for a sender the pump left
/// untouched (`pump_ends`), whose timer is already queued (`timer_pending`: checked).
#[inline(always)]
fn ends_deadline(
    sender: &TcpSender,
    receiver: &TcpReceiver,
    sender_untouched: bool,
    timer_pending: Option<Time>,
    i: u32,
) -> Option<Time> {
    if sender_untouched {
        debug_assert!(
            sender.next_deadline().is_none_or(|s| timer_pending.is_some_and(|p| p <= s)),
            "flow {i}: an untouched sender's deadline has no timer queued"
        );
        return receiver.next_deadline();
    }
    match (sender.next_deadline(), receiver.next_deadline()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Queue a timer event for flow `i` at `deadline` (not before `now`) unless one is queued no
/// later (`timer_pending`).
#[inline]
fn queue_flow_timer(q: &mut EventQueue, timer_pending: &mut Option<Time>, deadline: Option<Time>, now: Time, i: u32) {
    if let Some(d) = deadline {
        if timer_pending.is_none_or(|p| d < p) {
            *timer_pending = Some(d);
            q.schedule(d.max(now), Event::FlowTimer(i));
        }
    }
}
