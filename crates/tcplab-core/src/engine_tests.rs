//! Tests of the event queue: both kinds against a reference order, ties first-in first-out,
//! the radix heap's shortcuts and bounds.

use super::*;
use proptest::prelude::*;

proptest! {
    /// Against a reference: a stable sort of (time, insertion order), with pushes
    /// interleaved with pops as a simulation does.
    #[test]
    fn pops_in_time_order_fifo_on_ties(
        ops in proptest::collection::vec((prop_oneof![0u64..50, 0u64..1 << 40], 0u8..3), 1..400),
        radix: bool,
    ) {
        let mut q = EventQueue::for_run(if radix { usize::MAX } else { 0 }, true);
        let mut reference: Vec<(u64, u64)> = Vec::new(); // (time, id)
        let mut now = 0;
        for (id, (dt, pops)) in ops.into_iter().enumerate() {
            q.schedule(now + dt, Event::Arrive(id as u32));
            reference.push((now + dt, id as u64));
            for _ in 0..pops {
                reference.sort();
                if reference.is_empty() { break; }
                let (t, i) = reference.remove(0);
                prop_assert_eq!(q.pop(), Some((t, Event::Arrive(i as u32))));
                now = t;
            }
        }
        reference.sort();
        for (t, i) in reference {
            prop_assert_eq!(q.pop(), Some((t, Event::Arrive(i as u32))));
        }
        prop_assert!(q.pop().is_none());
    }
}

proptest! {
    /// `has_event_at(now)` right after a pop at `now` says whether any queued event is at
    /// `now`, and so whether the next pop shares it, whatever was scheduled in between (as
    /// a handler does). Small steps make ties; large ones spread the radix heap's buckets.
    #[test]
    fn has_event_at_the_last_pop_time_sees_exactly_the_events_at_it(
        ops in proptest::collection::vec(
            (prop_oneof![Just(0u64), 0u64..4, 0u64..50, 0u64..1 << 40], 0u8..3),
            1..300,
        ),
        radix: bool,
    ) {
        let mut q = EventQueue::for_run(if radix { usize::MAX } else { 0 }, true);
        prop_assert!(!q.has_event_at(0));
        let mut now = 0;
        for (id, (dt, pops)) in ops.into_iter().enumerate() {
            q.schedule(now + dt, Event::Arrive(id as u32));
            for _ in 0..pops {
                let Some((t, _)) = q.pop() else { break };
                now = t;
                let any_at_now = if q.uses_radix {
                    q.radix.buckets.iter().flatten().skip(q.radix.head).any(|s| s.time == now)
                } else {
                    q.heap.heap.iter().any(|e| e.time == now)
                };
                let next_at_now = q.clone().pop().is_some_and(|(next, _)| next == now);
                prop_assert_eq!(q.has_event_at(now), any_at_now);
                prop_assert_eq!(q.has_event_at(now), next_at_now);
            }
        }
    }
}

/// The radix heap's two ways out of an empty bucket 0: a lone event popped in place and a
/// refill; after either, an event scheduled at the time just popped is the next one
/// (bucket 0 read from its start, or after the refill's events at that time).
#[test]
fn lone_events_and_refills_interleave_with_ties_at_now() {
    let mut q = EventQueue::for_run(usize::MAX, false);
    q.schedule(10, Event::Arrive(1));
    assert_eq!(q.pop(), Some((10, Event::Arrive(1)))); // lone in its bucket
    q.schedule(12, Event::Arrive(2));
    q.schedule(10, Event::Arrive(3)); // a tie at now
    q.schedule(12, Event::Arrive(4));
    assert!(q.has_event_at(10));
    assert_eq!(q.pop(), Some((10, Event::Arrive(3))));
    assert!(!q.has_event_at(10));
    assert_eq!(q.pop(), Some((12, Event::Arrive(2)))); // a refill of two
    q.schedule(13, Event::Arrive(5));
    assert_eq!(q.pop(), Some((12, Event::Arrive(4))));
    assert_eq!(q.pop(), Some((13, Event::Arrive(5)))); // lone again
    q.schedule(13, Event::Arrive(6));
    q.schedule(1 << 40, Event::Arrive(7));
    assert!(q.has_event_at(13));
    assert_eq!(q.pop(), Some((13, Event::Arrive(6))));
    assert_eq!(q.pop(), Some((1 << 40, Event::Arrive(7))));
    assert_eq!(q.pop(), None);
    q.schedule(1 << 40, Event::Stop);
    assert_eq!(q.pop(), Some((1 << 40, Event::Stop)));
}

/// Two or three events in the first bucket past bucket 0 pop without the refill's loops:
/// every order of their times, ties included, pops as a stable sort does, with an event
/// scheduled at the time just popped (a tie at now) taken after the ones already there.
#[test]
fn two_or_three_events_in_a_bucket_pop_in_time_order_fifo_on_ties() {
    for n in 2..=3u32 {
        for code in 0..3u32.pow(n) {
            // Times 8, 9 or 10: one bucket (4) against the time 0 just popped.
            let times: Vec<u64> = (0..n).map(|k| 8 + (code / 3u32.pow(k) % 3) as u64).collect();
            let mut q = EventQueue::for_run(usize::MAX, false);
            q.schedule(0, Event::Stop);
            assert_eq!(q.pop(), Some((0, Event::Stop)));
            for (id, &t) in times.iter().enumerate() {
                q.schedule(t, Event::Arrive(id as u32));
            }
            let mut expected: Vec<(u64, u32)> = times.iter().enumerate().map(|(id, &t)| (t, id as u32)).collect();
            expected.sort_by_key(|&(t, _)| t);
            let (t0, id0) = expected[0];
            assert_eq!(q.pop(), Some((t0, Event::Arrive(id0))), "{times:?}");
            let ties = expected.iter().filter(|&&(t, _)| t == t0).count() > 1;
            assert_eq!(q.has_event_at(t0), ties, "{times:?}");
            q.schedule(t0, Event::FlowTimer(9));
            let mut rest: Vec<_> = expected[1..].iter().map(|&(t, id)| (t, Event::Arrive(id))).collect();
            let at = rest.iter().take_while(|&&(t, _)| t == t0).count();
            rest.insert(at, (t0, Event::FlowTimer(9)));
            let popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            assert_eq!(popped, rest, "{times:?}");
        }
    }
}

