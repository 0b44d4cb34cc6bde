//! Drop policies of an ATM switch's output buffer, decided cell by cell.
//!
//! - Tail: drop an arriving cell when the buffer is full.
//! - PPD (partial packet discard, Armitage and Adams 1993): once a cell of a frame is
//!   dropped, drop the frame's later cells too, but keep its last cell (if there is room) so
//!   the receiver's AAL5 still sees where the frame ends.
//! - EPD (early packet discard, Romanow and Floyd 1995): when the first cell of a frame
//!   arrives and the buffer holds more than R cells, drop the whole frame; a frame already
//!   admitted is kept if possible (on overflow, PPD takes over).
//! - SD (selective drop, Goyal et al. (1998) Sec. 4.2): drop a new frame of VC i when the buffer holds
//!   more than R cells and VC i holds more than Z * X / Na of them (X the occupancy, Na the
//!   VCs with cells buffered); otherwise as EPD below R.

use crate::packet::{Dir, Packet, PacketHead};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellPolicy {
    Tail,
    Ppd,
    /// Threshold in cells.
    Epd {
        threshold: usize,
    },
    /// Threshold in cells and the scale Z of the fair share.
    Sd {
        threshold: usize,
        z: f64,
    },
}

/// The frame a VC is discarding, and whether its last cell should still be let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Discard {
    pdu: u32,
    keep_last: bool,
}

#[derive(Debug, Clone)]
pub struct CellDropper {
    policy: CellPolicy,
    capacity: usize,
    discarding: Vec<Option<Discard>>,
    /// Cells of each VC waiting in the buffer.
    per_vc: Vec<u32>,
    /// VCs with at least one cell waiting.
    active: u32,
    /// The VC each flow direction (`vc_of`) is accounted on, when flows share VCs; empty:
    /// every flow direction is a VC of its own.
    shared_vc: Vec<u32>,
}

/// A VC is one direction of one flow.
pub fn vc_of(p: &Packet) -> usize {
    vc_of_flow(p.flow, p.dir)
}

/// `vc_of` for flow `flow`'s direction `dir`.
#[inline]
pub fn vc_of_flow(flow: u32, dir: Dir) -> usize {
    flow as usize * 2 + (dir == Dir::Reverse) as usize
}

impl CellDropper {
    /// The bytes of a dropper's state for `vcs` VCs, `shared` when flows share VCs (a WWW
    /// pair's map): what `new` and `with_shared_vcs` allocate, for the memory estimate. Every
    /// cell link keeps a record per flow direction of the run, crossing it or not.
    pub fn state_bytes(vcs: usize, shared: bool) -> u64 {
        let per_vc = std::mem::size_of::<Option<Discard>>() + std::mem::size_of::<u32>();
        let map = if shared { std::mem::size_of::<u32>() } else { 0 };
        (vcs as u64).saturating_mul((per_vc + map) as u64)
    }

    pub fn new(policy: CellPolicy, capacity: usize, vcs: usize) -> Self {
        Self { policy, capacity, discarding: vec![None; vcs], per_vc: vec![0; vcs], active: 0, shared_vc: Vec::new() }
    }

    /// Account flow direction `i` (as `vc_of` numbers them) on VC `map[i]`: one-way flows
    /// that model one connection share its circuits.
    pub fn with_shared_vcs(mut self, map: Vec<u32>) -> Self {
        self.shared_vc = map;
        self
    }

    #[inline]
    fn account(&self, vc: usize) -> usize {
        self.shared_vc.get(vc).map_or(vc, |&v| v as usize)
    }

    /// Whether to accept `cell` into a buffer now holding `occupancy` cells.
    pub fn admit(&mut self, cell: &PacketHead, occupancy: usize) -> bool {
        let vc = vc_of_flow(cell.flow, cell.dir);
        let full = occupancy >= self.capacity;
        if let Some(d) = self.discarding[vc] {
            if d.pdu == cell.cell.pdu {
                if cell.cell.is_last() {
                    self.discarding[vc] = None;
                    return d.keep_last && !full;
                }
                return false;
            }
            self.discarding[vc] = None; // that frame ended without its last cell reaching us
        }
        if cell.cell.index == 0 && self.refuses_new_frame(self.account(vc), occupancy) {
            self.discard_rest(vc, cell, false);
            return false;
        }
        if full {
            if self.policy != CellPolicy::Tail {
                self.discard_rest(vc, cell, true);
            }
            return false;
        }
        true
    }

