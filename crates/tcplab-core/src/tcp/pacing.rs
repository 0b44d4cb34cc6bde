//! Pacing: a paced sender lets a segment leave only once the previous one has had its time at
//! the pacing rate (as Linux's internal pacing stamps each segment: the next departure is the
//! later of now and the last departure, plus len / rate). An idle sender earns no credit, so
//! it never bursts. The sender asks `ready` before a data segment and tells `on_sent` after;
//! when it held something back, `next` is the timer the simulation schedules (sans-IO).

use crate::time::{Time, SEC};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pacer {
    /// The earliest time the next segment may leave.
    next: Time,
    /// A segment was held back, so the sender wants a timer at `next`.
    waiting: bool,
}

impl Pacer {
    /// Whether a segment may leave at `now`; if not, the pacer waits for `next`.
    pub fn ready(&mut self, now: Time) -> bool {
        let ok = now >= self.next;
        self.waiting = !ok;
        ok
    }

    /// `bytes` left at `now`, paced at `rate` bytes per second.
    pub fn on_sent(&mut self, now: Time, bytes: u64, rate: u64) {
        let gap = (bytes as u128 * SEC as u128).div_ceil(rate.max(1) as u128);
        self.next = self.next.max(now) + gap.min(u64::MAX as u128 / 2) as Time;
    }

    /// When the held-back segment may leave, if one was held back.
    pub fn deadline(&self) -> Option<Time> {
        self.waiting.then_some(self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn segments_leave_at_the_pacing_rate_and_idleness_earns_no_burst() {
        let mut p = Pacer::default();
        assert!(p.ready(0));
        p.on_sent(0, 1000, 1_000_000); // 1 MB/s: 1 ms per 1000 bytes
        assert!(!p.ready(MS / 2));
        assert_eq!(p.deadline(), Some(MS));
        assert!(p.ready(MS));
        assert_eq!(p.deadline(), None);
        p.on_sent(MS, 1000, 1_000_000);
        p.on_sent(MS, 1000, 1_000_000);
        assert_eq!(p.next, 3 * MS, "back to back: one gap each");
        assert!(p.ready(10 * MS));
        p.on_sent(10 * MS, 1000, 1_000_000);
        assert_eq!(p.next, 11 * MS, "no credit for the idle 7 ms");
    }
}
