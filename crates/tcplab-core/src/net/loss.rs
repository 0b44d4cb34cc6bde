//! Loss models of a link direction: Bernoulli, Gilbert-Elliott bursts, burst noise in time,
//! deterministic drop lists.
//!
//! A packet is lost after it has used the link (it was serialised, then corrupted), which is
//! how the HFC study's channel errors behave.

use rand::Rng as _;

use crate::packet::{Dir, Packet};
use crate::rng::{stream, Rng};
use crate::time::{Dur, Time};

/// How a drop list names the packets it drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropBy {
    /// The n-th packet (1-based) of the flow to cross this link direction, any kind.
    TxIndex,
    /// The first data segment of the flow that starts at this stream offset (bytes from 0).
    Offset,
    /// The first transmission of data segment number n (1-based, offset = (n-1) * mss).
    Segment,
}

/// A validated loss model of a link direction (`config::loss` reads it from the scenario).
#[derive(Debug, Clone)]
pub enum LossModelSpec {
    None,
    Bernoulli(f64),
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
    Burst { mean_good: Dur, mean_bad: Dur },
    DropList { flow: u32, by: DropBy, values: Vec<u64> },
}

#[derive(Debug, Clone)]
pub enum LossModel {
    None,
    /// Each random model owns its channel's random stream (boxed: a lossless channel then
    /// carries no generator, which keeps channels small and cache-friendly).
    Bernoulli {
        p: f64,
        rng: Box<Rng>,
    },
    /// Two-state Markov chain, one step per packet.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
        rng: Box<Rng>,
    },
    /// Burst noise in continuous time: good and bad periods of exponential length (means in
    /// nanoseconds). A packet is lost if any part of its serialisation falls in a bad period, so
    /// a longer packet is hit more often: how the loss rate depends on packet size is what this
    /// model adds over the per-packet ones.
    Burst {
        mean_good: f64,
        mean_bad: f64,
        /// The current state, and when it ends (None until the first packet).
        bad: bool,
        until: Option<Time>,
        rng: Box<Rng>,
    },
    DropList {
        flow: u32,
        by: DropBy,
        /// Values still to drop, sorted ascending; each drops once.
        pending: Vec<u64>,
        /// Packets of the flow seen so far (for TxIndex); for Offset and Segment, the highest
        /// stream offset seen, which 32-bit sequence numbers are unwrapped against.
        seen: u64,
    },
}

/// The 64-bit stream offset nearest to `*highest` whose low 32 bits are `off32`, and `*highest`
/// moved up to it. Exact while less than 2^31 bytes are outstanding, which the 1 GiB window cap
/// (RFC 7323) guarantees: a segment, even a retransmission, is never 2^31 bytes away from the
/// highest offset sent.
fn unwrap_offset(off32: u32, highest: &mut u64) -> u64 {
    let delta = off32.wrapping_sub(*highest as u32) as i32 as i64;
    let off = (*highest as i64 + delta).max(0) as u64;
    *highest = (*highest).max(off);
    off
}

/// What the loss model needs to know about a flow to read stream offsets off a packet.
#[derive(Debug, Clone, Copy)]
pub struct FlowWire {
    /// Wire sequence number of stream offset 0 (the sender's ISN + 1).
    pub data_base: u32,
    pub mss: u32,
}

/// An exponential duration with mean `mean` ns, at least 1 ns (so the chain always moves on).
fn exp_ns(rng: &mut Rng, mean: f64) -> Time {
    let u: f64 = rng.random();
    // 1 - u lies in (0, 1], so the logarithm is finite; float-to-int casts saturate.
    (-(1.0 - u).ln() * mean).ceil().max(1.0) as Time
}

/// Whether burst noise hits a packet serialised over `[start, end]`, advancing the chain.
fn burst_hits(
    mean_good: f64,
    mean_bad: f64,
    bad: &mut bool,
    until: &mut Option<Time>,
    rng: &mut Rng,
    start: Time,
    end: Time,
) -> bool {
    let pi_bad = mean_bad / (mean_good + mean_bad);
    let mean = |bad: bool| if bad { mean_bad } else { mean_good };
    match *until {
        None => {
            *bad = rng.random::<f64>() < pi_bad;
            *until = Some(start.saturating_add(exp_ns(rng, mean(*bad))));
        }
        Some(u) if u <= start => {
            // The state flipped at u and the chain ran unobserved until `start`: draw its state
            // there from the two-state transition probability, then a fresh sojourn (the
            // exponential is memoryless), so an idle channel costs two draws, not a walk.
            let flipped_bad = !*bad;
            let decay = (-((start - u) as f64) * (1.0 / mean_good + 1.0 / mean_bad)).exp();
            let p_bad = if flipped_bad { pi_bad + (1.0 - pi_bad) * decay } else { pi_bad * (1.0 - decay) };
            *bad = rng.random::<f64>() < p_bad;
            *until = Some(start.saturating_add(exp_ns(rng, mean(*bad))));
        }
        Some(_) => {}
    }
    let mut lost = *bad;
    while let Some(u) = *until {
        if u >= end {
            break;
        }
        *bad = !*bad;
        lost |= *bad;
        *until = Some(u.saturating_add(exp_ns(rng, mean(*bad))));
    }
    lost
}

