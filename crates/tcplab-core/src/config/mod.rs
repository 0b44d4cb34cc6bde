//! The scenario file (TOML): what the user writes, and its validation into a typed `Model`.
//!
//! One file per component holds that component's part of the schema and its checks: `tcp`,
//! `link` (with `queue` for disciplines and `loss` for loss models), `atm`, `flow` (with `udp`
//! for a UDP flow's source), `app`.
//! This file composes them and checks what spans components: node names, references between
//! tables (a drop list's flow, a flow's ends) and that every flow has a route. Parsing rejects
//! unknown fields; validation names the field at fault (`link[2].ab.rate`, `flow[0].dst`).
//! Nothing past this module sees raw input.

pub mod app;
pub mod atm;
pub mod flow;
pub mod link;
pub mod loss;
pub mod model;
pub mod paths;
pub mod queue;
pub mod serde_msg;
pub mod sim;
pub mod tcp;
pub mod tcp_read;
pub mod udp;
pub mod value;

use std::collections::HashMap;

use serde::Deserialize;

use crate::error::ScenarioError;
use crate::net::loss::LossModelSpec;
use crate::net::route::Reach;
use crate::units::{duration_ns, Quantity};
use flow::FlowModel;
use link::ChannelModel;
use value::{err, in_field};

// For callers that take the whole scenario (the entry points); the run's parts import
// config::model and the component files.
pub use model::Model;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of scenario settings")]
pub struct Scenario {
    /// A label for reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Simulated time to run.
    pub duration: Quantity,
    /// Seed of all random streams (overridden by `tcplab run --seed`).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Record per-interval byte counts of every link and flow (time series) in bins this long.
    #[serde(default)]
    pub series_bin: Option<Quantity>,
    pub nodes: Vec<String>,
    /// Nodes that are ATM cell switches (output-buffered, inputs served round robin).
    #[serde(default)]
    pub switches: Vec<String>,
    /// AAL5 framing on every cell link.
    #[serde(default)]
    pub atm: atm::AtmSpec,
    #[serde(default, rename = "link")]
    pub links: Vec<link::LinkSpec>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<flow::FlowSpec>,
    /// TCP settings applied to every flow before the flow's own `tcp` table.
    #[serde(default)]
    pub tcp: tcp::TcpSpec,
    /// Test-only: break the run on purpose (see `test_hooks`); refused unless enabled.
    #[serde(default, rename = "_test_corrupt")]
    pub test_corrupt: Option<String>,
    /// WWW client-server pairs (Goyal et al. 1998, Sec. 5), each on a persistent connection.
    #[serde(default)]
    pub www: Option<app::WwwSpec>,
    /// How the run is carried out (`[sim]`).
    #[serde(default)]
    pub sim: sim::SimSpec,
}

/// Parse a scenario from TOML text; errors name the field.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.message().to_string();
        let path = if path == "." { String::new() } else { path };
        let mut field = field_at_fault(&path, &msg);
        let start = inner.span().map(|s| s.start.min(text.len()));
        if let (Some(start), "scenario", true) = (start, field.as_str(), msg.contains("to fit in target type")) {
            // A number too large (or small) for TOML is refused by its parser, with no path;
            // a syntax error is about the line, not a key, and keeps `scenario`.
            field = key_on_line(text, start).unwrap_or(field);
        }
        let at = start.map(|s| format!(" (line {})", text[..s].matches('\n').count() + 1)).unwrap_or_default();
        ScenarioError::new(field, format!("{}{at}", serde_msg::for_user(&path, &msg)))
    })
}

/// The key written on the line holding byte `at` of a scenario's text, under the table header
/// above it (`seed`, `tcp.initial_cwnd`, `link[1].queue`; `link[1].ab.queue` under `[link.ab]`
/// after the second `[[link]]`), for an error the TOML parser found before serde knew a path
/// (a hostile probe, stop 53: `seed = 2^63` was reported against `scenario`). `None` where the
/// line has no `key =`.
fn key_on_line(text: &str, at: usize) -> Option<String> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or_default();
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let mut table = String::new();
    let mut arrays: HashMap<&str, usize> = HashMap::new();
    for header in text[..line_start].lines().map(str::trim).filter(|l| l.starts_with('[')) {
        let name = header.trim_start_matches('[').split(']').next().unwrap_or_default().trim();
        if header.starts_with("[[") {
            let n = arrays.entry(name).or_insert(0);
            *n += 1;
            table = format!("{name}[{}]", *n - 1);
        } else {
            // A sub-table of the array element last opened (`[link.ab]` after `[[link]]`).
            table = match name.split_once('.') {
                Some((array, rest)) if arrays.contains_key(array) => format!("{array}[{}].{rest}", arrays[array] - 1),
                _ => name.to_string(),
            };
        }
    }
    Some(if table.is_empty() { key.to_string() } else { format!("{table}.{key}") })
}

/// The tag of each table that is one of several kinds (`loss = { model = ... }`).
const TAGS: [(&str, &str); 4] = [("loss", "model"), ("qdisc", "kind"), ("drop", "policy"), ("source", "kind")];

