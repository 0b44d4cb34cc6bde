//! Named stacks: a preset for every TCP knob, taken from one real implementation's source
//! (docs/stacks.md has the table with the source of each value). A scenario picks one with
//! `tcp.stack` and can still override any knob.

use crate::time::{MS, SEC};

use super::config::{DelayedAck, Handshake, TcpConfig};
use super::growth::{Deflation, WindowRule};
use super::rtt::TimerClock;
use super::rtt_ns1::RttSample;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// tcplab's behaviour before stacks existed, and still the default so existing scenarios
    /// and results do not change: 4.4BSD-style Reno recovery with RFC 6298 fine-grained
    /// timers, 1460-byte segments and no delayed ACKs. It is no real stack.
    Tcplab,
    /// 4.4BSD-Lite (tcp_input.c 8.5, tcp_output.c, tcp_timer.c, tcp_usrreq.c).
    Bsd44,
    /// ns-2 as of 2.1b (tcp.cc 1.59, 1998; tcl/lib/ns-default.tcl 1.51, 1997).
    Ns2,
    /// ns-1 (1996): its `tcp.cc` as imported into ns-2 (rev. 1.1.1.1, 1996/12/19) and its
    /// `ns-default.tcl` (rev. 1.2, 1997): ns-2's window and recovery rules, with ns-1's own
    /// timer (`rtt_ns1.rs`), RTT samples from every ACK's echoed timestamp and no ssthresh
    /// floor.
    Ns1,
}

/// ns-2's window_ default (ns-default.tcl: `Agent/TCP set window_ 20`), packets.
pub const NS2_WINDOW_PACKETS: u32 = 20;

impl Stack {
    pub const NAMES: &'static [&'static str] = &["tcplab", "bsd44", "ns2", "ns1"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "tcplab" => Self::Tcplab,
            "bsd44" => Self::Bsd44,
            "ns2" => Self::Ns2,
            "ns1" => Self::Ns1,
            _ => return None,
        })
    }

    /// Whether windows count packets (ns) rather than bytes.
    pub fn counts_packets(self) -> bool {
        matches!(self, Self::Ns2 | Self::Ns1)
    }

    /// Every knob as this stack sets it. Knobs that depend on others the scenario may set
    /// (ns's window_ in packets) are finished by `finish`.
    pub fn preset(self) -> TcpConfig {
        let base = TcpConfig { stack: self, ..TcpConfig::default() };
        match self {
            Self::Tcplab => base,
            Self::Bsd44 => TcpConfig {
                // tcp_usrreq.c: tcp_sendspace = tcp_recvspace = 1024*8.
                rcv_buf: 8192,
                snd_buf: 8192,
                // tcp_timer.h: PR_SLOWHZ 2 (500 ms), TCPTV_MIN 2 ticks, TCPTV_REXMTMAX 64 s;
                // tcp_subr.c tcp_newtcpcb: t_rxtcur from TCPTV_SRTTDFLT (3 s) = 12 ticks = 6 s.
                clock: TimerClock::Coarse { tick: 500 * MS },
                min_rto: SEC,
                max_rto: 64 * SEC,
                initial_rto: 6 * SEC,
                // tcp_fasttimo every 200 ms (PR_FASTHZ 5) sends pending delayed ACKs;
                // TCP_REASS sets TF_ACKNOW for out-of-order segments.
                delayed_ack: Some(DelayedAck { timeout: 200 * MS, aligned: true, immediate_on_out_of_order: true }),
                handshake: Handshake::SenderOpens,
                // tcp_output.c: Nagle unless TF_NODELAY; sender SWS avoidance.
                nagle: true,
                sws_avoidance: true,
                window_rule: WindowRule::Bsd44,
                deflation: Deflation::PastThreshold,
                ..base
            },
            Self::Ns2 | Self::Ns1 => TcpConfig {
                // ns-default.tcl: packetSize_ 1000 (payload), plus 40 bytes of TCP/IP header.
                mss: 1000,
                header_bytes: 40,
                snd_buf: u32::MAX,
                initial_cwnd: 1,
                // tcp.cc TcpAgent::rtt_timeout: no minrto_ in 2.1b, only the 2 * tcpTick_
                // floor; tcpTick_ 0.1, maxrto_ 64; rtxcur_init_ 6 s (ns-2's default until
                // 2006, when it became 3 s).
                clock: TimerClock::Ns2 { tick: 100 * MS },
                min_rto: 200 * MS,
                max_rto: 64 * SEC,
                initial_rto: 6 * SEC,
                // TCPSink ACKs every packet; one-way TCP has no handshake (syn_ false).
                delayed_ack: None,
                handshake: Handshake::None,
                nagle: false,
                sws_avoidance: false,
                max_burst: None,
                window_scaling: true,
                window_rule: WindowRule::Ns2,
                deflation: Deflation::Ns2,
                // ns-default.tcl: bugFix_ true.
                bug_fix: true,
                // ns-default.tcl: Agent/TCP/Newreno set newreno_changes_ 0.
                newreno_changes: false,
                // NewRenoTcpAgent::recv: send(0, 0, 2) in recovery, nothing with
                // newreno_changes_ but the flywheel.
                recovery_send_ns2: true,
                ..base
            }
            .ns1_differences(self),
        }
    }

    /// ns: window_ counts packets (20 by default) and reset() starts ssthresh_ at window_.
    /// Applied after the scenario's knobs, and only to those it left unset.
    pub fn finish(self, c: &mut TcpConfig, rcv_buf_set: bool, ssthresh_set: bool) {
        if !self.counts_packets() {
            return;
        }
        if !rcv_buf_set {
            c.rcv_buf = NS2_WINDOW_PACKETS * c.mss;
        }
        if !ssthresh_set {
            c.initial_ssthresh = c.rcv_buf as u64;
        }
    }
}

