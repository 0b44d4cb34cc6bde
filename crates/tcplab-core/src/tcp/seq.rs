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
pub fn unwrap(base: u32, wire: u32, reference: u64) -> u64 {
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

    proptest! {
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
