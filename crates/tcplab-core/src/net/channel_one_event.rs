//! A channel crossing as one event (`[sim] one_event_channels`).
//!
//! On a channel whose queue is drop-tail, with no loss model and nothing watching what it
//! sends, a packet's departure is fixed when it is admitted: the link serves first in, first
//! out at a fixed rate, so it starts at the later of now and the previous packet's departure
//! and leaves one serialisation later. Such a channel schedules no `TxDone`: the admitted
//! packet goes straight into the pipe, with its arrival time, and only the pipe's head has
//! an `Arrive` queued, as on the two-event path. The queue and the transmitter are brought
//! up to date lazily, at the next offer (`depart_for_offer`): the packet on the wire left if its
//! departure is at or before now, and the next waiting one started then; an arrival only
//! counts its own packet's departure, if not counted yet (`arrive_one_event`). So the queue holds
//! exactly the packets not yet started (it counts them and their bytes; they wait in the
//! pipe alone, `Queue::enter_counted`), and admission sees what it sees on the two-event path.
//!
//! An offer at the very instant a packet finishes serialisation sees it gone exactly when
//! the two-event path would: there its `TxDone`, queued when the packet started, runs before
//! the offering event if that event was queued before the start, after it if queued after.
//! The offer is told when its event was queued (`Queued`) and the channel keeps when the
//! packet on the wire started (`on_wire.vc`, unused on a one-event channel): the packet has
//! left iff the event was queued at or after its start. At the same instant one event
//! cannot in general tell its place among that instant's (counting it gone is the old rule),
//! but one case is known: an arrival queues the next `Arrive` over its channel before it
//! offers anything, so that `Arrive` comes before the `TxDone` of a packet the arrival put on
//! an idle link (the channel keeps which one did: `started_by`).
//!
//! What can still differ from the two-event path is the order of events at one instant only
//! (see docs/scenario.md, "One event per channel crossing"): such a tie of queue times, an
//! event whose queue time is not known (`Queued::UNKNOWN`), and the head's `Arrive`, queued at
//! admission (or at the previous arrival) rather than at its departure, so among events at
//! its arrival instant it may come before events queued in between. Times, and so
//! everything that does not tie, are the same.

use crate::time::Time;

use crate::net::pool::{PacketId, PacketPool};
use crate::net::queue::Waiting;
use crate::net::route::Onward;

use super::{Channel, InFlight, Next};

/// When the event that makes an offer was queued, on the two-event path: whether it runs
/// before or after a `TxDone` queued at the instant the packet on the wire started
/// serialisation, and so whether an offer at the instant that packet finishes still sees it.
/// With it, the channel the event arrived over, if it is an `Arrive`, which settles a tie of
/// queue times (`after`). Worked out only for an offer at such an instant (`judge_tie`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The instant plus one, 0 before the run.
    at: u64,
    /// The channel the offering `Arrive` came over, else `NO_CHANNEL`.
    by: u32,
    /// That `Arrive` was queued by the arrival before it over `by`, at `at`: first among what
    /// that arrival did (`Simulation::on_arrive` queues the next head before it delivers or
    /// forwards), and so before any `TxDone` it queued by an idle admission.
    first_at: bool,
}

impl Queued {
    /// No channel: the offering event is not an arrival, or no arrival admitted the packet.
    pub const NO_CHANNEL: u32 = u32::MAX;
    /// Before the run started (the flows' starts and stops): before every `TxDone`.
    pub const BEFORE_RUN: Queued = Queued { at: 0, by: Queued::NO_CHANNEL, first_at: false };
    /// Not known (events of kinds that do not say): the packet has left, as if queued now.
    pub const UNKNOWN: Queued = Queued { at: u64::MAX, by: Queued::NO_CHANNEL, first_at: false };

    /// At instant `t`, by an event that is not an arrival (the unit tests' events).
    #[cfg(test)]
    pub const fn at(t: Time) -> Queued {
        Queued { at: t + 1, by: Queued::NO_CHANNEL, first_at: false }
    }

