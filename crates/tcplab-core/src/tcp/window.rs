//! The congestion window: what congestion control (`cc/`) and loss recovery (`recovery/`)
//! change, passed to them as a plain struct.

/// Congestion state in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
}
