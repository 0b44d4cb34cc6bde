//! The ATM state of a running simulation: frame bookkeeping, switch input service and
//! reassembly points. The simulation calls in here whenever a packet meets a cell link.

use serde::Serialize;

use super::aal5::{Consumed, Reassembler, Rebuilt, Rules};
use super::drop::vc_of;
use super::{AtmConfig, CELL_BYTES};
use crate::packet::{CellInfo, Packet};

/// The cell ledger: created = consumed (by reassembly) + dropped + in flight.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct CellLedger {
    pub created: u64,
    pub consumed: u64,
    /// Of the consumed cells, those of frames AAL5 threw away (the bandwidth EPD saves).
    pub discarded: u64,
    pub dropped: u64,
    pub in_flight: u64,
    /// Reassembly buffers thrown away for growing past `max_frame` (each may hold cells of
    /// several frames that lost their last cells).
    pub frames_discarded_length: u64,
    /// Reassembly buffers thrown away by the reassembly timer.
    pub frames_discarded_timeout: u64,
}

/// A frame not yet resolved: cells still somewhere, and whether a packet came out of it.
#[derive(Debug, Clone, Copy)]
struct Frame {
    remaining: u16,
    delivered: bool,
    /// Some of its cells reached a reassembly buffer.
    reached: bool,
    flow: u32,
    /// The reassembly buffer its cells last went to (per-packet rules end the frame there
    /// when a drop leaves only the cells waiting in it; kept under those rules only).
    slot: Option<u32>,
}

/// What a dropped cell did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Its packet is now lost.
    pub lost: bool,
    /// Per-packet rules: the drop left only cells that already wait in this reassembly buffer,
    /// which can now be judged (`expire` does it; the caller queues it for the same instant).
    pub end_frame: Option<u32>,
}

/// What one cell reaching the end of a cell path did, besides rebuilding packets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reassembled {
    /// Packets now settled as lost.
    pub lost: u64,
    /// A reassembly timer to start: (when it runs out, the buffer's slot).
    pub timer: Option<(crate::time::Time, u32)>,
}

/// `C`: how a cell waiting at a switch input is named (the simulation's pool id: the record
/// stays in the pool while it waits).
#[derive(Debug)]
pub struct AtmRuntime<C> {
    pub cfg: AtmConfig,
    is_switch: Vec<bool>,
    /// Per channel: its position among the inputs of the node it leads to.
    input_index: Vec<u32>,
    /// Per node: how many channels lead into it.
    n_inputs: Vec<u32>,
    /// Per switch: cells that arrived at the current instant, with their input position (the
    /// records stay in the simulation's pool).
    arrived: Vec<Vec<(u32, C)>>,
    /// The last batch served, in service order (kept to reuse its storage).
    batch: Vec<C>,
    /// Per switch: the input served first in the next batch.
    next_input: Vec<u32>,
    reassembly: Reassembler,
    /// Cells used up by the last reassembly step, a run per frame (kept to reuse its storage).
    consumed: Vec<Consumed>,
    frames: super::IntMap<u32, Frame>,
    /// Per flow: frames from which no packet came out although cells of them reached
    /// reassembly (grown on demand).
    lost_in_reassembly: Vec<u64>,
    next_pdu: u32,
    pub cells: CellLedger,
    /// Every switch service is an event of its own, never done inline (`Simulation`'s
    /// `on_cell_arrival`): the old way, kept for the test that both give the same run.
    pub(crate) service_events_only: bool,
}

impl<C: Copy> AtmRuntime<C> {
    /// `channel_ends`: the node each channel leads to, in channel order (a switch serves its
    /// inputs round robin in that order).
    pub fn new(cfg: AtmConfig, is_switch: Vec<bool>, channel_ends: impl Iterator<Item = u32>) -> Self {
        let nodes = is_switch.len();
        let mut n_inputs = vec![0u32; nodes];
        let input_index = channel_ends
            .map(|to| {
                let i = n_inputs[to as usize];
                n_inputs[to as usize] += 1;
                i
            })
            .collect();
        Self {
            cfg,
            is_switch,
            input_index,
            n_inputs,
            arrived: vec![Vec::new(); nodes],
            next_input: vec![0; nodes],
            batch: Vec::new(),
            reassembly: Default::default(),
            consumed: Vec::new(),
            frames: Default::default(),
            lost_in_reassembly: Vec::new(),
            next_pdu: 0,
            cells: CellLedger::default(),
            service_events_only: false,
        }
    }