    /// An `Arrive` over channel `by`, of propagation delay `delay`, at `now`, the previous one
    /// over it at a time whose low 32 bits are `prev_low` (`Channel::arrival_low`, read
    /// before this arrival). On the two-event path only the pipe's head has its `Arrive`
    /// queued: at its departure if the pipe was empty then, else when the packet before it
    /// arrived, so at the later of the two; by that arrival for sure if it came after the
    /// departure (at the same instant the order of the two is not known). Exact while
    /// arrivals on a channel are under 2^32 ns (4.3 s) apart or its delay is under their gap
    /// modulo 2^32.
    #[inline]
    pub fn of_arrival(now: Time, delay: Time, prev_low: u32, by: u32) -> Queued {
        let prev = now - (now as u32).wrapping_sub(prev_low) as Time;
        let departed = now.saturating_sub(delay);
        Queued { at: departed.max(prev) + 1, by, first_at: prev > departed }
    }

    /// Whether the event runs after a `TxDone` queued at `start` by an idle admission of an
    /// event that arrived over `started_by`. At the same instant: after, as the old rule had
    /// it, unless that admission was by the arrival that queued this event first.
    #[inline]
    fn after(self, start: Time, started_by: u32) -> bool {
        if self.at != start + 1 {
            return self.at > start;
        }
        !(self.first_at && self.by == started_by)
    }
}

/// Who makes an offer to a one-event channel, and what the offer does if the packet on the
/// wire finishes at that very instant. The channel the offering event arrived over
/// (`Queued::NO_CHANNEL`: not an arrival), which an idle admission keeps
/// (`Channel::started_by`), in the low 32 bits; above them, ask the caller (0: the common
/// offer, `ask`), or `Channel::judge_tie`'s answer. One word, in a register on every offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offering(u64);

impl Offering {
    const LEFT: u64 = 1 << 32;
    const ON_WIRE: u64 = 2 << 32;

    /// By an event that arrived over channel `by` (or `Queued::NO_CHANNEL`): ask at a tie.
    #[inline(always)]
    pub const fn ask(by: u32) -> Offering {
        Offering(by as u64)
    }

    #[inline(always)]
    fn by(self) -> u32 {
        self.0 as u32
    }

    #[inline(always)]
    fn asks(self) -> bool {
        self.0 >> 32 == 0
    }

    #[inline(always)]
    fn left(self) -> bool {
        self.0 & Offering::LEFT != 0
    }
}

/// What an offer to a one-event channel did: `Channel::offer` makes it its
/// `Result<Next, PacketId>`. A tag and a time come back in two registers, where that
/// `Result` (a tag, and a time or a 4-byte id) comes back through memory: a store and a
/// load of each, and one more argument (issue 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Offered {
    /// Admitted behind a packet in the pipe (`Next::Nothing`).
    Queued,
    /// Admitted into an empty pipe: its arrival is to be scheduled (`Next::ArriveAt`).
    ArriveAt(Time),
    /// Nothing done (`Next::Undecided`).
    Undecided,
    /// Refused by the queue (`Err`).
    Refused,
}

/// A packet offered to a one-event channel and where it goes after it, as `InFlight` holds
/// them side by side: one word (aligned as one, it is passed as one; two `u32` fields alone
/// are passed as two arguments), so that the offer's arguments fit in the six argument
/// registers and its calls in tail position are jumps, and the pipe's entry takes it in one
/// store (issue 26).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(8))]
pub(super) struct Headed {
    pub(super) id: PacketId,
    pub(super) next: Onward,
}

impl Offered {
    /// As `Channel::offer` answers, for packet `id`.
    #[inline(always)]
    pub(super) fn result(self, id: PacketId) -> Result<Next, PacketId> {
        match self {
            Offered::Queued => Ok(Next::Nothing),
            Offered::ArriveAt(t) => Ok(Next::ArriveAt(t)),
            Offered::Undecided => Ok(Next::Undecided),
            Offered::Refused => Err(id),
        }
    }
}

impl Channel {
    /// Whether packets crossing this channel may cost one event: a drop-tail queue, no loss
    /// model, no capture or series of what it sends, not a cell link.
    pub fn may_be_one_event(&self) -> bool {
        self.queue.is_drop_tail() && !self.lossy && !self.watched && !self.atm
    }

    /// Make packets crossing this channel cost one event (it must qualify, and be unused).
    pub fn set_one_event(&mut self) {
        assert!(self.may_be_one_event() && !self.busy && !self.head.is_some());
        (self.one_event, self.one_event_pipe) = (true, true);
    }

    /// Whether packets crossing this channel cost one event.
    pub fn is_one_event(&self) -> bool {
        self.one_event
    }

