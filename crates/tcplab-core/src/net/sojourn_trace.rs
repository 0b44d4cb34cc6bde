//! The per-departure trace of an AQM queue (CoDel, PIE, FQ-CoDel: issue 24's "per-queue
//! traces of sojourn time and drops"), `sojourn-N.csv` beside the link's `queue-N.csv`: one
//! row per packet that leaves the queue for the wire, with how long it waited and how many
//! packets the discipline dropped as a congestion signal since the row before.
//!
//! A separate file, not a column of `queue-N.csv`: that trace has a row per arrival, and
//! sojourn is known only at departure; drop-tail and RED queues write exactly what they
//! wrote before. Rows go through `csv::Rows` (in place, no allocation per row once streamed).

use std::io::{self, Write};

use crate::csv::{CsvRow, Rows};
use crate::time::{Dur, Time};

/// One departure from an AQM queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    pub time: Time,
    /// How long the packet waited in the queue (0 for one that went straight onto an idle
    /// link: a real queue enqueues and dequeues it at once).
    pub sojourn: Dur,
    /// Packets the discipline dropped as a congestion signal (CoDel's at dequeue, PIE's at
    /// enqueue) since the previous row; overflow drops are not counted here.
    pub aqm_drops: u32,
}

impl CsvRow for Departure {
    const HEADER: &'static str = "time_s,sojourn_s,aqm_drops";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        writeln!(w, "{:.9},{:.9},{}", self.time as f64 / 1e9, self.sojourn as f64 / 1e9, self.aqm_drops)
    }
}

/// A queue's departure rows and the congestion drops not yet reported in one.
#[derive(Debug, Clone, Default)]
pub struct SojournTrace {
    pub rows: Rows<Departure>,
    unreported_drops: u32,
}

impl SojournTrace {
    /// `n` packets were dropped as a congestion signal; the next departure row counts them.
    #[inline]
    pub fn dropped(&mut self, n: u32) {
        self.unreported_drops += n;
    }

    /// A packet that waited `sojourn` leaves at `now`.
    #[inline]
    pub fn depart(&mut self, now: Time, sojourn: Dur) {
        let aqm_drops = std::mem::take(&mut self.unreported_drops);
        self.rows.push(Departure { time: now, sojourn, aqm_drops });
    }
}

/// A channel's sojourn trace file.
pub fn sojourn_file(channel: usize) -> String {
    format!("sojourn-{channel}.csv")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_are_reported_once_on_the_next_departure() {
        let mut t = SojournTrace::default();
        t.depart(1_000, 0);
        t.dropped(2);
        t.dropped(1);
        t.depart(2_500_000_000, 7_000_000);
        t.depart(2_600_000_000, 1);
        let mut out = Vec::new();
        crate::csv::write_csv(&t.rows.take(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "time_s,sojourn_s,aqm_drops\n0.000001000,0.000000000,0\n2.500000000,0.007000000,3\n\
             2.600000000,0.000000001,0\n"
        );
    }
}
