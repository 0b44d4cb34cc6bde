//! Applications: `[www]`, the WWW model of Goyal et al. (1998), with its `[[www.pair]]`
//! client-server pairs, each on a persistent connection of two one-way flows.

use serde::Deserialize;

use super::flow::FlowModel;
use super::tcp::TcpSpec;
use super::value::{err, in_field, opt_duration};
use super::Nodes;
use crate::app::www::{ClientStart, WwwConfig, WwwPairModel};
use crate::error::ScenarioError;
use crate::tcp::config::{Handshake, TcpConfig};
use crate::units::{bytes, Quantity};

/// The WWW model's settings and its pairs; omitted settings take the paper's values.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of WWW settings and [[www.pair]] entries")]
pub struct WwwSpec {
    pub request_bytes: Option<Quantity>,
    pub batch_period: Option<Quantity>,
    pub request_gap_min: Option<Quantity>,
    pub request_gap_max: Option<Quantity>,
    pub pipelining: Option<bool>,
    /// "none" (ns-2.1b3 keeps the window over idle time) or "rfc2581".
    pub idle_restart: Option<String>,
    /// When each client's first batch falls: "random" (a uniform phase in the batch period)
    /// or "synchronized" (every client at the start of the run).
    pub client_start: Option<String>,
    /// "none" (both ends start established, as ns-2.1b3's one-way TCP with `syn_` false) or
    /// "client" (the client opens the connection with a SYN exchange on each of the pair's
    /// two flows when its first batch starts); unset: the flows' own `tcp.handshake`.
    pub handshake: Option<String>,
    /// TCP settings of the pairs' flows, over the scenario's `[tcp]`.
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default, rename = "pair")]
    pub pairs: Vec<WwwPairSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table with a client and a server node")]
pub struct WwwPairSpec {
    pub client: String,
    pub server: String,
}

impl WwwSpec {
    /// The pairs, whose flows (a request and a response flow each) are appended to `flows`;
    /// their TCP table goes over the scenario's `shared` one.
    pub fn validate(
        &self,
        shared: &TcpSpec,
        nodes: &Nodes,
        flows: &mut Vec<FlowModel>,
    ) -> Result<Vec<WwwPairModel>, ScenarioError> {
        let cfg = self.config()?;
        let tcp = shared.merged(&self.tcp).validate("www.tcp")?;
        // The client opens: it sends the request flow's SYN and receives the response flow's.
        let handshakes = match self.handshake.as_deref() {
            None => [tcp.handshake, tcp.handshake],
            Some("none") => [Handshake::None, Handshake::None],
            Some("client") => [Handshake::SenderOpens, Handshake::ReceiverOpens],
            Some(o) => return err("www.handshake", format!("unknown '{o}' (use none or client)")),
        };
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for (i, p) in self.pairs.iter().enumerate() {
            let f = format!("www.pair[{i}]");
            let client = nodes.host(format!("{f}.client"), &p.client)?;
            let server = nodes.host(format!("{f}.server"), &p.server)?;
            if client == server {
                return err(format!("{f}.server"), "a pair's client and server must differ");
            }
            let first = flows.len() as u32;
            let ends = [("request", client, server), ("response", server, client)];
            for ((dir, src, dst), handshake) in ends.into_iter().zip(handshakes) {
                flows.push(FlowModel {
                    name: format!("www{i}.{dir}"),
                    src,
                    dst,
                    start: 0,
                    start_jitter: 0,
                    bytes: None,
                    trace: false,
                    tcp: TcpConfig { handshake, ..tcp.clone() },
                    marker: None,
                    reservation: None,
                    stop: None,
                    udp: None,
                });
            }
            pairs.push(WwwPairModel { cfg, flows: [first, first + 1] });
        }
        Ok(pairs)
    }

    fn config(&self) -> Result<WwwConfig, ScenarioError> {
        let mut c = WwwConfig::default();
        if let Some(b) = &self.request_bytes {
            c.request_bytes = in_field("www.request_bytes", bytes(b))?;
            if c.request_bytes == 0 {
                return err("www.request_bytes", "must be positive");
            }
        }
        let dur = |name: &str, v: &Option<Quantity>| opt_duration(format!("www.{name}"), v);
        if let Some(d) = dur("batch_period", &self.batch_period)? {
            if d == 0 {
                return err("www.batch_period", "must be positive");
            }
            c.batch_period = d;
        }
        if let Some(d) = dur("request_gap_min", &self.request_gap_min)? {
            c.gap_min = d;
        }
        if let Some(d) = dur("request_gap_max", &self.request_gap_max)? {
            c.gap_max = d;
        }
        if c.gap_max < c.gap_min {
            return err("www.request_gap_max", "must not be below request_gap_min");
        }
        if let Some(p) = self.pipelining {
            c.pipelining = p;
        }
        if let Some(name) = self.client_start.as_deref() {
            c.start = ClientStart::parse(name).ok_or_else(|| {
                ScenarioError::new("www.client_start", format!("unknown '{name}' (use random or synchronized)"))
            })?;
        }
        c.idle_restart = match self.idle_restart.as_deref() {
            None | Some("none") => false,
            Some("rfc2581") => true,
            Some(o) => return err("www.idle_restart", format!("unknown '{o}' (use none or rfc2581)")),
        };
        Ok(c)
    }
}
