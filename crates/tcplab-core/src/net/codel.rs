//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor and Iyengar, RFC 8289, 2018).
//!
//! CoDel decides at dequeue, from each packet's sojourn time (dequeue time minus enqueue
//! time), not from the queue's length. The state machine follows the RFC's pseudocode
//! (section 5): `dodequeue` notes when the sojourn time first stayed at or above `target`
//! for a whole `interval` (while more than one maximal packet is waiting); `dequeue` then
//! enters the dropping state with one drop, and drops again at times spaced by the control
//! law `interval / sqrt(count)`, until a packet's sojourn falls below `target` or the queue
//! drains to at most one maximal packet. On re-entry soon after leaving (within 16 intervals
//! of the last scheduled drop) `count` restarts from the drops of the last episode beyond
//! the first, not from 1 (the RFC's "count's reuse").
//!
//! The queue itself stays outside: `dequeue` takes the next head from the caller through a
//! closure and hands the packets it drops to another, so the algorithm runs the same over the
//! link's single FIFO and, later, over FQ-CoDel's per-flow queues (RFC 8290), with no
//! allocation and no dynamic dispatch.

use crate::time::{Dur, Time, MS};

/// CoDel's settings (RFC 8289 section 4.2-4.3: target 5 ms, interval 100 ms).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodelConfig {
    /// Acceptable standing queue delay.
    pub target: Dur,
    /// The sliding window over which the sojourn must stay above `target`; also the base of
    /// the control law.
    pub interval: Dur,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 8289 section 5; the queue's
    /// `signal` closure carries it out).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        Self { target: 5 * MS, interval: 100 * MS, ecn: false }
    }
}

/// What CoDel needs to know of a packet leaving the head of its queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head<P> {
    /// The caller's handle on the packet (a pool id in the simulator).
    pub packet: P,
    /// When the packet entered the queue.
    pub enqueued_at: Time,
    /// Bytes still waiting once this packet has left (the RFC's `queue.bytes()` after the
    /// dequeue).
    pub bytes_left: u64,
}

/// CoDel's state for one queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Codel {
    cfg: CodelConfig,
    /// When the sojourn time will have stayed above target for an interval (0: it is below).
    first_above_time: Time,
    /// When the next drop is due in the dropping state.
    drop_next: Time,
    /// Drops since entering the dropping state (the control law's count).
    count: u32,
    /// `count` when the last dropping state was entered.
    last_count: u32,
    dropping: bool,
    /// The largest packet seen at enqueue: below this many bytes waiting, no drop (one
    /// packet's worth of queue is never a standing queue).
    max_packet: u64,
}

impl Codel {
    pub fn new(cfg: CodelConfig) -> Self {
        Self { cfg, first_above_time: 0, drop_next: 0, count: 0, last_count: 0, dropping: false, max_packet: 0 }
    }

    /// Note a packet of `bytes` entering the queue (the caller stamps its enqueue time).
    pub fn on_enqueue(&mut self, bytes: u64) {
        self.max_packet = self.max_packet.max(bytes);
    }

    pub fn is_dropping(&self) -> bool {
        self.dropping
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// The next drop's time in the dropping state.
    pub fn drop_next(&self) -> Time {
        self.drop_next
    }

    /// The control law: the next drop `interval / sqrt(count)` after `t` (RFC 8289 5.5).
    /// f64's square root is correctly rounded, so runs stay identical across machines.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.cfg.interval as f64 / (count.max(1) as f64).sqrt()) as Dur
    }

    /// The RFC's `dodequeue`: take the head, and say whether CoDel may drop it.
    fn dodequeue<P>(&mut self, now: Time, pop: &mut impl FnMut() -> Option<Head<P>>) -> (Option<Head<P>>, bool) {
        let Some(head) = pop() else {
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now.saturating_sub(head.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < self.cfg.target || head.bytes_left <= self.max_packet {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.cfg.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(head), ok_to_drop)
    }

    /// The RFC's `dequeue`: the packet to send at `now`, or None when the queue is empty.
    /// `pop` takes the head off the queue; every packet CoDel drops goes to `drop`.
    pub fn dequeue<P>(
        &mut self,
        now: Time,
        pop: impl FnMut() -> Option<Head<P>>,
        mut drop: impl FnMut(Head<P>),
    ) -> Option<Head<P>> {
        self.dequeue_with(now, pop, |h| {
            drop(h);
            None
        })
    }

    /// `dequeue` where each congestion signal goes to `signal`, which drops the head (None) or
    /// marks it ECN CE and hands it back to be sent (RFC 8289 section 5: "drop or mark"). A
    /// mark counts as a drop for the control law and ends the dequeue with the marked packet,
    /// as Linux's codel_dequeue does (include/net/codel_impl.h).
    pub fn dequeue_with<P>(
        &mut self,
        now: Time,
        mut pop: impl FnMut() -> Option<Head<P>>,
        mut signal: impl FnMut(Head<P>) -> Option<Head<P>>,
    ) -> Option<Head<P>> {
        let (mut head, mut ok_to_drop) = self.dodequeue(now, &mut pop);
        let Some(mut current) = head else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if let Some(marked) = signal(current) {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    return Some(marked);
                }
                (head, ok_to_drop) = self.dodequeue(now, &mut pop);
                let Some(next) = head else {
                    self.dropping = false;
                    return None;
                };
                current = next;
                if ok_to_drop {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
            return Some(current);
        }
        if ok_to_drop {
            head = match signal(current) {
                Some(marked) => Some(marked),
                None => self.dodequeue(now, &mut pop).0,
            };
            self.enter_dropping(now);
            return head;
        }
        Some(current)
    }

    /// Enter the dropping state after its first drop, reusing the last episode's count when
    /// it ended recently (RFC 8289 5.5: delta > 1 and within 16 intervals of drop_next).
    fn enter_dropping(&mut self, now: Time) {
        self.dropping = true;
        let delta = self.count.saturating_sub(self.last_count);
        self.count = 1;
        if delta > 1 && now < self.drop_next + 16 * self.cfg.interval {
            self.count = delta;
        }
        self.drop_next = self.control_law(now, self.count);
        self.last_count = self.count;
    }
}

#[cfg(test)]
#[path = "codel_tests.rs"]
mod tests;
