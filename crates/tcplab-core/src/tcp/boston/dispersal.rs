//! The arithmetic of TCP Boston's Information Dispersal Algorithm over GF(2^8) (Bestavros and
//! Kim 1997, Sec. 2.1), and the check that a rebuilt segment decodes to the bytes sent.
//!
//! A segment's payload is cut into m shards of 47 bytes (an ATM cell's 48 bytes minus the
//! 1-byte shard id); dispersal produces N >= m shards of which any m rebuild the segment. The
//! arithmetic is the systematic Reed-Solomon code of the `reed-solomon-erasure` crate: its
//! first m shards are the data itself, the other N - m are the "fresh" cells Boston sends
//! after a partial acknowledgement. Encoding and decoding work on real bytes.
//!
//! It lives with TCP Boston rather than with ATM: dispersal is the TCP's coding of its
//! segments (the paper's AIDA sits above the AAL), and the ATM layer only needs to know how
//! many cells a coded packet fills (`atm::AtmConfig::cells_for`) and to hand on what arrived of
//! one (`atm::aal5`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use reed_solomon_erasure::{galois_16, galois_8};

/// Data bytes per shard with a 1-byte shard id: one ATM cell payload less the id.
pub const SHARD_BYTES: usize = 47;
/// Data bytes per shard when more than 256 shards need a 2-byte id.
pub const WIDE_SHARD_BYTES: usize = 46;
/// A 1-byte id (and GF(2^8)) can name 256 shards.
pub const MAX_SHARDS: usize = 256;

/// How a segment is dispersed: m data shards of `shard_bytes`, n shards in all. When n must
/// exceed 256 (N >> m for a 9180-byte packet's m = 195), the code works over GF(2^16) and the
/// shard id takes 2 bytes, leaving 46 data bytes per cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub m: usize,
    pub n: usize,
    pub shard_bytes: usize,
}

impl Geometry {
    /// The dispersal of a segment of `len` bytes into about `factor` x m shards (at least
    /// m + `extra`).
    pub fn for_segment(len: u32, factor: usize, extra: usize) -> Self {
        let narrow_m = (len as usize).div_ceil(SHARD_BYTES).max(1);
        let n = (narrow_m * factor.max(1)).max(narrow_m + extra);
        if n <= MAX_SHARDS {
            return Self { m: narrow_m, n, shard_bytes: SHARD_BYTES };
        }
        let m = (len as usize).div_ceil(WIDE_SHARD_BYTES).max(1);
        Self { m, n: (m * factor.max(1)).max(m + extra).min(65_536), shard_bytes: WIDE_SHARD_BYTES }
    }