    /// `offer` on a one-event channel. If the packet on the wire finishes exactly now,
    /// whether it has left depends on when the offering event was queued: asked
    /// (`Offering::ask`), the offer then admits nothing and answers `Next::Undecided`, for the
    /// caller to offer again with `judge_tie`'s answer.
    ///
    /// A function of its own, called from the inlined `Channel::offer`: its frame saves only
    /// the registers this path needs, not those of the two-event body beside it (issue 26:
    /// 8 instructions per packet at 10, 100 and 1000 flows; inlined into `Simulation::offer`
    /// instead, 22 to 30 more).
    ///
    /// This is the common offer: a size the link's `SizeCache` holds, a plain queue, room in
    /// the pipe's ring (checked before the admission changes anything: its growth would be
    /// a call, and a call gave this path a frame), no departure due or one that leaves the
    /// link idle. A departure that starts the next waiting packet goes to
    /// `offer_after_departure`, anything else to `offer_one_event_full`, both in tail
    /// position (all six arguments in registers: the packet's id and next hop are one word,
    /// `Headed`), so that they are jumps: with no call left, and the departure's values
    /// elsewhere, this path fits in the caller-saved registers and saves none (issue 26: it
    /// saved five registers on every offer, 15 to 17 instructions per packet; with the
    /// growth out of the way and the departure split, 6 to 7 fewer again).
    #[inline(never)]
    pub(super) fn offer_one_event(
        &mut self,
        now: Time,
        offering: Offering,
        p: Headed,
        wire_bytes: u32,
        pool: &mut PacketPool,
    ) -> Offered {
        if !self.serialised.holds(wire_bytes) || !self.queue.is_plain() {
            return self.offer_one_event_full(now, offering, p, wire_bytes, pool);
        }
        if self.busy && self.tx_start <= now {
            if self.tx_start == now {
                return self.offer_one_event_full(now, offering, p, wire_bytes, pool);
            }
            if self.queue.counted() != 0 {
                return self.offer_after_departure(now, offering, p, wire_bytes, pool);
            }
            // The packet on the wire has left, none waits behind it: the link is idle (more
            // than half of the departures at an offer at 100 flows).
            self.count_sent();
            self.busy = false;
        }
        if self.pipe.is_full() {
            // After an idle departure too: the full offer finds the link idle, as it would
            // have left it.
            return self.offer_one_event_full(now, offering, p, wire_bytes, pool);
        }
        self.admit_plain(now, offering, p, wire_bytes)
    }

    /// `offer_one_event` with a departure due before now and a packet waiting: the checks
    /// that send it to `offer_one_event_full` (room in the pipe's ring, the waiting packet
    /// departs by now too, the head waits), before anything changes, then the departure and
    /// the admission behind it (`depart_then_admit_behind`). Out of line, so that the common
    /// offer keeps the registers these checks need (issue 26).
    #[inline(never)]
    fn offer_after_departure(
        &mut self,
        now: Time,
        offering: Offering,
        p: Headed,
        wire_bytes: u32,
        pool: &mut PacketPool,
    ) -> Offered {
        // The first waiting packet is `behind` places behind the pipe's head (if the head
        // waits, the packet on the wire has arrived: on a link without delay).
        let behind = (self.pipe.len() as u32).wrapping_sub(self.queue.counted());
        if self.pipe.is_full() || behind >= self.pipe.len() as u32 {
            return self.offer_one_event_full(now, offering, p, wire_bytes, pool);
        }
        let f = self.pipe.get_masked(behind as usize);
        if f.at - self.delay <= now {
            // It departs by now too.
            return self.offer_one_event_full(now, offering, p, wire_bytes, pool);
        }
        // SAFETY: `f` is in this channel's pipe, and so live (`start_waiting`).
        let f_bytes = unsafe { pool.head_live(f.id) }.wire_bytes;
        let entry = Headed { id: f.id, next: f.next };
        self.depart_then_admit_behind(f.at, entry, p, wire_bytes, f_bytes as u64)
    }

