//! FQ-CoDel against RFC 8290: the DRR with new and old lists (section 4.2), the overflow rule
//! (section 4.1, with Linux's batch), and CoDel per queue.

use super::*;
use crate::time::MS;

/// Packet ids encode their flow: flow * 100_000 + sequence.
fn pkt(flow: u32, seq: u32, bytes: u32) -> Waiting {
    Waiting::for_test(flow * 100_000 + seq, bytes)
}

fn flow_of(w: &Waiting) -> u32 {
    w.id.raw() / 100_000
}

fn id_of(w: &Waiting) -> PacketId {
    w.id
}

const NO_LIMIT: fn(usize, u64) -> bool = |_, _| false;

/// Flow ids 1, 2, 3 land in different queues of the default 1024 (checked).
fn distinct_buckets() {
    let b: Vec<u32> = (1..=3).map(|f| bucket(f, 1024)).collect();
    assert!(b[0] != b[1] && b[1] != b[2] && b[0] != b[2], "{b:?}");
}

#[test]
fn the_hash_is_fixed_and_spreads_flows_like_a_random_one() {
    assert_eq!(bucket(7, 1024), bucket(7, 1024));
    // 1024 flows into 1024 buckets: a random hash leaves 1024 (1 - 1/1024)^1024 = 376.6 empty
    // (sd about 11); the identity would leave none.
    let mut used = vec![false; 1024];
    (0..1024).for_each(|f| used[bucket(f, 1024) as usize] = true);
    let empty = used.iter().filter(|u| !**u).count();
    assert!((330..=420).contains(&empty), "{empty} empty buckets");
}

#[test]
fn a_new_sparse_flow_is_served_before_a_backlogged_one() {
    distinct_buckets();
    let mut fq = FqCodel::new(FqCodelConfig::default());
    for s in 0..50 {
        fq.enqueue(0, pkt(1, s, 1500), 1, NO_LIMIT);
    }
    // Flow 1 uses its first quantum and moves to the old list.
    for _ in 0..3 {
        assert_eq!(flow_of(&fq.dequeue(MS).unwrap().0), 1);
    }
    // A packet of flow 2 arrives: its queue is new, served next, ahead of 47 waiting.
    fq.enqueue(2 * MS, pkt(2, 0, 100), 2, NO_LIMIT);
    let (w, sojourn) = fq.dequeue(2 * MS).unwrap();
    assert_eq!((flow_of(&w), sojourn), (2, 0));
    // Then flow 1 again (flow 2's empty queue went to the old list and, found empty there,
    // left the lists), and a later sparse flow is served first too.
    assert_eq!(flow_of(&fq.dequeue(3 * MS).unwrap().0), 1);
    assert_eq!(flow_of(&fq.dequeue(4 * MS).unwrap().0), 1);
    fq.enqueue(5 * MS, pkt(3, 0, 100), 3, NO_LIMIT);
    fq.enqueue(5 * MS, pkt(2, 1, 100), 2, NO_LIMIT);
    assert_eq!(flow_of(&fq.dequeue(5 * MS).unwrap().0), 3);
    assert_eq!(flow_of(&fq.dequeue(5 * MS).unwrap().0), 2);
    assert_eq!(flow_of(&fq.dequeue(5 * MS).unwrap().0), 1);
}

