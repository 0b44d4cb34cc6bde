//! Named stacks: a preset for every TCP knob, taken from one real implementation's source
//! (docs/stacks.md has the table with the source of each value). A scenario picks one with
//! `tcp.stack` and can still override any knob. The values are the columns of the knob list
//! (`knobs.rs`); a knob the scenario leaves unset takes its stack's value there.

use super::config::{Handshake, TcpConfig, TcpKnobs};
use super::knobs::SackPipeStart;
use super::rtt::TimerClock;
use super::rtt_ns1::RttSample;
use crate::time::{MS, SEC};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// tcplab's behaviour before stacks existed, and still the default so existing scenarios
    /// and results do not change: 4.4BSD-style Reno recovery with RFC 6298 fine-grained
    /// timers, 1460-byte segments and no delayed ACKs. It is no real stack.
    Tcplab,
    /// 4.4BSD-Lite (tcp_input.c 8.5, tcp_output.c, tcp_timer.c, tcp_usrreq.c).
    Bsd44,
    /// ns-2.1b3, released 1998/07/11 (tcp.cc 1.76, tcp-reno.cc 1.28, tcp-newreno.cc 1.31,
    /// tcp-sack1.cc 1.31, tcp-sink.cc 1.24, tcl/lib/ns-default.tcl 1.122).
    Ns2,
    /// ns-1 (1996): its `tcp.cc` as imported into ns-2 (rev. 1.1.1.1, 1996/12/19) and its
    /// `ns-default.tcl` (rev. 1.2, 1997): ns-2's window and recovery rules, with ns-1's own
    /// timer (`rtt_ns1.rs`), RTT samples from every ACK's echoed timestamp, a 3 s first timeout,
    /// no upper bound on the RTO but its 2000 s abort, and no ssthresh floor.
    Ns1,
    /// ns-2.35 (2011), the last release: ns2's rules with the defaults that changed after 1998
    /// (`tcl/lib/ns-default.tcl` 1.388, 2010/07/03; docs/stacks.md has each source) and, behind
    /// knobs, its new rules (Reno's one fast retransmit per window, Sack1's pipe, rfc2988_'s
    /// minimum RTO, limited transmit, the SYN, ...). What is not modelled yet is listed in
    /// docs/stacks.md.
    Ns235,
}

impl Stack {
    pub const NAMES: &'static [&'static str] = &["tcplab", "bsd44", "ns2", "ns1", "ns235"];

    /// Every stack, in the order of `NAMES` (and of the knob table's columns in docs/scenario.md).
    pub const ALL: [Stack; 5] = [Self::Tcplab, Self::Bsd44, Self::Ns2, Self::Ns1, Self::Ns235];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "tcplab" => Self::Tcplab,
            "bsd44" => Self::Bsd44,
            "ns2" => Self::Ns2,
            "ns1" => Self::Ns1,
            "ns235" => Self::Ns235,
            _ => return None,
        })
    }

    /// Whether windows count packets (ns) rather than bytes.
    pub fn counts_packets(self) -> bool {
        matches!(self, Self::Ns2 | Self::Ns1 | Self::Ns235)
    }

    /// A preset written as another stack's plus the knobs it changes: the knob list has
    /// columns only for the others. An ns-2 of another era is one more arm here (its knobs
    /// that differ from ns-2.1b3's, each with its source in docs/stacks.md) and the rules that
    /// are new code behind new knobs.
    pub fn derived_from(self) -> Option<(Stack, TcpKnobs)> {
        match self {
            Self::Tcplab | Self::Bsd44 | Self::Ns2 => None,
            Self::Ns1 => Some((Self::Ns2, ns1_changes())),
            Self::Ns235 => Some((Self::Ns2, ns235_changes())),
        }
    }

    /// Every knob as this stack sets it.
    pub fn preset(self) -> TcpConfig {
        self.config(&TcpKnobs::default())
    }

    /// The knobs `set` gives, and this stack's values for the others.
    pub fn config(self, set: &TcpKnobs) -> TcpConfig {
        self.knob_values(set).config(self)
    }
}

