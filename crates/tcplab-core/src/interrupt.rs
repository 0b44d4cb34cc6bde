//! How often a run asks its caller whether to stop (Ctrl-C): every `CHECK_PERIOD` of wall
//! time, however long its events take.
//!
//! The Python binding runs the core with the GIL released, so Python's SIGINT handler cannot
//! run; the core calls back now and then, and the binding takes the GIL for a moment to run
//! pending signal handlers. Counting events is not enough: one event can take a millisecond
//! (a SACK scoreboard of one-byte segments, a TCP Boston frame of 1,365 cells), and 2^18 of
//! them took minutes. So a ticker thread raises a flag every `CHECK_PERIOD`; the event loop
//! reads the flag once per event (one load of a line that changes 20 times a second, next to
//! a compare the loop did anyway) and asks its caller only when the flag is up. A Ctrl-C is
//! then seen within `CHECK_PERIOD` plus one event.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::time::Time;

/// Wall time between two interrupt checks.
pub const CHECK_PERIOD: Duration = Duration::from_millis(50);

/// A flag that never rises: for runs nobody can interrupt.
pub static NEVER: AtomicBool = AtomicBool::new(false);

/// Run `f` with a flag that rises every `period` (`f` lowers it when it has looked); the
/// ticker thread ends as soon as `f` returns.
pub fn with_ticks<R>(period: Duration, f: impl FnOnce(&AtomicBool) -> R) -> R {
    let tick = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let ticker = scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                std::thread::park_timeout(period);
                tick.store(true, Ordering::Relaxed);
            }
        });
        let out = f(&tick);
        done.store(true, Ordering::Release);
        ticker.thread().unpark();
        out
    })
}

/// A run seen from another thread: how far it has got in simulated time (updated every
/// `CHECK_PERIOD`, for a progress display) and a flag that stops it (`Stop::Watch`).
#[derive(Debug, Default)]
pub struct Watch {
    stop: AtomicBool,
    now: AtomicU64,
    end: AtomicU64,
}

impl Watch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the run to stop (`Error::Interrupted`) at its next check.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The simulated time reached and the run's end, in nanoseconds; the end is 0 until the
    /// event loop starts (parse, checks and set-up come first).
    pub fn progress(&self) -> (Time, Time) {
        (self.now.load(Ordering::Relaxed), self.end.load(Ordering::Relaxed))
    }

    pub(crate) fn started(&self, end: Time) {
        self.end.store(end, Ordering::Relaxed);
    }

    /// Note the time reached; whether to stop.
    pub(crate) fn check(&self, now: Time) -> bool {
        self.now.store(now, Ordering::Relaxed);
        self.stop.load(Ordering::Relaxed)
    }
}

/// Whether the flag rose since the last look (and lower it).
#[inline(always)]
pub fn take(tick: &AtomicBool) -> bool {
    tick.load(Ordering::Relaxed) && tick.swap(false, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_rises_every_period_and_the_ticker_ends_with_the_work() {
        // Three rises of a 5 ms flag, waited for as long as a loaded machine needs: the flag
        // must rise again and again, and never faster than its period (the ticker parks a
        // whole period between rises), however late the threads get the CPU.
        let period = Duration::from_millis(5);
        let start = std::time::Instant::now();
        let (ticks, elapsed) = with_ticks(period, |tick| {
            let mut n = 0;
            while n < 3 && start.elapsed() < Duration::from_secs(20) {
                n += u32::from(take(tick));
                std::thread::sleep(Duration::from_millis(1));
            }
            (n, start.elapsed())
        });
        assert_eq!(ticks, 3, "the flag stopped rising");
        assert!(elapsed >= 2 * period, "three rises in {elapsed:?}");
        // The ticker was woken, not waited for: a long period does not delay the end.
        let start = std::time::Instant::now();
        with_ticks(Duration::from_secs(10), |_| ());
        assert!(start.elapsed() < Duration::from_secs(2));
        assert!(!take(&NEVER));
    }
}
