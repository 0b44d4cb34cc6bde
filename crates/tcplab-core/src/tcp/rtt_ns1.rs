//! ns-1's retransmission timer and the per-ACK RTT sample from echoed timestamps.
//!
//! The source is ns-1's `tcp.cc` as it was imported into the ns-2 tree (ns-2 `tcp.cc` rev.
//! 1.1.1.1, 1996/12/19, still with ns-1's Tcl names `agent/tcp`, `tcp-tick`, `bug-fix`), and
//! ns-1's defaults in `tcl/lib/ns-default.tcl` rev. 1.2 (1997/01/24). docs/stacks.md lists
//! where each rule comes from. Where ns-1 differs from ns-2.1b (`rtt_ns2.rs`):
//!
//! - `TcpAgent::newack` calls `rtt_update(now - ts)` on *every* ACK of new data, with the
//!   timestamp the sink echoed (`Acker::build_ack` copies the `ts_` of the packet that
//!   triggered the ACK; `TcpAgent::output` stamps every transmission with its send time).
//!   ns-2.1b does the same only with `timestamps_` on (rtt_update's `ts_option_` branch).
//! - `rtt_update` rounds: `t_rtt_ = int(tao / tcp_tick_ + 0.5)`, at least 1 (ns-2.1b without
//!   timestamps counts the tick boundaries crossed on the agent's own clock).
//! - `rtt_init`: `t_srtt_ = 0`, `t_rttvar_ = int(3 / tcp_tick_)`, so `rtt_timeout` =
//!   `((t_srtt_ >> 3) + t_rttvar_) * tcp_tick_` is 3 s before any sample; there is no separate
//!   `t_rtxcur_` (nor `rtxcur_init_`), and no `maxrto_`.
//! - `rtt_backoff`: `t_backoff_` doubles up to 64; past 8, `t_srtt_ = 0` and the variance is
//!   kept as it is (ns-2.1b adds srtt into it), so the timeout falls to `t_rttvar_` ticks.
//! - `reset_rtx_timer(mild)` calls `set_rtx_timer()` *before* `rtt_backoff()`, and is called
//!   on a timeout and on a fast retransmit alike: the timer armed then uses the backoff from
//!   before the doubling, and a fast retransmit doubles the backoff too (ns-2.1b backs off
//!   before re-arming, and only on a timeout).

use crate::time::{Dur, Time};

/// Where the sender's RTT samples come from (scenario knob `rtt_sample`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSample {
    /// One timed segment at a time, never a retransmission (Karn; 4.4BSD `t_rtt`, ns-2
    /// `rtt_active_`/`rtt_seq_` without `timestamps_`).
    Timed,
    /// Every ACK of new data, as now minus the timestamp it echoes (ns-1; ns-2 with
    /// `timestamps_ true`). A retransmission carries its own send time, so its ACK gives a
    /// true sample and Karn's rule is not needed; the backoff is still cleared only by the
    /// ACK of a segment sent after the last timeout (`rtt_active_`).
    Timestamp,
}

impl RttSample {
    pub const NAMES: &'static [&'static str] = &["timed", "timestamp"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "timed" => Self::Timed,
            "timestamp" => Self::Timestamp,
            _ => return None,
        })
    }
}

/// rtt_update with a timestamp: `int(tao / tcp_tick_ + 0.5)` ticks, at least 1.
pub fn rounded_ticks(echoed: Time, now: Time, tick: Dur) -> u64 {
    let tao = now.saturating_sub(echoed);
    ((tao + tick / 2) / tick).max(1)
}

/// rtt_init: `t_rttvar_ = int(3 / tcp_tick_)` for ns-1's 3 s; generally the initial timeout in
/// whole ticks, so that `(0 >> 3) + t_rttvar_` ticks is the first timeout.
pub fn initial_rttvar(initial_rto: Dur, tick: Dur) -> u64 {
    (initial_rto / tick).max(1)
}

/// rtt_backoff: past a backoff of 8 the smoothed RTT is cleared and the variance kept.
pub fn clobber_on_backoff(srtt: &mut u64, backoff_mult: u64) {
    if backoff_mult > 8 {
        *srtt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn samples_round_to_the_nearest_tick_and_are_at_least_one() {
        // int(tao / 0.1 + 0.5): 149 ms -> 1, 150 ms -> 2, 20 ms -> 1 (floor of 1).
        assert_eq!(rounded_ticks(1000 * MS, 1149 * MS, 100 * MS), 1);
        assert_eq!(rounded_ticks(1000 * MS, 1150 * MS, 100 * MS), 2);
        assert_eq!(rounded_ticks(1000 * MS, 1020 * MS, 100 * MS), 1);
        assert_eq!(rounded_ticks(0, 2049 * MS, 100 * MS), 20);
    }

    #[test]
    fn three_seconds_are_thirty_ticks_of_rttvar() {
        assert_eq!(initial_rttvar(3000 * MS, 100 * MS), 30);
        assert_eq!(initial_rttvar(3000 * MS, 500 * MS), 6);
    }

    #[test]
    fn backoff_past_eight_clears_srtt_but_keeps_the_variance() {
        let mut s = 80;
        clobber_on_backoff(&mut s, 8);
        assert_eq!(s, 80);
        clobber_on_backoff(&mut s, 16);
        assert_eq!(s, 0);
    }
}