    /// `offer_one_event` with one departure due, before now, of the packet on the wire: the
    /// first waiting packet, `entry` in the pipe arriving at `at`, of `entry_bytes`, starts
    /// and departs after now, and the offered packet `p` is admitted behind it. Out of line,
    /// with only what the departure and that admission need, in the registers the offer had
    /// its arguments in (`at` and `entry` in those of `now` and `offering`, `entry_bytes` in
    /// the pool's: scalars only, or the compiler passes the pool's fields instead, one on the
    /// stack): everything that may send the offer to `offer_one_event_full` is checked
    /// before, so that the checks' values are not kept across this work (issue 26: it saved
    /// six registers).
    #[inline(never)]
    fn depart_then_admit_behind(
        &mut self,
        at: Time,
        entry: Headed,
        p: Headed,
        wire_bytes: u32,
        entry_bytes: u64,
    ) -> Offered {
        self.count_sent();
        self.start_waiting_sized(InFlight { at, id: entry.id, next: entry.next }, entry_bytes as u32);
        self.admit_behind(p, wire_bytes)
    }

    /// The common offer's admission: a size the link's `SizeCache` holds, a plain queue, the
    /// transmitter brought up to now with no departure at now.
    #[inline(always)]
    fn admit_plain(&mut self, now: Time, offering: Offering, p: Headed, wire_bytes: u32) -> Offered {
        if self.busy {
            return self.admit_behind(p, wire_bytes);
        }
        self.admit_idle(now, offering, p, wire_bytes)
    }

    /// `admit_plain` onto an idle link (a drop-tail queue admits it).
    #[inline(always)]
    fn admit_idle(&mut self, now: Time, offering: Offering, p: Headed, wire_bytes: u32) -> Offered {
        // What takes the arguments' registers first, so that few values are live at once.
        self.on_wire = Waiting { id: p.id, wire_bytes, vc: now as u32, next: p.next }; // `vc`: its start
        (self.busy, self.started_by) = (true, offering.by());
        let depart = now + self.serialised.cached_ns(self.rate_bps, &mut self.rem);
        self.tx_start = depart;
        self.enter_pipe::<true>(InFlight { at: depart + self.delay, id: p.id, next: p.next })
    }

    /// `admit_plain` behind a busy link.
    #[inline(always)]
    fn admit_behind(&mut self, p: Headed, wire_bytes: u32) -> Offered {
        if !self.queue.admits_plain(wire_bytes, false) {
            self.stats.drops_queue += 1;
            return Offered::Refused;
        }
        self.queue.enter_counted(wire_bytes);
        let depart = self.last_departure() + self.serialised.cached_ns(self.rate_bps, &mut self.rem);
        self.enter_pipe::<true>(InFlight { at: depart + self.delay, id: p.id, next: p.next })
    }

    /// `offer_one_event` in every case: a departure at the offer's instant, more than one
    /// due, a size to divide for, a queue that keeps counters or traces.
    #[cold]
    #[inline(never)]
    fn offer_one_event_full(
        &mut self,
        now: Time,
        offering: Offering,
        p: Headed,
        wire_bytes: u32,
        pool: &mut PacketPool,
    ) -> Offered {
        if self.busy && self.tx_start <= now && self.depart_for_offer(now, pool) {
            if offering.asks() {
                return Offered::Undecided;
            }
            if offering.left() {
                self.depart_at_tie(pool);
            }
        }
        let w = Waiting { id: p.id, wire_bytes, vc: 0, next: p.next }; // its `vc` is set at its start
        self.admit_one_event(now, offering.by(), w, pool)
    }

    /// After an offer answered `Next::Undecided`: whether the packet on the wire, finishing
    /// now, has left for an event queued at `queued` (it runs after its `TxDone` on the
    /// two-event path), as the `Offering` to offer again with.
    #[cold]
    #[inline(never)]
    pub fn judge_tie(&self, queued: Queued) -> Offering {
        debug_assert!(self.one_event && self.busy);
        let kind = if queued.after(self.started(), self.started_by) { Offering::LEFT } else { Offering::ON_WIRE };
        Offering(kind | queued.by as u64)
    }

    /// The packet on the wire, finishing now, has left by the time of the offering event.
    #[cold]
    #[inline(never)]
    fn depart_at_tie(&mut self, pool: &PacketPool) {
        self.depart_one(pool);
    }

