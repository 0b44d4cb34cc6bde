//! The typed, validated configuration of one TCP connection (both ends).

use crate::time::{Dur, MS, SEC};

use super::growth::{Deflation, WindowRule};
use super::rtt::TimerClock;
use super::stack::Stack;

/// Which loss-recovery policy the sender runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Timeouts only.
    Vanilla,
    /// Fast retransmit, then slow start.
    Tahoe,
    /// Fast retransmit and fast recovery (4.4BSD).
    Reno,
    /// NewReno as RFC 6582 specifies it.
    NewReno,
    /// NewReno as ns-2.1b3 with Hoe's changes (Goyal et al. 1998, Sec. 3.1).
    NewRenoNs2,
    /// SACK with the PIPE algorithm of Goyal et al. (1998) Sec. 3.2.
    Sack,
    /// SACK loss recovery of RFC 6675.
    Sack6675,
}

impl RecoveryKind {
    /// Scenario names, in the order of the enum.
    pub const NAMES: &'static [&'static str] =
        &["vanilla", "tahoe", "reno", "newreno", "newreno_ns2", "sack", "sack_rfc6675"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "vanilla" => Self::Vanilla,
            "tahoe" => Self::Tahoe,
            "reno" => Self::Reno,
            "newreno" => Self::NewReno,
            "newreno_ns2" => Self::NewRenoNs2,
            "sack" => Self::Sack,
            "sack_rfc6675" => Self::Sack6675,
            _ => return None,
        })
    }

    /// Whether the receiver must send SACK blocks for this sender.
    pub fn uses_sack(self) -> bool {
        matches!(self, Self::Sack | Self::Sack6675)
    }
}

/// Who sends the first SYN. The acceptor's window ends the handshake one segment larger,
/// because the handshake's last ACK counts as an ACK of new data in slow start (4.4BSD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake {
    /// No handshake: both ends start established.
    None,
    /// The data sender opens the connection (an FTP data connection opened by the server).
    SenderOpens,
    /// The data receiver opens the connection (an HTTP client).
    ReceiverOpens,
}

