//! pcap capture of a link: Ethernet / IPv4 / TCP headers with the real sequence, ACK, window
//! and option fields, truncated after the TCP header (the payload is not simulated), so that
//! Wireshark's TCP analysis reads the conversation. A UDP flow's datagrams are IPv4 protocol
//! 17 with a UDP header (RFC 768), truncated after it.
//!
//! The payload is not stored, so checksums are computed as if it were all zero bytes: the
//! IPv4 and TCP checksums of every header-only segment (SYNs, pure ACKs) verify in full, and
//! a reader that had the zero payload would verify data segments (and datagrams) too.

use crate::packet::{flags, Packet};
use crate::time::Time;

/// Addresses and window scaling of one flow, as its packets appear on the wire.
#[derive(Debug, Clone, Copy)]
pub struct PcapFlow {
    pub sender_ip: [u8; 4],
    pub receiver_ip: [u8; 4],
    pub sender_port: u16,
    pub receiver_port: u16,
    pub mss: u16,
    /// Window scale shift each end announces in its SYN (0: no option).
    pub sender_wscale: u8,
    pub receiver_wscale: u8,
    /// Both ends announce SACK-permitted in their SYNs (RFC 2018).
    pub sack: bool,
    /// A UDP flow: its packets are datagrams.
    pub udp: bool,
}

/// Where on a link its packets are captured: `pcap = true | false | "send" | "receive" | "both"`.
/// `send` (and `true`) records each packet as its last bit leaves the sending end, before the
/// link's loss decision, so lost packets appear; `receive` records what reached the far end,
/// when it arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PcapMode {
    #[default]
    Off,
    Send,
    Receive,
    Both,
}

impl PcapMode {
    pub fn send(self) -> bool {
        matches!(self, Self::Send | Self::Both)
    }

    pub fn receive(self) -> bool {
        matches!(self, Self::Receive | Self::Both)
    }
}

