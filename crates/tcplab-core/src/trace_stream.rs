//! Traces written to their files while the run produces them.
//!
//! A traced 10 Gb/s bulk flow makes about 180 MB of rows a second: held in memory until the run
//! ends, a long run exhausts the machine. With an output folder, each trace goes through one
//! fixed buffer (`BUFFER_BYTES`) straight into its file, so a run holds a buffer per trace
//! however long it is. Rows are formatted into the buffer in place (no allocation per row), by
//! the same code (`CsvRow`) that writes an in-memory trace, so the files hold the same bytes
//! either way. Without an output folder the rows stay in memory (`Rows::Memory`), as the
//! library's callers that read `FlowTrace` expect; so do the traces beyond the open-file budget
//! (`file_budget`, `StreamPlan`), written when the run ends.
//!
//! Nothing half-written: a stream writes `NAME.partial` and renames it to NAME only when the
//! run has ended well (`CsvStream::finish`). A stream dropped unfinished (an i/o error, a
//! broken invariant, Ctrl-C, a panic) removes its partial file, so a file under a trace's own
//! name is always complete. Only a killed process (SIGKILL, a power cut) leaves a `.partial`
//! file behind, under that suffix.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::net::queue::QueueSample;
use crate::tcp::sender::{SendRecord, TraceRow};

/// The buffer of one streamed trace file (what a streamed trace costs in memory).
pub const BUFFER_BYTES: usize = 64 * 1024;

/// Suffix of a trace file while its run is still writing it.
pub const PARTIAL_SUFFIX: &str = ".partial";

/// How many trace files a run keeps open at once: half the process's open-file limit, at most
/// 1024 (64 MiB of buffers). Beyond it, traces stay in memory and are written when the
/// run ends, as without a folder: a run with thousands of traced flows still runs under a
/// 1024-file limit.
#[allow(clippy::unnecessary_cast)] // rlim_t is u64 here, not on every platform
pub fn file_budget() -> usize {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes into `r`, a valid rlimit.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) } == 0 { r.rlim_cur as u64 } else { 1024 };
    (soft / 2).clamp(8, 1024) as usize
}

/// Which traces a run with an output folder streams: traced flows in order (two files each),
/// then traced queues (one each), while `files` lasts; the others stay in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPlan {
    pub flows: Vec<bool>,
    pub channels: Vec<bool>,
}

impl StreamPlan {
    pub fn new(model: &crate::scenario::Model, files: usize) -> Self {
        let mut left = files;
        let mut take = |n: usize| {
            let ok = left >= n;
            left -= if ok { n } else { 0 };
            ok
        };
        let flows = model.flows.iter().map(|f| f.trace && take(2)).collect();
        let channels = model.channels.iter().map(|c| c.trace_queue && take(1)).collect();
        Self { flows, channels }
    }
}

/// A flow's window and sequence trace.
pub fn trace_file(flow: u32) -> String {
    format!("trace-flow{flow}.csv")
}

/// A flow's record of data segments sent.
pub fn segments_file(flow: u32) -> String {
    format!("segments-flow{flow}.csv")
}

/// A channel's queue trace.
pub fn queue_file(channel: usize) -> String {
    format!("queue-{channel}.csv")
}

/// A trace record that is one CSV line.
pub trait CsvRow {
    /// The column names, without the line end.
    const HEADER: &'static str;
    /// Write the record as one line, newline included.
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()>;
}

impl CsvRow for TraceRow {
    const HEADER: &'static str = "time_s,cwnd,ssthresh,snd_una,snd_nxt";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        writeln!(w, "{:.9},{},{},{},{}", self.time as f64 / 1e9, self.cwnd, self.ssthresh, self.snd_una, self.snd_nxt)
    }
}

impl CsvRow for SendRecord {
    const HEADER: &'static str = "time_s,offset,len,retransmit";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        writeln!(w, "{:.9},{},{},{}", self.time as f64 / 1e9, self.offset, self.len, self.retransmit as u8)
    }
}

impl CsvRow for QueueSample {
    /// `avg` (RED's average) is empty for queues without RED.
    const HEADER: &'static str = "time_s,packets,bytes,avg";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        write!(w, "{:.9},{},{},", self.time as f64 / 1e9, self.packets, self.bytes)?;
        match self.avg {
            Some(a) => writeln!(w, "{a:.6}"),
            None => writeln!(w),
        }
    }
}

/// Write a header and every row.
pub fn write_csv<R: CsvRow>(rows: &[R], w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "{}", R::HEADER)?;
    rows.iter().try_for_each(|r| r.write_csv(w))
}