#[test]
fn backlogged_flows_with_equal_quanta_get_equal_bytes_within_one_quantum() {
    distinct_buckets();
    // Flow 1 sends 1500-byte packets, flow 2 300-byte ones; both always backlogged.
    let mut fq = FqCodel::new(FqCodelConfig::default());
    let (mut s1, mut s2) = (0, 0);
    let mut bytes = [0i64; 3];
    for k in 0..20_000u64 {
        while fq.queue_bytes(1) < 20 * 1500 {
            fq.enqueue(k, pkt(1, s1, 1500), 1, NO_LIMIT);
            s1 += 1;
        }
        while fq.queue_bytes(2) < 20 * 1500 {
            fq.enqueue(k, pkt(2, s2, 300), 2, NO_LIMIT);
            s2 += 1;
        }
        // Sojourns stay below CoDel's target (a dequeue per ns): no drop disturbs the count.
        let (w, _) = fq.dequeue(k).unwrap();
        bytes[flow_of(&w) as usize] += i64::from(w.wire_bytes);
        // DRR's bound (Shreedhar and Varghese, 1996): at any time within a quantum and a packet.
        assert!((bytes[1] - bytes[2]).abs() <= 1514 + 1500, "at {k}: {bytes:?}");
    }
    assert!(fq.codel_dropped.is_empty());
    assert!(bytes[1] > 4_900_000 && bytes[2] > 4_900_000, "{bytes:?}");
    // After whole rounds of both (each has sent its quanta), within one quantum.
    let mut fq2 = fq.clone();
    let mut b = bytes;
    loop {
        let (w, _) = fq2.dequeue(20_000).unwrap();
        b[flow_of(&w) as usize] += i64::from(w.wire_bytes);
        if (b[1] - b[2]).abs() <= 1514 {
            break;
        }
    }
    assert!((b[1] - b[2]).abs() <= 1514);
}

#[test]
fn overflow_drops_a_batch_from_the_head_of_the_fattest_queue() {
    distinct_buckets();
    let over = |len: usize, _| len > 10;
    let mut fq = FqCodel::new(FqCodelConfig::default());
    for s in 0..8 {
        assert!(!fq.enqueue(0, pkt(1, s, 1500), 1, over));
    }
    // Flow 2 holds more packets but fewer bytes: bytes decide.
    for s in 0..2 {
        assert!(!fq.enqueue(0, pkt(2, s, 100), 2, over));
    }
    assert!(fq.enqueue(0, pkt(3, 0, 1500), 3, over), "the 11th packet is over the limit of 10");
    // Flow 1 held 12000 bytes: its first four packets (6000 bytes, half) go.
    let want: Vec<PacketId> = (0..4).map(|s| id_of(&pkt(1, s, 1500))).collect();
    assert_eq!(fq.overflow_dropped, want);
    assert_eq!((fq.len(), fq.bytes()), (7, 4 * 1500 + 200 + 1500));
    // The batch stops at drop_batch packets first.
    let cfg = FqCodelConfig { drop_batch: 2, ..FqCodelConfig::default() };
    let mut fq = FqCodel::new(cfg);
    for s in 0..10 {
        fq.enqueue(0, pkt(1, s, 1500), 1, over);
    }
    assert!(fq.enqueue(0, pkt(2, 0, 100), 2, over));
    assert_eq!(fq.overflow_dropped.len(), 2);
    assert_eq!(fq.len(), 9);
}

#[test]
fn codel_acts_per_queue() {
    distinct_buckets();
    // Flow 1 dumps 300 packets at once; flow 2 sends one packet every 10 ms. The link sends
    // a 1500-byte packet per 1.2 ms (10 Mb/s). Flow 1's queue stands for a third of a second
    // and CoDel drops from it; flow 2's packets, new each time, wait at most until the next
    // dequeue, and CoDel never drops them.
    let mut fq = FqCodel::new(FqCodelConfig::default());
    for s in 0..300 {
        fq.enqueue(0, pkt(1, s, 1500), 1, NO_LIMIT);
    }
    let (mut sent2, mut seq2, mut dropped1) = (0, 0, 0);
    let mut worst2 = 0;
    let tx = 1_200_000;
    for k in 1..=300u64 {
        let now = k * tx;
        while seq2 as u64 * 10 * MS <= now {
            fq.enqueue(seq2 as u64 * 10 * MS, pkt(2, seq2, 1500), 2, NO_LIMIT);
            seq2 += 1;
        }
        let Some((w, sojourn)) = fq.dequeue(now) else { break };
        for id in &fq.codel_dropped {
            assert_eq!(id.raw() / 100_000, 1, "flow 2 lost {id:?}");
            dropped1 += 1;
        }
        // Flow 2's first packet arrives with flow 1's burst, both new: it waits for flow 1's
        // first quantum (two packets). Every later one finds flow 1 on the old list.
        if flow_of(&w) == 2 && w.id.raw() % 100_000 > 0 {
            sent2 += 1;
            worst2 = worst2.max(sojourn);
        }
    }
    assert!(dropped1 > 0, "CoDel never dropped from the standing queue");
    assert!(sent2 >= 30, "{sent2}");
    assert!(worst2 <= tx, "flow 2 waited {worst2} ns");
}