/// ns-1 (tcp.cc 1.1.1.1, 1996/12/19; ns-default.tcl 1.2, 1997/01/24) where it differs from
/// ns-2.1b3 (docs/stacks.md has each source).
fn ns1_changes() -> TcpKnobs {
    TcpKnobs {
        // allocpkt gives `packet-size` bytes; the preset keeps the 40 header bytes the TCP
        // Boston study's runs were made with (docs/stacks.md, "What could not be matched").
        header_bytes: Some(40),
        // `tcp-tick 0.1`; rtt_update rounds a sample to the nearest tick, no tick clock.
        timer: Some(TimerClock::Ns1 { tick: 100 * MS }),
        // rtt_init: t_rttvar_ = int(3. / tcp_tick_), so the first timeout is 3 s.
        initial_rto: Some(3 * SEC),
        // No maxrto_: rtt_timeout only aborts the run past 2000 s.
        max_rto: Some(2000 * SEC),
        // closecwnd has no `if (ssthresh_ < 2)`.
        ssthresh_floor: Some(0),
        // newack samples every new ACK from the timestamp it echoes.
        rtt_sample: Some(RttSample::Timestamp),
        ..TcpKnobs::default()
    }
}

/// ns-2.35's defaults where they differ from ns-2.1b3's and tcplab already has the knob
/// (`tcl/lib/ns-default.tcl` 1.388, 2010/07/03, unchanged to the release; the
/// revision that changed each is in docs/stacks.md).
fn ns235_changes() -> TcpKnobs {
    TcpKnobs {
        // `useHeaders_ true` (ns-default.tcl 1.266, 2001/11/28; tcp.cc 1.126 TcpAgent::output
        // adds `tcpip_base_hdr_size_` 40 to `packetSize_`): a data packet is 1040 bytes.
        header_bytes: Some(40),
        // `windowInit_ 2` (ns-default.tcl 1.242, 2001/05/27).
        initial_cwnd: Some(2),
        // `tcpTick_ 0.01` (ns-default.tcl 1.279, 2002/03/08); rtt_update and rtt_timeout as
        // in ns-2.1b3, in 10 ms ticks.
        timer: Some(TimerClock::Ns2 { tick: 10 * MS }),
        // `minrto_ 0.2` (ns-default.tcl 1.336, 2004/10/18).
        min_rto: Some(200 * MS),
        // rtt_timeout with `rfc2988_ true` (tcp.cc 1.131, default in ns-default.tcl 1.279,
        // 2002/03/08): `if (t_rtxcur_ < minrto_) timeout = minrto_ * t_backoff_`.
        min_rto_before_backoff: Some(true),
        // rtt_backoff with `rfc2988_`: `t_backoff_ <<= 1` also past 64 while rtt_timeout() <
        // maxrto_ (tcp.cc 1.174, 2007/03/29; its bound on the doubling, 1.181, 2010/04/02).
        backoff_to_max_rto: Some(true),
        // `timerfix_ true` (tcp.cc 1.120 and ns-default.tcl 1.239, 2001/05/11): newack calls
        // newtimer() after rtt_update() and the backoff's reset.
        rearm_after_sample: Some(true),
        // `maxrto_ 60` (ns-default.tcl 1.371, 2007/03/29).
        max_rto: Some(60 * SEC),
        // `rtxcur_init_ 3.0` (ns-default.tcl 1.357, 2006/01/23).
        initial_rto: Some(3 * SEC),
        // `exitFastRetrans_ true` (ns-default.tcl 1.319 with tcp-reno.cc 1.40, 2003/07/29;
        // its `==` for `=` fixed in 1.42, 2005/07/13, so ns-2.29 on).
        exit_fast_retrans: Some(true),
        // Sack1TcpAgent::dupack_action: `pipe_ = maxseq_ - highest_ack_ - numdupacks_`
        // (tcp-sack1.cc 1.44, 2000/08/20, reinstated 1.47, 2000/10/03; `oldCode_ false`).
        sack_pipe: Some(SackPipeStart::Flight),
        // Sack1TcpAgent::recv: `if (scb_->CheckUpdate())` around the duplicate count
        // (tcp-sack1.cc 1.41, 2000/07/23).
        dupack_needs_new_sack: Some(true),
        // `Agent/TCP/Newreno set newreno_changes1_ 1` and `partial_window_deflation_ 1`
        // (ns-default.tcl 1.315, 2003/05/06, "to reflect RFC 2582"): tcp-newreno.cc's
        // partialnewack_helper and partialnewack.
        // `singledup_ 1` (ns-default.tcl 1.267, 2001/11/29; send_one from tcp.cc 1.101,
        // 2000/03/15, on the first and second duplicate since 2000/03/16).
        limited_transmit: Some(true),
        // `precisionReduce_ true` (ns-default.tcl 1.358, 2006/01/24; tcp.cc 1.110,
        // 2000/08/08): slowdown's `halfwin = windowd() / 2`, a double.
        precision_reduce: Some(true),
        newreno_changes1: Some(true),
        partial_window_deflation: Some(true),
        // `syn_ true`, `delay_growth_ true` (ns-default.tcl 1.241, 2001/05/17): packet 0 is a
        // timed 40-byte SYN sent with `cwnd_` 1 (set_initial_window; TcpAgent::output sizes it
        // `tcpip_base_hdr_size_`), and its ACK sets `cwnd_ = initial_window()` (TcpAgent::recv).
        handshake: Some(Handshake::SenderOpens),
        ns_syn: Some(true),
        // `bugfix_ss_ 1` (ns-default.tcl 1.366 with tcp.cc 1.171, 2006/06/14: a timeout while
        // `highest_ack_ == -1` sets `wnd_init_ = 1`; tcp.cc 1.172, tcp-reno.cc 1.43,
        // tcp-newreno.cc 1.57 and tcp-sack1.cc, the same day: dupack_action also when
        // `highest_ack_ == 0`).
        bugfix_ss: Some(true),
        ..TcpKnobs::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::BSD_SB_MAX;

    #[test]
    fn every_name_parses_and_the_default_is_today() {
        for n in Stack::NAMES {
            assert!(Stack::parse(n).is_some(), "{n}");
        }
        assert_eq!(
            Stack::ALL.map(|s| Stack::NAMES.iter().position(|n| Stack::parse(n) == Some(s))),
            [0, 1, 2, 3, 4].map(Some)
        );
        assert_eq!(Stack::Tcplab.preset(), TcpConfig::default());
        assert!(Stack::parse("reno").is_none());
    }

    #[test]
    fn a_derived_stack_is_its_bases_column_then_its_changes_then_the_scenarios_knobs() {
        let c = Stack::Ns1.config(&TcpKnobs { header_bytes: Some(0), mss: Some(512), ..TcpKnobs::default() });
        assert_eq!((c.header_bytes, c.rcv_buf, c.max_rto, c.stack), (0, 20 * 512, 2000 * SEC, Stack::Ns1));
        let tick = TimerClock::Ns1 { tick: 500 * MS };
        let c = Stack::Ns1.config(&TcpKnobs { timer: Some(tick), ..TcpKnobs::default() });
        assert_eq!(c.min_rto, SEC, "a default that reads a changed knob reads the scenario's value");
        assert!(Stack::ALL.iter().all(|s| s.derived_from().is_none_or(|(base, _)| base.derived_from().is_none())));
    }

    #[test]
    fn ns2_window_follows_packet_size_unless_set() {
        let c = Stack::Ns2.config(&TcpKnobs { mss: Some(512), ..TcpKnobs::default() });
        assert_eq!((c.rcv_buf, c.initial_ssthresh), (20 * 512, 20 * 512));
        let c = Stack::Ns2.config(&TcpKnobs { mss: Some(512), rcv_buf: Some(4096), ..TcpKnobs::default() });
        assert_eq!((c.rcv_buf, c.initial_ssthresh), (4096, 4096), "ssthresh_ starts at window_");
        assert_eq!(Stack::Bsd44.config(&TcpKnobs { mss: Some(512), ..TcpKnobs::default() }).rcv_buf, 8192);
    }

    #[test]
    fn tcp_mss_cuts_the_segment_to_a_small_send_buffer_and_bsd44_rounds_buffers_to_segments() {
        let with = |stack: Stack, mss: Option<u32>, snd_buf: Option<u32>, rcv_buf: Option<u32>| {
            let c = stack.config(&TcpKnobs { mss, snd_buf, rcv_buf, ..TcpKnobs::default() });
            (c.mss, c.snd_buf, c.rcv_buf)
        };
        // 8192 is 5.6 segments of 1460: 4.4BSD reserves 6 (tcp_input.c, tcp_mss).
        assert_eq!(with(Stack::Bsd44, None, None, None), (1460, 8760, 8760));
        assert_eq!(with(Stack::Bsd44, Some(512), None, None), (512, 8192, 8192), "already whole segments");
        assert_eq!(with(Stack::Bsd44, None, Some(1000), None), (1000, 1000, 9000), "the cut mss rounds rcv_buf");
        assert_eq!(with(Stack::Bsd44, None, None, Some(1000)), (1460, 8760, 1000), "below one segment: kept");
        assert_eq!(with(Stack::Bsd44, None, Some(262_000), Some(300_000)), (1460, BSD_SB_MAX, 300_000));
        // The other stacks keep their buffers; a send buffer below one segment cuts it everywhere.
        assert_eq!(with(Stack::Tcplab, None, Some(2000), Some(5000)), (1460, 2000, 5000));
        assert_eq!(with(Stack::Tcplab, None, Some(1000), None), (1000, 1000, 65535));
        assert_eq!(with(Stack::Ns2, None, Some(1), None).0, 1);
    }

    #[test]
    fn min_rto_is_two_ticks_of_the_timer_unless_set() {
        let with = |stack: Stack, clock: TimerClock, min_rto: Option<u64>| {
            stack.config(&TcpKnobs { timer: Some(clock), min_rto, ..TcpKnobs::default() }).min_rto
        };
        assert_eq!(with(Stack::Tcplab, TimerClock::Coarse { tick: 200 * MS }, None), 400 * MS);
        assert_eq!(with(Stack::Bsd44, TimerClock::Ns2 { tick: 300 * MS }, None), 600 * MS);
        assert_eq!(with(Stack::Ns2, TimerClock::Fine, None), 200 * MS, "fine: the stack's own value");
        assert_eq!(with(Stack::Bsd44, TimerClock::Fine, None), SEC);
        assert_eq!(with(Stack::Ns1, TimerClock::Coarse { tick: 500 * MS }, Some(3 * SEC)), 3 * SEC);
    }

    #[test]
    fn ns1_is_ns2_but_for_its_timer_samples_and_ssthresh_floor() {
        // docs/stacks.md: ns-1's tcp.cc 1.1.1.1 differs from ns-2.1b3's in rtt_init,
        // rtt_update, rtt_timeout, rtt_backoff, reset_rtx_timer, newack and closecwnd; the ns1
        // preset also keeps 40 header bytes on top of `mss` (docs/stacks.md, packet size).
        let (n1, n2) = (Stack::Ns1.preset(), Stack::Ns2.preset());
        let same = TcpConfig {
            header_bytes: n2.header_bytes,
            clock: n2.clock,
            initial_rto: n2.initial_rto,
            max_rto: n2.max_rto,
            rtt_sample: n2.rtt_sample,
            ssthresh_floor: n2.ssthresh_floor,
            stack: Stack::Ns2,
            ..n1.clone()
        };
        assert_eq!(same, n2);
        assert_eq!(n1.clock, TimerClock::Ns1 { tick: 100 * MS });
        assert_eq!((n1.initial_rto, n1.rtt_sample, n1.ssthresh_floor), (3 * SEC, RttSample::Timestamp, 0));
        assert_eq!(n2.rtt_sample, RttSample::Timed, "ns-2's timestamps_ is off by default");
    }
}
