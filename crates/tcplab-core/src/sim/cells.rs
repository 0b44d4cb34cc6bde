//! The cell path of a run: a cell reaching a switch (served at once when alone at its
//! instant, else batched round robin by a service event) or the end of its cell path, where
//! AAL5 rebuilds packets and hands them on, whole or (TCP Boston) partial. From the link that
//! cut it to the end of its cell path a cell's record stays in the pool: across a switch it
//! moves as its 4-byte id, never as a 96-byte copy (issue 26).

use super::{Ends, Simulation};
use crate::atm::aal5::Rebuilt;
use crate::engine::Event;
use crate::net::route::END;
use crate::net::PacketId;
use crate::packet::Packet;

impl Simulation {
    /// A cell (its record in the pool, its route position moved on) reached the far end of
    /// cell link `c`: a switch queues it for service; any other node is where the cell path
    /// ends and AAL5 rebuilds packets.
    pub(super) fn on_cell_arrival(&mut self, c: u32, cell: PacketId) {
        let node = self.channels[c as usize].to;
        if self.atm.is_switch(node) {
            if !self.atm.service_events_only && self.run_in_line() {
                // Nothing else happens at this instant, so no cell waits at this switch and
                // its service would serve this cell alone (a quarter of a cell-level run's
                // events; `run_in_line`).
                self.atm.serve_alone(node);
                return self.forward_cell(cell);
            }
            if self.atm.switch_arrival(node, c, cell) {
                self.q.schedule(self.now, Event::SwitchService(node));
            }
            return;
        }
        let cell = self.pool.take(cell);
        let mut rebuilt = std::mem::take(&mut self.rebuilt_buf);
        let step = self.atm.reassemble(node, &cell, self.now, &mut rebuilt);
        if let Some((t, slot)) = step.timer {
            self.q.schedule(t, Event::Reassembly(slot));
        }
        self.lose_as_cells(step.lost);
        self.hand_on(&mut rebuilt);
        self.rebuilt_buf = rebuilt;
    }

    pub(super) fn on_reassembly_timer(&mut self, slot: u32) {
        self.event = super::EventQueued::other(crate::net::channel::Queued::UNKNOWN);
        let mut rebuilt = std::mem::take(&mut self.rebuilt_buf);
        let lost = self.atm.expire(slot, self.now, &mut rebuilt);
        self.lose_as_cells(lost);
        self.hand_on(&mut rebuilt);
        self.rebuilt_buf = rebuilt;
    }

    /// Deliver or forward the packets reassembly rebuilt.
    pub(super) fn hand_on(&mut self, rebuilt: &mut Vec<Rebuilt>) {
        for r in rebuilt.drain(..) {
            let at_destination = self.routes.hops[r.pkt.route_pos as usize] == END;
            match (r.complete, at_destination) {
                (true, true) => self.deliver(r.pkt),
                (true, false) => self.forward(&r.pkt),
                (false, true) => self.deliver_partial(r.pkt, &r.cells),
                // A partial packet cannot continue over IP: nothing downstream could use it.
                (false, false) => self.lose_as_cells(1),
            }
        }
    }

    pub(super) fn on_switch_service(&mut self, node: u32) {
        self.event = super::EventQueued::other(crate::net::channel::Queued::UNKNOWN);
        let mut cells = self.atm.switch_batch(node);
        for cell in cells.drain(..) {
            self.forward_cell(cell);
        }
        self.atm.return_batch(cells);
    }

    /// A switch sends a cell onto its next link (`forward` for a record left in the pool: a
    /// cell is never cut again).
    fn forward_cell(&mut self, cell: PacketId) {
        let c = self.routes.hops[self.pool.head(cell).route_pos as usize];
        assert!((c as usize) < self.channels.len(), "a cell left a switch with no link to take");
        // SAFETY: `c < channels.len()`, asserted just above, read at the cell's route
        // position; `cell` is live (read just above).
        unsafe { self.offer(c, cell) };
    }

    pub(super) fn lose_as_cells(&mut self, n: u64) {
        self.ledger.dropped += n;
        self.lost_as_cells += n;
    }

    pub(super) fn deliver_partial(&mut self, pkt: Packet, cells: &[u16]) {
        self.ledger.delivered += 1;
        let f = &mut self.flows[pkt.flow as usize];
        let before = f.delivered();
        if let Ends::Tcp { receiver, .. } = &mut f.ends {
            receiver.on_partial_packet(self.now, &pkt, cells);
        }
        self.record_delivery(pkt.flow, before);
        self.check_rebuilt(pkt.flow);
        self.pump(pkt.flow);
    }
}