/// The field a parse error is about. The path of an error inside a tagged table stops at the
/// table (serde reads such a table whole before picking its kind), so the field the message
/// names, or the tag of an unknown kind, is added.
fn field_at_fault(path: &str, msg: &str) -> String {
    let quoted = |prefix: &str| msg.strip_prefix(prefix).and_then(|r| r.split('`').next());
    let last = path.rsplit('.').next().unwrap_or_default();
    let name = quoted("unknown field `").or(quoted("missing field `")).or_else(|| {
        msg.starts_with("unknown variant `")
            .then(|| TAGS.iter().find(|(t, _)| *t == last).map(|(_, tag)| *tag))
            .flatten()
    });
    match (name, path) {
        (Some(n), "") => n.to_string(),
        (Some(n), p) if last != n => format!("{p}.{n}"),
        (_, "") => "scenario".to_string(),
        _ => path.to_string(),
    }
}

/// The scenario's nodes by name, and which are ATM switches.
pub struct Nodes<'a> {
    index: HashMap<&'a str, u32>,
    switches: Vec<bool>,
}

impl Nodes<'_> {
    /// The node named `name`; `field` is where the name was written.
    pub fn node(&self, field: String, name: &str) -> Result<u32, ScenarioError> {
        self.index
            .get(name)
            .copied()
            .ok_or_else(|| ScenarioError::new(field, format!("no node named '{name}' (nodes are listed in `nodes`)")))
    }

    /// The node named `name`, which must be a host (not an ATM switch).
    pub fn host(&self, field: String, name: &str) -> Result<u32, ScenarioError> {
        let n = self.node(field.clone(), name)?;
        if self.switches[n as usize] {
            return err(field, format!("'{name}' is an ATM switch, not a host"));
        }
        Ok(n)
    }
}

impl Scenario {
    /// Check every value and reference; `seed_override` replaces the file's seed.
    pub fn validate(&self, seed_override: Option<u64>) -> Result<Model, ScenarioError> {
        let duration = in_field("duration", duration_ns(&self.duration))?;
        if duration == 0 {
            return err("duration", "must be positive");
        }
        let mut nodes = self.nodes()?;
        // A RED queue that leaves its rule unset follows the scenario's `[tcp] stack` (flows'
        // own stacks play no part: a queue serves them all).
        let queue_stack = self.tcp.stack("tcp")?;
        let (channels, pcaps) = link::channels(&self.links, &nodes, queue_stack)?;
        // The shared table is checked on its own, so its errors name `tcp.*`.
        self.tcp.validate("tcp")?;
        let mut flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| f.validate(i, &self.tcp, &nodes))
            .collect::<Result<Vec<_>, _>>()?;
        check_drop_lists(&channels, flows.len())?;
        for (i, s) in self.switches.iter().enumerate() {
            let n = nodes.node(format!("switches[{i}]"), s)?;
            nodes.switches[n as usize] = true;
        }
        for (i, fl) in self.flows.iter().enumerate() {
            nodes.host(format!("flow[{i}].src"), &fl.src)?;
            nodes.host(format!("flow[{i}].dst"), &fl.dst)?;
        }
        let www = match &self.www {
            None => Vec::new(),
            Some(w) => w.validate(&self.tcp, &nodes, &mut flows)?,
        };
        let atm = self.atm.validate()?;
        let series_bin = match &self.series_bin {
            None => None,
            Some(b) => {
                let bin = in_field("series_bin", duration_ns(b))?;
                if bin == 0 || duration / bin > 10_000_000 {
                    return err("series_bin", "must be positive and give at most 10 million bins over the run");
                }
                Some(bin)
            }
        };
        check_routes(&self.nodes, &channels, &flows)?;
        paths::check_udp_paths(&self.nodes, &channels, &flows)?;
        paths::check_cell_paths(&self.nodes, &channels, &flows, &atm)?;
        Ok(Model {
            name: self.name.clone().unwrap_or_else(|| "scenario".into()),
            duration,
            series_bin,
            seed: seed_override.or(self.seed).unwrap_or(1),
            nodes: self.nodes.clone(),
            switches: nodes.switches,
            atm,
            channels,
            flows,
            pcaps,
            www,
            one_event_channels: self.sim.one_event_channels,
        })
    }

    /// The node names, each listed once and not empty.
    fn nodes(&self) -> Result<Nodes<'_>, ScenarioError> {
        let mut index = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.is_empty() {
                return err(format!("nodes[{i}]"), "node names must not be empty");
            }
            if index.insert(n.as_str(), i as u32).is_some() {
                return err(format!("nodes[{i}]"), format!("node '{n}' is listed twice"));
            }
        }
        Ok(Nodes { index, switches: vec![false; self.nodes.len()] })
    }
}

/// Every flow (the WWW pairs' too) needs a route from its source to its destination and back.
fn check_routes(nodes: &[String], channels: &[ChannelModel], flows: &[FlowModel]) -> Result<(), ScenarioError> {
    let mut reach = Reach::new(nodes.len(), channels.iter().map(|c| (c.from, c.to)));
    for (i, f) in flows.iter().enumerate() {
        if !reach.joined(f.src, f.dst) {
            let (src, dst) = (&nodes[f.src as usize], &nodes[f.dst as usize]);
            return err(format!("flow[{i}].dst"), format!("no route from '{src}' to '{dst}'"));
        }
    }
    Ok(())
}

/// A drop list names a flow by its index: it must exist.
fn check_drop_lists(channels: &[ChannelModel], flows: usize) -> Result<(), ScenarioError> {
    for (ci, ch) in channels.iter().enumerate() {
        if let LossModelSpec::DropList { flow, .. } = &ch.loss {
            if *flow as usize >= flows {
                return err(
                    format!("link[{}].loss.flow", ci / 2),
                    format!("flow {flow} does not exist (there are {flows} flows)"),
                );
            }
        }
    }
    Ok(())
}
