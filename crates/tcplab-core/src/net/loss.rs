//! Loss models of a link direction: Bernoulli, Gilbert-Elliott bursts, deterministic drop lists.
//!
//! A packet is lost after it has used the link (it was serialised, then corrupted), which is
//! how the HFC study's channel errors behave.

use rand::Rng as _;

use crate::packet::{Dir, Packet};
use crate::rng::Rng;

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

impl LossModel {
    /// Decide the fate of one packet; `flows[i]` describes flow i.
    pub fn drops(&mut self, pkt: &Packet, flows: &[FlowWire]) -> bool {
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
    use super::unwrap_offset;

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