    /// Admit or refuse a packet, the transmitter brought up to now, by an event that arrived
    /// over channel `by` (`Queued::NO_CHANNEL`: not an arrival).
    #[inline(always)]
    fn admit_one_event(&mut self, now: Time, by: u32, w: Waiting, pool: &mut PacketPool) -> Offered {
        let idle = !self.busy;
        let id = w.id;
        if !self.queue.admits_drop_tail(now, w.wire_bytes, idle, || pool.get(id)) {
            self.stats.drops_queue += 1;
            return Offered::Refused;
        }
        let start = if idle { now } else { self.last_departure() };
        // In admission order, which is the order of service: the same remainders as on the
        // two-event path, which takes them at each start.
        let depart = start + self.serialised.serialization_ns(w.wire_bytes, self.rate_bps, &mut self.rem);
        self.admitted(idle, now, by, w, depart)
    }

    /// Packet `w`, admitted by an event that arrived over channel `by` to a link `idle` or
    /// not, departs at `depart`: onto the wire or counted waiting, and into the pipe.
    #[inline(always)]
    fn admitted(&mut self, idle: bool, now: Time, by: u32, mut w: Waiting, depart: Time) -> Offered {
        if idle {
            w.vc = now as u32; // its start (`started`)
            (self.on_wire, self.tx_start, self.busy, self.started_by) = (w, depart, true, by);
        } else {
            // It waits in the pipe alone: the queue only counts it (`start_waiting`).
            self.queue.enter_counted(w.wire_bytes);
        }
        self.enter_pipe::<false>(InFlight { at: depart + self.delay, id: w.id, next: w.next })
    }

    /// Admitted packet `f` goes into the pipe: behind its head, or as its head. `ROOM_CHECKED`:
    /// the caller knows the pipe's ring has room (`offer_one_event` checks it first), so the
    /// push has no growth to call, and the common offer saves no register for one (issue 26).
    #[inline(always)]
    fn enter_pipe<const ROOM_CHECKED: bool>(&mut self, f: InFlight) -> Offered {
        if self.head.is_some() {
            if ROOM_CHECKED {
                self.pipe.push_back_with_room(f);
            } else {
                self.pipe.push_back(f);
            }
            return Offered::Queued;
        }
        self.head = f;
        Offered::ArriveAt(f.at)
    }

    /// The departure of the last packet admitted, on a busy link (it is still in the pipe:
    /// it arrives no earlier than it departs, which is after now).
    fn last_departure(&self) -> Time {
        self.pipe.back().unwrap_or(self.head).at - self.delay
    }

    /// When the packet on the wire started serialisation: its start's low 32 bits are kept
    /// in its `vc` (a cell link's virtual circuit, unused on a one-event channel), and it
    /// finishes at `tx_start`, under 2^32 ns later (a packet serialised for longer than
    /// 4.3 s can be judged as `Queued::UNKNOWN`).
    #[inline]
    fn started(&self) -> Time {
        self.tx_start - (self.tx_start as u32).wrapping_sub(self.on_wire.vc) as Time
    }

    /// The packet at the head of the pipe arrives at `now` (`Channel::arrive`). It has
    /// departed, and must be counted so before it leaves the pipe, where `depart_one` finds
    /// the packet on the wire and the waiting ones behind it. Only then: the other
    /// departures due are left to the next offer (`depart_for_offer`, which brings the
    /// transmitter up to any instant in the same way) or the end of the run
    /// (`depart_before`), but for one at `now` on a link without delay, which the two-event
    /// path's `TxDone`, queued before this arrival, ran first.
    ///
    /// Nearly always the packet on the wire at an arrival over a link without delay is the
    /// arriving one, and the packet behind it, if waiting, is the pipe's new head: that
    /// departure is done here, inline, with no call and no position in the pipe to work out
    /// (issue 26: with the departures left to the offers, 35 instructions per packet at 100
    /// flows).
    #[inline(always)]
    pub(super) fn arrive_one_event(&mut self, now: Time, pool: &PacketPool) -> Option<Time> {
        self.arrival_low = now as u32;
        if !self.busy || self.on_wire.id != self.head.id {
            if self.delay == 0 && self.busy && self.tx_start <= now {
                // A packet of no serialisation time, behind one that departed at an offer at
                // this instant.
                self.depart_through(now, pool);
            }
            return self.pop_head(pool);
        }
        self.count_sent();
        let next = self.pop_head(pool);
        if self.queue.counted() == 0 {
            self.busy = false;
            return next;
        }
        debug_assert!(next.is_some(), "a waiting packet is in the pipe");
        self.start_waiting(self.head, pool);
        if self.delay == 0 && self.tx_start <= now {
            // A packet of no serialisation time, departing at this arrival.
            self.depart_through(now, pool);
        }
        next
    }