impl LossModel {
    /// The loss model of channel `channel`; a random one draws from the channel's own stream.
    pub fn new(spec: &LossModelSpec, seed: u64, channel: u64) -> Self {
        let rng = || Box::new(stream(seed, "channel", channel));
        match spec {
            LossModelSpec::None => LossModel::None,
            LossModelSpec::Bernoulli(p) => LossModel::Bernoulli { p: *p, rng: rng() },
            LossModelSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                LossModel::GilbertElliott {
                    p_good_to_bad: *p_good_to_bad,
                    p_bad_to_good: *p_bad_to_good,
                    loss_good: *loss_good,
                    loss_bad: *loss_bad,
                    bad: false,
                    rng: rng(),
                }
            }
            LossModelSpec::Burst { mean_good, mean_bad } => LossModel::Burst {
                mean_good: *mean_good as f64,
                mean_bad: *mean_bad as f64,
                bad: false,
                until: None,
                rng: rng(),
            },
            LossModelSpec::DropList { flow, by, values } => {
                LossModel::DropList { flow: *flow, by: *by, pending: values.clone(), seen: 0 }
            }
        }
    }

    /// Decide the fate of one packet serialised over `[start, end]`; `flows[i]` describes flow i.
    pub fn drops(&mut self, pkt: &Packet, flows: &[FlowWire], start: Time, end: Time) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => *p > 0.0 && rng.random::<f64>() < *p,
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad, bad, rng } => {
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                if rng.random::<f64>() < flip {
                    *bad = !*bad;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                p > 0.0 && rng.random::<f64>() < p
            }
            LossModel::Burst { mean_good, mean_bad, bad, until, rng } => {
                burst_hits(*mean_good, *mean_bad, bad, until, rng, start, end)
            }
            LossModel::DropList { flow, by, pending, seen } => {
                if pkt.flow != *flow || pending.is_empty() {
                    return false;
                }
                let key = match by {
                    DropBy::TxIndex => {
                        *seen += 1;
                        *seen
                    }
                    DropBy::Offset | DropBy::Segment => {
                        if pkt.dir != Dir::Forward || pkt.payload == 0 {
                            return false;
                        }
                        let fw = flows[pkt.flow as usize];
                        let off = unwrap_offset(pkt.seq.wrapping_sub(fw.data_base), seen);
                        if *by == DropBy::Offset {
                            off
                        } else {
                            off / fw.mss as u64 + 1
                        }
                    }
                };
                match pending.binary_search(&key) {
                    Ok(i) => {
                        pending.remove(i);
                        true
                    }
                    Err(_) => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{burst_hits, unwrap_offset};
    use crate::rng::stream;

    /// The share of packets of `len_ns` lost to burst noise, sent back to back with `gap_ns` idle.
    fn burst_share(mean_good: f64, mean_bad: f64, len_ns: u64, gap_ns: u64) -> f64 {
        let (mut bad, mut until, mut rng) = (false, None, stream(7, "burst-test", 0));
        let (n, mut lost, mut t) = (200_000, 0, 0u64);
        for _ in 0..n {
            lost += burst_hits(mean_good, mean_bad, &mut bad, &mut until, &mut rng, t, t + len_ns) as u32;
            t += len_ns + gap_ns;
        }
        lost as f64 / n as f64
    }

    #[test]
    fn burst_noise_hits_a_packet_as_the_two_state_chain_predicts() {
        // A packet survives if the channel is good when it starts and stays good throughout:
        // P(lost) = 1 - pi_good exp(-T / mean_good), idle gaps or not.
        let (g, b) = (3_000_000.0, 300_000.0);
        for (len, gap) in [(340_000u64, 0u64), (170_000, 0), (340_000, 5_000_000), (10_000, 100_000)] {
            let want = 1.0 - g / (g + b) * (-(len as f64) / g).exp();
            let got = burst_share(g, b, len, gap);
            assert!((got - want).abs() < 0.01, "len {len} gap {gap}: {got} vs {want}");
        }
    }

    #[test]
    fn halving_the_packet_halves_loss_for_short_bursts_and_not_for_long_ones() {
        // The size dependence the model exists for: bursts much shorter than a packet act like
        // independent errors (loss about proportional to length), much longer ones hit a packet
        // of any size alike.
        let short = burst_share(3_000_000.0, 1_000.0, 170_000, 0) / burst_share(3_000_000.0, 1_000.0, 340_000, 0);
        let long =
            burst_share(90_000_000.0, 10_000_000.0, 170_000, 0) / burst_share(90_000_000.0, 10_000_000.0, 340_000, 0);
        assert!(short < 0.55, "short bursts: ratio {short}");
        assert!(long > 0.97, "long bursts: ratio {long}");
    }

    #[test]
    fn offsets_unwrap_past_4_gib_and_back_for_retransmissions() {
        let mut hi = 0;
        assert_eq!(unwrap_offset(1000, &mut hi), 1000);
        let mut at = 1000u64;
        while at < 3 << 32 {
            at += 1 << 29;
            assert_eq!(unwrap_offset(at as u32, &mut hi), at);
        }
        // A retransmission a little behind the highest offset, across the wrap.
        let back = at - (1 << 30);
        assert_eq!(unwrap_offset(back as u32, &mut hi), back);
        assert_eq!(hi, at);
    }
}
