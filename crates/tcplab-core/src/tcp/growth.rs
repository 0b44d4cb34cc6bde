//! The knobs of the classic window rules: which stack's arithmetic grows the window
//! (`window_rule`, the congestion controllers of `cc/`: `tcplab.rs`, `bsd44.rs`, `ns2.rs`), and
//! when Reno's inflated window is deflated (`deflation`, `recovery/reno.rs`).

/// Which rule grows the window (scenario knob `window_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowRule {
    Tcplab,
    Bsd44,
    Ns2,
}

impl WindowRule {
    pub const NAMES: &'static [&'static str] = &["tcplab", "bsd44", "ns2"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "tcplab" => Self::Tcplab,
            "bsd44" => Self::Bsd44,
            "ns2" => Self::Ns2,
            _ => return None,
        })
    }
}

/// Reno's window deflation when fast recovery ends (scenario knob `deflation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deflation {
    /// Always set cwnd to min(cwnd, ssthresh) on the first new ACK (tcplab, ns-2
    /// tcp-reno.cc RenoTcpAgent::recv: `if (dupwnd_ > 0) ... cwnd_ = ssthresh_`).
    Always,
    /// 4.4BSD-Lite tcp_input: only when `t_dupacks > tcprexmtthresh` (more duplicate ACKs
    /// than the threshold arrived) and cwnd > ssthresh.
    PastThreshold,
    /// ns-2 tcp-reno.cc: the inflation is a separate dupwnd_, removed on the first new ACK
    /// and left out of the window a timeout halves.
    Ns2,
}

impl Deflation {
    pub const NAMES: &'static [&'static str] = &["always", "bsd44", "ns2"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "always" => Self::Always,
            "bsd44" => Self::PastThreshold,
            "ns2" => Self::Ns2,
            _ => return None,
        })
    }
}