impl TcpConfig {
    /// Where ns-1 (tcp.cc 1.1.1.1, ns-default.tcl 1.2) departs from the ns-2.1b preset; the
    /// ns-1 defaults it shares (window 20, window-init 1, window-option 1, packet-size 1000,
    /// bug-fix true, maxburst 0, maxcwnd 0, tcp-tick 0.1) are already ns-2.1b's.
    fn ns1_differences(self, stack: Stack) -> Self {
        if stack != Stack::Ns1 {
            return self;
        }
        TcpConfig {
            // rtt_init/rtt_timeout: t_rttvar_ = int(3 / tcp_tick_), no t_rtxcur_: 3 s first;
            // rounded samples; set_rtx_timer before rtt_backoff (rtt_ns1.rs).
            clock: TimerClock::Ns1 { tick: 100 * MS },
            initial_rto: 3 * SEC,
            // rtt_timeout has no maxrto_: only `if (timeout > 2000) abort()`.
            max_rto: 2000 * SEC,
            // newack: rtt_update(now - ts_) on every ACK of new data.
            rtt_sample: RttSample::Timestamp,
            // closecwnd(0): ssthresh_ = int(window() / 2); closecwnd(1): cwnd_ = window() / 2,
            // ssthresh_ = int(cwnd_); neither has ns-2's `if (ssthresh_ < 2)`.
            ssthresh_floor: 0,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_and_the_default_is_today() {
        for n in Stack::NAMES {
            assert!(Stack::parse(n).is_some(), "{n}");
        }
        assert_eq!(Stack::Tcplab.preset(), TcpConfig::default());
        assert!(Stack::parse("reno").is_none());
    }

    #[test]
    fn ns2_window_follows_packet_size() {
        let mut c = Stack::Ns2.preset();
        c.mss = 512;
        Stack::Ns2.finish(&mut c, false, false);
        assert_eq!((c.rcv_buf, c.initial_ssthresh), (20 * 512, 20 * 512));
    }

    #[test]
    fn ns1_is_ns2_but_for_its_timer_samples_and_ssthresh_floor() {
        // docs/stacks.md: ns-1's tcp.cc 1.1.1.1 differs from ns-2.1b in rtt_init,
        // rtt_update, rtt_timeout, rtt_backoff, reset_rtx_timer, newack and closecwnd.
        let (n1, n2) = (Stack::Ns1.preset(), Stack::Ns2.preset());
        let same = TcpConfig {
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