    /// The departures due at or before `through`: the packet on the wire is counted as sent
    /// and the next waiting one starts. Out of line, for what is rare: a second departure due
    /// at one offer, a departure at an arrival that is not the arriving packet's, the end of
    /// the run.
    #[inline(never)]
    fn depart_through(&mut self, through: Time, pool: &PacketPool) {
        self.depart_one(pool);
        while self.busy && self.tx_start <= through {
            self.depart_one(pool);
        }
    }

    /// At an offer, with a departure due at or before `now`: the departures before `now`;
    /// whether the packet on the wire finishes exactly now. Nearly always one departure is due
    /// (arrivals leave a link with delay to its next offer, `arrive_one_event`): that one is
    /// inline, in the offer that has saved its registers already, and only a second one is a
    /// call (issue 26: 23 instructions per packet at 100 flows).
    #[inline(always)]
    fn depart_for_offer(&mut self, now: Time, pool: &PacketPool) -> bool {
        if self.tx_start < now {
            self.depart_one(pool);
            if self.busy && self.tx_start < now {
                self.depart_through(now - 1, pool);
            }
        }
        self.busy && self.tx_start == now
    }

    /// The packet on the wire departs (at `tx_start`): counted as sent, and the next waiting
    /// one, if any, goes on the wire.
    #[inline(always)]
    fn depart_one(&mut self, pool: &PacketPool) {
        self.count_sent();
        let waiting = self.queue.counted();
        if waiting == 0 {
            self.busy = false;
            return;
        }
        let entry = self.first_waiting(waiting);
        self.start_waiting(entry, pool);
    }

    /// The first of the `waiting` packets (at least one), which are the last ones in the pipe.
    #[inline(always)]
    fn first_waiting(&self, waiting: u32) -> InFlight {
        // Its position, 0 the head.
        let pos = self.head.is_some() as usize + self.pipe.len() - waiting as usize;
        if pos == 0 {
            self.head
        } else {
            self.pipe.get(pos - 1)
        }
    }

    /// The first waiting packet, `entry` in the pipe, goes on the wire as the one there
    /// leaves. The queue only counts it (`Queue::enter_counted`): its size is read from its
    /// record, which its arrival will read anyway (issue 26: no queue buffer to write at
    /// admission and read here).
    #[inline(always)]
    fn start_waiting(&mut self, entry: InFlight, pool: &PacketPool) {
        // SAFETY: `entry` is in this channel's pipe, and a packet in a pipe is live: it
        // leaves the pool at its arrival, after it leaves the pipe (issue 26: no bounds check).
        let wire_bytes = unsafe { pool.head_live(entry.id) }.wire_bytes;
        self.start_waiting_sized(entry, wire_bytes);
    }

    /// `start_waiting` of a packet of `wire_bytes`.
    #[inline(always)]
    fn start_waiting_sized(&mut self, entry: InFlight, wire_bytes: u32) {
        self.queue.leave_counted(wire_bytes);
        let w = Waiting { id: entry.id, wire_bytes, vc: 0, next: entry.next };
        self.start_behind(w, entry.at - self.delay);
    }

    /// The packet on the wire is counted as sent.
    #[inline(always)]
    fn count_sent(&mut self) {
        self.tx_packets += 1;
        self.tx_bytes += self.on_wire.wire_bytes as u64;
    }

    /// Waiting packet `w`, departing at `depart`, goes on the wire as the one there leaves.
    #[inline(always)]
    fn start_behind(&mut self, mut w: Waiting, depart: Time) {
        w.vc = self.tx_start as u32; // it starts as the last one leaves (`started`)
        (self.on_wire, self.tx_start) = (w, depart);
        self.started_by = Queued::NO_CHANNEL; // by a departure, not an arrival
    }

    /// At the end of a run: what departed before `end` was sent (the run's `Stop`, queued
    /// first, runs before any departure at `end` itself).
    pub(super) fn depart_before(&mut self, end: Time, pool: &PacketPool) {
        if self.busy && self.tx_start < end {
            self.depart_through(end - 1, pool);
        }
    }
}

#[cfg(test)]
#[path = "channel_one_event_tests.rs"]
mod tests;