    fn refuses_new_frame(&self, vc: usize, occupancy: usize) -> bool {
        match self.policy {
            CellPolicy::Tail | CellPolicy::Ppd => false,
            CellPolicy::Epd { threshold } => occupancy > threshold,
            CellPolicy::Sd { threshold, z } => {
                occupancy > threshold
                    && self.active > 0
                    && self.per_vc[vc] as f64 > z * occupancy as f64 / self.active as f64
            }
        }
    }

    fn discard_rest(&mut self, vc: usize, cell: &PacketHead, keep_last: bool) {
        if !cell.cell.is_last() {
            self.discarding[vc] = Some(Discard { pdu: cell.cell.pdu, keep_last });
        }
    }

    /// A cell of circuit `vc` (see `vc_of`) joined the buffer.
    pub fn on_enqueue(&mut self, vc: u32) {
        let vc = self.account(vc as usize);
        if self.per_vc[vc] == 0 {
            self.active += 1;
        }
        self.per_vc[vc] += 1;
    }

    pub fn on_dequeue(&mut self, vc: u32) {
        let vc = self.account(vc as usize);
        self.per_vc[vc] -= 1;
        if self.per_vc[vc] == 0 {
            self.active -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::CellInfo;

    fn cell(flow: u32, pdu: u32, index: u16, cells: u16) -> PacketHead {
        let mut p = crate::packet::test_packet();
        p.flow = flow;
        p.cell = CellInfo { cells, index, pdu };
        PacketHead::of(&p)
    }

    /// Offer a frame of `n` cells at occupancy `occ` (unchanged by admissions), return the
    /// admitted indices.
    fn offer(d: &mut CellDropper, flow: u32, pdu: u32, n: u16, occ: impl Fn(u16) -> usize) -> Vec<u16> {
        (0..n).filter(|&i| d.admit(&cell(flow, pdu, i, n), occ(i))).collect()
    }

    #[test]
    fn tail_drops_only_cells_that_do_not_fit() {
        let mut d = CellDropper::new(CellPolicy::Tail, 10, 2);
        assert_eq!(offer(&mut d, 0, 1, 4, |i| if i == 1 { 10 } else { 5 }), vec![0, 2, 3]);
    }

    #[test]
    fn ppd_drops_the_rest_of_the_frame_but_keeps_its_last_cell() {
        let mut d = CellDropper::new(CellPolicy::Ppd, 10, 2);
        assert_eq!(offer(&mut d, 0, 1, 5, |i| if i == 1 { 10 } else { 5 }), vec![0, 4]);
        assert_eq!(offer(&mut d, 0, 2, 3, |_| 5), vec![0, 1, 2], "the next frame is untouched");
    }

    #[test]
    fn epd_refuses_whole_frames_above_the_threshold_and_keeps_admitted_ones() {
        let mut d = CellDropper::new(CellPolicy::Epd { threshold: 8 }, 10, 2);
        assert_eq!(offer(&mut d, 0, 1, 3, |_| 9), Vec::<u16>::new());
        // Admitted below the threshold, the frame stays whole even above it.
        assert_eq!(offer(&mut d, 0, 2, 3, |i| 7 + i as usize), vec![0, 1, 2]);
    }

    #[test]
    fn sd_drops_new_frames_of_vcs_above_their_fair_share() {
        let mut d = CellDropper::new(CellPolicy::Sd { threshold: 8, z: 0.8 }, 20, 4);
        // VC 0 (flow 0) holds 8 cells, VC 2 (flow 1) holds 1: occupancy 9, two active VCs.
        for _ in 0..8 {
            d.on_enqueue(vc_of_flow(0, Dir::Forward) as u32);
        }
        d.on_enqueue(vc_of_flow(1, Dir::Forward) as u32);
        assert!(!d.admit(&cell(0, 3, 0, 2), 9), "8 > 0.8 * 9 / 2");
        assert!(d.admit(&cell(1, 4, 0, 2), 9), "1 < 3.6");
    }

    // Goyal et al. (1998) Sec. 4, cell by cell: buffer K = 100 cells, R = 0.8 K = 80.

    /// Fill VC `vc` with `n` waiting cells.
    fn hold(d: &mut CellDropper, vc: u32, n: u32) {
        for _ in 0..n {
            d.on_enqueue(vc);
        }
    }

    #[test]
    fn epd_refuses_only_new_frames_once_occupancy_exceeds_r() {
        let mut d = CellDropper::new(CellPolicy::Epd { threshold: 80 }, 100, 2);
        assert_eq!(offer(&mut d, 0, 1, 4, |_| 80), vec![0, 1, 2, 3], "X = R is not above R");
        assert!(offer(&mut d, 0, 2, 4, |_| 81).is_empty(), "X > R: the whole new frame goes");
        // A frame that began at X <= R keeps every cell while X climbs past R (room left).
        assert_eq!(offer(&mut d, 0, 3, 6, |i| 78 + 3 * i as usize), vec![0, 1, 2, 3, 4, 5]);
        // EPD knows no fair share: a VC with no cells waiting is refused as well.
        assert!(offer(&mut d, 0, 4, 2, |_| 90).is_empty());
    }

    #[test]
    fn sd_drops_whole_frames_only_of_vcs_above_z_x_over_na_when_x_exceeds_r() {
        let mut d = CellDropper::new(CellPolicy::Sd { threshold: 80, z: 0.8 }, 100, 6);
        // VC 0 (flow 0) holds 60 cells, VC 2 (flow 1) 25, VC 4 (flow 2) 5: X = 90, Na = 3,
        // Z X / Na = 24.
        hold(&mut d, 0, 60);
        hold(&mut d, 2, 25);
        hold(&mut d, 4, 5);
        assert!(offer(&mut d, 0, 1, 3, |_| 90).is_empty(), "60 > 24: the whole frame is dropped");
        assert!(offer(&mut d, 1, 2, 3, |_| 90).is_empty(), "25 > 24");
        assert_eq!(offer(&mut d, 2, 3, 3, |_| 90), vec![0, 1, 2], "5 <= 24: kept");
        // Below R nothing is dropped early, however unfair the buffer.
        assert_eq!(offer(&mut d, 0, 4, 3, |_| 80), vec![0, 1, 2]);
        // A frame admitted under the rule keeps its later cells even if its VC grows past
        // its share meanwhile (the rule judges a frame by its first cell).
        assert_eq!(offer(&mut d, 2, 5, 3, |i| 85 + i as usize), vec![0, 1, 2]);
        // With Na = 1 and Z = 0.8, a lone VC over R exceeds 0.8 X: its new frames go.
        let mut lone = CellDropper::new(CellPolicy::Sd { threshold: 80, z: 0.8 }, 100, 2);
        hold(&mut lone, 0, 85);
        assert!(offer(&mut lone, 0, 1, 2, |_| 85).is_empty());
    }

    #[test]
    fn shared_vcs_pool_the_accounting_of_the_flow_directions_mapped_to_them() {
        // Flow directions 0 and 3 share VC 0 (a request flow's data and a response flow's
        // ACKs); flow direction 2 is VC 2.
        let mut d =
            CellDropper::new(CellPolicy::Sd { threshold: 80, z: 0.8 }, 100, 4).with_shared_vcs(vec![0, 1, 2, 0]);
        hold(&mut d, 0, 20);
        hold(&mut d, 3, 20);
        hold(&mut d, 2, 45);
        // X = 85, Na = 2 (not 3), share 34: the pooled VC 0 holds 40 and is above it.
        assert_eq!(d.active, 2);
        assert!(offer(&mut d, 0, 1, 2, |_| 85).is_empty());
        let mut ack = cell(1, 2, 0, 2);
        ack.dir = crate::packet::Dir::Reverse; // flow 1 reverse: direction 3, VC 0
        assert!(!d.admit(&ack, 85));
        d.on_dequeue(3);
        assert_eq!(d.per_vc[0], 39);
    }
}