    pub fn is_switch(&self, node: u32) -> bool {
        self.is_switch[node as usize]
    }

    /// AAL5 segmentation: append the cells of `pkt` to `out`.
    pub fn segment(&mut self, pkt: Packet, out: &mut Vec<Packet>) {
        let n = self.cfg.cells_for(&pkt);
        let pdu = self.next_pdu;
        self.next_pdu = self.next_pdu.wrapping_add(1);
        self.frames.insert(pdu, Frame { remaining: n, delivered: false, reached: false, flow: pkt.flow, slot: None });
        self.cells.created += n as u64;
        out.extend((0..n).map(|index| {
            let mut c = pkt;
            c.cell = CellInfo { cells: n, index, pdu };
            c.wire_bytes = CELL_BYTES;
            c
        }));
    }

    /// `cells` cells of a frame are gone (dropped or consumed); true if that settles the frame
    /// as lost: no packet came out of it.
    fn settle(&mut self, pdu: u32, cells: u16) -> bool {
        let f = self.frames.get_mut(&pdu).expect("every cell belongs to a known frame");
        f.remaining -= cells;
        if f.remaining > 0 {
            return false;
        }
        let lost = !f.delivered;
        if lost && f.reached {
            let flow = f.flow as usize;
            if self.lost_in_reassembly.len() <= flow {
                self.lost_in_reassembly.resize(flow + 1, 0);
            }
            self.lost_in_reassembly[flow] += 1;
        }
        self.frames.remove(&pdu);
        lost
    }

    /// Frames of `flow` lost although some of their cells reached reassembly: AAL threw them
    /// away (incomplete, too long, or timed out).
    pub fn frames_lost_reassembly(&self, flow: u32) -> u64 {
        self.lost_in_reassembly.get(flow as usize).copied().unwrap_or(0)
    }

    /// A cell was dropped: whether its packet is now lost, and whether its frame can now end.
    pub fn cell_dropped(&mut self, cell: &Packet) -> Dropped {
        self.cells.dropped += 1;
        let pdu = cell.cell.pdu;
        let lost = self.settle(pdu, 1);
        let end_frame = match self.frames.get(&pdu) {
            Some(&Frame { slot: Some(slot), remaining, .. }) if self.cfg.per_packet_frames => {
                (self.reassembly.waiting(slot) == Some((pdu, remaining as usize))).then_some(slot)
            }
            _ => None,
        };
        Dropped { lost, end_frame }
    }

    /// A cell reached a switch; true if the switch needs a service event at this instant.
    pub fn switch_arrival(&mut self, node: u32, from_channel: u32, cell: C) -> bool {
        let batch = &mut self.arrived[node as usize];
        batch.push((self.input_index[from_channel as usize], cell));
        batch.len() == 1
    }

    /// Switch `node` serves a batch of one cell at once (the caller forwards it): the round
    /// robin moves on as `switch_batch` moves it. Only when no cell waits at the switch.
    pub fn serve_alone(&mut self, node: u32) {
        debug_assert!(self.arrived[node as usize].is_empty(), "a batch is waiting for its service");
        let n = self.n_inputs[node as usize].max(1);
        let next = &mut self.next_input[node as usize];
        *next = (*next + 1) % n;
    }

    /// The cells that arrived at switch `node` at this instant, inputs served round robin; the
    /// caller hands the list back with `return_batch` once it has forwarded them.
    pub fn switch_batch(&mut self, node: u32) -> Vec<C> {
        let n = self.n_inputs[node as usize].max(1);
        let first = self.next_input[node as usize];
        let batch = &mut self.arrived[node as usize];
        batch.sort_by_key(|&(input, _)| (input + n - first) % n); // stable: FIFO per input
        let mut out = std::mem::take(&mut self.batch);
        out.extend(batch.drain(..).map(|(_, c)| c));
        self.next_input[node as usize] = (first + 1) % n;
        out
    }

    /// The list `switch_batch` handed out, emptied, to keep its storage.
    pub fn return_batch(&mut self, emptied: Vec<C>) {
        debug_assert!(emptied.is_empty());
        self.batch = emptied;
    }

