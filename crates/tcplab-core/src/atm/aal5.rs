//! AAL5 reassembly at the end of a cell path, per virtual circuit.
//!
//! Cells of a VC arrive in order; a frame ends with the cell marked last. If that cell was
//! lost, the next frame's cells are appended to the same buffer and both frames fail the
//! length/CRC check: exactly what real AAL5 does. Strict mode (plain TCP) delivers only intact
//! frames. Partial mode (TCP Boston, Bestavros and Kim (1997) Sec. 2.4) also hands on what arrived of a
//! Boston-coded frame: the header plus the positions of the cells that made it.
//!
//! Under the header-flag framing of Bestavros and Kim's simulator (Sec. 3) there is no trailer:
//! the frame is judged by the IP length in its first cell instead (see `Framing::Flag`). Both
//! checks reject exactly the same buffers; the difference is where the evidence sits.
//!
//! Per-packet reassembly (`Rules::per_packet`) is a simulator's AAL that knows its frames: a
//! frame ends at its flagged last cell, or, when that cell was dropped, as soon as every cell
//! of the frame that was not dropped has arrived (the caller says how many are still about,
//! `pending`, and asks again when a drop settles a frame whose cells already wait here), so
//! whatever arrived of it is judged, and handed on, at once rather than when the next frame
//! comes.

use super::Framing;
use crate::packet::{CellInfo, Packet};
use crate::time::{Dur, Time};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Strict,
    Partial,
}

/// A packet rebuilt from cells; `cells` lists the positions (0-based, in the frame) that
/// arrived, header cell included, when the frame is incomplete (partial mode only).
#[derive(Debug, Clone)]
pub struct Rebuilt {
    pub pkt: Packet,
    /// The frame it was rebuilt from.
    pub pdu: u32,
    pub complete: bool,
    pub cells: Vec<u16>,
}

/// How a reassembly point cuts and judges frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub framing: Framing,
    /// A cell of a new frame also ends the previous one, so a lost last cell spoils only its
    /// own frame (as in a simulator that knows packet boundaries).
    pub per_packet: bool,
    /// A buffer holding more cells than this is thrown away (AAL5's maximum length).
    pub max_cells: u32,
}

impl Rules {
    pub fn of(cfg: &super::AtmConfig) -> Self {
        Self { framing: cfg.framing, per_packet: cfg.per_packet_frames, max_cells: cfg.max_cells() }
    }
}

/// Strict for plain packets; partial (hand on what arrived) for Boston-coded ones.
pub fn mode_of(cell: &Packet) -> Mode {
    if cell.shards.m > 0 {
        Mode::Partial
    } else {
        Mode::Strict
    }
}

/// The cells gathered on one VC since its last frame end. The cells of a frame carry copies
/// of one header, so a buffer keeps each cell's frame fields and one whole record per run of
/// cells of one frame (its first cell's): judging a frame reads 8 bytes a cell, and using it
/// up moves one (frame, cells) pair a run, not the 96-byte records (issue 26).
#[derive(Debug, Default)]
struct Open {
    cells: Vec<CellInfo>,
    /// The record of the first cell of each run of consecutive cells of one frame.
    heads: Vec<Packet>,
    /// When the first of them arrived (the reassembly timer runs from there).
    started: Time,
}

impl Open {
    fn push(&mut self, cell: &Packet) {
        match self.cells.last() {
            Some(prev) if prev.pdu == cell.cell.pdu => {
                debug_assert_eq!(
                    Packet { cell: cell.cell, ..*self.heads.last().expect("a run has a head") },
                    *cell,
                    "cells of one frame carry one header"
                );
            }
            _ => self.heads.push(*cell),
        }
        self.cells.push(cell.cell);
    }

    /// The runs of consecutive cells of one frame: (its head record, the run's cells).
    fn runs(&self) -> impl Iterator<Item = (&Packet, &[CellInfo])> + '_ {
        self.cells.chunk_by(|a, b| a.pdu == b.pdu).zip(&self.heads).map(|(run, head)| (head, run))
    }
}

/// Cells a judgement used up: `cells` consecutive cells of frame `pdu` (at most the frame's
/// own count of cells, a u16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consumed {
    pub pdu: u32,
    pub cells: u16,
}