#[test]
fn the_occupied_bit_of_bucket_b_is_bit_b_and_the_masked_bit_0_for_0_and_64() {
    assert_eq!(occupied_bit(0), NO_BUCKET);
    for b in 1..64 {
        assert_eq!(occupied_bit(b), 1 << b, "bucket {b}");
    }
    assert_eq!(occupied_bit(64), NO_BUCKET);
}

/// An event at or past 2^63 ns (bucket 64) never pops: it would come after the run's
/// `Stop`, which is below that (`RadixQueue::schedule`); the earlier ones pop as ever.
#[test]
fn events_past_2_pow_63_stay_behind_the_stop() {
    let mut q = EventQueue::for_run(usize::MAX, false);
    q.schedule(1 << 63, Event::Arrive(1));
    q.schedule(5, Event::Arrive(2));
    q.schedule(u64::MAX, Event::Arrive(3));
    q.schedule(7, Event::Stop);
    assert_eq!(q.pop(), Some((5, Event::Arrive(2))));
    q.schedule((1 << 63) + 1, Event::Arrive(4));
    assert_eq!(q.pop(), Some((7, Event::Stop)));
    assert_eq!(q.pop(), None);
}

/// The guarantee the radix heap relies on, made where a scenario's duration is read: a
/// run past 2^63 ns (or anywhere beyond `units::MAX_SECONDS`) is refused with an error
/// that names the field, before anything runs.
#[test]
fn a_duration_past_the_cap_is_refused_naming_the_field() {
    let text = |d: &str| format!("duration = {d}\nnodes = [\"a\", \"b\"]\n[[link]]\na = \"a\"\nb = \"b\"\nrate = 1\n");
    assert!(crate::sim::check_scenario(&text("1e9"), None).is_ok());
    for past in ["1.1e9", "1e10", "9.3e9", "1e300"] {
        let e = crate::sim::check_scenario(&text(past), None).unwrap_err().to_string();
        assert!(e.contains("duration") && e.contains("at most"), "{past}: {e}");
    }
}

/// Code compiled for the queue's kind (`EventQueue::kind`, the event loop) and code that
/// asks the kind each time (the rest of the simulation) schedule into, and pop from, the
/// same queue, for either kind.
#[test]
fn a_queue_reached_by_its_kind_is_the_queue_itself() {
    fn check<Q: QueueKind>(radix: bool) {
        let mut q = EventQueue::for_run(if radix { usize::MAX } else { 0 }, false);
        assert_eq!(q.uses_radix(), Q::RADIX);
        q.kind::<Q>().schedule(5, Event::Arrive(1));
        q.schedule(5, Event::TxDone(2));
        q.kind::<Q>().schedule(3, Event::Stop);
        assert_eq!(q.pop(), Some((3, Event::Stop)));
        assert!(q.kind::<Q>().has_event_at(3) == q.has_event_at(3) && !q.has_event_at(3));
        assert_eq!(q.kind::<Q>().pop(), Some((5, Event::Arrive(1))));
        assert!(q.has_event_at(5) && q.kind::<Q>().has_event_at(5));
        assert_eq!(q.pop(), Some((5, Event::TxDone(2))));
        assert_eq!(q.kind::<Q>().pop(), None);
        assert_eq!(q.pop(), None);
    }
    check::<QuadHeap>(false);
    check::<RadixQueue>(true);
}

/// Reaching the queue as the kind it does not use is a bug the debug build catches.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "the run's queue is of the other kind")]
fn the_other_kind_is_refused_in_debug_builds() {
    EventQueue::for_run(usize::MAX, false).kind::<QuadHeap>().schedule(1, Event::Stop);
}

#[test]
fn the_radix_heap_is_sized_at_build_for_an_eighth_of_the_pending_bound_up_to_a_cap() {
    let rooms = |pending: usize| {
        let q = EventQueue::for_run(pending, false);
        q.radix.buckets.iter().map(Vec::capacity).collect::<std::collections::BTreeSet<_>>()
    };
    // htsim's dumbbell at 10 and 100 flows, a bound past the cap, and the 4-ary heap's
    // runs (their radix heap stays empty).
    assert_eq!(rooms(117), [16].into());
    assert_eq!(rooms(1107), [256].into());
    assert_eq!(rooms(usize::MAX), [BUCKET_MOST].into());
    assert_eq!(rooms(RADIX_ABOVE_PACKETS), [0].into());
}

#[test]
fn equal_times_pop_in_insertion_order() {
    for mut q in [EventQueue::for_run(0, true), EventQueue::for_run(usize::MAX, true)] {
        q.schedule(5, Event::Arrive(1));
        q.schedule(3, Event::Arrive(2));
        q.schedule(5, Event::Arrive(3));
        q.schedule(5, Event::Arrive(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(3, Event::Arrive(2)), (5, Event::Arrive(1)), (5, Event::Arrive(3)), (5, Event::Arrive(4))]
        );
    }
}
