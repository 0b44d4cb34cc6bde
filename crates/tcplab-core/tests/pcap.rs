//! The pcap of a link, read back with a pcap library (and with tshark when installed).

mod common;
use common::*;
use pcap_file::pcap::PcapReader;
use tcplab_core::{run_scenario, RunOptions};

struct Seg {
    ts: f64,
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
    let text = two_hosts(tcp, loss, 50_000, 20.0).replace("queue = 1000", "queue = 1000\npcap = true");
    let (r, _) = run_scenario(&text, &RunOptions { seed: Some(1), out_dir: Some(dir.to_path_buf()) }).unwrap();
    (r, read(&dir.join("link-a-b.pcap")))
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
    let _ = std::fs::remove_dir_all(&dir);
}
