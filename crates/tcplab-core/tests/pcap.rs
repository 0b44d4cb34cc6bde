//! The pcap of a link, read back with a pcap library (and with tshark when installed).

mod common;
use common::*;
use pcap_file::pcap::PcapReader;
use tcplab_core::{run_scenario, RunOptions};

struct Seg {
    ts: f64,
    /// The record as captured (Ethernet header first).
    raw: Vec<u8>,
    orig_len: u32,
    src: [u8; 4],
    seq: u32,
    ack: u32,
    flags: u8,
    wnd: u16,
    opts: Vec<u8>,
}

fn read(path: &std::path::Path) -> Vec<Seg> {
    let mut r = PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        let d = &p.data;
        assert_eq!(&d[12..14], &[0x08, 0x00], "ethertype IPv4");
        let ip = &d[14..];
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[9], 6, "protocol TCP");
        let tcp = &ip[20..];
        let hlen = (tcp[12] >> 4) as usize * 4;
        out.push(Seg {
            ts: p.timestamp.as_secs_f64(),
            raw: d.to_vec(),
            orig_len: p.orig_len,
            src: ip[12..16].try_into().unwrap(),
            seq: u32::from_be_bytes(tcp[4..8].try_into().unwrap()),
            ack: u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            flags: tcp[13],
            wnd: u16::from_be_bytes(tcp[14..16].try_into().unwrap()),
            opts: tcp[20..hlen].to_vec(),
        });
    }
    out
}

fn capture(dir: &std::path::Path, tcp: &str, loss: &str) -> (tcplab_core::metrics::RunReport, Vec<Seg>) {
    capture_mode(dir, tcp, loss, "true")
}

fn capture_mode(
    dir: &std::path::Path,
    tcp: &str,
    loss: &str,
    mode: &str,
) -> (tcplab_core::metrics::RunReport, Vec<Seg>) {
    let text = two_hosts(tcp, loss, 50_000, 20.0).replace("queue = 1000", &format!("queue = 1000\npcap = {mode}"));
    let (r, _) = run_scenario(&text, &RunOptions { seed: Some(1), out_dir: Some(dir.to_path_buf()) }).unwrap();
    let send = dir.join("link-a-b.pcap");
    (r, if send.exists() { read(&send) } else { Vec::new() })
}

