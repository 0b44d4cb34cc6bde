//! Every TCP knob, declared once.
//!
//! An entry of `tcp_knobs!` is one knob: its scenario name, the `TcpConfig` field it sets (`_`:
//! no field of its own; a `derived` field reads it), its type, the reader that takes it from a
//! scenario (a type of `config::tcp_read`: the TOML value, its checks, how the docs show it),
//! its unit, its default under each stack with a column of its own ([tcplab, bsd44, ns2], or one
//! value for all; a stack written as changes to another, such as ns1 on ns2, takes that
//! stack's column: `Stack::derived_from`), and its line in docs/scenario.md. A default may use the knobs above it: ns's window is 20
//! packets of whatever `mss` is, and `min_rto` is 2 ticks of whatever `timer` is. `derived`
//! builds the fields that combine several knobs.
//!
//! `tcp_knobs!(m)` hands the list to macro `m`, which builds from it: tcp/config.rs the
//! `TcpConfig` struct, the knobs a scenario set (`TcpKnobs`) and each stack's defaults;
//! config/tcp.rs the scenario's TCP table (`TcpSpec`), its reading and checks, and the knob
//! table of docs/scenario.md (a test compares them). Readers and default expressions are
//! resolved where the list is expanded (config/tcp.rs and tcp/config.rs respectively).
//!
//! Adding a knob is one entry here and the code that reads its field (a knob of a new type
//! also adds the type to `names`).

use crate::time::Dur;

use super::boston::Partial;
use super::config::{Handshake, RecoveryKind};
use super::growth::{Deflation, WindowRule};
use super::rtt::TimerClock;
use super::rtt_ns1::RttSample;
use super::stack::Stack;

/// What the knob list names besides readers: its types, constants and default helpers. Both
/// places that expand the list import all of it.
pub mod names {
    pub use super::{
        two_ticks_or, Codec, Congestion, FastRetransmitTimer, OutOfOrderAck, RecoverySend, SackPipeStart, Ssthresh,
        TickPhase, HUGE, NS_WINDOW,
    };
    pub use crate::tcp::boston::{BostonConfig, Partial};
    pub use crate::tcp::config::{DelayedAck, Handshake, RecoveryKind};
    pub use crate::tcp::growth::{Deflation, WindowRule};
    pub use crate::tcp::rtt::TimerClock;
    pub use crate::tcp::rtt_ns1::RttSample;
    pub use crate::time::{Dur, MS, SEC};
}