/// What a cell did to its buffer, besides delivering frames.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The cell opened a buffer that is still open: its reassembly timer runs from now.
    pub opened: Option<u32>,
    /// The buffer grew past the maximum length and was cut.
    pub too_long: bool,
    /// The slot of the VC's buffer (whether or not the cell left it open).
    pub slot: u32,
}

/// Reassembly buffers of all VCs at all reassembly points, each in a slot of its own so a
/// timer can name it with one integer.
#[derive(Debug, Default)]
pub struct Reassembler {
    slot_of: super::IntMap<u64, u32>,
    open: Vec<Open>,
}

impl Reassembler {
    /// Take one cell of the VC `key` (judged strictly, or partially if Boston-coded); frames it
    /// ends (or cuts) are judged: what can be
    /// delivered goes to `out`, and the cells the judgement used up are appended to
    /// `consumed`, a run per frame (the caller resolves their frames). A buffer that grows
    /// past `rules.max_cells` is cut without delivering a whole frame. `pending`: the cells of
    /// the cell's frame not yet dropped or used up, this one included (per-packet rules end the
    /// frame when they have all arrived).
    #[allow(clippy::too_many_arguments)]
    pub fn on_cell(
        &mut self,
        key: u64,
        cell: &Packet,
        now: Time,
        rules: Rules,
        pending: u16,
        out: &mut Vec<Rebuilt>,
        consumed: &mut Vec<Consumed>,
    ) -> Step {
        let mode = mode_of(cell);
        let open = &mut self.open;
        let slot = *self.slot_of.entry(key).or_insert_with(|| {
            open.push(Open::default());
            (open.len() - 1) as u32
        });
        let buf = &mut open[slot as usize];
        let mut step = Step { slot, ..Step::default() };
        if rules.per_packet && buf.cells.first().is_some_and(|c| c.pdu != cell.cell.pdu) {
            close(buf, mode, rules.framing, true, out, consumed);
        }
        if buf.cells.is_empty() {
            buf.started = now;
        }
        buf.push(cell);
        if buf.cells.len() > rules.max_cells as usize {
            // I.363.5's maximum length: however it ends, this is no frame the sender made.
            close(buf, mode, rules.framing, false, out, consumed);
            step.too_long = true;
        } else if cell.cell.is_last() || (rules.per_packet && buf.cells.len() == pending as usize) {
            // Per packet, a frame whose other cells were all dropped ends here too.
            close(buf, mode, rules.framing, true, out, consumed);
        }
        if buf.cells.len() == 1 {
            step.opened = Some(slot);
        }
        step
    }

    /// The reassembly timer of `slot`, started at a buffer's first cell, ran out at `now`:
    /// if the buffer open there is at least `timeout` old, it is cut (judged like a frame
    /// that ended without its last cell). True if it was.
    pub fn expire(
        &mut self,
        slot: u32,
        now: Time,
        timeout: Dur,
        framing: Framing,
        out: &mut Vec<Rebuilt>,
        consumed: &mut Vec<Consumed>,
    ) -> bool {
        let buf = &mut self.open[slot as usize];
        // A buffer opened after the timer was set has a timer of its own.
        if buf.cells.is_empty() || now < buf.started + timeout {
            return false;
        }
        let mode = mode_of(&buf.heads[0]);
        close(buf, mode, framing, false, out, consumed);
        true
    }

    /// The frame whose cells wait in `slot` and how many there are (per-packet rules keep one
    /// frame per buffer); None if the buffer is empty.
    pub fn waiting(&self, slot: u32) -> Option<(u32, usize)> {
        let cells = &self.open.get(slot as usize)?.cells;
        cells.first().map(|c| (c.pdu, cells.len()))
    }

    /// End the frame waiting in `slot` as if its flagged last cell had come: every other cell
    /// of it was dropped (per-packet rules only).
    pub fn end_frame(&mut self, slot: u32, framing: Framing, out: &mut Vec<Rebuilt>, consumed: &mut Vec<Consumed>) {
        let buf = &mut self.open[slot as usize];
        if let Some(first) = buf.heads.first() {
            let mode = mode_of(first);
            close(buf, mode, framing, true, out, consumed);
        }
    }

    /// Cells waiting for their frame's end.
    pub fn in_flight(&self) -> u64 {
        self.open.iter().map(|o| o.cells.len() as u64).sum()
    }
}

