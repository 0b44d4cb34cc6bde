//! Named stacks: a preset for every TCP knob, taken from one real implementation's source
//! (docs/stacks.md has the table with the source of each value). A scenario picks one with
//! `tcp.stack` and can still override any knob. The values are the columns of the knob list
//! (`knobs.rs`); a knob the scenario leaves unset takes its stack's value there.

use super::config::{TcpConfig, TcpKnobs};

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
    /// timer (`rtt_ns1.rs`), RTT samples from every ACK's echoed timestamp, a 3 s first timeout,
    /// no upper bound on the RTO but its 2000 s abort, and no ssthresh floor.
    Ns1,
}

impl Stack {
    pub const NAMES: &'static [&'static str] = &["tcplab", "bsd44", "ns2", "ns1"];

    /// Every stack, in the order of `NAMES` (and of the knob list's default columns).
    pub const ALL: [Stack; 4] = [Self::Tcplab, Self::Bsd44, Self::Ns2, Self::Ns1];

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

    /// Every knob as this stack sets it.
    pub fn preset(self) -> TcpConfig {
        self.config(&TcpKnobs::default())
    }

    /// The knobs `set` gives, and this stack's values for the others.
    pub fn config(self, set: &TcpKnobs) -> TcpConfig {
        self.knob_values(set).config(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rtt::TimerClock;
    use crate::tcp::rtt_ns1::RttSample;
    use crate::time::{MS, SEC};

    #[test]
    fn every_name_parses_and_the_default_is_today() {
        for n in Stack::NAMES {
            assert!(Stack::parse(n).is_some(), "{n}");
        }
        assert_eq!(
            Stack::ALL.map(|s| Stack::NAMES.iter().position(|n| Stack::parse(n) == Some(s))),
            [0, 1, 2, 3].map(Some)
        );
        assert_eq!(Stack::Tcplab.preset(), TcpConfig::default());
        assert!(Stack::parse("reno").is_none());
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
