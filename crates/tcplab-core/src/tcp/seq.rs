//! Sequence numbers: 32-bit on the wire, 64-bit stream offsets inside the endpoints.
//!
//! Endpoints count bytes as u64 offsets from the start of the stream, which never wrap; only
//! the packet carries the 32-bit wire value. `unwrap` maps a wire value back to the offset
//! closest to a reference the endpoint already knows (RFC 9000 uses the same idea).

/// Wire sequence number of stream offset `offset` for a stream whose first byte is `base`.
pub fn to_wire(base: u32, offset: u64) -> u32 {
    base.wrapping_add(offset as u32)
}

/// The stream offset whose wire value is `wire`, chosen nearest to `reference`.
///
/// Nearly every call (an ACK at the sender against `snd_una`, a segment at the receiver
/// against `rcv_nxt`) finds the wire value less than half the sequence space ahead of the
/// reference, where the nearest offset is the reference plus that distance: one subtraction
/// and one addition, inline (issue 26). Everything else takes the general rule, which is the
/// whole definition (its ties at exactly 2^31 and its floor at 0 included); the two agree on
/// every input where the short form answers (`the_short_form_is_the_general_rule`).
#[inline]
pub fn unwrap(base: u32, wire: u32, reference: u64) -> u64 {
    let ahead = wire.wrapping_sub(base).wrapping_sub(reference as u32);
    if ahead < 1 << 31 {
        return reference + ahead as u64;
    }
    unwrap_general(base, wire, reference)
}

/// `unwrap` by its definition: among the offsets with wire value `wire` in the 2^32 block of
/// `reference` and the blocks either side, the one nearest `reference` (never below 0).
#[cold]
#[inline(never)]
fn unwrap_general(base: u32, wire: u32, reference: u64) -> u64 {
    let rel = wire.wrapping_sub(base) as u64;
    let window = 1u64 << 32;
    let candidate = (reference & !(window - 1)) | rel;
    // Pick among candidate - 2^32, candidate, candidate + 2^32 the one nearest reference.
    let mut best = candidate;
    if candidate > reference && candidate - reference > window / 2 && candidate >= window {
        best = candidate - window;
    } else if candidate < reference && reference - candidate > window / 2 {
        best = candidate + window;
    }
    best
}

/// `a` is before `b` in 32-bit modular sequence space (RFC 793's SEQ_LT).
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wraps_around_zero() {
        let base = u32::MAX - 10;
        assert_eq!(to_wire(base, 0), u32::MAX - 10);
        assert_eq!(to_wire(base, 11), 0);
        assert_eq!(unwrap(base, 0, 5), 11);
        assert!(seq_lt(u32::MAX, 0));
        assert!(!seq_lt(0, u32::MAX));
    }

    /// The edges of the general rule: a wire value exactly half the space away either way,
    /// one either side of it, the references at and around 0, 2^31 and the block boundaries.
    #[test]
    fn the_short_form_is_the_general_rule_at_its_edges() {
        const H: u32 = 1 << 31;
        let aheads = [0, 1, H - 2, H - 1, H, H + 1, H + 2, u32::MAX - 1, u32::MAX];
        let mut references = vec![0u64, 1, 2];
        for block in [0u64, 1, 2, 1 << 20] {
            for within in [0u64, 1, (H - 1) as u64, H as u64, (H + 1) as u64, u32::MAX as u64 - 1, u32::MAX as u64] {
                references.push((block << 32) + within);
            }
        }
        for base in [0u32, 1, H - 1, H, u32::MAX] {
            for &reference in &references {
                for ahead in aheads {
                    let wire = base.wrapping_add(reference as u32).wrapping_add(ahead);
                    assert_eq!(
                        unwrap(base, wire, reference),
                        unwrap_general(base, wire, reference),
                        "base {base} wire {wire} reference {reference}"
                    );
                }
            }
        }
    }

    proptest! {
        /// `unwrap`'s short form answers exactly what the general rule does (issue 26).
        #[test]
        fn the_short_form_is_the_general_rule(
            base: u32,
            wire: u32,
            reference in prop_oneof![0u64..(1u64 << 34), 0u64..(u64::MAX - (1u64 << 33))],
        ) {
            prop_assert_eq!(unwrap(base, wire, reference), unwrap_general(base, wire, reference));
        }

        /// The same near the short form's bound: the wire value about half the space ahead.
        #[test]
        fn the_short_form_is_the_general_rule_near_half_the_space(
            base: u32,
            reference in prop_oneof![0u64..(1u64 << 34), 0u64..(u64::MAX - (1u64 << 33))],
            ahead in (1u32 << 31) - 4..=(1u32 << 31) + 4,
        ) {
            let wire = base.wrapping_add(reference as u32).wrapping_add(ahead);
            prop_assert_eq!(unwrap(base, wire, reference), unwrap_general(base, wire, reference));
        }

        #[test]
        fn unwrap_inverts_to_wire_near_reference(base: u32, offset in 0u64..(1u64 << 50), delta in -(1i64 << 30)..(1i64 << 30)) {
            let reference = (offset as i64 + delta).max(0) as u64;
            prop_assert_eq!(unwrap(base, to_wire(base, offset), reference), offset);
        }

        #[test]
        fn seq_lt_agrees_with_offsets_within_half_space(base: u32, a in 0u64..(1u64 << 40), d in 1u64..(1u64 << 31)) {
            let b = a + d;
            prop_assert!(seq_lt(to_wire(base, a), to_wire(base, b)));
            prop_assert!(!seq_lt(to_wire(base, b), to_wire(base, a)));
        }
    }
}
