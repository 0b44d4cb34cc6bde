//! The checks that need each flow's route, on scenarios with cell links or TCP Boston: a
//! Boston flow's data must reach the destination as cells (its shards are cells; over packet
//! links only it would run as plain TCP with odd packet sizes), and a full segment and an ACK must
//! each fit a reassembly buffer (`[atm] max_frame`), or nothing would ever arrive; a UDP flow
//! must not cross a cell link at all.

use super::flow::FlowModel;
use super::link::ChannelModel;
use super::value::err;
use crate::atm::AtmConfig;
use crate::error::ScenarioError;
use crate::net::route::Routes;
use crate::packet::{Packet, MAX_SACK_BLOCKS};
use crate::tcp::boston::BostonTx;
use crate::tcp::TcpConfig;

/// Check every flow's path (routes exist: `check_routes` ran first).
pub fn check_cell_paths(
    nodes: &[String],
    channels: &[ChannelModel],
    flows: &[FlowModel],
    atm: &AtmConfig,
) -> Result<(), ScenarioError> {
    let cells_anywhere = channels.iter().any(|c| c.atm);
    if !cells_anywhere && !flows.iter().any(|f| f.tcp.boston.is_some()) {
        return Ok(());
    }
    let mut routes = Routes::new(nodes.len(), channels.iter().map(|c| (c.from, c.to)));
    for (i, f) in flows.iter().enumerate() {
        let fwd = routes.path(f.src, f.dst).unwrap_or_default();
        if f.tcp.boston.is_some() {
            boston_path(nodes, channels, i, f, &fwd)?;
        }
        if !cells_anywhere {
            continue;
        }
        let rev = routes.path(f.dst, f.src).unwrap_or_default();
        let crosses = |path: &[u32]| path.iter().any(|&c| channels[c as usize].atm);
        if crosses(&fwd) {
            fits(atm, full_segment(&f.tcp), || format!("flow[{i}].tcp.mss"), "a full segment")?;
        }
        if crosses(&rev) {
            fits(atm, largest_ack(&f.tcp), || format!("flow[{i}].tcp.header_bytes"), "an ACK")?;
        }
    }
    Ok(())
}

/// TCP Boston's shards are cells: its data must reach the destination as cells. A packet may
/// start on packet links (a host's access link) and be cut into cells where the cell path
/// begins, but from there cells go all the way: a packet link after a cell link would carry a
/// reassembled packet, and a path without cell links would carry plain TCP with odd sizes.
fn boston_path(
    nodes: &[String],
    channels: &[ChannelModel],
    i: usize,
    f: &FlowModel,
    fwd: &[u32],
) -> Result<(), ScenarioError> {
    let first_cell = fwd.iter().position(|&c| channels[c as usize].atm);
    let packet_after = first_cell.and_then(|k| fwd[k..].iter().find(|&&c| !channels[c as usize].atm));
    let (a, b) = (&nodes[f.src as usize], &nodes[f.dst as usize]);
    let why = match (first_cell, packet_after) {
        (None, _) => "no link on the way from '{a}' to '{b}' is a cell link (atm = true)".to_string(),
        (Some(_), Some(&c)) => format!(
            "link[{}] on the way from '{a}' to '{b}' is a packet link after a cell link, so the shards \
             would be reassembled before the destination",
            c / 2
        ),
        (Some(_), None) => return Ok(()),
    };
    let why = why.replace("{a}", a).replace("{b}", b);
    err(
        format!("flow[{i}].tcp.codec"),
        format!("TCP Boston needs its data to reach the destination as ATM cells (its shards are cells), but {why}"),
    )
}

/// Refuse a frame of `pkt` longer than a reassembly buffer holds.
fn fits(atm: &AtmConfig, pkt: Packet, field: impl Fn() -> String, what: &str) -> Result<(), ScenarioError> {
    let (cells, max) = (atm.cells_for(&pkt) as u32, atm.max_cells());
    if cells <= max {
        return Ok(());
    }
    err(
        field(),
        format!(
            "{what} is a frame of {cells} cells ({} IP bytes), more than atm.max_frame ({} bytes) lets a \
             reassembly buffer hold ({max} cells): none would ever arrive; lower mss or raise atm.max_frame",
            pkt.wire_bytes, atm.max_frame
        ),
    )
}

/// A full first transmission of a data segment, coded as the sender codes it.
fn full_segment(tcp: &TcpConfig) -> Packet {
    let mut p = Packet::test_ack(0, 0);
    p.dir = crate::packet::Dir::Forward;
    p.payload = tcp.mss;
    p.wire_bytes = tcp.mss + tcp.header_bytes;
    if let Some(b) = tcp.boston {
        BostonTx::new(b).encode(&mut p, 0, true, tcp.header_bytes);
    }
    p
}

/// The largest ACK: the header and, with SACK, its most blocks (as the receiver counts them).
fn largest_ack(tcp: &TcpConfig) -> Packet {
    let mut p = Packet::test_ack(0, 0);
    let sack = if tcp.recovery.uses_sack() { (2 + 8 * MAX_SACK_BLOCKS as u32).div_ceil(4) * 4 } else { 0 };
    p.wire_bytes = tcp.header_bytes + sack;
    p
}

/// UDP packets travel packet links only: a UDP flow whose route crosses an ATM cell link is
/// refused (the cell path's loss accounting is per TCP segment).
pub fn check_udp_paths(nodes: &[String], channels: &[ChannelModel], flows: &[FlowModel]) -> Result<(), ScenarioError> {
    if !channels.iter().any(|c| c.atm) || !flows.iter().any(|f| f.udp.is_some()) {
        return Ok(());
    }
    let mut routes = Routes::new(nodes.len(), channels.iter().map(|c| (c.from, c.to)));
    for (i, f) in flows.iter().enumerate().filter(|(_, f)| f.udp.is_some()) {
        let path = routes.path(f.src, f.dst).unwrap_or_default();
        if let Some(&c) = path.iter().find(|&&c| channels[c as usize].atm) {
            let ch = &channels[c as usize];
            return err(
                format!("flow[{i}].protocol"),
                format!(
                    "UDP flows cannot cross ATM links, and the route from '{}' to '{}' takes link[{}] ('{}' to '{}')",
                    nodes[f.src as usize],
                    nodes[f.dst as usize],
                    c / 2,
                    nodes[ch.from as usize],
                    nodes[ch.to as usize]
                ),
            );
        }
    }
    Ok(())
}