macro_rules! tcp_knobs {
    ($then:ident) => {
        $then! {
        derived {
            initial_ssthresh: u64 = initial_ssthresh.bytes(),
                "Initial slow-start threshold, bytes (with `initial_ssthresh_bdp`, set when the run is built).";
            initial_ssthresh_bdp: bool = initial_ssthresh == Ssthresh::Bdp,
                "Set the initial ssthresh to the path's bandwidth-delay product (Hoe 1996).";
            delayed_ack: Option<DelayedAck> = delayed_ack.then_some(DelayedAck {
                    timeout: delayed_ack_timeout,
                    aligned: delayed_ack_aligned,
                    immediate_on_out_of_order: out_of_order_ack == OutOfOrderAck::Immediate,
                }),
                "Delayed acknowledgements at the receiver; None: every segment is ACKed.";
            boston: Option<BostonConfig> = codec.boston(BostonConfig {
                    redundancy: boston_redundancy,
                    dispersal_factor: boston_dispersal,
                    bitmap: false,
                    verify_every: boston_verify_every,
                    partial: boston_partial,
                }),
                "TCP Boston's coding of segments into ATM-cell shards (Bestavros and Kim 1997); None: plain TCP.";
            recovery_send_ns2: bool = recovery_send == RecoverySend::Ns2,
                "`newreno_ns2` in recovery sends from the window as ns-2's NewRenoTcpAgent::recv does.";
        }
        knobs {
            // name => TcpConfig field: type, reader, unit, [tcplab, bsd44, ns2] (see the top), meaning;
            variant => recovery: RecoveryKind, Names<RecoveryKind>, "", [RecoveryKind::Reno],
                "loss recovery, see [Variants](#variants)";
            mss => mss: u32, Mss, "bytes", [1460, 1460, 1000],
                "payload of a full segment (ns: `packetSize_`)";
            header_bytes => header_bytes: u32, Count<0, 1000>, "bytes", [40, 40, 0],
                "IP + TCP header added to each data segment on the wire. ns2: none, since ns-2.1b's \
`packetSize_` is the whole packet, so a segment is `mss` bytes on the wire and carries `mss` bytes";
            ack_bytes => ack_bytes: u32, Count<0, 1000>, "bytes", [header_bytes, header_bytes, 40],
                "a segment without data on the wire (an ACK, a SYN), before any SACK option. Unless set, \
`header_bytes`; ns2, ns1 and ns235: 40 (the sink's `packetSize_ 40`)";
            rcv_buf => rcv_buf: u32, RcvBuf, "bytes", [65535, 8192, NS_WINDOW * mss],
                "receiver's buffer: the window it advertises (the application reads at once, so it stays this \
size); larger than 65535 needs window scaling. ns2, ns1 and ns235: 20 packets of `mss` (`window_ 20`). bsd44 rounds a buffer above one segment up to whole segments, at most 256 KiB (tcp_mss: 8192 is 8760 with the 1460-byte `mss`)";
            snd_buf => snd_buf: u32, Bytes<1, 4294967295>, "bytes", [u32::MAX, 8192, u32::MAX],
                "sender's socket buffer: a cap on unacknowledged data. Below one `mss` it cuts the segments to its size (4.4BSD's tcp_mss), under every stack; bsd44 rounds a larger one up to whole segments, as `rcv_buf`";
            initial_cwnd => initial_cwnd: u32, Positive, "segments", [1],
                "initial congestion window";
            initial_ssthresh => _: Ssthresh, SsthreshRead, "bytes",
                [HUGE, HUGE, Ssthresh::Bytes(rcv_buf as u64)],
                "initial slow-start threshold. ns2, ns1 and ns235: `rcv_buf` (ns's reset() starts `ssthresh_` at \
`window_`). `\"bdp\"`: the path's bandwidth-delay product (the slowest forward link's rate times \
the round-trip propagation delay; Hoe 1996, as Goyal et al. 1998, Sec. 3.1 use it)";
            dupack_threshold => dupack_threshold: u32, Positive, "", [3],
                "duplicate ACKs that trigger fast retransmit (1 = \"super fast retransmit\")";
            timer => clock: TimerClock, Timer, "",
                [TimerClock::Fine, TimerClock::Coarse { tick: 500 * MS }, TimerClock::Ns2 { tick: 100 * MS }],
                "retransmission timer. `\"fine\"` measures RTT in nanoseconds and fires exactly when due (RFC \
6298); a tick such as `\"500ms\"` is a BSD coarse timer: RTT samples and the RTO are whole ticks \
(srtt + 4 rttvar, 4.4BSD's integer arithmetic) and the timer fires only on tick boundaries of \
the host's own free-running clock; `\"ns2:<tick>\"` is ns-2's estimator (samples and the RTO in \
ticks of `tcpTick_`, the timer firing exactly when due); `\"ns1:<tick>\"` ns-1's (samples rounded \
to the nearest tick, the first timeout from `initial_rto` as an initial variance, the timer \
armed before the backoff doubles and backed off by a fast retransmit too; [TCP \
stacks](stacks.md)). A tick also sets `min_rto`'s default";
            min_rto => min_rto: Dur, PositiveDuration, "",
                [two_ticks_or(timer, SEC), two_ticks_or(timer, SEC), two_ticks_or(timer, 200 * MS)],
                "lower bound on the RTO. Unless set, 2 ticks of a coarse, `ns2:` or `ns1:` `timer` (4.4BSD's \
`TCPTV_MIN`, ns's `2 * tcpTick_`), so setting `timer` moves it; with `\"fine\"`, the value shown; \
ns235: 200 ms whatever the tick (ns-2.35's `minrto_ 0.2`). Not 0: a zero timeout would fire at the instant it is set and back off to zero, for ever";
            max_rto => max_rto: Dur, PositiveDuration, "", [64 * SEC, 64 * SEC, 100_000 * SEC],
                "upper bound on the RTO (after backoff); not below `min_rto`. ns2: ns-2.1b's `maxrto_ 100000`, so in \
fact none: the backoff stops doubling at 64";
            min_rto_before_backoff => min_rto_before_backoff: bool, Flag, "", [false],
                "an `ns2:` `timer` raises an estimate below `min_rto` to it before the backoff multiplies it \
(ns-2.35's `rfc2988_`: `minrto_ * t_backoff_`; ns235), rather than bounding the backed-off timeout \
(ns-2.1b's `2 * tcpTick_`); other timers ignore it";
            backoff_to_max_rto => backoff_to_max_rto: bool, Flag, "", [false],
                "an `ns2:` `timer` doubles its backoff for as long as the timeout is below `max_rto` (ns-2.35's \
rtt_backoff with `rfc2988_`; ns235), rather than stopping at 64 times the estimate (ns-2.1b's \
`t_backoff_ < 64`); other timers ignore it";
            rearm_after_sample => rearm_after_sample: bool, Flag, "", [false],
                "an `ns2:` `timer` restarted by an ACK of new data takes the estimate and backoff after that ACK's RTT \
sample (ns-2.35's `timerfix_`; ns235), rather than from before it (ns-2.1b's newack); other timers \
already do";
            initial_rto => initial_rto: Dur, PositiveDuration, "", [3 * SEC, 6 * SEC, 6 * SEC],
                "timeout before the first RTT sample (SYN and first data)";
            tick_phase => tick_phase: TickPhase, Names<TickPhase>, "", [TickPhase::Random],
                "where each host's coarse clock ticks fall: `random`, a uniform phase drawn for each end of each \
flow (hosts are not synchronised; ns-2's `boot_time_ = Random::uniform(tcpTick_)` per agent), or \
`aligned`, every host's clock ticking at 0, one tick, two ticks, ... (the delayed-ACK clock too)";
            delayed_ack => _: bool, Flag, "", [false, true, false],
                "receiver ACKs every second full segment, or when the delayed-ACK timer fires";
            delayed_ack_timeout => _: Dur, PositiveDuration, "", [200 * MS],
                "longest delay of an ACK (with `delayed_ack`)";
            delayed_ack_aligned => _: bool, Flag, "", [true],
                "BSD: the delayed ACK leaves on the next tick of a free-running `delayed_ack_timeout` clock (so it \
waits 0 to 200 ms); `false`: exactly `delayed_ack_timeout` after the first unacknowledged segment";
            out_of_order_ack => _: OutOfOrderAck, Names<OutOfOrderAck>, "", [OutOfOrderAck::Immediate],
                "Reno-era receivers ACK out-of-order data at once (so the sender sees duplicate ACKs); Tahoe-era \
ones keep delaying (with `delayed_ack`)";
            handshake => handshake: Handshake, Names<Handshake>, "",
                [Handshake::None, Handshake::SenderOpens, Handshake::None],
                "`none`: both ends start established; `sender`: the data sender opens (an FTP data connection \
opened by the server); `receiver`: the data receiver opens (an HTTP client). The acceptor ends \
the handshake with a window one segment larger (4.4BSD counts the handshake's last ACK as new \
data in slow start)";
            ns_syn => ns_syn: bool, Flag, "", [false],
                "with a `handshake`, the SYN is ns-2's one-way SYN, packet 0 of the sequence (`syn_`; ns235): its \
timeout is a data timeout (ssthresh falls to `ssthresh_floor`, from a window of one packet) and \
the backoff it leaves lasts until a timed data packet is acknowledged (a resent SYN is not \
timed); the SYN's ACK sets cwnd to the initial window; with `bug_fix`, `recover` starts at the \
SYN, so a fast retransmit needs only one data packet acknowledged (ns-2.1b: two)";
            bugfix_ss => bugfix_ss: bool, Flag, "", [false],
                "ns-2.35's `bugfix_ss_` (ns235): a lost SYN leaves an initial window of one packet, and `bug_fix` \
never blocks the fast retransmit of the first data packet (duplicate ACKs while nothing but the \
SYN, or without a handshake the first packet, is acknowledged)";
            nagle => nagle: bool, Flag, "", [false, true, false],
                "hold back a final partial segment while data is unacknowledged (RFC 896)";
            sws_avoidance => sws_avoidance: bool, Flag, "", [true, true, false],
                "never send a segment that only the window cut short, unless it is at least half the largest \
window the receiver offered (RFC 1122 sender silly-window avoidance, so a buffer below one MSS \
still works); the last piece of a transfer and go-back-N retransmissions always go";
            max_burst => max_burst: Option<u32>, Cap, "segments", [None],
                "at most this many segments leave in answer to one ACK (ns-2's `maxburst_`; Feng et al. 1996, \
Sec. 6)";
            window_scaling => window_scaling: bool, Flag, "", [true],
                "RFC 7323 window scaling; `false` caps the advertised window at 65535 bytes";
            codec => _: Codec, Names<Codec>, "", [Codec::Plain],
                "TCP Boston (Bestavros and Kim, 1997): segments are dispersed into ATM-cell shards, see [ATM](#atm)";
            boston_redundancy => _: u16, Count<0, 255, u16>, "shards", [0],
                "extra shards sent with every first transmission (n - m); the paper uses none";
            boston_dispersal => _: u16, Count<1, 256, u16>, "", [2],
                "N = this times m: the number of distinct shards a segment has";
            boston_verify_every => _: u32, Count<1, 4294967295>, "", [1],
                "decode and compare with the application's bytes every k-th segment of a flow that was rebuilt with coded \
shards (a 199-shard GF(2^16) decode costs a good fraction of a second: sample those)";
            boston_partial => _: Partial, Names<Partial>, "", [Partial::Wait],
                "when the m - r fresh shards a partial ACK asks for leave: with the next retransmission, or at \
once on the partial ACK for the first unacknowledged segment, see [ATM](#atm)";
            window_rule => window_rule: WindowRule, Names<WindowRule>, "",
                [WindowRule::Tcplab, WindowRule::Bsd44, WindowRule::Ns2],
                "window growth per ACK of the classic controller (`cc = \"reno\"`): see [TCP stacks](stacks.md)";
            deflation => deflation: Deflation, Names<Deflation>, "",
                [Deflation::Always, Deflation::PastThreshold, Deflation::Ns2],
                "when Reno's inflated window is deflated after fast recovery";
            ssthresh_floor => ssthresh_floor: u32, Count<0, 1000000>, "segments", [2, 2, 2],
                "smallest ssthresh after a loss; `0` only with `window_rule = \"ns2\"` (whose window never falls \
below one packet)";
            bug_fix => bug_fix: bool, Flag, "", [false, false, true],
                "ns-2's `bugFix_` for Tahoe, Reno and SACK";
            exit_fast_retrans => exit_fast_retrans: bool, Flag, "", [false],
                "ns-2.35's `exitFastRetrans_` in `reno` and `newreno_ns2` (ns235: on): the first new ACK ends a \
fast retransmit (`reno`; `newreno_ns2`: the ACK that ends recovery), so with `bug_fix` a second one \
waits until an ACK passes the highest packet sent at the first, and duplicate ACKs inflate the \
window only after a fast retransmit (off: ns-2.1b's, in `reno` a fast retransmit after every three \
duplicates, and inflation after a timeout too)";
            newreno_changes => newreno_changes: bool, Flag, "", [true, true, false],
                "ns-2's `newreno_changes_` (Hoe's flywheel) in `newreno_ns2`";
            dupack_needs_new_sack => dupack_needs_new_sack: bool, Flag, "", [false],
                "a SACK variant counts a duplicate ACK toward the fast retransmit (and limited transmit) only if \
its SACK blocks report data not SACKed before (ns-2.35's Sack1, `scb_->CheckUpdate()`; ns235); \
in recovery every duplicate counts as before";
            precision_reduce => precision_reduce: bool, Flag, "", [false],
                "ns-2's fast retransmit halves the window keeping the fraction of a packet: cwnd = min(cwnd, \
`rcv_buf`) / 2 (ns-2.35's `precisionReduce_`; ns235), not whole packets; in `reno` with `deflation \
= \"ns2\"`, `newreno_ns2` with it, and `sack` (whose cwnd otherwise restarts from ssthresh)";
            limited_transmit => limited_transmit: bool, Flag, "", [false],
                "on the first and second duplicate ACK send one new segment beyond a full window, if cwnd plus the \
duplicates so far covers it and the receiver's window allows it (RFC 3042 as ns-2.35's `singledup_` \
and send_one do it; ns235)";
            newreno_changes1 => newreno_changes1: bool, Flag, "", [false],
                "ns-2's `newreno_changes1_` in `newreno_ns2` (ns235: on): only the first partial ACK of a recovery \
restarts the retransmission timer (off: every partial ACK does)";
            partial_window_deflation => partial_window_deflation: bool, Flag, "", [false],
                "ns-2's `partial_window_deflation_` in `newreno_ns2` (ns235: on): a partial ACK of d packets takes \
d - 1 packets from the inflated window (RFC 2582), the inflation first, then cwnd (off: it drops \
the inflation and leaves cwnd)";
            max_cwnd => max_cwnd: Option<u32>, Cap, "segments", [None],
                "cap on cwnd (ns-2's `maxcwnd_`)";
            fast_retransmit_timer => fast_retransmit_timer: FastRetransmitTimer, Names<FastRetransmitTimer>, "",
                [FastRetransmitTimer::Clock],
                "what a fast retransmit does to the retransmission timer: `clock`, the timer's own rule (ns1: \
re-armed and the backoff doubled, ns-1's `reset_rtx_timer`, called by the fast retransmit of its Tahoe in \
`tcp.cc` and of its Reno in `tcp-reno.cc`, 1996; the others: stopped until the retransmission leaves); \
`backoff`: re-armed as a timeout re-arms it, doubling the backoff; `keep`: re-armed with the backoff as \
it is (ns-2.1b's `reset_rtx_timer(1, 0)`)";
            rtt_sample => rtt_sample: RttSample, Names<RttSample>, "",
                [RttSample::Timed, RttSample::Timed, RttSample::Timed],
                "where RTT samples come from: one timed segment per round trip (Karn's rule), or every ACK of new \
data as now minus the send time it echoes (ns-1; ns-2's `timestamps_`)";
            recovery_send => _: RecoverySend, Names<RecoverySend>, "",
                [RecoverySend::Window, RecoverySend::Window, RecoverySend::Ns2],
                "how `newreno_ns2` sends from its window during fast recovery: as usual, or as ns-2's \
NewRenoTcpAgent::recv (at most 2 packets per ACK; with `newreno_changes`, none besides the \
flywheel's)";
            sack_pipe => sack_pipe: SackPipeStart, Names<SackPipeStart>, "", [SackPipeStart::Cwnd],
                "`sack`: PIPE at the fast retransmit, less the 3 duplicates: `cwnd` (Fall and Floyd's `int(cwnd_) - 3`, \
Goyal et al. 1998 Sec. 3.2; ns-2 to 2000) or `flight`, the packets outstanding (ns-2.35's `maxseq_ - \
highest_ack_ - 3`, tcp-sack1.cc since 2000; ns235)";
            cc => cc: Congestion, Names<Congestion>, "", [Congestion::Reno],
                "congestion control: how the window grows and how far a loss cuts it, apart from loss recovery \
(`variant`). `\"reno\"`: the classic AIMD of the stack (`window_rule`); `\"cubic\"`: RFC 9438; \
`\"vegas\"`: Brakmo and Peterson (1995); `\"bbr\"`: BBR v1 (Cardwell et al., 2016), which paces. See \
[Congestion control](#congestion-control)";
            vegas_alpha => vegas_alpha: u32, Count<0, 1000>, "segments", [1],
                "`cc = \"vegas\"`: below this many extra segments queued in the path, the window grows by one \
segment per round trip (Brakmo and Peterson's alpha)";
            vegas_beta => vegas_beta: u32, Count<1, 1000>, "segments", [3],
                "`cc = \"vegas\"`: above this many, it shrinks by one segment per round trip (beta; not below \
`vegas_alpha`)";
            ecn => ecn: bool, Flag, "", [false],
                "Explicit Congestion Notification (RFC 3168): new data segments carry ECT(0) (sec. 6.1.5: not \
retransmissions; sec. 6.1.4: not pure ACKs), the receiver echoes a CE mark with ECE on every ACK until \
a segment with CWR arrives (sec. 6.1.3), and the sender reduces its window as for a loss at most once \
per window of data, without retransmitting, and sets CWR on its next new segment (sec. 6.1.2). With a \
`handshake`, the SYN carries ECE and CWR and the SYN-ACK ECE (sec. 6.1.1); without, both ends start \
ECN-capable. `cc = \"bbr\"` (v1) keeps its window: BBR v1 ignores ECN. See [ECN](#ecn)";
        }
        }
    };
}
pub(crate) use tcp_knobs;