    /// The cells waiting at switch inputs for their service (their records are in the pool).
    pub fn switch_held(&self) -> impl Iterator<Item = C> + '_ {
        self.arrived.iter().flatten().map(|&(_, id)| id)
    }

    /// A cell left the cell network at `node` at `now`: rebuilt packets go to `out`.
    pub fn reassemble(
        &mut self,
        node: u32,
        cell: &Packet,
        now: crate::time::Time,
        out: &mut Vec<Rebuilt>,
    ) -> Reassembled {
        let first_new = out.len();
        let key = (node as u64) << 32 | vc_of(cell) as u64;
        let rules = Rules::of(&self.cfg);
        let pdu = cell.cell.pdu;
        // Only per-packet rules read how many of the frame's cells are still about and where
        // they wait (`cell_dropped`): two lookups a cell saved under the others.
        let pending = if rules.per_packet { self.frames.get(&pdu).map_or(u16::MAX, |f| f.remaining) } else { u16::MAX };
        let step = self.reassembly.on_cell(key, cell, now, rules, pending, out, &mut self.consumed);
        if rules.per_packet {
            if let Some(f) = self.frames.get_mut(&pdu) {
                f.slot = Some(step.slot);
            }
        }
        self.cells.frames_discarded_length += step.too_long as u64;
        let timer = match (step.opened, self.cfg.reassembly_timeout) {
            (Some(slot), Some(t)) => Some((now + t, slot)),
            _ => None,
        };
        Reassembled { lost: self.absorb(out, first_new), timer }
    }

    /// Buffer `slot` is to be looked at: its frame ends if none of its cells is left outside
    /// it (per-packet rules, after a drop: `Dropped::end_frame`), else it is cut if its
    /// reassembly timer ran out at `now`. Returns the packets this settled as lost (rebuilt
    /// ones, in Boston's partial mode, go to `out`).
    pub fn expire(&mut self, slot: u32, now: crate::time::Time, out: &mut Vec<Rebuilt>) -> u64 {
        let first_new = out.len();
        let framing = self.cfg.framing;
        let settled = self
            .reassembly
            .waiting(slot)
            .is_some_and(|(pdu, cells)| self.frames.get(&pdu).is_some_and(|f| f.remaining as usize == cells));
        if self.cfg.per_packet_frames && settled {
            self.reassembly.end_frame(slot, framing, out, &mut self.consumed);
        } else {
            let Some(timeout) = self.cfg.reassembly_timeout else { return 0 };
            if !self.reassembly.expire(slot, now, timeout, framing, out, &mut self.consumed) {
                return 0;
            }
            self.cells.frames_discarded_timeout += 1;
        }
        self.absorb(out, first_new)
    }

    /// Mark the frames packets were rebuilt from, and settle the consumed cells; returns the
    /// packets this settled as lost.
    ///
    /// A frame is handed on at most once. In Boston's partial mode a cut (for length, or by the
    /// timer) hands on the first part of a frame whose other cells may still be on their way;
    /// those close a later buffer of the same frame, and a second packet from it would count
    /// one packet as delivered twice. So a later part is consumed without a packet (the
    /// receiver asks for what it lacks by its partial ACK, as for any incomplete frame).
    fn absorb(&mut self, out: &mut Vec<Rebuilt>, first_new: usize) -> u64 {
        let frames = &mut self.frames;
        let mut index = 0;
        out.retain(|r| {
            index += 1;
            if index <= first_new {
                return true;
            }
            match frames.get_mut(&r.pdu) {
                Some(f) if f.delivered => false,
                Some(f) => {
                    f.delivered = true;
                    true
                }
                None => true,
            }
        });
        let mut consumed = std::mem::take(&mut self.consumed);
        let mut lost = 0;
        for Consumed { pdu, cells } in consumed.drain(..) {
            self.cells.consumed += cells as u64;
            let f = self.frames.get_mut(&pdu).expect("every cell belongs to a known frame");
            f.reached = true;
            if !f.delivered {
                self.cells.discarded += cells as u64;
            }
            lost += self.settle(pdu, cells) as u64;
        }
        self.consumed = consumed;
        lost
    }

    /// Packets travelling as cells: frames no packet has come out of yet. A Boston frame cut
    /// short (by `max_frame` or the reassembly timer) is handed on as a partial packet at the
    /// cut, so its packet is delivered while its later cells are still on their way: those
    /// cells are in flight in the cell ledger, but the packet is not in flight any more.
    pub fn packets_in_flight(&self) -> u64 {
        self.frames.values().filter(|f| !f.delivered).count() as u64
    }

    /// Cells held outside channels: at switch inputs and in reassembly buffers.
    pub fn cells_held(&self) -> u64 {
        self.arrived.iter().map(|b| b.len() as u64).sum::<u64>() + self.reassembly.in_flight()
    }
}
