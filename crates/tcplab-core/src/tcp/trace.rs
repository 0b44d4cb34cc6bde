//! What a traced sender records: its window and sequence over time, and every data segment it
//! sends. The sender only appends to a buffer it owns (it does no I/O); the simulation drains
//! the buffer, into files as the run goes (`trace_stream`) or into the report when it ends.

use crate::time::{Dur, Time};

/// One row of the per-flow time trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceRow {
    pub time: Time,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The round trip measured since the last row (the sample the estimator was given, before
    /// its clock rounds it), if one was.
    pub rtt_sample: Option<Dur>,
    /// The estimator's smoothed RTT and (un-backed-off) retransmission timeout.
    pub srtt: Dur,
    pub rto: Dur,
    /// Bytes sent and not yet acknowledged (snd_max - snd_una: RFC 5681's FlightSize).
    pub flight: u64,
}

/// One data segment leaving the sender (kept when the flow is traced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendRecord {
    pub time: Time,
    /// Stream offset of the first byte.
    pub offset: u64,
    pub len: u64,
    pub retransmit: bool,
}

/// A traced sender's records since they were last drained, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderTrace {
    pub rows: Vec<TraceRow>,
    pub sends: Vec<SendRecord>,
}

impl SenderTrace {
    /// Out of line (as `send`), so that an untraced flow's sender pays one test of its
    /// `Option` and keeps its callers small enough to inline.
    #[inline(never)]
    pub fn row(&mut self, row: TraceRow) {
        self.rows.push(row);
    }

    #[inline(never)]
    pub fn send(&mut self, record: SendRecord) {
        self.sends.push(record);
    }

    /// Everything recorded so far, leaving the buffer empty.
    pub fn take(&mut self) -> (Vec<TraceRow>, Vec<SendRecord>) {
        (std::mem::take(&mut self.rows), std::mem::take(&mut self.sends))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_hands_over_the_records_in_order_and_leaves_the_buffer_empty() {
        let mut t = SenderTrace::default();
        t.row(TraceRow { time: 1, cwnd: 2, ssthresh: 3, snd_una: 4, snd_nxt: 5, ..Default::default() });
        t.send(SendRecord { time: 1, offset: 0, len: 10, retransmit: false });
        t.row(TraceRow { time: 2, cwnd: 3, ssthresh: 3, snd_una: 10, snd_nxt: 10, ..Default::default() });
        let (rows, sends) = t.take();
        assert_eq!(rows.iter().map(|r| r.time).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(sends.len(), 1);
        assert_eq!(t, SenderTrace::default());
    }
}
