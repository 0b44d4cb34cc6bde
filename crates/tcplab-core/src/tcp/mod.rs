//! TCP: a sans-IO sender and receiver, and the small policies that make a variant.

pub mod boston;
pub mod cc;
pub mod config;
pub mod delivery;
pub mod growth;
pub mod knobs;
pub mod pacing;
pub mod receiver;
pub mod recovery;
pub mod reserved;
pub mod rtt;
pub mod rtt_bsd;
pub mod rtt_fine;
pub mod rtt_ns1;
pub mod rtt_ns2;
pub mod scoreboard;
pub mod sender;
pub mod seq;
pub mod stack;
pub mod trace;
pub mod window;

pub use config::{DelayedAck, Handshake, KnobValues, RecoveryKind, TcpConfig, TcpKnobs};
pub use receiver::TcpReceiver;
pub use rtt::TimerClock;
pub use sender::TcpSender;