/// ns's window_ default (ns-default.tcl: `Agent/TCP set window_ 20`), packets.
pub const NS_WINDOW: u32 = 20;

/// The initial ssthresh of tcplab and 4.4BSD: larger than any window.
pub const HUGE: Ssthresh = Ssthresh::Bytes(u32::MAX as u64);

/// `min_rto`'s default: two ticks of a ticking timer (BSD's TCPTV_MIN, ns's 2 * tcpTick_),
/// else `fine`.
pub fn two_ticks_or(clock: TimerClock, fine: Dur) -> Dur {
    match clock {
        TimerClock::Coarse { tick } | TimerClock::Ns2 { tick } | TimerClock::Ns1 { tick } => 2 * tick,
        TimerClock::Fine => fine,
    }
}

/// The initial slow-start threshold as a scenario gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ssthresh {
    Bytes(u64),
    /// The path's bandwidth-delay product, known when the run is built.
    Bdp,
}

impl Ssthresh {
    /// The bytes, or for `Bdp` a placeholder larger than any window until the run is built.
    pub fn bytes(self) -> u64 {
        match self {
            Self::Bytes(b) => b,
            Self::Bdp => u32::MAX as u64,
        }
    }
}

/// A knob that takes one of a few names.
pub trait Named: Copy + PartialEq + 'static {
    /// Every name, in order.
    const NAMES: &'static [&'static str];
    /// How an error calls the value ("variant" for "unknown variant 'x'"), or "".
    const WHAT: &'static str = "";
    fn parse(name: &str) -> Option<Self>;

    fn name(self) -> &'static str {
        Self::NAMES.iter().find(|n| Self::parse(n) == Some(self)).expect("every value has a name")
    }
}

