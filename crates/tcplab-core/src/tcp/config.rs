//! The typed, validated configuration of one TCP connection (both ends).

use crate::time::{Dur, MS, SEC};

use super::rtt::TimerClock;

/// Which loss-recovery policy the sender runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryKind {
    Reno,
}

impl RecoveryKind {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "reno" => Some(Self::Reno),
            _ => None,
        }
    }
    pub const NAMES: &'static [&'static str] = &["reno"];
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
        }
    }
}

impl TcpConfig {
    /// 4.4BSD defaults: 500 ms slow timer (minimum RTO 2 ticks), 200 ms delayed ACK clock.
    pub fn bsd() -> Self {
        Self {
            clock: TimerClock::Coarse { tick: 500 * MS },
            min_rto: SEC,
            delayed_ack: Some(DelayedAck {
                timeout: 200 * MS,
                aligned: true,
                immediate_on_out_of_order: true,
            }),
            ..Self::default()
        }
    }
}
