//! UDP flows in the event loop: a source's packets leave when they are due, and its flow hears
//! of each packet delivered or dropped (the packet conservation of every UDP flow is checked
//! at the end of the run, as the network's is).

use super::{Ends, Simulation};
use crate::engine::Event;
use crate::packet::Packet;

impl Simulation {
    /// Send the packets of UDP flow `i` that are due, then queue a timer for its next one.
    pub(super) fn pump_udp(&mut self, i: u32) {
        let now = self.now;
        loop {
            let f = &mut self.flows[i as usize];
            let Ends::Udp(u) = &mut f.ends else { return };
            let Some(pkt) = u.poll_transmit(now) else { break };
            let route = f.fwd_route;
            self.inject(pkt, route);
        }
        let f = &mut self.flows[i as usize];
        let Ends::Udp(u) = &mut f.ends else { return };
        u.after_sending(now);
        if let Some(d) = u.sender.next_deadline() {
            if f.timer_pending.is_none_or(|p| d < p) {
                f.timer_pending = Some(d);
                self.q.schedule(d.max(now), Event::FlowTimer(i));
            }
        }
    }

    /// A packet of UDP flow `pkt.flow` reached its destination.
    pub(super) fn deliver_udp(&mut self, pkt: &Packet) {
        let Ends::Udp(u) = &mut self.flows[pkt.flow as usize].ends else { return };
        let before = u.delivered_bytes();
        u.on_delivered(self.now, pkt);
        self.record_delivery(pkt.flow, before);
    }

    /// A packet was dropped: if it was a UDP flow's, the flow counts it lost.
    pub(super) fn udp_dropped(&mut self, p: &Packet) {
        if let Ends::Udp(u) = &mut self.flows[p.flow as usize].ends {
            u.on_dropped(self.now);
        }
    }

    /// Per flow: its packets inside the channels (waiting, on the wire, propagating).
    pub(super) fn packets_in_channels(&self) -> Vec<u64> {
        let mut per_flow = vec![0u64; self.flows.len()];
        for c in &self.channels {
            for id in c.ids() {
                per_flow[self.pool.head(id).flow as usize] += 1;
            }
        }
        per_flow
    }
}