/// `Named` for types with inherent `NAMES` and `parse`.
macro_rules! named {
    ($($t:ty $(= $what:literal)?),* $(,)?) => {$(
        impl Named for $t {
            const NAMES: &'static [&'static str] = <$t>::NAMES;
            $(const WHAT: &'static str = $what;)?
            fn parse(name: &str) -> Option<Self> {
                <$t>::parse(name)
            }
        }
    )*};
}

/// An enum whose values are the names a scenario writes.
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $v:ident = $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vm])* $v,)*
        }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($text),*];

            pub fn parse(name: &str) -> Option<Self> {
                match name {
                    $($text => Some(Self::$v),)*
                    _ => None,
                }
            }
        }
    };
}

named_enum! {
    /// How segments travel: as themselves, or coded into ATM-cell shards (TCP Boston).
    pub enum Codec {
        Plain = "plain",
        /// AIDA: segments dispersed into coded shards.
        Boston = "boston",
        /// The alternate implementation of Bestavros and Kim (1997), Sec. 2.5: block bitmaps.
        BostonBitmap = "boston_bitmap",
    }
}

impl Codec {
    /// `cfg` for a Boston codec (with `bitmap` set for the bitmap one), None for plain TCP.
    pub fn boston(self, cfg: super::boston::BostonConfig) -> Option<super::boston::BostonConfig> {
        match self {
            Self::Plain => None,
            Self::Boston => Some(cfg),
            Self::BostonBitmap => Some(super::boston::BostonConfig { bitmap: true, ..cfg }),
        }
    }
}

