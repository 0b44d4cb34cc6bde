//! How often a run asks its caller whether to stop (Ctrl-C).
//!
//! The Python binding runs the core with the GIL released, so Python's SIGINT handler cannot
//! run; every `INTERRUPT_EVERY` events the core calls back, and the binding takes the GIL for
//! a moment to run pending signal handlers. 2^18 events is a few milliseconds to a few tens of
//! milliseconds of simulation on the benchmark scenarios (prompt enough for a human), while the
//! check on the other events is one compare of a counter the loop keeps anyway.

/// Events between two interrupt checks (a power of two, so the test is a mask).
pub const INTERRUPT_EVERY: u64 = 1 << 18;
