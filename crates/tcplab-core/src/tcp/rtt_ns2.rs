//! ns-2's round-trip estimator and retransmission timeout, as in ns-2.1b `tcp.cc`
//! (TcpAgent::rtt_update, rtt_timeout, rtt_backoff; T_SRTT_BITS 3, T_RTTVAR_BITS 2,
//! rttvar_exp_ 2). Everything counts `tcpTick_` ticks; unlike 4.4BSD the timer is an ns
//! event that fires exactly `rtt_timeout()` after it is set, not on a tick boundary.

/// One sample of `ticks` (already at least 1) folded into `srtt` (ticks << 3) and
/// `rttvar` (ticks << 2); `srtt == 0` means "no estimate yet" (rtt_update's else branch).
pub fn update(srtt: &mut u64, rttvar: &mut u64, ticks: u64) {
    if *srtt != 0 {
        // delta = t_rtt_ - (t_srtt_ >> 3): no "- 1" here, ns-2's sample is not BSD's
        // t_rtt that starts counting at 1.
        let mut s = *srtt as i64;
        let mut v = *rttvar as i64;
        let mut delta = ticks as i64 - (s >> 3);
        s += delta;
        if s <= 0 {
            s = 1;
        }
        delta = delta.abs() - (v >> 2);
        v += delta;
        if v <= 0 {
            v = 1;
        }
        *srtt = s as u64;
        *rttvar = v as u64;
    } else {
        *srtt = ticks << 3;
        *rttvar = ticks << 1;
    }
}

/// t_rtxcur_ in ticks: ((t_rttvar_ << (rttvar_exp_ + 1)) + t_srtt_) >> 3, i.e. srtt plus
/// four times rttvar, rounded down once at the end.
pub fn rtxcur_ticks(srtt: u64, rttvar: u64) -> u64 {
    ((rttvar << 3) + srtt) >> 3
}

/// rtt_backoff: past a backoff of 8 the smoothed RTT is folded into the variance and
/// forgotten, so the next sample starts the estimate afresh.
pub fn clobber_on_backoff(srtt: &mut u64, rttvar: &mut u64, backoff_mult: u64) {
    if backoff_mult > 8 {
        *rttvar += *srtt >> 3;
        *srtt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_gives_three_times_the_rtt() {
        // rtt_update else-branch: srtt = rtt << 3, rttvar = rtt << 1, so
        // rtxcur = (rtt*2*8 + rtt*8) >> 3 = 3 rtt.
        let (mut s, mut v) = (0, 0);
        update(&mut s, &mut v, 2);
        assert_eq!((s, v), (16, 4));
        assert_eq!(rtxcur_ticks(s, v), 6);
    }

    #[test]
    fn steady_samples_decay_rttvar_to_three() {
        // A constant 4-tick RTT: srtt stays 32 (4 << 3); rttvar loses (rttvar >> 2) per
        // sample, 8 -> 6 -> 5 -> 4 -> 3, and stops at 3 where the shift gives 0:
        // rtxcur = (3 << 3 + 32) >> 3 = 7 ticks, not the 4 a real-valued estimator reaches.
        let (mut s, mut v) = (0, 0);
        for _ in 0..40 {
            update(&mut s, &mut v, 4);
        }
        assert_eq!((s, v), (32, 3));
        assert_eq!(rtxcur_ticks(s, v), 7);
    }

    #[test]
    fn backoff_past_eight_forgets_srtt() {
        let (mut s, mut v) = (80, 8);
        clobber_on_backoff(&mut s, &mut v, 8);
        assert_eq!((s, v), (80, 8));
        clobber_on_backoff(&mut s, &mut v, 16);
        assert_eq!((s, v), (0, 18));
    }
}