/// Judge and empty a buffer, keeping its storage for the next frame.
fn close(
    buf: &mut Open,
    mode: Mode,
    framing: Framing,
    whole_ok: bool,
    out: &mut Vec<Rebuilt>,
    consumed: &mut Vec<Consumed>,
) {
    if !buf.cells.is_empty() {
        resolve(buf, mode, framing, whole_ok, out);
        consumed.extend(buf.runs().map(|(head, run)| Consumed { pdu: head.cell.pdu, cells: run.len() as u16 }));
        buf.cells.clear();
        buf.heads.clear();
    }
}

/// True if the cells gathered up to a frame end make one whole frame. A cell's `pdu` stands
/// in for the bytes an integrity check covers: AAL5's CRC-32, or under the flag framing the
/// TCP checksum.
fn intact(cells: &[CellInfo], framing: Framing) -> bool {
    let (first, last) = (cells[0], cells[cells.len() - 1]);
    // AAL5 reads the length from the trailer in the last cell; the flag framing from the IP
    // header in the first, which must therefore be a frame's first cell.
    let expected = match framing {
        Framing::Aal5 => last.cells,
        Framing::Flag if first.index == 0 => first.cells,
        Framing::Flag => return false,
    };
    last.is_last()
        && cells.len() == expected as usize
        && cells.iter().enumerate().all(|(i, c)| c.pdu == last.pdu && c.index as usize == i)
}

/// Judge the cells gathered up to a frame end (or a cut, `whole_ok` false): an intact frame is
/// delivered; in partial mode whatever arrived of each Boston-coded frame is handed on.
fn resolve(buf: &Open, mode: Mode, framing: Framing, whole_ok: bool, out: &mut Vec<Rebuilt>) {
    if whole_ok && intact(&buf.cells, framing) {
        // One run: its head carries the header every cell of the frame carries.
        let pdu = buf.cells[0].pdu;
        out.push(Rebuilt { pkt: strip(buf.heads[0]), pdu, complete: true, cells: Vec::new() });
    } else if mode == Mode::Partial {
        // Group what arrived by frame; only Boston-coded frames are of any use partially.
        for (head, run) in buf.runs() {
            if head.shards.m > 0 && head.payload > 0 {
                let got = run.iter().map(|c| c.index).collect();
                out.push(Rebuilt { pkt: strip(*head), pdu: head.cell.pdu, complete: false, cells: got });
            }
        }
    }
}

