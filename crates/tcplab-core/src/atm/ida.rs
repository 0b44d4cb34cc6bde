//! The Information Dispersal Algorithm of TCP Boston over GF(2^8) (seed 003 Sec. 2.1).
//!
//! A segment's payload is cut into m shards of 47 bytes (an ATM cell's 48 bytes minus the
//! 1-byte shard id); dispersal produces N >= m shards of which any m rebuild the segment. The
//! arithmetic is the systematic Reed-Solomon code of the `reed-solomon-erasure` crate: its
//! first m shards are the data itself, the other N - m are the "fresh" cells Boston sends
//! after a partial acknowledgement. Encoding and decoding work on real bytes.

use reed_solomon_erasure::galois_8::ReedSolomon;

/// Data bytes per shard: one ATM cell payload less the shard id byte.
pub const SHARD_BYTES: usize = 47;
/// GF(2^8) limits a code to 256 shards.
pub const MAX_SHARDS: usize = 256;

/// Shards a segment of `len` payload bytes needs.
pub fn shards_for(len: u32) -> u16 {
    (len as usize).div_ceil(SHARD_BYTES).max(1) as u16
}

/// The application bytes at stream offsets [offset, offset + len) of `flow`: a fixed
/// function of (flow, offset), so the receiver knows what it must end up with.
pub fn payload_bytes(flow: u32, offset: u64, len: usize) -> Vec<u8> {
    (0..len as u64)
        .map(|i| {
            let x =
                (offset + i).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (flow as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
            (x >> 56) as u8
        })
        .collect()
}

/// All `n` shards of a segment (`n` >= m; the first m are the padded data).
pub fn disperse(data: &[u8], n: usize) -> Vec<Vec<u8>> {
    let m = data.len().div_ceil(SHARD_BYTES).max(1);
    assert!(n >= m && n <= MAX_SHARDS, "need m <= N <= 256 (m = {m}, N = {n})");
    let mut shards: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let mut s = vec![0u8; SHARD_BYTES];
            if i < m {
                let from = (i * SHARD_BYTES).min(data.len());
                let to = ((i + 1) * SHARD_BYTES).min(data.len());
                s[..to - from].copy_from_slice(&data[from..to]);
            }
            s
        })
        .collect();
    if n > m {
        ReedSolomon::new(m, n - m).expect("valid code").encode(&mut shards).expect("shards of one size");
    }
    shards
}

/// Rebuild a segment of `len` bytes from the shards that arrived (`None` for the others).
pub fn reconstruct(mut shards: Vec<Option<Vec<u8>>>, m: usize, len: usize) -> Result<Vec<u8>, String> {
    let n = shards.len();
    let have = shards.iter().filter(|s| s.is_some()).count();
    if have < m {
        return Err(format!("only {have} of the {m} shards needed"));
    }
    if shards[..m].iter().any(|s| s.is_none()) {
        ReedSolomon::new(m, n - m)
            .map_err(|e| format!("{e:?}"))?
            .reconstruct_data(&mut shards)
            .map_err(|e| format!("{e:?}"))?;
    }
    let mut out: Vec<u8> = shards[..m].iter().flat_map(|s| s.as_ref().expect("rebuilt").iter().copied()).collect();
    out.truncate(len);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_m_of_n_shards_rebuild_the_segment(
            len in 1usize..600,
            extra in 1usize..12,
            seed in 0u64..1000,
        ) {
            let data = payload_bytes(3, seed * 1000, len);
            let m = shards_for(len as u32) as usize;
            let n = m + extra;
            let all = disperse(&data, n);
            // Keep a pseudo-random m of the n shards.
            let mut order: Vec<usize> = (0..n).collect();
            let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            for i in (1..n).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            let mut got: Vec<Option<Vec<u8>>> = vec![None; n];
            for &i in &order[..m] {
                got[i] = Some(all[i].clone());
            }
            prop_assert_eq!(reconstruct(got, m, len).unwrap(), data);
        }
    }

    #[test]
    fn fewer_than_m_shards_cannot_rebuild() {
        let data = payload_bytes(1, 0, 470);
        let all = disperse(&data, 12);
        let mut got: Vec<Option<Vec<u8>>> = all.into_iter().map(Some).collect();
        for s in got.iter_mut().take(3) {
            *s = None;
        }
        assert!(reconstruct(got, 10, 470).is_err());
    }

    #[test]
    fn a_corrupted_shard_gives_the_wrong_bytes() {
        let data = payload_bytes(1, 0, 470);
        let mut all = disperse(&data, 12);
        all[11][0] ^= 1;
        let mut got: Vec<Option<Vec<u8>>> = all.into_iter().map(Some).collect();
        got[0] = None;
        got[1] = None;
        assert_ne!(reconstruct(got, 10, 470).unwrap(), data);
    }
}