/// The Internet checksum of `b` (RFC 1071), written here from the RFC rather than shared with
/// the writer, so that a mistake in one is not repeated in the other.
fn internet_sum(parts: &[&[u8]]) -> u16 {
    let mut s: u64 = 0;
    for b in parts {
        for (i, &x) in b.iter().enumerate() {
            s += if i % 2 == 0 { (x as u64) << 8 } else { x as u64 };
        }
    }
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// Both checksums of one record verify (sum to zero with the checksum field included); the
/// TCP one over the pseudo-header and a zero payload up to the IP length.
fn assert_checksums(s: &Seg) {
    let ip = &s.raw[14..34];
    assert_eq!(internet_sum(&[ip]), 0, "IPv4 header checksum");
    let ip_len = u16::from_be_bytes([ip[2], ip[3]]) as usize;
    let tcp = &s.raw[34..];
    let zeros = vec![0u8; ip_len - 20 - tcp.len()];
    let seg_len = ((ip_len - 20) as u16).to_be_bytes();
    let pseudo = [&ip[12..20], &[0, 6], &seg_len[..]].concat();
    assert_eq!(internet_sum(&[&pseudo, tcp, &zeros]), 0, "TCP checksum of seq {}", s.seq);
    assert_ne!(u16::from_be_bytes([tcp[16], tcp[17]]), 0, "a zero checksum is almost surely unset");
}

#[test]
fn pcap_checksums_verify_for_every_record() {
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-sum-{}", std::process::id()));
    let (_, segs) = capture(&dir, "handshake = \"sender\"\nvariant = \"sack\"", &drop_segments(&[5, 20]));
    assert!(segs.len() > 100);
    segs.iter().for_each(assert_checksums);
    // SACK blocks make the TCP header longer: those ACKs are checked too.
    assert!(segs.iter().any(|s| s.opts.len() >= 12 && s.flags == 0x10));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn syn_announces_sack_permitted_only_with_sack() {
    let has_sack_perm = |o: &[u8]| o.windows(2).any(|w| w == [4, 2]);
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-sackp-{}", std::process::id()));
    let (_, segs) = capture(&dir, "handshake = \"sender\"\nvariant = \"sack\"", "");
    let syns: Vec<&Seg> = segs.iter().filter(|s| s.flags & 0x02 != 0).collect();
    assert_eq!(syns.len(), 2, "SYN and SYN-ACK");
    assert!(syns.iter().all(|s| has_sack_perm(&s.opts)), "SACK-permitted in both SYNs");
    let (_, segs) = capture(&dir, "handshake = \"sender\"\nvariant = \"newreno\"", "");
    assert!(segs.iter().filter(|s| s.flags & 0x02 != 0).all(|s| !has_sack_perm(&s.opts)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn receive_capture_holds_what_arrived_one_delay_later() {
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-rx-{}", std::process::id()));
    let (r, sent) = capture_mode(&dir, "handshake = \"sender\"", &drop_segments(&[20]), "\"both\"");
    let recv = read(&dir.join("link-a-b.recv.pcap"));
    let lost: u64 = r.links.iter().map(|l| l.stats.drops_loss).sum();
    assert!(lost >= 1);
    assert_eq!(recv.len() as u64 + lost, sent.len() as u64, "the receive side misses exactly the lost");
    let key = |s: &Seg| (s.src, s.seq, s.ack, s.flags);
    let base = sent[0].seq.wrapping_add(1);
    let seg20 = base.wrapping_add(19_000);
    assert_eq!(sent.iter().filter(|s| s.seq == seg20 && s.src == sent[0].src).count(), 2);
    assert_eq!(recv.iter().filter(|s| s.seq == seg20 && s.src == sent[0].src).count(), 1);
    // Each arrival is a sent record 10 ms (the link's delay) later, with the same IPv4 ID (the
    // ID was the record's number in its file, so the two captures could not be matched by it).
    let ip_id = |s: &Seg| u16::from_be_bytes([s.raw[18], s.raw[19]]);
    for s in &recv {
        let found =
            sent.iter().any(|t| key(t) == key(s) && ip_id(t) == ip_id(s) && ((s.ts - t.ts) - 0.010).abs() < 2e-6);
        assert!(found, "arrival of seq {} at {} matches no send", s.seq, s.ts);
    }
    let ids: std::collections::HashSet<u16> = sent.iter().map(ip_id).collect();
    assert!(ids.len() * 10 > sent.len() * 9, "{} IDs for {} packets", ids.len(), sent.len());
    recv.iter().for_each(assert_checksums);
    // Receive only: no send-side file.
    let dir2 = dir.join("rx-only");
    let (_, sent2) = capture_mode(&dir2, "", "", "\"receive\"");
    assert!(sent2.is_empty() && dir2.join("link-a-b.recv.pcap").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pcap_mode_rejects_other_values_naming_the_field() {
    let text = two_hosts("", "", 1000, 1.0).replace("queue = 1000", "queue = 1000\npcap = \"sometimes\"");
    let e = run_scenario(&text, &RunOptions::default()).unwrap_err().to_string();
    assert!(e.contains("link[0].pcap") || e.contains("link.pcap"), "{e}");
    assert!(e.contains("receive"), "{e}");
}

#[test]
fn pcap_fields_match_the_simulated_segments() {
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-{}", std::process::id()));
    let (r, segs) = capture(&dir, "handshake = \"sender\"", &drop_segments(&[20]));
    // Both directions: every transmission on the link, lost ones included.
    let tx: u64 = r.links.iter().map(|l| l.stats.tx_packets).sum();
    assert_eq!(segs.len() as u64, tx);
    let (syn, synack) = (&segs[0], &segs[1]);
    assert_eq!(syn.flags, 0x02, "first packet is the SYN");
    assert_eq!(synack.flags, 0x12, "then the SYN-ACK");
    assert_eq!(synack.ack, syn.seq.wrapping_add(1));
    assert_eq!(&syn.opts[0..4], &[2, 4, 0x03, 0xe8], "MSS option 1000");
    assert!(syn.opts.windows(3).any(|w| w == [3, 3, 5]), "window scale 5 for a 1 MiB buffer");
    let data: Vec<&Seg> = segs.iter().filter(|s| s.src == syn.src && s.flags & 0x02 == 0).collect();
    let base = syn.seq.wrapping_add(1);
    assert_eq!(data[0].seq, base);
    assert_eq!(data[0].orig_len, 14 + 40 + 1000);
    assert_eq!(data[0].flags & 0x10, 0x10, "data carries an ACK");
    // Segment 20 appears twice (lost, then retransmitted), all others once.
    let seg20 = base.wrapping_add(19_000);
    assert_eq!(data.iter().filter(|s| s.seq == seg20).count(), 2);
    // ACKs are cumulative, never go backwards, and carry the scaled window.
    let acks: Vec<&Seg> = segs.iter().filter(|s| s.src != syn.src && s.flags == 0x10).collect();
    assert!(acks.windows(2).all(|w| w[1].ack.wrapping_sub(w[0].ack) < 1 << 31));
    assert_eq!(acks.last().unwrap().ack, base.wrapping_add(50_000));
    assert_eq!(acks[0].wnd, (1u32 << 20 >> 5) as u16);
    assert!(segs.windows(2).all(|w| w[0].ts <= w[1].ts));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tshark_reads_the_capture_when_installed() {
    if std::process::Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("tshark not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("tcplab-tshark-{}", std::process::id()));
    let (_, segs) = capture(&dir, "handshake = \"sender\"", &drop_segments(&[20]));
    let out = std::process::Command::new("tshark")
        .args([
            "-r",
            dir.join("link-a-b.pcap").to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "tcp.seq_raw",
            "-e",
            "tcp.ack_raw",
        ])
        .args(["-e", "tcp.analysis.retransmission", "-e", "tcp.analysis.duplicate_ack", "-e", "tcp.len"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), segs.len());
    for (row, s) in rows.iter().zip(&segs) {
        assert_eq!(row[0].parse::<u32>().unwrap(), s.seq);
    }
    // Wireshark's own analysis sees the retransmission (or fast retransmission) and dup ACKs.
    assert!(rows.iter().filter(|r| !r[2].is_empty()).count() >= 1, "no retransmission flagged");
    assert!(rows.iter().filter(|r| !r[3].is_empty()).count() >= 3, "no duplicate ACKs flagged");
    assert!(rows.iter().any(|r| r[4] == "1000"), "tcp.len should come from the IP length");
    // With checksum validation on, nothing is flagged bad (status 0); header-only segments,
    // whose whole packet is captured, verify good (status 1).
    let out = std::process::Command::new("tshark")
        .args(["-r", dir.join("link-a-b.pcap").to_str().unwrap()])
        .args(["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-T", "fields"])
        .args(["-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "tcp.len"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), segs.len());
    assert!(rows.iter().all(|r| r[0] == "1"), "IPv4 checksums: {text}");
    assert!(rows.iter().all(|r| r[1] != "0"), "a TCP checksum is flagged bad");
    assert!(rows.iter().filter(|r| r[2] == "0").all(|r| r[1] == "1"), "header-only segments verify");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_window_scaling_the_syns_offer_none_and_the_window_is_unscaled() {
    // It announced a shift for the 1 MiB buffer anyway and divided the 65535-byte window by
    // it: Wireshark read a window of 2047.
    let has_wscale = |o: &[u8]| o.windows(2).any(|w| w == [3, 3]);
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-nows-{}", std::process::id()));
    let (_, segs) = capture(&dir, "handshake = \"sender\"\nwindow_scaling = false", "");
    let syns: Vec<&Seg> = segs.iter().filter(|s| s.flags & 0x02 != 0).collect();
    assert_eq!(syns.len(), 2, "SYN and SYN-ACK");
    assert!(syns.iter().all(|s| !has_wscale(&s.opts)), "no window scale option");
    let first = segs[0].src;
    let acks: Vec<u16> = segs.iter().filter(|s| s.src != first && s.flags & 0x02 == 0).map(|s| s.wnd).collect();
    assert!(!acks.is_empty() && acks.iter().all(|&w| w == 65535), "{acks:?}");
    // With scaling (the default here) the SYNs offer it and the field is the shifted window.
    let (_, segs) = capture(&dir, "handshake = \"sender\"", "");
    assert!(segs.iter().filter(|s| s.flags & 0x02 != 0).all(|s| has_wscale(&s.opts)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn captures_keep_the_simulations_nanoseconds() {
    // In microseconds, back-to-back packets above about 10 Gb/s showed gaps shorter than their
    // serialisation; here a delay of 10.000123 ms must show whole between the two captures.
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-ns-{}", std::process::id()));
    let text = two_hosts("", "", 20_000, 5.0)
        .replace("delay = \"10ms\"", "delay = \"10000123ns\"")
        .replace("queue = 1000", "queue = 1000\npcap = \"both\"");
    run_scenario(&text, &RunOptions { seed: Some(1), out_dir: Some(dir.clone()) }).unwrap();
    let bytes = std::fs::read(dir.join("link-a-b.pcap")).unwrap();
    assert_eq!(&bytes[..4], &0xa1b2_3c4du32.to_le_bytes(), "the nanosecond pcap magic");
    let (sent, recv) = (read(&dir.join("link-a-b.pcap")), read(&dir.join("link-a-b.recv.pcap")));
    let delay = recv[0].ts - sent[0].ts;
    assert!((delay - 0.010_000_123).abs() < 1e-10, "{delay}");
    let _ = std::fs::remove_dir_all(&dir);
}
