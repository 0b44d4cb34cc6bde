//! AAL5 reassembly at the end of a cell path, per virtual circuit.
//!
//! Cells of a VC arrive in order; a frame ends with the cell marked last. If that cell was
//! lost, the next frame's cells are appended to the same buffer and both frames fail the
//! length/CRC check: exactly what real AAL5 does. Strict mode (plain TCP) delivers only intact
//! frames. Partial mode (TCP Boston, Bestavros and Kim (1997) Sec. 2.4) also hands on what arrived of a
//! Boston-coded frame: the header plus the positions of the cells that made it.

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

#[derive(Debug, Default)]
pub struct Reassembler {
    /// Cells since the last frame end, per VC.
    pending: super::IntMap<usize, Vec<Packet>>,
}

impl Reassembler {
    /// Take one cell; at a frame end, push what can be delivered to `out` and return the
    /// cells consumed (each consumed cell's `pdu` is resolved by the caller). With
    /// `per_packet`, a cell of a new frame also ends the previous one, so a lost last cell
    /// spoils only its own frame (as in a simulator that knows packet boundaries).
    pub fn on_cell(
        &mut self,
        vc: usize,
        cell: Packet,
        mode: Mode,
        per_packet: bool,
        out: &mut Vec<Rebuilt>,
    ) -> Vec<Packet> {
        let buf = self.pending.entry(vc).or_default();
        let mut consumed = Vec::new();
        if per_packet && buf.first().is_some_and(|c| c.cell.pdu != cell.cell.pdu) {
            consumed = std::mem::take(buf);
            resolve(&consumed, mode, out);
        }
        buf.push(cell);
        if cell.cell.is_last() {
            let cells = std::mem::take(buf);
            resolve(&cells, mode, out);
            consumed.extend(cells);
        }
        consumed
    }

    /// Cells waiting for their frame's end.
    pub fn in_flight(&self) -> u64 {
        self.pending.values().map(|v| v.len() as u64).sum()
    }
}

/// Judge the cells gathered up to a frame end: an intact frame is delivered; in partial mode
/// whatever arrived of each Boston-coded frame is handed on.
fn resolve(cells: &[Packet], mode: Mode, out: &mut Vec<Rebuilt>) {
    {
        let last = cells[cells.len() - 1];
        let intact = cells.len() == last.cell.cells as usize
            && cells.iter().enumerate().all(|(i, c)| c.cell.pdu == last.cell.pdu && c.cell.index as usize == i);
        if intact && last.cell.is_last() {
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

    fn feed(r: &mut Reassembler, cells: Vec<Packet>, mode: Mode) -> Vec<Rebuilt> {
        let mut out = Vec::new();
        for c in cells {
            r.on_cell(0, c, mode, false, &mut out);
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
            consumed += r.on_cell(0, cell, Mode::Strict, true, &mut out).len();
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
}
