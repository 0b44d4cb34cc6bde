//! The drop trace of a link direction (`trace_drops`): one row per packet (or ATM cell) the
//! channel dropped, with why.
//!
//! The causes are those the drop counters count (`ChannelStats`, `QueueStats`): the buffer was
//! full, RED's early or forced drop, the loss model, an ATM cell policy. A trace is off unless a
//! link asks for it, and then recording is out of line (`#[cold]`): a drop is rare next to the
//! arrivals, and an untraced channel pays one test of an `Option` on its drop path only.
//!
//! Sequence numbers are written relative to the flow's data (as `segments-flow<i>.csv` writes
//! offsets), so a dropped segment is found in the flow's own traces by its offset. The trace
//! learns each flow's first data sequence number when the run is built (`set_data_bases`).

use std::io::{self, Write};

use crate::csv::{CsvRow, Rows};
use crate::packet::{Dir, Packet};
use crate::time::Time;

/// Why a packet was dropped (named as the counters name it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer was full, or FQ-CoDel's overflow rule dropped it from the fattest queue
    /// (`drops_overflow`, `drops_queue`).
    Overflow,
    /// RED's random drop between min_th and max_th, or PIE's at enqueue (`drops_early`).
    Early,
    /// RED's drop with the average in the forced region (`drops_forced`).
    Forced,
    /// The link's loss model, after serialisation (`drops_loss`).
    Loss,
    /// An ATM cell policy (PPD, EPD, SD) discarded the cell while the buffer had room.
    CellPolicy,
    /// CoDel's (or an FQ-CoDel queue's) drop at dequeue: the sojourn time stayed above
    /// target (RFC 8289).
    Sojourn,
}

impl DropCause {
    pub fn name(self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::Early => "early",
            DropCause::Forced => "forced",
            DropCause::Loss => "loss",
            DropCause::Sojourn => "sojourn",
            DropCause::CellPolicy => "cell_policy",
        }
    }
}

/// What a dropped packet was: a SYN (either way), a data segment, or an ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropKind {
    Syn,
    Data,
    Ack,
}

/// One dropped packet or cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropEvent {
    pub time: Time,
    pub flow: u32,
    pub kind: DropKind,
    /// Data: stream offset of the first byte (modulo 2^32). Ack: the stream offset it
    /// acknowledges (modulo 2^32). Syn: 0.
    pub offset: u32,
    /// Payload bytes (of the whole packet, for a cell).
    pub len: u32,
    /// IP bytes on the wire (53 for a cell).
    pub bytes: u32,
    pub cause: DropCause,
    /// The token-bucket marker's mark (intserv; not ECN).
    pub marked: bool,
}

impl CsvRow for DropEvent {
    /// `seq` is filled for data segments, `ack` for ACKs; both are empty for a SYN.
    const HEADER: &'static str = "time_s,flow,kind,seq,ack,len,bytes,cause,marked";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        write!(w, "{:.9},{},", self.time as f64 / 1e9, self.flow)?;
        match self.kind {
            DropKind::Syn => write!(w, "syn,,,")?,
            DropKind::Data => write!(w, "data,{},,", self.offset)?,
            DropKind::Ack => write!(w, "ack,,{},", self.offset)?,
        }
        writeln!(w, "{},{},{},{}", self.len, self.bytes, self.cause.name(), self.marked as u8)
    }
}

/// A channel's drop trace: its rows, and each flow's first data sequence number.
#[derive(Debug, Clone, Default)]
pub struct DropTrace {
    pub rows: Rows<DropEvent>,
    /// By flow: the wire sequence number of stream offset 0 (the sender's ISN + 1).
    data_base: Vec<u32>,
}

impl DropTrace {
    /// Each flow's wire sequence number of stream offset 0, once the flows are built.
    pub fn set_data_bases(&mut self, bases: impl Iterator<Item = u32>) {
        self.data_base = bases.collect();
    }

    /// Record `pkt`, dropped at `now` for `cause`.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, now: Time, pkt: &Packet, cause: DropCause) {
        let base = self.data_base.get(pkt.flow as usize).copied().unwrap_or(0);
        let (kind, offset) = match pkt.dir {
            _ if pkt.is_syn() => (DropKind::Syn, 0),
            Dir::Forward => (DropKind::Data, pkt.seq.wrapping_sub(base)),
            Dir::Reverse => (DropKind::Ack, pkt.ack.wrapping_sub(base)),
        };
        self.rows.push(DropEvent {
            time: now,
            flow: pkt.flow,
            kind,
            offset,
            len: pkt.payload,
            bytes: if pkt.cell.is_cell() { 53 } else { pkt.wire_bytes },
            cause,
            marked: pkt.marked,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_name_the_cause_and_the_offset_relative_to_the_flows_data() {
        let mut t = DropTrace::default();
        t.set_data_bases([100u32, u32::MAX - 9].into_iter());
        let mut data = crate::packet::test_packet();
        data.flow = 1;
        data.dir = Dir::Forward;
        data.seq = 1460u32.wrapping_add(u32::MAX - 9);
        data.payload = 1460;
        data.wire_bytes = 1500;
        data.flags = 0;
        t.record(2_500_000_000, &data, DropCause::Early);
        let mut ack = Packet::test_ack(2920, 65_535);
        ack.ack = 100 + 2920;
        t.record(3_000_000_001, &ack, DropCause::Overflow);
        let mut out = Vec::new();
        crate::csv::write_csv(&t.rows.take(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "time_s,flow,kind,seq,ack,len,bytes,cause,marked\n\
             2.500000000,1,data,1460,,1460,1500,early,0\n\
             3.000000001,0,ack,,2920,0,40,overflow,0\n"
        );
    }
}