named_enum! {
    /// When a delayed-ACK receiver ACKs out-of-order data.
    pub enum OutOfOrderAck {
        /// At once (Reno-era receivers).
        Immediate = "immediate",
        /// Still delayed (Tahoe-era receivers).
        Delayed = "delayed",
    }
}

named_enum! {
    /// Which congestion controller grows and cuts the window (`cc/`).
    pub enum Congestion {
        /// The classic AIMD, with the stack's window arithmetic (`window_rule`).
        Reno = "reno",
        /// RFC 9438.
        Cubic = "cubic",
        /// Brakmo and Peterson (1995).
        Vegas = "vegas",
        /// BBR v1 (Cardwell et al., 2016; draft-cardwell-iccrg-bbr-congestion-control-00).
        Bbr = "bbr",
    }
}

impl Congestion {
    /// Whether this controller needs the sender's delivery log (`tcp/delivery.rs`: a record
    /// per segment in flight): the memory estimate counts it. `Controller::samples_delivery`
    /// (what the sender asks) must agree; a test in `cc` checks it for every kind.
    pub fn samples_delivery(self) -> bool {
        matches!(self, Congestion::Vegas | Congestion::Bbr)
    }
}

named_enum! {
    /// How `newreno_ns2` sends from its window in recovery.
    pub enum RecoverySend {
        Window = "window",
        /// As ns-2's NewRenoTcpAgent::recv.
        Ns2 = "ns2",
    }
}