    fn wide(&self) -> bool {
        self.shard_bytes == WIDE_SHARD_BYTES
    }
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

/// All `g.n` shards of a segment (the first m are the padded data).
pub fn disperse(data: &[u8], g: Geometry) -> Vec<Vec<u8>> {
    assert!(g.m == data.len().div_ceil(g.shard_bytes).max(1) && g.n >= g.m, "geometry {g:?} for {} bytes", data.len());
    let mut shards: Vec<Vec<u8>> = (0..g.n)
        .map(|i| {
            let mut s = vec![0u8; g.shard_bytes];
            if i < g.m {
                let from = (i * g.shard_bytes).min(data.len());
                let to = ((i + 1) * g.shard_bytes).min(data.len());
                s[..to - from].copy_from_slice(&data[from..to]);
            }
            s
        })
        .collect();
    if g.n > g.m {
        if g.wide() {
            let mut sym: Vec<Vec<[u8; 2]>> = shards.iter().map(|s| to_symbols(s)).collect();
            wide_code(g).encode(&mut sym).expect("equal shards");
            shards = sym.iter().map(|s| from_symbols(s)).collect();
        } else {
            narrow_code(g).encode(&mut shards).expect("equal shards");
        }
    }
    shards
}

/// Rebuild a segment of `len` bytes from the shards that arrived (`None` for the others).
pub fn reconstruct(shards: Vec<Option<Vec<u8>>>, g: Geometry, len: usize) -> Result<Vec<u8>, String> {
    let have = shards.iter().filter(|s| s.is_some()).count();
    if have < g.m {
        return Err(format!("only {have} of the {} shards needed", g.m));
    }
    let data: Vec<Vec<u8>> = if shards[..g.m].iter().all(|s| s.is_some()) {
        shards.into_iter().take(g.m).map(|s| s.expect("present")).collect()
    } else if g.wide() {
        let mut sym: Vec<Option<Vec<[u8; 2]>>> = shards.iter().map(|s| s.as_ref().map(|b| to_symbols(b))).collect();
        wide_code(g).reconstruct_data(&mut sym).map_err(|e| format!("{e:?}"))?;
        sym.into_iter().take(g.m).map(|s| from_symbols(&s.expect("rebuilt"))).collect()
    } else {
        let mut shards = shards;
        narrow_code(g).reconstruct_data(&mut shards).map_err(|e| format!("{e:?}"))?;
        shards.into_iter().take(g.m).map(|s| s.expect("rebuilt")).collect()
    };
    let mut out: Vec<u8> = data.into_iter().flatten().collect();
    out.truncate(len);
    Ok(out)
}

/// Decode the segment of `flow` at `offset` (`len` bytes, dispersed by `g`) from the shards
/// `ids` that arrived, as a receiver would, and compare it with the bytes the application
/// wrote; the error says what went wrong, naming the flow and the segment.
pub fn check_segment(flow: u32, offset: u64, len: u32, g: Geometry, ids: &[u16]) -> Result<(), String> {
    let data = payload_bytes(flow, offset, len as usize);
    let mut sent: Vec<Option<Vec<u8>>> = disperse(&data, g).into_iter().map(Some).collect();
    let mut got: Vec<Option<Vec<u8>>> = vec![None; sent.len()];
    for &id in ids {
        // An id past N is no shard of this dispersal: it cannot help rebuild the segment.
        if let Some(shard) = sent.get_mut(id as usize) {
            got[id as usize] = shard.take();
        }
    }
    match reconstruct(got, g, len as usize) {
        Ok(bytes) if bytes == data => Ok(()),
        Ok(_) => Err(format!("flow {flow}: Boston segment at {offset} decoded to other bytes")),
        Err(e) => Err(format!("flow {flow}: Boston segment at {offset} did not decode: {e}")),
    }
}

// Building a code inverts an m x m matrix (m = 195 for a 9180-byte segment over GF(2^16)): it
// took 95% of a TCP Boston run's time when done for every segment checked. A code depends only
// on (m, n), so each thread keeps the ones it built; the crate's own cache of decoding matrices
// then lasts too. The arithmetic, and so every output, is the same.
thread_local! {
    static NARROW: RefCell<HashMap<(usize, usize), Rc<galois_8::ReedSolomon>>> = RefCell::default();
    static WIDE: RefCell<HashMap<(usize, usize), Rc<galois_16::ReedSolomon>>> = RefCell::default();
}

fn narrow_code(g: Geometry) -> Rc<galois_8::ReedSolomon> {
    NARROW.with(|c| {
        let code = || Rc::new(galois_8::ReedSolomon::new(g.m, g.n - g.m).expect("valid code"));
        Rc::clone(c.borrow_mut().entry((g.m, g.n)).or_insert_with(code))
    })
}

fn wide_code(g: Geometry) -> Rc<galois_16::ReedSolomon> {
    WIDE.with(|c| {
        let code = || Rc::new(galois_16::ReedSolomon::new(g.m, g.n - g.m).expect("valid code"));
        Rc::clone(c.borrow_mut().entry((g.m, g.n)).or_insert_with(code))
    })
}

fn to_symbols(bytes: &[u8]) -> Vec<[u8; 2]> {
    bytes.chunks(2).map(|c| [c[0], *c.get(1).unwrap_or(&0)]).collect()
}

fn from_symbols(sym: &[[u8; 2]]) -> Vec<u8> {
    sym.iter().flat_map(|s| s.iter().copied()).collect()
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
            let g = Geometry::for_segment(len as u32, 1, extra);
            let (m, n) = (g.m, g.n);
            let all = disperse(&data, g);
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
            prop_assert_eq!(reconstruct(got, g, len).unwrap(), data);
        }
    }

    fn g12() -> Geometry {
        Geometry::for_segment(470, 1, 2) // m = 10, n = 12
    }

    #[test]
    fn a_segment_checks_out_from_any_m_shards_and_not_from_fewer() {
        let g = g12();
        let coded: Vec<u16> = (2..12).collect(); // two data shards replaced by both parity shards
        assert_eq!(check_segment(4, 9400, 470, g, &coded), Ok(()));
        let e = check_segment(4, 9400, 470, g, &coded[1..]).unwrap_err();
        assert!(e.starts_with("flow 4: Boston segment at 9400 did not decode: only 9 of the 10"), "{e}");
    }

    #[test]
    fn fewer_than_m_shards_cannot_rebuild() {
        let data = payload_bytes(1, 0, 470);
        let all = disperse(&data, g12());
        let mut got: Vec<Option<Vec<u8>>> = all.into_iter().map(Some).collect();
        for s in got.iter_mut().take(3) {
            *s = None;
        }
        assert!(reconstruct(got, g12(), 470).is_err());
    }

    #[test]
    fn a_corrupted_shard_gives_the_wrong_bytes() {
        let data = payload_bytes(1, 0, 470);
        let mut all = disperse(&data, g12());
        all[11][0] ^= 1;
        let mut got: Vec<Option<Vec<u8>>> = all.into_iter().map(Some).collect();
        got[0] = None;
        got[1] = None;
        assert_ne!(reconstruct(got, g12(), 470).unwrap(), data);
    }

    #[test]
    fn large_segments_disperse_over_gf_2_16_with_n_well_above_m() {
        // A 9180-byte packet's 9140 payload bytes: 195 shards of 47 would allow only 61 more
        // under GF(2^8); with 2-byte ids it is 199 shards of 46 and N = 398.
        let g = Geometry::for_segment(9140, 2, 0);
        assert_eq!((g.m, g.n, g.shard_bytes), (199, 398, 46));
        let data = payload_bytes(7, 123_456, 9140);
        let all = disperse(&data, g);
        // Lose 30 data shards; rebuild from the rest plus 30 parity shards far past 256.
        let mut got: Vec<Option<Vec<u8>>> = vec![None; g.n];
        for i in 30..g.m {
            got[i] = Some(all[i].clone());
        }
        for i in 300..330 {
            got[i] = Some(all[i].clone());
        }
        assert_eq!(reconstruct(got, g, 9140).unwrap(), data);
    }
}
