//! The sender's side of a congestion controller that samples delivery (Vegas, BBR): the
//! delivery log it writes on every send and reads on every ACK (`tcp/delivery.rs`), and the
//! pacer that holds segments back to the controller's pacing rate (`tcp/pacing.rs`). A child
//! module of `sender`; a sender whose controller does not sample keeps none of it.

use crate::packet::Packet;
use crate::time::Time;

use super::super::cc::AckSample;
use super::super::delivery::DeliveryLog;
use super::super::pacing::Pacer;
use super::TcpSender;

#[derive(Debug, Clone, Default)]
pub struct Sampling {
    log: DeliveryLog,
    pacer: Pacer,
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

    /// After loss recovery handled the ACK: the controller sets its window, and samples taken
    /// while it holds the sender back count as application-limited.
    pub(super) fn after_sample(&mut self, s: &AckSample) {
        self.cc.set_window(s, self.recovery.in_recovery(), &mut self.win);
        if self.cc.holds_back() {
            if let Some(d) = &mut self.sampling {
                d.log.on_app_limited(s.in_flight);
            }
        }
    }

    /// A data segment [off, off + len) leaves now (before snd_max moves past it).
    pub(super) fn sampled_send(&mut self, now: Time, off: u64, len: u64, resend: bool) {
        let idle = self.snd_max == self.snd_una;
        let rate = self.cc.pacing_rate();
        if let Some(d) = &mut self.sampling {
            d.log.on_send(now, off, len, resend, idle);
            if let Some(rate) = rate {
                d.pacer.on_sent(now, len, rate);
            }
        }
    }

    /// Whether pacing holds data back at `now` (the pacer then wants its timer).
    pub(super) fn paced_out(&mut self, now: Time) -> bool {
        match &mut self.sampling {
            Some(d) if self.cc.pacing_rate().is_some() => !d.pacer.ready(now),
            _ => false,
        }
    }

    /// When held-back data may leave, if pacing holds any.
    pub(super) fn pacing_deadline(&self) -> Option<Time> {
        self.sampling.as_ref().and_then(|d| d.pacer.deadline())
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
