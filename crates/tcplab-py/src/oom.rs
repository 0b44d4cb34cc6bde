//! An allocation that fails ends the process with one line, not Rust's abort.
//!
//! The memory estimate (`tcplab_core::budget`) refuses a run that would not fit the limit, so a
//! run it accepts should never fail to allocate. But the estimate is an upper bound of what grows
//! with the scenario, not of everything, and the room can shrink during the run (other
//! processes, a limit lowered from outside). Rust's default then prints "memory allocation of N
//! bytes failed" and aborts: exit 134, a core dump, and in a terminal "Aborted (core dumped)".
//! Its hook for that (`std::alloc::set_alloc_error_hook`) is not stable, so this module wraps
//! the system allocator instead: when it returns no memory, the process writes one line on
//! stderr naming the size it could not get and what limits it, and exits with status 2, as a
//! refusal of the estimate does. (Python's own allocations do not come here: they raise
//! MemoryError, which the CLI reports in one line too.)
//!
//! Nothing in the core asks for memory it can do without (no `try_reserve`), so ending the
//! process at the first failure loses no fallback. `_exit` skips Python's clean-up: a run's
//! work folder in `--out` stays behind and the next run into that folder removes it
//! (`out_dir.OutFolder`), and a sweep's parent records the worker's death.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;

/// The exit status of a process that ran out of memory: the one of a refused scenario.
pub const EXIT_OUT_OF_MEMORY: i32 = 2;

pub struct OneLineOnFailure;

// SAFETY: every call is forwarded to the system allocator with its own arguments; only a null
// result is handled (by ending the process).
unsafe impl GlobalAlloc for OneLineOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout), layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size), new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[inline(always)]
fn checked(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        out_of_memory(size)
    }
    p
}

/// A line in a fixed buffer: formatting it must not allocate.
struct Line {
    buf: [u8; 400],
    len: usize,
}

impl std::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// What limits the process, as the estimate's refusals name it (`tcplab_core::mem_limit`):
/// read with getrlimit only (no allocation).
fn limited_by() -> &'static str {
    let set = |resource| {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit only writes into `r`.
        let got = unsafe { libc::getrlimit(resource, &mut r) };
        got == 0 && r.rlim_cur != libc::RLIM_INFINITY
    };
    if set(libc::RLIMIT_AS) {
        "the address-space limit (ulimit -v)"
    } else if set(libc::RLIMIT_DATA) {
        "the data limit (ulimit -d)"
    } else {
        "the machine or a memory limit on this process"
    }
}

/// `size` bytes in the units the estimate's messages use (`units::human_bytes`), in integers.
fn write_size(line: &mut Line, size: usize) {
    let size = size as u64;
    let (unit, scale) = match size {
        0..=999_999 => ("kB", 1_000),
        1_000_000..=999_999_999 => ("MB", 1_000_000),
        _ => ("GB", 1_000_000_000),
    };
    let tenths = (size * 10 / scale).max(1);
    let _ = write!(line, "{}.{} {unit}", tenths / 10, tenths % 10);
}

#[cold]
fn out_of_memory(size: usize) -> ! {
    let mut line = Line { buf: [0; 400], len: 0 };
    let _ = line.write_str("error: out of memory: the run could not get ");
    write_size(&mut line, size);
    let _ = writeln!(
        line,
        " more ({} gave no more); make the run smaller or run it where the process may use more \
         memory",
        limited_by()
    );
    // SAFETY: write and _exit are async-signal-safe and allocate nothing; the buffer is ours.
    unsafe {
        libc::write(2, line.buf.as_ptr().cast(), line.len);
        libc::_exit(EXIT_OUT_OF_MEMORY)
    }
}
