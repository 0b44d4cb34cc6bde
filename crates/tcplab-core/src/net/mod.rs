//! The network: one-way channels (a link direction: queue, transmitter, propagation pipe),
//! loss models, and static routes.

pub mod channel;
pub mod codel;
pub mod drop_trace;
pub mod fq_codel;
pub mod loss;
pub mod marker;
pub mod pie;
pub mod pool;
pub mod qdisc;
pub mod queue;
pub mod red;
pub mod red_ns;
pub mod red_ns235;
pub mod route;
pub mod sojourn_trace;
pub mod waiting;

pub use channel::{Channel, ChannelStats};
pub use loss::LossModel;
pub use pool::{PacketId, PacketPool};
pub use queue::{Queue, QueueLimit};