/// One trace file being written: rows go through a fixed buffer into `NAME.partial`.
#[derive(Debug)]
pub struct CsvStream {
    out: BufWriter<File>,
    partial: PathBuf,
    path: PathBuf,
    /// The first write error: the run goes on (a row cannot stop it), `finish` reports it.
    error: Option<io::Error>,
    finished: bool,
}

impl CsvStream {
    /// Start `path` (written as `path.partial` until `finish`) with `R`'s header.
    pub fn create<R: CsvRow>(path: PathBuf) -> io::Result<Self> {
        let mut name = path.clone().into_os_string();
        name.push(PARTIAL_SUFFIX);
        let partial = PathBuf::from(name);
        let file = File::create(&partial).map_err(|e| with_path(e, &partial))?;
        let mut s =
            Self { out: BufWriter::with_capacity(BUFFER_BYTES, file), partial, path, error: None, finished: false };
        s.line(|w| writeln!(w, "{}", R::HEADER));
        Ok(s)
    }

    #[inline]
    fn push<R: CsvRow>(&mut self, row: &R) {
        self.line(|w| row.write_csv(w));
    }

    #[inline]
    fn line(&mut self, f: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) {
        if self.error.is_none() {
            if let Err(e) = f(&mut self.out) {
                self.error = Some(e);
            }
        }
    }

    /// Flush, and put the file under its own name (replacing one left by an earlier run).
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(with_path(e, &self.partial));
        }
        self.out.flush().map_err(|e| with_path(e, &self.partial))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| with_path(e, &self.path))?;
        self.finished = true;
        Ok(())
    }

    /// Where the file goes when the run ends well.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CsvStream {
    fn drop(&mut self) {
        if !self.finished {
            // The run did not end well: no half-written trace stays (the error is reported
            // by whoever dropped the run; a failed removal leaves only a `.partial` name).
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Where a trace's rows go: kept in memory for the caller, or streamed to a file.
#[derive(Debug)]
pub enum Rows<R> {
    Memory(Vec<R>),
    File(CsvStream),
}

impl<R> Default for Rows<R> {
    fn default() -> Self {
        Rows::Memory(Vec::new())
    }
}

/// A copy keeps its rows in memory: a file has one writer, its original.
impl<R: Clone> Clone for Rows<R> {
    fn clone(&self) -> Self {
        match self {
            Rows::Memory(v) => Rows::Memory(v.clone()),
            Rows::File(_) => Rows::Memory(Vec::new()),
        }
    }
}

impl<R: CsvRow> Rows<R> {
    /// Stream into the file `path` from now on.
    pub fn file(path: PathBuf) -> io::Result<Self> {
        CsvStream::create::<R>(path).map(Rows::File)
    }

    #[inline]
    pub fn push(&mut self, row: R) {
        match self {
            Rows::Memory(v) => v.push(row),
            Rows::File(f) => f.push(&row),
        }
    }

    /// The rows kept in memory (none when streamed: they are in the file).
    pub fn take(&mut self) -> Vec<R> {
        match self {
            Rows::Memory(v) => std::mem::take(v),
            Rows::File(_) => Vec::new(),
        }
    }

    pub fn is_streamed(&self) -> bool {
        matches!(self, Rows::File(_))
    }

    /// Complete a streamed file (see `CsvStream::finish`); nothing to do in memory.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            Rows::Memory(_) => Ok(()),
            Rows::File(f) => f.finish(),
        }
    }
}

/// A traced flow's two traces: window and sequence rows, and the data segments sent.
#[derive(Debug, Clone, Default)]
pub struct FlowTraceSink {
    pub rows: Rows<TraceRow>,
    pub sends: Rows<SendRecord>,
}

impl FlowTraceSink {
    /// Stream flow `flow`'s traces into `dir` (`trace_file` and `segments_file`).
    pub fn files(dir: &Path, flow: u32) -> io::Result<Self> {
        Ok(Self { rows: Rows::file(dir.join(trace_file(flow)))?, sends: Rows::file(dir.join(segments_file(flow)))? })
    }

    /// Out of line (as `send`), so that an untraced flow's sender pays one test of its
    /// `Option` and keeps its callers small enough to inline.
    #[inline(never)]
    pub fn row(&mut self, row: TraceRow) {
        self.rows.push(row);
    }

    #[inline(never)]
    pub fn send(&mut self, record: SendRecord) {
        self.sends.push(record);
    }

    pub fn is_streamed(&self) -> bool {
        self.rows.is_streamed()
    }

