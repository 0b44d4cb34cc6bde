//! The checks that end every run: a broken invariant is an error, never a warning.

use super::{Ends, Simulation};
use crate::error::Error;

impl Simulation {
    /// Check what every run must keep, when it ends: packet and cell conservation, the
    /// pool's records against what the channels hold, the drop counters against the ledger,
    /// bytes delivered intact and never more than sent, each UDP flow's packets sent =
    /// delivered + lost + in flight; and report a violation found during the run. A failure is a bug in the simulator, never a user's mistake.
    pub(super) fn check_invariants(&mut self) -> Result<(), Error> {
        if let Some(v) = self.violation.take() {
            return Err(Error::Invariant(v));
        }
        let (pkts, cells) =
            self.channels.iter().map(|c| c.in_flight(&self.pool)).fold((0, 0), |(p, c), (p2, c2)| (p + p2, c + c2));
        let at_switches = self.atm.switch_held().count() as u64;
        if pkts + cells + at_switches != self.pool.live() as u64 {
            return Err(Error::Invariant(format!(
                "packet pool holds {} records but the channels hold {} and the switches {at_switches}",
                self.pool.live(),
                pkts + cells
            )));
        }
        self.ledger.in_flight = pkts + self.atm.packets_in_flight();
        let held = self.atm.cells_held();
        let cl = &mut self.atm.cells;
        cl.in_flight = cells + held;
        if cl.created != cl.consumed + cl.dropped + cl.in_flight {
            return Err(Error::Invariant(format!(
                "cell conservation: created {} != consumed {} + dropped {} + in flight {}",
                cl.created, cl.consumed, cl.dropped, cl.in_flight
            )));
        }
        let l = &self.ledger;
        if l.injected != l.delivered + l.dropped + l.in_flight {
            return Err(Error::Invariant(format!(
                "packet conservation: injected {} != delivered {} + dropped {} + in flight {}",
                l.injected, l.delivered, l.dropped, l.in_flight
            )));
        }
        let drops: u64 =
            self.channels.iter().filter(|c| !c.atm).map(|c| c.stats.drops_loss + c.stats.drops_queue).sum();
        let cell_drops: u64 =
            self.channels.iter().filter(|c| c.atm).map(|c| c.stats.drops_loss + c.stats.drops_queue).sum();
        // A packet link's drops include the cells it dropped (after a switch, `dropped`).
        let (drops, cell_drops) =
            (drops.saturating_sub(self.cells_dropped_on_packet_links), cell_drops + self.cells_dropped_on_packet_links);
        if cell_drops != self.atm.cells.dropped || drops + self.lost_as_cells != l.dropped {
            return Err(Error::Invariant(format!(
                "drop counters disagree: links {drops} packets and {cell_drops} cells, ledger {} packets and {} cells",
                l.dropped, self.atm.cells.dropped
            )));
        }
        let udp_in_flight = if self.has_udp { self.packets_in_channels() } else { Vec::new() };
        for (i, f) in self.flows.iter().enumerate() {
            let (sender, receiver) = match &f.ends {
                Ends::Tcp { sender, receiver } => (sender, receiver),
                Ends::Udp(u) => match u.ledger_error(udp_in_flight[i]) {
                    Some(e) => return Err(Error::Invariant(format!("flow {i}: {e}"))),
                    None => continue,
                },
            };
            if receiver.stats.corrupt > 0 {
                return Err(Error::Invariant(format!(
                    "flow {i}: {} segments carried bytes that do not match their stream offsets",
                    receiver.stats.corrupt
                )));
            }
            if receiver.delivered() > sender.snd_max() {
                return Err(Error::Invariant(format!(
                    "flow {i}: {} bytes delivered but only {} sent",
                    receiver.delivered(),
                    sender.snd_max()
                )));
            }
        }
        Ok(())
    }
}