/// A congestion signal: the flow it hit and when.
type Signal = (u32, u64);

/// Flows 1 (ECN-capable) and 3 (not) each dump 300 packets at 0 into `fq`, dequeued one per
/// 1.2 ms: (each CoDel mark, each CoDel drop).
fn ecn_signals(fq: &mut FqCodel) -> (Vec<Signal>, Vec<Signal>) {
    for s in 0..300 {
        fq.enqueue_ect(0, pkt(1, s, 1500), 1, true, NO_LIMIT);
        fq.enqueue_ect(0, pkt(3, s, 1500), 3, false, NO_LIMIT);
    }
    let (mut marks, mut drops) = (vec![], vec![]);
    for k in 1..=600u64 {
        let now = k * 1_200_000;
        let Some((w, _)) = fq.dequeue(now) else { break };
        if let Some(id) = fq.marked {
            assert_eq!(id, w.id, "the marked packet is the one sent");
            marks.push((flow_of(&w), now));
        }
        drops.extend(fq.codel_dropped.iter().map(|id| (id.raw() / 100_000, now)));
    }
    (marks, drops)
}

#[test]
fn with_ecn_each_queues_codel_marks_ecn_capable_packets_and_drops_the_others() {
    // RFC 8290 4.2 runs CoDel per queue; with its `ecn` parameter (5.2) a queue's CoDel marks
    // an ECN-capable head CE instead of dropping it (RFC 8289 section 5).
    distinct_buckets();
    let ecn = FqCodelConfig { codel: CodelConfig { ecn: true, ..CodelConfig::default() }, ..FqCodelConfig::default() };
    let (marks, drops) = ecn_signals(&mut FqCodel::new(ecn));
    assert!(marks.len() >= 3 && marks.iter().all(|m| m.0 == 1), "{marks:?}");
    assert!(drops.len() >= 3 && drops.iter().all(|d| d.0 == 3), "{drops:?}");
    // Without ecn both queues drop, none marks; flow 1's first signal comes at the same
    // dequeue either way (until then the two runs are the same).
    let (none, plain) = ecn_signals(&mut FqCodel::new(FqCodelConfig::default()));
    assert!(none.is_empty());
    let first1 = plain.iter().find(|d| d.0 == 1).expect("flow 1 dropped without ECN");
    assert_eq!(first1.1, marks[0].1);
}

#[test]
fn with_ecn_the_overflow_batch_still_drops() {
    // The no-room rule (section 4.1) is not a congestion signal CoDel chose: it drops even
    // ECN-capable packets.
    distinct_buckets();
    let over = |len: usize, _| len > 10;
    let ecn = FqCodelConfig { codel: CodelConfig { ecn: true, ..CodelConfig::default() }, ..FqCodelConfig::default() };
    let mut fq = FqCodel::new(ecn);
    for s in 0..10 {
        fq.enqueue_ect(0, pkt(1, s, 1500), 1, true, over);
    }
    assert!(fq.enqueue_ect(0, pkt(2, 0, 1500), 2, true, over));
    assert_eq!(fq.overflow_dropped.len(), 5);
    assert_eq!(fq.len(), 6);
}