    pub fn finish(&mut self) -> io::Result<()> {
        self.rows.finish()?;
        self.sends.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tcplab-stream-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn rows(n: u64) -> Vec<TraceRow> {
        // Odd times and large values exercise the 9-decimal time and every column's width.
        (0..n)
            .map(|i| TraceRow {
                time: i * 1_234_567_891 + 7,
                cwnd: 1460 * (i % 97 + 1),
                ssthresh: if i % 5 == 0 { u32::MAX as u64 } else { 1460 * 8 },
                snd_una: i * 1460,
                snd_nxt: i * 1460 + 14_600,
            })
            .collect()
    }

    fn in_memory<R: CsvRow>(rows: &[R]) -> Vec<u8> {
        let mut v = Vec::new();
        write_csv(rows, &mut v).unwrap();
        v
    }

    #[test]
    fn a_streamed_file_holds_the_in_memory_paths_bytes() {
        let d = dir("equal");
        let path = d.join(trace_file(3));
        // More rows than one buffer holds, so the buffer is flushed and reused many times.
        let rows = rows(20_000);
        let mut s = Rows::<TraceRow>::file(path.clone()).unwrap();
        let mut mem = Rows::default();
        for r in &rows {
            s.push(*r);
            mem.push(*r);
        }
        assert!(!path.exists(), "the file keeps its partial name until the run ends");
        s.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 10 * BUFFER_BYTES);
        assert_eq!(bytes, in_memory(&mem.take()));
        assert_eq!(bytes, in_memory(&rows));
        assert!(!d.join("trace-flow3.csv.partial").exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn queue_and_segment_rows_match_too() {
        let d = dir("kinds");
        let sends: Vec<SendRecord> = (0..500)
            .map(|i| SendRecord { time: i * 999_999, offset: i * 1460, len: 1460, retransmit: i % 7 == 0 })
            .collect();
        let samples: Vec<QueueSample> = (0..500)
            .map(|i| QueueSample {
                time: i * 1_000_001,
                packets: i as u32 % 60,
                bytes: i * 1500 % 90_000,
                avg: (i % 3 != 0).then_some(i as f64 / 7.0),
            })
            .collect();
        let mut a = Rows::<SendRecord>::file(d.join(segments_file(0))).unwrap();
        let mut b = Rows::<QueueSample>::file(d.join(queue_file(2))).unwrap();
        sends.iter().for_each(|r| a.push(*r));
        samples.iter().for_each(|r| b.push(*r));
        a.finish().unwrap();
        b.finish().unwrap();
        assert_eq!(std::fs::read(d.join("segments-flow0.csv")).unwrap(), in_memory(&sends));
        let queue = std::fs::read(d.join("queue-2.csv")).unwrap();
        assert_eq!(queue, in_memory(&samples));
        // Without RED the average column is empty, as before streaming existed.
        assert!(String::from_utf8(queue).unwrap().lines().nth(1).unwrap().ends_with(",0,0,"));
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_unfinished_stream_leaves_nothing_and_an_old_file_stays() {
        let d = dir("drop");
        std::fs::write(d.join("trace-flow0.csv"), "old\n").unwrap();
        let mut s = FlowTraceSink::files(&d, 0).unwrap();
        rows(1000).into_iter().for_each(|r| s.rows.push(r));
        assert!(d.join("trace-flow0.csv.partial").exists());
        drop(s); // the run stopped (Ctrl-C, an error)
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["trace-flow0.csv"]);
        assert_eq!(std::fs::read_to_string(d.join("trace-flow0.csv")).unwrap(), "old\n");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn the_plan_streams_traces_in_order_while_the_file_budget_lasts() {
        let flow = "[[flow]]\nsrc = \"a\"\ndst = \"b\"\n";
        let text = format!(
            "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[link]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
             trace_queue = true\n{flow}trace = true\n{flow}{flow}trace = true\n"
        );
        let model = crate::scenario::parse(&text).unwrap().validate(None).unwrap();
        let plan = |files| StreamPlan::new(&model, files);
        assert_eq!(plan(100), StreamPlan { flows: vec![true, false, true], channels: vec![true, true] });
        // Three files: the first traced flow's two, then one queue; the second flow stays in memory.
        assert_eq!(plan(3), StreamPlan { flows: vec![true, false, false], channels: vec![true, false] });
        assert_eq!(plan(0), StreamPlan { flows: vec![false; 3], channels: vec![false; 2] });
        assert!((8..=1024).contains(&file_budget()));
    }

    #[test]
    fn a_write_error_is_reported_with_the_file_name() {
        // /dev/full accepts the open and fails every write: the error surfaces at the end.
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let mut s = CsvStream {
            out: BufWriter::with_capacity(16, File::options().write(true).open(full).unwrap()),
            partial: PathBuf::from("/nonexistent/x.csv.partial"),
            path: PathBuf::from("/nonexistent/x.csv"),
            error: None,
            finished: false,
        };
        rows(10).iter().for_each(|r| s.push(r));
        let e = s.finish().unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/x.csv.partial: "), "{e}");
    }
}