/// Delayed acknowledgements at the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayedAck {
    /// Longest wait for a second segment.
    pub timeout: Dur,
    /// BSD: the ACK leaves on the next tick of a free-running `timeout` clock (0..timeout);
    /// otherwise exactly `timeout` after the first unacknowledged segment.
    pub aligned: bool,
    /// Reno-era receivers ACK out-of-order data at once; Tahoe-era ones keep delaying.
    pub immediate_on_out_of_order: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    pub recovery: RecoveryKind,
    /// Maximum segment size: payload bytes per full segment.
    pub mss: u32,
    /// IP + TCP header bytes added to every segment on the wire.
    pub header_bytes: u32,
    /// Receiver's buffer: the window it advertises, bytes.
    pub rcv_buf: u32,
    /// Sender's socket buffer: a cap on data outstanding, bytes.
    pub snd_buf: u32,
    /// Initial congestion window, segments.
    pub initial_cwnd: u32,
    /// Initial slow-start threshold, bytes.
    pub initial_ssthresh: u64,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    pub clock: TimerClock,
    pub min_rto: Dur,
    pub max_rto: Dur,
    /// Timeout before the first RTT sample (SYN and first data).
    pub initial_rto: Dur,
    pub delayed_ack: Option<DelayedAck>,
    pub handshake: Handshake,
    /// Hold back a final partial segment while data is unacknowledged (RFC 896).
    pub nagle: bool,
    /// Never send a segment that only the window cut short (RFC 1122 sender SWS avoidance).
    pub sws_avoidance: bool,
    /// At most this many segments leave in answer to one ACK (ns-2's maxburst_); None: no cap.
    pub max_burst: Option<u32>,
    /// RFC 7323 window scaling; without it the advertised window is capped at 65535 bytes.
    pub window_scaling: bool,
    /// Set the initial ssthresh to the path's bandwidth-delay product (Hoe 1996).
    pub initial_ssthresh_bdp: bool,
    /// Bytes of the application's first write, which leave as a segment of their own (an
    /// HTTP server's response header, written before the body; Cohen and Ramanathan (1998) Sec. VI.A).
    pub first_write: Option<u64>,
    /// TCP Boston's coding of segments into ATM-cell shards (Bestavros and Kim 1997); None: plain TCP.
    pub boston: Option<super::boston::BostonConfig>,
    /// The preset the other knobs started from (docs/stacks.md).
    pub stack: Stack,
    /// How the window grows per ACK and whether the sender uses only whole packets of it.
    pub window_rule: WindowRule,
    /// When Reno's inflated window is deflated at the end of fast recovery.
    pub deflation: Deflation,
    /// Smallest ssthresh after a loss, segments (4.4BSD and ns-2: 2).
    pub ssthresh_floor: u32,
    /// Cap on cwnd, segments (ns-2 maxcwnd_); None: no cap.
    pub max_cwnd: Option<u32>,
    /// ns-2 bugFix_: Tahoe fast-retransmits only once the ACK is past `recover` (strictly),
    /// Reno and SACK not after a timeout until then. Off: tcplab's own rules (Tahoe and SACK
    /// wait until the ACK reaches `recover`, Reno never waits).
    pub bug_fix: bool,
    /// ns-2 newreno_changes_ (Hoe's flywheel: one new segment per two duplicate ACKs in
    /// recovery) for the `newreno_ns2` variant. tcplab's default keeps it on, as before;
    /// ns-2's own default (ns-default.tcl) is 0.
    pub newreno_changes: bool,
    /// Where RTT samples come from: one timed segment per round trip, or every ACK's echoed
    /// timestamp (ns-1; ns-2's `timestamps_`). tcp/rtt_ns1.rs.
    pub rtt_sample: super::rtt_ns1::RttSample,
    /// `newreno_ns2` in recovery sends from the window as ns-2's NewRenoTcpAgent::recv does:
    /// at most 2 packets per ACK, none with `newreno_changes` (recovery/newreno.rs).
    pub recovery_send_ns2: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            recovery: RecoveryKind::Reno,
            mss: 1460,
            header_bytes: 40,
            rcv_buf: 65535,
            snd_buf: u32::MAX,
            initial_cwnd: 1,
            initial_ssthresh: u32::MAX as u64,
            dupack_threshold: 3,
            clock: TimerClock::Fine,
            min_rto: SEC,
            max_rto: 64 * SEC,
            initial_rto: 3 * SEC,
            delayed_ack: None,
            handshake: Handshake::None,
            nagle: false,
            sws_avoidance: true,
            max_burst: None,
            window_scaling: true,
            initial_ssthresh_bdp: false,
            first_write: None,
            boston: None,
            stack: Stack::Tcplab,
            window_rule: WindowRule::Tcplab,
            deflation: Deflation::Always,
            ssthresh_floor: 2,
            max_cwnd: None,
            bug_fix: false,
            newreno_changes: true,
            rtt_sample: super::rtt_ns1::RttSample::Timed,
            recovery_send_ns2: false,
        }
    }
}

impl TcpConfig {
    /// The window the receiver can advertise: its buffer, capped at 64 KiB without scaling.
    pub fn advertised_window(&self) -> u32 {
        if self.window_scaling {
            self.rcv_buf
        } else {
            self.rcv_buf.min(65535)
        }
    }

    /// 4.4BSD defaults: 500 ms slow timer (minimum RTO 2 ticks), 200 ms delayed ACK clock.
    pub fn bsd() -> Self {
        Self {
            clock: TimerClock::Coarse { tick: 500 * MS },
            min_rto: SEC,
            delayed_ack: Some(DelayedAck { timeout: 200 * MS, aligned: true, immediate_on_out_of_order: true }),
            ..Self::default()
        }
    }
}
