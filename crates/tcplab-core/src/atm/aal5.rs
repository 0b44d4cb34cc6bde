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

use super::Framing;
use crate::packet::Packet;

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
}

impl Rules {
    pub fn of(cfg: &super::AtmConfig) -> Self {
        Self { framing: cfg.framing, per_packet: cfg.per_packet_frames }
    }
}

#[derive(Debug, Default)]
pub struct Reassembler {
    /// Cells since the last frame end, per VC.
    pending: super::IntMap<usize, Vec<Packet>>,
}

impl Reassembler {
    /// Take one cell; at a frame end, push what can be delivered to `out` and return the
    /// cells consumed (each consumed cell's `pdu` is resolved by the caller).
    pub fn on_cell(
        &mut self,
        vc: usize,
        cell: Packet,
        mode: Mode,
        rules: Rules,
        out: &mut Vec<Rebuilt>,
    ) -> Vec<Packet> {
        let buf = self.pending.entry(vc).or_default();
        let mut consumed = Vec::new();
        if rules.per_packet && buf.first().is_some_and(|c| c.cell.pdu != cell.cell.pdu) {
            consumed = std::mem::take(buf);
            resolve(&consumed, mode, rules.framing, out);
        }
        buf.push(cell);
        if cell.cell.is_last() {
            let cells = std::mem::take(buf);
            resolve(&cells, mode, rules.framing, out);
            consumed.extend(cells);
        }
        consumed
    }

    /// Cells waiting for their frame's end.
    pub fn in_flight(&self) -> u64 {
        self.pending.values().map(|v| v.len() as u64).sum()
    }
}

/// True if the cells gathered up to a frame end make one whole frame. A cell's `pdu` stands
/// in for the bytes an integrity check covers: AAL5's CRC-32, or under the flag framing the
/// TCP checksum.
fn intact(cells: &[Packet], framing: Framing) -> bool {
    let (first, last) = (cells[0], cells[cells.len() - 1]);
    // AAL5 reads the length from the trailer in the last cell; the flag framing from the IP
    // header in the first, which must therefore be a frame's first cell.
    let expected = match framing {
        Framing::Aal5 => last.cell.cells,
        Framing::Flag if first.cell.index == 0 => first.cell.cells,
        Framing::Flag => return false,
    };
    last.cell.is_last()
        && cells.len() == expected as usize
        && cells.iter().enumerate().all(|(i, c)| c.cell.pdu == last.cell.pdu && c.cell.index as usize == i)
}

/// Judge the cells gathered up to a frame end: an intact frame is delivered; in partial mode
/// whatever arrived of each Boston-coded frame is handed on.
fn resolve(cells: &[Packet], mode: Mode, framing: Framing, out: &mut Vec<Rebuilt>) {
    {
        let last = cells[cells.len() - 1];
        if intact(cells, framing) {
            out.push(Rebuilt { pkt: strip(last), pdu: last.cell.pdu, complete: true, cells: Vec::new() });
        } else if mode == Mode::Partial {
            // Group what arrived by frame; only Boston-coded frames are of any use partially.
            let mut start = 0;
            while start < cells.len() {
                let pdu = cells[start].cell.pdu;
                let end = start + cells[start..].iter().take_while(|c| c.cell.pdu == pdu).count();
                let head = cells[start];
                if head.shards.m > 0 && head.payload > 0 {
                    let got = cells[start..end].iter().map(|c| c.cell.index).collect();
                    out.push(Rebuilt { pkt: strip(head), pdu, complete: false, cells: got });
                }
                start = end;
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

    const AAL5: Rules = Rules { framing: Framing::Aal5, per_packet: false };
    const FLAG: Rules = Rules { framing: Framing::Flag, per_packet: false };

    fn feed(r: &mut Reassembler, cells: Vec<Packet>, mode: Mode) -> Vec<Rebuilt> {
        feed_with(r, cells, mode, AAL5)
    }

    fn feed_with(r: &mut Reassembler, cells: Vec<Packet>, mode: Mode, rules: Rules) -> Vec<Rebuilt> {
        let mut out = Vec::new();
        for c in cells {
            r.on_cell(0, c, mode, rules, &mut out);
        }
        out
    }

    #[test]
    fn an_intact_frame_is_delivered_whole() {
        let mut r = Reassembler::default();
        let out = feed(&mut r, cells_of(1, 5, false), Mode::Strict);
        assert_eq!(out.len(), 1);
        assert!(out[0].complete && !out[0].pkt.cell.is_cell());
    }

    #[test]
    fn strict_mode_discards_a_frame_with_a_missing_cell() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 5, true);
        c.remove(2);
        assert!(feed(&mut r, c, Mode::Strict).is_empty());
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn a_lost_last_cell_corrupts_the_next_frame_too() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 3, false);
        c.pop();
        c.extend(cells_of(2, 3, false));
        assert!(feed(&mut r, c, Mode::Strict).is_empty());
    }

    #[test]
    fn per_packet_framing_spoils_only_the_frame_that_lost_its_last_cell() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 3, false);
        c.pop();
        c.extend(cells_of(2, 3, false));
        let mut out = Vec::new();
        let mut consumed = 0;
        for cell in c {
            consumed += r.on_cell(0, cell, Mode::Strict, Rules { per_packet: true, ..AAL5 }, &mut out).len();
        }
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].pdu, 2);
        assert_eq!(consumed, 5);
    }

    #[test]
    fn partial_mode_hands_on_the_cells_of_a_boston_frame_that_arrived() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 6, true);
        c.remove(4);
        c.remove(1);
        let out = feed(&mut r, c, Mode::Partial);
        assert_eq!(out.len(), 1);
        assert!(!out[0].complete);
        assert_eq!(out[0].cells, vec![0, 2, 3, 5]);
    }

    #[test]
    fn flag_framing_delivers_an_intact_frame_and_loses_both_frames_around_a_lost_flagged_cell() {
        let mut r = Reassembler::default();
        let out = feed_with(&mut r, cells_of(1, 4, false), Mode::Strict, FLAG);
        assert_eq!(out.len(), 1);
        // Frame 2 loses its flagged cell: frame 3's cells join it; the IP length in frame 2's
        // first cell says 3 cells but 5 arrived before a flag, so both are lost.
        let mut c = cells_of(2, 3, false);
        c.pop();
        c.extend(cells_of(3, 3, false));
        assert!(feed_with(&mut r, c, Mode::Strict, FLAG).is_empty());
        assert_eq!(r.in_flight(), 0);
        // Frame 5 then arrives whole and is delivered: the buffer started afresh after the flag.
        assert_eq!(feed_with(&mut r, cells_of(5, 2, false), Mode::Strict, FLAG).len(), 1);
    }

    #[test]
    fn flag_framing_cannot_read_a_frame_whose_first_cell_was_lost() {
        let mut r = Reassembler::default();
        let mut c = cells_of(1, 4, false);
        c.remove(0);
        assert!(feed_with(&mut r, c, Mode::Strict, FLAG).is_empty());
        // The count check alone: frame 2 lost its flagged cell and frame 3 arrives with only
        // its flagged cell, so the count matches frame 2's IP length (3) but the checksum
        // (here the pdu) does not.
        let mut c = cells_of(2, 3, false);
        c.pop();
        c.push(cells_of(3, 3, false)[2]);
        assert!(feed_with(&mut r, c, Mode::Strict, FLAG).is_empty());
    }
}