/// The packet a cell belongs to (cells carry a copy of the header).
fn strip(cell: Packet) -> Packet {
    let mut p = cell;
    p.cell = Default::default();
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{test_packet, CellInfo, Shards};

    fn cells_of(pdu: u32, n: u16, boston: bool) -> Vec<Packet> {
        (0..n)
            .map(|i| {
                let mut p = test_packet();
                p.cell = CellInfo { cells: n, index: i, pdu };
                if boston {
                    p.shards = Shards { m: n - 1, start: 0, count: n - 1, ..Shards::default() };
                }
                p
            })
            .collect()
    }

    const AAL5: Rules = Rules { framing: Framing::Aal5, per_packet: false, max_cells: 1366 };
    const FLAG: Rules = Rules { framing: Framing::Flag, ..AAL5 };

    /// Cells used up, over all runs.
    fn used(consumed: &[Consumed]) -> usize {
        consumed.iter().map(|c| c.cells as usize).sum()
    }

    fn feed(r: &mut Reassembler, cells: Vec<Packet>) -> Vec<Rebuilt> {
        feed_with(r, cells, AAL5)
    }

    fn feed_with(r: &mut Reassembler, cells: Vec<Packet>, rules: Rules) -> Vec<Rebuilt> {
        let mut out = Vec::new();
        let mut consumed = Vec::new();
        for c in cells {
            r.on_cell(0, &c, 0, rules, u16::MAX, &mut out, &mut consumed);
        }
        out
    }

    #[test]
    fn an_intact_frame_is_delivered_whole() {
        let mut r = Reassembler::default();
        let out = feed(&mut r, cells_of(1, 5, false));
        assert_eq!(out.len(), 1);
        assert!(out[0].complete && !out[0].pkt.cell.is_cell());
    }

    #[test]
    fn strict_mode_discards_a_frame_with_a_missing_cell() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 5, false);
        c.remove(2);
        assert!(feed(&mut r, c).is_empty());
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn a_lost_last_cell_corrupts_the_next_frame_too() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 3, false);
        c.pop();
        c.extend(cells_of(2, 3, false));
        assert!(feed(&mut r, c).is_empty());
    }

    #[test]
    fn per_packet_framing_spoils_only_the_frame_that_lost_its_last_cell() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 3, false);
        c.pop();
        c.extend(cells_of(2, 3, false));
        let mut out = Vec::new();
        let mut consumed = Vec::new();
        for cell in c {
            r.on_cell(0, &cell, 0, Rules { per_packet: true, ..AAL5 }, u16::MAX, &mut out, &mut consumed);
        }
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].pdu, 2);
        // Used up a run per frame: frame 1's two cells when frame 2 began, then frame 2's three.
        assert_eq!(consumed, [Consumed { pdu: 1, cells: 2 }, Consumed { pdu: 2, cells: 3 }]);
    }

    #[test]
    fn per_packet_framing_ends_a_frame_when_its_last_surviving_cell_arrives() {
        // Frame 1 (6 cells) lost cells 3 and 5, its flagged last cell among them: the caller
        // says how many of its cells are still about, and the frame ends at its last survivor
        // instead of waiting for frame 2.
        let rules = Rules { per_packet: true, framing: Framing::Flag, ..AAL5 };
        let mut r = Reassembler::default();
        let (mut out, mut consumed) = (Vec::new(), Vec::new());
        let c = cells_of(1, 6, true);
        for k in [0, 1, 2, 4] {
            // Four of its cells are about (waiting here or on their way) until it ends.
            r.on_cell(5, &c[k], 0, rules, 4, &mut out, &mut consumed);
        }
        assert_eq!(out.len(), 1, "handed on at the fourth arrival");
        assert!(!out[0].complete);
        assert_eq!(out[0].cells, vec![0, 1, 2, 4]);
        assert_eq!(r.in_flight(), 0);
        // Strictly judged, the same cells are a lost frame, settled at once as well.
        let plain = cells_of(2, 3, false);
        out.clear();
        let s = r.on_cell(5, &plain[0], 0, rules, 1, &mut out, &mut consumed);
        assert!(out.is_empty() && r.in_flight() == 0 && r.waiting(s.slot).is_none());
    }

    #[test]
    fn a_frame_whose_last_cells_are_dropped_after_the_others_arrived_ends_on_request() {
        let rules = Rules { per_packet: true, ..AAL5 };
        let mut r = Reassembler::default();
        let (mut out, mut consumed) = (Vec::new(), Vec::new());
        let c = cells_of(1, 4, true);
        let s = r.on_cell(2, &c[0], 0, rules, 4, &mut out, &mut consumed);
        r.on_cell(2, &c[1], 0, rules, 4, &mut out, &mut consumed);
        assert_eq!(r.waiting(s.slot), Some((1, 2)), "cells 2 and 3 still about");
        r.end_frame(s.slot, Framing::Aal5, &mut out, &mut consumed);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].cells, vec![0, 1]);
        assert_eq!((used(&consumed), r.in_flight()), (2, 0));
    }

    #[test]
    fn partial_mode_hands_on_the_cells_of_a_boston_frame_that_arrived() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 6, true);
        c.remove(4);
        c.remove(1);
        let out = feed(&mut r, c);
        assert_eq!(out.len(), 1);
        assert!(!out[0].complete);
        assert_eq!(out[0].cells, vec![0, 2, 3, 5]);
    }

    #[test]
    fn flag_framing_delivers_an_intact_frame_and_loses_both_frames_around_a_lost_flagged_cell() {
        let mut r = Reassembler::default();
        let out = feed_with(&mut r, cells_of(1, 4, false), FLAG);
        assert_eq!(out.len(), 1);
        // Frame 2 loses its flagged cell: frame 3's cells join it; the IP length in frame 2's
        // first cell says 3 cells but 5 arrived before a flag, so both are lost.
        let mut c = cells_of(2, 3, false);
        c.pop();
        c.extend(cells_of(3, 3, false));
        assert!(feed_with(&mut r, c, FLAG).is_empty());
        assert_eq!(r.in_flight(), 0);
        // Frame 5 then arrives whole and is delivered: the buffer started afresh after the flag.
        assert_eq!(feed_with(&mut r, cells_of(5, 2, false), FLAG).len(), 1);
    }

    #[test]
    fn flag_framing_cannot_read_a_frame_whose_first_cell_was_lost() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 4, false);
        c.remove(0);
        assert!(feed_with(&mut r, c, FLAG).is_empty());
        // The count check alone: frame 2 lost its flagged cell and frame 3 arrives with only
        // its flagged cell, so the count matches frame 2's IP length (3) but the checksum
        // (here the pdu) does not.
        let mut c = cells_of(2, 3, false);
        c.pop();
        c.push(cells_of(3, 3, false)[2]);
        assert!(feed_with(&mut r, c, FLAG).is_empty());
    }

    #[test]
    fn a_buffer_past_the_maximum_length_is_cut_even_when_its_last_cell_ends_a_frame() {
        let rules = Rules { max_cells: 4, ..AAL5 };
        let mut r = Reassembler::default();
        let (mut out, mut consumed) = (Vec::new(), Vec::new());
        // Frame 1 lost its last cell; frame 2's cells join: the buffer reaches 5 cells at
        // frame 2's third cell and is cut there.
        let mut c = cells_of(1, 3, false);
        c.pop();
        c.extend(cells_of(2, 4, false));
        let steps: Vec<Step> =
            c.into_iter().map(|x| r.on_cell(7, &x, 0, rules, u16::MAX, &mut out, &mut consumed)).collect();
        assert_eq!(steps.iter().filter(|s| s.too_long).count(), 1);
        assert!(steps[4].too_long);
        // Frame 2's last cell then closes a one-cell buffer that is no frame: all 6 cells are
        // used up and nothing is delivered.
        assert!(out.is_empty());
        assert_eq!((used(&consumed), r.in_flight()), (6, 0));
        // A frame of exactly max_cells is fine; one cell more is cut though it is intact.
        assert_eq!(feed_with(&mut r, cells_of(3, 4, false), rules).len(), 1);
        assert!(feed_with(&mut r, cells_of(4, 5, false), rules).is_empty());
    }

    #[test]
    fn the_reassembly_timer_cuts_only_a_buffer_at_least_as_old_as_the_timeout() {
        let mut r = Reassembler::default();
        let (mut out, mut consumed) = (Vec::new(), Vec::new());
        let c = cells_of(1, 3, false);
        let first = r.on_cell(9, &c[0], 100, AAL5, u16::MAX, &mut out, &mut consumed);
        let slot = first.opened.expect("the first cell opens a buffer");
        assert_eq!(r.on_cell(9, &c[1], 150, AAL5, u16::MAX, &mut out, &mut consumed).opened, None);
        assert!(!r.expire(slot, 149, 50, Framing::Aal5, &mut out, &mut consumed));
        assert!(r.expire(slot, 150, 50, Framing::Aal5, &mut out, &mut consumed));
        assert_eq!((used(&consumed), r.in_flight()), (2, 0));
        // The late last cell opens (and closes) a buffer of its own; nothing is delivered.
        assert_eq!(r.on_cell(9, &c[2], 160, AAL5, u16::MAX, &mut out, &mut consumed).opened, None);
        assert!(out.is_empty());
        // A timer left from an older buffer does not cut a younger one.
        let d = cells_of(2, 3, false);
        r.on_cell(9, &d[0], 200, AAL5, u16::MAX, &mut out, &mut consumed);
        assert!(!r.expire(slot, 220, 50, Framing::Aal5, &mut out, &mut consumed));
    }

    #[test]
    fn a_timed_out_boston_buffer_is_handed_on_as_a_partial_packet() {
        let mut r = Reassembler::default();
        let (mut out, mut consumed) = (Vec::new(), Vec::new());
        let c = cells_of(1, 4, true);
        let slot = r.on_cell(3, &c[0], 0, AAL5, u16::MAX, &mut out, &mut consumed).opened.unwrap();
        r.on_cell(3, &c[1], 0, AAL5, u16::MAX, &mut out, &mut consumed);
        assert!(r.expire(slot, 10, 10, Framing::Aal5, &mut out, &mut consumed));
        assert_eq!(out.len(), 1);
        assert!(!out[0].complete);
        assert_eq!(out[0].cells, vec![0, 1]);
    }
}