impl<'de> serde::Deserialize<'de> for PcapMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = PcapMode;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#"true, false, "send", "receive" or "both""#)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<PcapMode, E> {
                Ok(if v { PcapMode::Send } else { PcapMode::Off })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PcapMode, E> {
                match v {
                    "send" => Ok(PcapMode::Send),
                    "receive" => Ok(PcapMode::Receive),
                    "both" => Ok(PcapMode::Both),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The IPv4 address of node `i` (10.x.y.z, unique for 16 million nodes).
pub fn node_ip(i: u32) -> [u8; 4] {
    let n = i + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// Flow `i`'s (sender, receiver) ports: the sender's count up from 10000 in blocks of 50,000
/// flows, and the receiver's from 5001 by block, so every flow a scenario can hold (250,000)
/// has its own 4-tuple between one pair of hosts, and the first 50,000 flows keep 5001.
pub fn flow_ports(i: usize) -> (u16, u16) {
    const BLOCK: usize = 50_000;
    (10_000 + (i % BLOCK) as u16, 5001 + (i / BLOCK).min(60_000) as u16)
}

/// The window scale shift needed to advertise `buf` bytes in a 16-bit field (RFC 7323).
pub fn wscale_for(buf: u32) -> u8 {
    let mut s = 0;
    while (buf >> s) > 65535 && s < 14 {
        s += 1;
    }
    s
}

/// The longest capture file name stem accepted (file systems allow 255 bytes per name).
const MAX_STEM_BYTES: usize = 200;

/// A node name made safe for a file name: ASCII letters, digits, `_` and `.` stay, every other
/// byte (`/`, `-`, `%`, NUL, non-ASCII ...) becomes `%XX`. `-` is escaped so that it only ever
/// separates the two names, which keeps different node pairs from sharing a file.
pub fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The file name stem of link `index`'s captures: `link-<a>-<b>` with the names escaped, and
/// `-<index>` added when another link between the same nodes already took that stem. `taken`
/// holds the stems given so far. Err: the name would be too long for a file system.
pub fn capture_stem(
    a: &str,
    b: &str,
    index: usize,
    taken: &mut std::collections::HashSet<String>,
) -> Result<String, String> {
    let mut stem = format!("link-{}-{}", escape_name(a), escape_name(b));
    if !taken.insert(stem.clone()) {
        stem = format!("{stem}-{index}");
        taken.insert(stem.clone());
    }
    if stem.len() > MAX_STEM_BYTES {
        return Err(format!(
            "the capture's file name would be {} bytes long (at most {MAX_STEM_BYTES}); use shorter node names",
            stem.len()
        ));
    }
    Ok(stem)
}

/// One capture file, streamed as the run goes through one buffer (`csv::CsvStream`, so it is
/// `NAME.partial` until the run ends well): a long capture of a fast link costs its disk
/// space, not memory. A writer with no file (a run without an output folder) records nothing.
#[derive(Debug, Default)]
pub struct PcapWriter {
    out: Option<crate::csv::CsvStream>,
    /// The record being formatted (reused: nothing is allocated per packet).
    rec: Vec<u8>,
    pub packets: u64,
}

const LINKTYPE_ETHERNET: u32 = 1;
// The records are truncated after the TCP header, but a 65535 snaplen keeps strict readers
// (which reject orig_len > snaplen) happy.
const SNAPLEN: u32 = 65535;

impl PcapWriter {
    /// A capture into `path`, its file header written.
    pub fn create(path: std::path::PathBuf) -> std::io::Result<Self> {
        let mut out = crate::csv::CsvStream::create_raw(path)?;
        let mut head = Vec::with_capacity(24);
        // Nanosecond timestamps (the simulation's own clock): in microseconds, back-to-back
        // packets above about 10 Gb/s showed gaps shorter than their serialisation.
        head.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // magic, nanosecond timestamps
        head.extend_from_slice(&2u16.to_le_bytes());
        head.extend_from_slice(&4u16.to_le_bytes());
        head.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        head.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        head.extend_from_slice(&SNAPLEN.to_le_bytes());
        head.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_bytes(&head);
        Ok(Self { out: Some(out), rec: Vec::with_capacity(128), packets: 0 })
    }

    /// Put the file under its own name (see `CsvStream::finish`).
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.out.as_mut().map_or(Ok(()), |o| o.finish())
    }

    pub fn record(&mut self, now: Time, pkt: &Packet, f: &PcapFlow) {
        let Some(out) = self.out.as_mut() else { return };
        self.rec.clear();
        write_record(&mut self.rec, now, pkt, f);
        out.write_bytes(&self.rec);
        self.packets += 1;
    }
}

/// One packet's pcap record (header, Ethernet, IPv4, then UDP, or TCP and its options)
/// appended to `buf`.
fn write_record(buf: &mut Vec<u8>, now: Time, pkt: &Packet, f: &PcapFlow) {
    let forward = pkt.dir == crate::packet::Dir::Forward;
    let ends = if forward {
        Ends { src_ip: f.sender_ip, dst_ip: f.receiver_ip, sport: f.sender_port, dport: f.receiver_port }
    } else {
        Ends { src_ip: f.receiver_ip, dst_ip: f.sender_ip, sport: f.receiver_port, dport: f.sender_port }
    };
    if f.udp {
        write_udp(buf, now, pkt, &ends);
    } else {
        write_tcp(buf, now, pkt, f, forward, &ends);
    }
}

/// Addresses and ports of a packet, in its direction.
struct Ends {
    src_ip: [u8; 4],
    dst_ip: [u8; 4],
    sport: u16,
    dport: u16,
}

fn write_udp(buf: &mut Vec<u8>, now: Time, pkt: &Packet, e: &Ends) {
    // Real headers and the payload, as for TCP below.
    let ip_len = 20 + 8 + pkt.payload as usize;
    let ip_total = frame_head(buf, now, pkt, e, 17, ip_len, 8);
    let udp_len = ip_total.saturating_sub(20);
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&e.sport.to_be_bytes());
    udp[2..4].copy_from_slice(&e.dport.to_be_bytes());
    udp[4..6].copy_from_slice(&udp_len.to_be_bytes());
    // Over the pseudo-header and header; the zero payload adds nothing. A computed 0 is sent
    // as all ones (RFC 768: 0 means no checksum).
    let pseudo = sum16(&e.src_ip) + sum16(&e.dst_ip) + 17 + udp_len as u32;
    let sum = match fold(pseudo + sum16(&udp)) {
        0 => 0xffff,
        s => s,
    };
    udp[6..8].copy_from_slice(&sum.to_be_bytes());
    buf.extend_from_slice(&udp);
}

fn write_tcp(buf: &mut Vec<u8>, now: Time, pkt: &Packet, f: &PcapFlow, forward: bool, e: &Ends) {
    let opts = tcp_options(pkt, f, forward);
    let tcp_len = 20 + opts.len();
    // The capture shows real headers (20 bytes of IPv4, 20 of TCP and the options written)
    // and the segment's payload, whatever `header_bytes` the scenario gave the simulated wire
    // size: an IP length from that allowance would make a reader see payload that is not
    // there (an ACK of "Len=12" with `header_bytes = 52`) or lose some, and misorder segments.
    let ip_len = 20 + tcp_len + pkt.payload as usize;
    let ip_total = frame_head(buf, now, pkt, e, 6, ip_len, tcp_len);
    // TCP header. The window is scaled except in SYNs (RFC 7323).
    let shift = if pkt.is_syn() {
        0
    } else if forward {
        f.sender_wscale
    } else {
        f.receiver_wscale
    };
    let wnd = (pkt.wnd >> shift).min(65535) as u16;
    let mut tcp = [0u8; 20];
    tcp[0..2].copy_from_slice(&e.sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&e.dport.to_be_bytes());
    tcp[4..8].copy_from_slice(&pkt.seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&(if pkt.has_ack() { pkt.ack } else { 0 }).to_be_bytes());
    tcp[12] = ((tcp_len / 4) as u8) << 4;
    tcp[13] = pkt.flags;
    tcp[14..16].copy_from_slice(&wnd.to_be_bytes());
    // Over the pseudo-header, header and options; the zero payload adds nothing.
    let seg_len = ip_total.saturating_sub(20);
    let pseudo = sum16(&e.src_ip) + sum16(&e.dst_ip) + 6 + seg_len as u32;
    let sum = fold(pseudo + sum16(&tcp) + sum16(&opts));
    tcp[16..18].copy_from_slice(&sum.to_be_bytes());
    buf.extend_from_slice(&tcp);
    buf.extend_from_slice(&opts);
}

/// The record header, Ethernet and IPv4 headers of a packet of `ip_len` bytes at the IP layer
/// carrying `protocol`, captured up to `transport` bytes of transport header. Returns the IP
/// total length written.
#[allow(clippy::too_many_arguments)]
/// The IPv4 ID of `pkt`: a mix of what its sender set (flow, direction, sequence and ACK
/// numbers, send time, length, flags), so that one packet has one ID in every capture that
/// holds it, as a real sender's ID lets two capture points be matched. It was the record's
/// number in its file, which differed between the send and receive captures. Different
/// packets may share an ID (16 bits); nothing reads it as unique.
fn ip_id(pkt: &Packet) -> u16 {
    let first = (pkt.flow as u64) << 33 ^ (pkt.dir as u64) << 32 ^ pkt.seq as u64;
    let parts = [pkt.ack as u64, pkt.ts, (pkt.payload as u64) << 8 | pkt.flags as u64];
    // splitmix64's finaliser over each part in turn: every input bit reaches the low 16.
    parts.into_iter().fold(first, |x, part| crate::rng::mix(x ^ part)) as u16
}

fn frame_head(
    buf: &mut Vec<u8>,
    now: Time,
    pkt: &Packet,
    e: &Ends,
    protocol: u8,
    ip_len: usize,
    transport: usize,
) -> u16 {
    let captured = 14 + 20 + transport;
    buf.extend_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
    buf.extend_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
    buf.extend_from_slice(&(captured as u32).to_le_bytes());
    buf.extend_from_slice(&((14 + ip_len) as u32).to_le_bytes());
    // Ethernet: made-up MACs derived from the IPs, type IPv4.
    let (s, d) = (e.src_ip, e.dst_ip);
    buf.extend_from_slice(&[0x02, 0, d[0], d[1], d[2], d[3]]);
    buf.extend_from_slice(&[0x02, 0, s[0], s[1], s[2], s[3]]);
    buf.extend_from_slice(&[0x08, 0x00]);
    // IPv4 header.
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[1] = pkt.ds_byte();
    let ip_total = ip_len.min(65535) as u16;
    ip[2..4].copy_from_slice(&ip_total.to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id(pkt).to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64;
    ip[9] = protocol;
    ip[12..16].copy_from_slice(&s);
    ip[16..20].copy_from_slice(&d);
    let sum = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    buf.extend_from_slice(&ip);
    ip_total
}

/// TCP options: MSS and window scale on SYNs, SACK blocks on ACKs; padded to 4 bytes.
fn tcp_options(pkt: &Packet, f: &PcapFlow, forward: bool) -> Vec<u8> {
    let mut o = Vec::new();
    if pkt.flags & flags::SYN != 0 {
        o.extend_from_slice(&[2, 4]);
        o.extend_from_slice(&f.mss.to_be_bytes());
        let ws = if forward { f.sender_wscale } else { f.receiver_wscale };
        if f.sender_wscale > 0 || f.receiver_wscale > 0 {
            o.extend_from_slice(&[1, 3, 3, ws]);
        }
        if f.sack {
            o.extend_from_slice(&[1, 1, 4, 2]);
        }
    }
    if pkt.n_sack > 0 {
        o.extend_from_slice(&[1, 1, 5, 2 + 8 * pkt.n_sack]);
        for b in pkt.sack_blocks() {
            o.extend_from_slice(&b.left.to_be_bytes());
            o.extend_from_slice(&b.right.to_be_bytes());
        }
    }
    while o.len() % 4 != 0 {
        o.push(1);
    }
    o
}

/// The 16-bit big-endian words of `b` summed (an odd last byte is padded with zero); the
/// u32 holds the carries of any header-sized input.
fn sum16(b: &[u8]) -> u32 {
    b.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum()
}

/// The Internet checksum (RFC 1071) of a word sum: carries folded in, then complemented.
fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
fn checksum(b: &[u8]) -> u16 {
    fold(sum16(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flow_a_scenario_can_hold_has_its_own_ports() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..250_000 {
            assert!(seen.insert(flow_ports(i)), "flow {i} shares {:?}", flow_ports(i));
        }
        assert_eq!(flow_ports(0), (10_000, 5001));
        assert_eq!(flow_ports(49_999), (59_999, 5001));
        assert_eq!(flow_ports(50_000), (10_000, 5002));
    }

    #[test]
    fn wscale_is_the_smallest_shift_that_fits() {
        assert_eq!(wscale_for(65535), 0);
        assert_eq!(wscale_for(65536), 1);
        assert_eq!(wscale_for(1 << 20), 5);
    }

    #[test]
    fn capture_names_are_escaped_and_unique() {
        let mut taken = std::collections::HashSet::new();
        let mut stem = |a: &str, b: &str, i| capture_stem(a, b, i, &mut taken).unwrap();
        assert_eq!(stem("r1", "r2", 0), "link-r1-r2");
        // Nothing that could leave the folder or hide the file survives.
        let s = stem("x/../../..", "\0evil", 1);
        assert!(!s.contains('/') && !s.contains('\0'), "{s}");
        // "a-b" + "c" and "a" + "b-c" used to share link-a-b-c.pcap.
        let (x, y) = (stem("a-b", "c", 2), stem("a", "b-c", 3));
        assert_ne!(x, y);
        // A second link between the same nodes gets its own file.
        assert_eq!(stem("r1", "r2", 4), "link-r1-r2-4");
        let long = "n".repeat(150);
        assert!(capture_stem(&long, &long, 5, &mut std::collections::HashSet::new()).is_err());
    }

    #[test]
    fn ip_checksum_verifies_to_zero() {
        let mut ip = [0x45u8, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        let s = checksum(&ip);
        ip[10..12].copy_from_slice(&s.to_be_bytes());
        assert_eq!(checksum(&ip), 0);
    }
}
