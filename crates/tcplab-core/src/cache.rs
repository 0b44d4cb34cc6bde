//! Safe wrappers for the two memory hints the hot path uses: loading a record into the cache
//! ahead of its use, and asking the OS for huge pages under a large array.
//!
//! Why: with 10^4 flows and more, the records an event reads (a channel, a packet, a flow's
//! TCP state) were last touched thousands of events ago and come from memory. A prefetch
//! issued as soon as a record's address is known lets several of these loads overlap; huge
//! pages make each of those random reads cost one TLB entry per 2 MiB instead of per 4 KiB.
//! Both are hints: they change no result, only the time it takes.

/// Start loading the cache lines of `r` (at most `max_lines` of them, from its start).
#[inline(always)]
pub fn prefetch_lines<T>(r: &T, max_lines: usize) {
    prefetch_at(std::ptr::from_ref(r), max_lines);
}

/// Start loading the lines of `items[i]` (at most `max_lines`) with no bounds check: a
/// prefetch never faults, so an index past the end (a placeholder id) only loads a line that
/// nobody reads. An arrival issues four or five of these hints, and their compares and
/// branches were as many instructions as the hints themselves (issue 26).
#[inline(always)]
pub fn prefetch_item<T>(items: &[T], i: usize, max_lines: usize) {
    prefetch_at(items.as_ptr().wrapping_add(i), max_lines);
}

/// The lines of a `T` at `first` (at most `max_lines`); `first` need not point at anything.
#[inline(always)]
fn prefetch_at<T>(first: *const T, max_lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = first.cast::<i8>();
        let size = std::mem::size_of::<T>().max(1);
        // The lines that hold the first and the last byte, and those between, up to max_lines.
        // A record aligned to a line spans a number of lines known at compile time: the loop
        // unrolls into that many prefetches (a flow's state is 14 lines, prefetched per delivery).
        let lines = if std::mem::align_of::<T>().is_multiple_of(64) {
            size.div_ceil(64).min(max_lines)
        } else {
            ((first as usize + size - 1) / 64 - first as usize / 64 + 1).min(max_lines)
        };
        for i in 0..lines {
            // SAFETY: a prefetch only hints the cache and never faults, whatever the address
            // (wrapping_add: no pointer arithmetic is assumed to stay in bounds).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(i * 64)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (first, max_lines);
}

/// Start loading every cache line of `r`.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    prefetch_lines(r, usize::MAX);
}

/// Above this many bytes of the records an event reads at random (channels and flows), the
/// hot path prefetches them; below, they stay in a core's L2 cache and a prefetch only costs
/// its instructions. Callgrind on htsim's dumbbells, 10 / 100 / 1000 flows: 72 / 69 / 54
/// instructions per injected packet are prefetches and their addresses (of about 1,230);
/// the run loop without them, alternating, took 0.95 / 0.90 of the time at 10 and 100 flows
/// (records of 0.03 and 0.25 MB), 0.92-0.96 at 30 to 500 flows, while at 1000 flows (2.4 MB)
/// and beyond the two were level within the machine's noise, and at 10^4 flows and more the
/// records come from memory, where the hints were measured to pay (issue 26).
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// Whether a run whose randomly read records (channels, flows) take `hot_bytes` should
/// prefetch them (`PREFETCH_ABOVE_BYTES`).
pub fn worth_prefetching(hot_bytes: usize) -> bool {
    hot_bytes > PREFETCH_ABOVE_BYTES
}

/// Below this, an array is not worth a huge page of its own (half of a 2 MiB page).
const HUGE_MIN_BYTES: usize = 1 << 20;

/// Ask the OS to back the memory of `v` (its whole capacity) with huge pages, where it gives
/// them (Linux's transparent huge pages in `madvise` or `always` mode). Call it once the array
/// is written: a large array usually reuses heap pages that already exist, which
/// `MADV_HUGEPAGE` alone would leave as they are, so `MADV_COLLAPSE` (Linux 6.1 and later)
/// moves them onto huge pages now (a copy of the array, a few milliseconds for 20 MB).
/// Returns whether the OS took the advice; anywhere else, or for a small array, nothing
/// happens.
pub fn advise_huge_pages<T>(v: &Vec<T>) -> bool {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_MIN_BYTES {
        return false;
    }
    advise(v.as_ptr().cast(), bytes)
}

#[cfg(target_os = "linux")]
fn advise(start: *const u8, bytes: usize) -> bool {
    const HUGE: usize = 2 << 20;
    // Whole huge pages inside the allocation: madvise wants a page-aligned start.
    let first = (start as usize).next_multiple_of(HUGE);
    let end = (start as usize + bytes) / HUGE * HUGE;
    if end <= first {
        return false;
    }
    let (addr, len) = (first as *mut libc::c_void, end - first);
    // SAFETY: the range lies inside the live allocation of `v`; both advices change how it
    // is backed, never its contents or its validity.
    unsafe {
        if libc::madvise(addr, len, libc::MADV_HUGEPAGE) != 0 {
            return false;
        }
        collapse(addr, len);
    }
    true
}

/// `MADV_COLLAPSE` where the libc names it (an older kernel refuses it: the pages stay small).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn collapse(addr: *mut libc::c_void, len: usize) {
    // SAFETY: as in `advise`.
    unsafe { libc::madvise(addr, len, libc::MADV_COLLAPSE) };
}

#[cfg(all(target_os = "linux", not(target_env = "gnu")))]
unsafe fn collapse(_addr: *mut libc::c_void, _len: usize) {}

#[cfg(not(target_os = "linux"))]
fn advise(_start: *const u8, _bytes: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_any_record_is_harmless() {
        let v: Vec<u64> = (0..100).collect();
        prefetch(&v[3]);
        prefetch_lines(&v, 4);
        prefetch(&[0u8; 0]);
        // Past the end, or an id that is no index at all: still only a hint.
        prefetch_item(&v, 100, 2);
        prefetch_item(&v, u32::MAX as usize, 2);
        assert_eq!(v[99], 99);
    }

    #[test]
    fn huge_page_advice_skips_small_arrays_and_keeps_contents() {
        let small: Vec<u64> = Vec::with_capacity(16);
        assert!(!advise_huge_pages(&small));
        let mut big: Vec<u64> = Vec::with_capacity(1 << 20); // 8 MiB
        big.extend(0..1 << 20);
        let advised = advise_huge_pages(&big);
        assert_eq!(big.iter().sum::<u64>(), (1u64 << 20) * ((1 << 20) - 1) / 2);
        // Linux gives huge pages unless THP is off; elsewhere the advice is never taken.
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if cfg!(target_os = "linux") && (thp.contains("[madvise]") || thp.contains("[always]")) {
            assert!(advised, "the kernel offers huge pages ({thp:?}) but refused the advice");
        }
    }
}
