//! The typed, validated configuration of one TCP connection (both ends): `TcpConfig`, built
//! from the knob list of `knobs.rs` with each stack's defaults.

use super::knobs::names::*;
use super::knobs::tcp_knobs;
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

impl Handshake {
    /// Scenario names, in the order of the enum.
    pub const NAMES: &'static [&'static str] = &["none", "sender", "receiver"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "sender" => Self::SenderOpens,
            "receiver" => Self::ReceiverOpens,
            _ => return None,
        })
    }
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

/// Builds, from the knob list (`tcp_knobs!`): `TcpConfig` with a field per knob that has one
/// and per derived field; `TcpKnobs`, the knobs a scenario set; `KnobValues`, every knob's
/// value; and each stack's defaults (`Stack::knob_values`).
macro_rules! config_from_knobs {
    (
        derived { $($dfield:ident: $dty:ty = $dexpr:expr, $ddoc:literal;)* }
        knobs { $($knob:ident => $field:tt: $ty:ty, $read:ty, $unit:literal, $defaults:tt, $doc:literal;)* }
    ) => {
        /// The knobs a scenario set, in their own types; `None` takes the stack's default.
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct TcpKnobs {
            $(#[doc = $doc] pub $knob: Option<$ty>,)*
        }

        impl TcpKnobs {
            /// The knobs set here, and `under`'s where this leaves one unset.
            pub fn or(&self, under: &TcpKnobs) -> TcpKnobs {
                TcpKnobs { $($knob: self.$knob.clone().or_else(|| under.$knob.clone()),)* }
            }
        }

        /// Every knob's value: the scenario's, or its stack's default.
        #[derive(Debug, Clone, PartialEq)]
        pub struct KnobValues {
            $(#[doc = $doc] pub $knob: $ty,)*
        }

        impl Stack {
            /// Every knob's value under this stack: `set`'s where it has one, else this stack's
            /// default, which may read the knobs above it.
            pub fn knob_values(self, set: &TcpKnobs) -> KnobValues {
                if let Some((base, changes)) = self.derived_from() {
                    return base.knob_values(&set.or(&changes));
                }
                $(let $knob: $ty = match set.$knob.clone() {
                    Some(v) => v,
                    None => stack_default!(self, $defaults),
                };)*
                KnobValues { $($knob,)* }
            }
        }

        config_from_knobs!(@sort [] { $($dfield: $dty = $dexpr, $ddoc;)* } [] $($knob => $field: $ty, $doc;)*);
    };
    // Knobs without a field of their own are left out of the struct.
    (@sort $fields:tt $derived:tt [$($all:ident)*] $knob:ident => _: $ty:ty, $doc:literal; $($rest:tt)*) => {
        config_from_knobs!(@sort $fields $derived [$($all)* $knob] $($rest)*);
    };
    (@sort [$($fields:tt)*] $derived:tt [$($all:ident)*] $knob:ident => $field:ident: $ty:ty, $doc:literal; $($rest:tt)*) => {
        config_from_knobs!(@sort [$($fields)* $field: $ty = $knob, $doc;] $derived [$($all)* $knob] $($rest)*);
    };
    (@sort
        [$($field:ident: $ty:ty = $knob:ident, $doc:literal;)*]
        { $($dfield:ident: $dty:ty = $dexpr:expr, $ddoc:literal;)* }
        [$($all:ident)*]
    ) => {
        /// The configuration of one TCP connection (both ends).
        #[derive(Debug, Clone, PartialEq)]
        pub struct TcpConfig {
            $(#[doc = $doc] pub $field: $ty,)*
            $(#[doc = $ddoc] pub $dfield: $dty,)*
            /// Bytes of the application's first write, which leave as a segment of their own (an
            /// HTTP server's response header, written before the body; Cohen and Ramanathan
            /// (1998) Sec. VI.A). A flow's setting, not a TCP knob.
            pub first_write: Option<u64>,
            /// The preset the other knobs started from (docs/stacks.md).
            pub stack: Stack,
        }

        impl KnobValues {
            /// The configuration these values make under `stack`.
            pub fn config(self, stack: Stack) -> TcpConfig {
                let KnobValues { $($all,)* } = self;
                let mut cfg = TcpConfig { $($field: $knob,)* $($dfield: $dexpr,)* first_write: None, stack };
                cfg.fit_segment_and_buffers();
                cfg
            }
        }
    };
}

/// A knob's default under `stack`: one value for every stack, or one per column in the order
/// tcplab, bsd44, ns2. A stack derived from ns2 (`Stack::derived_from`: ns1, ns235)
/// starts from ns2's column and never reaches here on its own, but is listed with it so that
/// the match stays exhaustive.
macro_rules! stack_default {
    ($stack:expr, [$tcplab:expr, $bsd44:expr, $ns2:expr]) => {
        match $stack {
            Stack::Tcplab => $tcplab,
            Stack::Bsd44 => $bsd44,
            Stack::Ns2 | Stack::Ns1 | Stack::Ns235 => $ns2,
        }
    };
    ($stack:expr, [$all:expr]) => {
        $all
    };
}

tcp_knobs!(config_from_knobs);

impl Default for TcpConfig {
    /// The `tcplab` stack's configuration.
    fn default() -> Self {
        Stack::Tcplab.preset()
    }
}

/// 4.4BSD's largest socket buffer (`SB_MAX`, socketvar.h): tcp_mss rounds a buffer up to whole
/// segments no further than this.
pub const BSD_SB_MAX: u32 = 256 * 1024;

impl TcpConfig {
    /// 4.4BSD-Lite's tcp_mss (tcp_input.c), once the knobs are known: a send buffer smaller
    /// than one segment cuts the segment to the buffer (every stack: a sender whose buffer
    /// cannot hold one segment would otherwise never send one whole, and silly-window
    /// avoidance held it back for the whole run), and under `bsd44` both socket buffers are
    /// rounded up to whole segments (`roundup(bufsize, mss)`, at most `SB_MAX`; a buffer set
    /// above `SB_MAX` is left as it is). tcp_mss runs on every connection, since each SYN
    /// carries an MSS option.
    fn fit_segment_and_buffers(&mut self) {
        if self.snd_buf < self.mss {
            self.mss = self.snd_buf;
        } else if self.stack == Stack::Bsd44 {
            self.snd_buf = bsd_roundup(self.snd_buf, self.mss);
        }
        if self.stack == Stack::Bsd44 && self.rcv_buf > self.mss {
            self.rcv_buf = bsd_roundup(self.rcv_buf, self.mss);
        }
    }

    /// The window the receiver can advertise: its buffer, capped at 64 KiB without scaling.
    pub fn advertised_window(&self) -> u32 {
        if self.window_scaling {
            self.rcv_buf
        } else {
            self.rcv_buf.min(65535)
        }
    }
}

/// `buf` rounded up to a multiple of `mss`, at most `BSD_SB_MAX` (unless `buf` was above it).
fn bsd_roundup(buf: u32, mss: u32) -> u32 {
    if buf > BSD_SB_MAX {
        return buf;
    }
    (buf.div_ceil(mss) * mss).min(BSD_SB_MAX)
}
