//! Traces streamed into the output folder hold the same bytes as the in-memory path, and a
//! stopped run leaves no half-written trace.

mod common;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;

use common::*;
use tcplab_core::config;
use tcplab_core::sim::Simulation;
use tcplab_core::trace_stream::Rows;
use tcplab_core::{run_scenario, run_scenario_limited, Error, RunOptions};

/// Counts this thread's allocations (tests run on threads of their own).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tcplab-stream-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Lossy data and ACK directions, RED on the data queue, both queues traced.
fn traced() -> String {
    two_hosts("", "{ model = \"bernoulli\", p = 0.01 }", 3_000_000, 10.0).replace(
        "queue = 1000\n",
        "queue = 1000\ntrace_queue = true\nqdisc = { kind = \"red\", min_th = 5, max_th = 15 }\n",
    )
}

fn names(dir: &PathBuf) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn streamed_files_equal_the_in_memory_traces() {
    let text = traced();
    let dir = folder("equal");
    let opts = RunOptions { seed: Some(3), out_dir: Some(dir.clone()) };
    let (streamed, returned) = run_scenario(&text, &opts).unwrap();
    assert!(returned.is_empty(), "streamed traces are in the files, not returned");
    assert_eq!(names(&dir), ["queue-0.csv", "queue-1.csv", "segments-flow0.csv", "summary.json", "trace-flow0.csv"]);

    // The in-memory path: the same run, traces kept and written after it.
    let model = config::parse(&text).unwrap().validate(Some(3)).unwrap();
    let mut sim = Simulation::new(model).unwrap();
    let (report, traces) = sim.run().unwrap();
    assert_eq!(report.events, streamed.events);
    let t = &traces[0];
    assert!(t.rows.len() > 1000 && t.sends.iter().any(|s| s.retransmit), "a trace worth comparing");
    let mut rows = Vec::new();
    t.write_csv(&mut rows).unwrap();
    let mut sends = Vec::new();
    t.write_sends_csv(&mut sends).unwrap();
    assert_eq!(std::fs::read(dir.join("trace-flow0.csv")).unwrap(), rows);
    assert_eq!(std::fs::read(dir.join("segments-flow0.csv")).unwrap(), sends);
    let mem = folder("equal-mem");
    std::fs::create_dir_all(&mem).unwrap();
    sim.write_queue_traces(&mem).unwrap();
    for q in ["queue-0.csv", "queue-1.csv"] {
        let (a, b) = (std::fs::read(dir.join(q)).unwrap(), std::fs::read(mem.join(q)).unwrap());
        assert!(b.len() > 10_000, "{q}: {} bytes", b.len());
        assert_eq!(a, b, "{q}");
    }
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(mem).unwrap();
}

#[test]
fn a_stopped_run_leaves_the_folder_as_it_was() {
    let dir = folder("stop");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("trace-flow0.csv"), "from an earlier run\n").unwrap();
    let opts = RunOptions { seed: Some(1), out_dir: Some(dir.clone()) };
    let long = two_hosts("", "", 200_000_000, 200.0);
    let mut asked = 0;
    let r = run_scenario_limited(&long, &opts, None, &mut || {
        asked += 1;
        // By the second check the flow has sent thousands of segments: rows were streamed.
        if asked == 2 {
            assert!(dir.join("trace-flow0.csv.partial").exists());
        }
        asked == 2
    });
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.err());
    assert_eq!(names(&dir), ["trace-flow0.csv"]);
    assert_eq!(std::fs::read_to_string(dir.join("trace-flow0.csv")).unwrap(), "from an earlier run\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_streamed_row_allocates_nothing() {
    use tcplab_core::net::queue::QueueSample;
    use tcplab_core::tcp::sender::TraceRow;
    let dir = folder("alloc");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rows = Rows::<TraceRow>::file(dir.join("trace-flow0.csv")).unwrap();
    let mut queue = Rows::<QueueSample>::file(dir.join("queue-0.csv")).unwrap();
    let before = allocations();
    // Many buffers' worth: the buffer is flushed and reused, never grown.
    for i in 0..200_000u64 {
        let time = i * 1_234_567;
        rows.push(TraceRow {
            time,
            cwnd: 1460 * i,
            ssthresh: u32::MAX as u64,
            snd_una: i,
            snd_nxt: 2 * i,
            rtt_sample: (i % 2 == 0).then_some(i),
            srtt: i,
            rto: 2 * i,
            flight: i,
        });
        queue.push(QueueSample { time, packets: 3, bytes: 4500, avg: Some(i as f64 / 3.0) });
    }
    assert_eq!(allocations() - before, 0);
    // The counter does see allocations: rows kept in memory grow their vector.
    let mut kept = Rows::<TraceRow>::default();
    (0..1000).for_each(|i| kept.push(TraceRow { time: i, ..Default::default() }));
    assert!(allocations() - before > 0);
    rows.finish().unwrap();
    queue.finish().unwrap();
    assert!(std::fs::metadata(dir.join("queue-0.csv")).unwrap().len() > 4_000_000);
    std::fs::remove_dir_all(dir).unwrap();
}
