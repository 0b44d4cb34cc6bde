//! A drop-tail queue decides by room alone whether or not it counts and traces: the straight
//! path of a queue that does neither (`Queue::plain`, issue 26) gives way to the counting one
//! as soon as a link asks for counters, a queue trace or a drop trace.

use tcplab_core::csv::Rows;
use tcplab_core::net::{PacketPool, Queue, QueueLimit};
use tcplab_core::packet::Packet;

/// Three 1,040-byte arrivals at a busy link whose queue holds two: which stayed.
fn offer_three(q: &mut Queue) -> Vec<bool> {
    let mut pool = PacketPool::default();
    (0..3)
        .map(|i| {
            let mut p = Packet::test_ack(0, 65535);
            p.wire_bytes = 1040;
            let ok = q.accepts(i * 1000, &mut p, false);
            if ok {
                let id = pool.put(&p);
                q.push(i * 1000, id, &p);
            }
            ok
        })
        .collect()
}

#[test]
fn counting_and_tracing_change_no_decision_and_miss_no_drop() {
    let limits = [QueueLimit::Packets(2), QueueLimit::Bytes(2080)];
    for limit in limits {
        let mut plain = Queue::new(limit);
        assert_eq!(offer_three(&mut plain), [true, true, false], "{limit:?}");
        assert_eq!(plain.len(), 2);

        let mut counted = Queue::new(limit);
        counted.keep_stats();
        assert_eq!(offer_three(&mut counted), [true, true, false], "{limit:?}");
        assert_eq!(counted.stats.as_ref().map(|s| s.drops_overflow), Some(1), "{limit:?}");

        let mut traced = Queue::new(limit);
        traced.keep_trace();
        assert_eq!(offer_three(&mut traced), [true, true, false], "{limit:?}");
        let Some(Rows::Memory(samples)) = traced.trace.as_deref() else { panic!("no queue trace") };
        assert_eq!(samples.iter().map(|s| s.packets).collect::<Vec<_>>(), [0, 1, 2], "{limit:?}");

        let mut dropped = Queue::new(limit);
        dropped.keep_drops();
        assert_eq!(offer_three(&mut dropped), [true, true, false], "{limit:?}");
        let Some(Rows::Memory(rows)) = dropped.drops.as_deref().map(|d| &d.rows) else { panic!("no drop trace") };
        assert_eq!(rows.len(), 1, "{limit:?}");
    }
}

#[test]
fn a_plain_queue_serves_first_in_first_out_and_keeps_its_bytes() {
    let mut q = Queue::new(QueueLimit::Bytes(2080));
    assert_eq!(offer_three(&mut q), [true, true, false]);
    let first = q.pop(0).expect("a waiting packet");
    let second = q.pop(0).expect("a second waiting packet");
    assert!(first.id != second.id);
    assert!(q.pop(0).is_none() && q.is_empty());
    // Both left, so two more fit again.
    assert_eq!(offer_three(&mut q), [true, true, false]);
}