named_enum! {
    /// What `sack`'s PIPE starts from at the fast retransmit (knob `sack_pipe`).
    pub enum SackPipeStart {
        /// cwnd before it is halved, less the duplicates (ns-2.1b's Sack1).
        Cwnd = "cwnd",
        /// The data outstanding, less the duplicates (ns-2.35's Sack1).
        Flight = "flight",
    }
}

named_enum! {
    /// Where each host's coarse timer ticks fall.
    pub enum TickPhase {
        /// A uniform phase per end of each flow.
        Random = "random",
        /// Every host's clock ticks at multiples of its tick.
        Aligned = "aligned",
    }
}

named_enum! {
    /// What a fast retransmit does to the retransmission timer (knob `fast_retransmit_timer`).
    pub enum FastRetransmitTimer {
        /// The timer's own rule (`RttEstimator::on_fast_retransmit`).
        Clock = "clock",
        /// Re-armed as by a timeout: the backoff doubles.
        Backoff = "backoff",
        /// Re-armed with the backoff as it is.
        Keep = "keep",
    }
}

named!(
    Stack = "stack",
    Congestion = "congestion controller",
    RecoveryKind = "variant",
    Codec = "codec",
    Handshake,
    OutOfOrderAck,
    WindowRule,
    Deflation,
    RttSample,
    RecoverySend,
    SackPipeStart,
    TickPhase,
    FastRetransmitTimer,
);

impl Named for Partial {
    const NAMES: &'static [&'static str] = &["wait", "fresh"];

    fn parse(name: &str) -> Option<Self> {
        match name {
            "wait" => Some(Self::Wait),
            "fresh" => Some(Self::Fresh),
            _ => None,
        }
    }
}
