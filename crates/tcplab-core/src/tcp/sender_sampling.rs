//! The sender's side of a congestion controller that samples delivery (Vegas): the delivery
//! log it writes on every send and reads on every ACK (`tcp/delivery.rs`). A child module of
//! `sender`; a sender whose controller does not sample keeps none of it.

use crate::packet::Packet;
use crate::time::Time;

use super::super::cc::AckSample;
use super::super::delivery::DeliveryLog;
use super::TcpSender;

#[derive(Debug, Clone, Default)]
pub struct Sampling {
    log: DeliveryLog,
}

impl TcpSender {
    /// The sender with a delivery log if its controller samples delivery.
    pub(super) fn with_sampling(mut self) -> Self {
        if self.cc.samples_delivery() {
            self.sampling = Some(Box::default());
        }
        self
    }

    /// What this ACK (of new data up to `ack`, or a duplicate) delivered, told to congestion
    /// control before loss recovery sees the ACK.
    pub(super) fn sample_ack(&mut self, now: Time, ack: u64, pkt: &Packet, dupack: bool) -> Option<AckSample> {
        self.sampling.as_ref()?;
        let (blocks, n) = if self.cfg.recovery.uses_sack() { self.sack_offsets(ack, pkt) } else { Default::default() };
        let (nxt, max, mss) = (self.snd_nxt.max(ack), self.snd_max, self.cfg.mss as u64);
        let s = self.sampling.as_mut()?.log.on_ack(now, ack, &blocks[..n], dupack, nxt, max, mss);
        self.cc.on_sample(&s);
        Some(s)
    }

    /// After loss recovery handled the ACK: the controller sets its window.
    pub(super) fn after_sample(&mut self, s: &AckSample) {
        self.cc.set_window(s, self.recovery.in_recovery(), &mut self.win);
    }

    /// A data segment [off, off + len) leaves now (before snd_max moves past it).
    pub(super) fn sampled_send(&mut self, now: Time, off: u64, len: u64, resend: bool) {
        let idle = self.snd_max == self.snd_una;
        if let Some(d) = &mut self.sampling {
            d.log.on_send(now, off, len, resend, idle);
        }
    }

    /// Nothing was sent because the application has no more data: the samples taken until
    /// what is in flight is delivered are application-limited.
    pub(super) fn note_app_limited(&mut self) {
        let in_flight = self.snd_nxt - self.snd_una;
        if let Some(d) = &mut self.sampling {
            d.log.on_app_limited(in_flight);
        }
    }
}
