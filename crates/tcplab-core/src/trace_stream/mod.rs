//! Which traces a run writes where, and the records' CSV lines: the plan on top of the leaf
//! writer (`csv`).
//!
//! A traced 10 Gb/s bulk flow makes about 180 MB of rows a second: held in memory until the run
//! ends, a long run exhausts the machine. With an output folder, each trace goes through one
//! fixed buffer (`BUFFER_BYTES`) straight into its file, so a run holds a buffer per trace
//! however long it is. The sender itself does no I/O: it appends to a buffer it owns
//! (`tcp::trace`), which the simulation drains into the flow's files (`FlowFiles`) after each
//! call, so the buffer holds a few rows at a time and, once grown, allocates nothing more.
//! Without an output folder the rows stay in memory, as the library's callers that read
//! `FlowTrace` expect; so do the traces beyond the open-file budget (`file_budget`,
//! `StreamPlan`), written when the run ends.

use std::io::{self, Write};
use std::path::Path;

pub use crate::csv::{write_csv, CsvRow, CsvStream, Rows, BUFFER_BYTES, PARTIAL_SUFFIX};

use crate::net::queue::QueueSample;
use crate::tcp::trace::{SendRecord, SenderTrace, TraceRow};

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
/// then traced queues (one each, two for an AQM queue with its sojourn trace), then drop
/// traces (one each), while `files` lasts; the others stay in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPlan {
    pub flows: Vec<bool>,
    pub channels: Vec<bool>,
    pub drops: Vec<bool>,
}

impl StreamPlan {
    pub fn new(model: &crate::config::model::Model, files: usize) -> Self {
        let mut left = files;
        let mut take = |n: usize| {
            let ok = left >= n;
            left -= if ok { n } else { 0 };
            ok
        };
        let flows = model.flows.iter().map(|f| f.trace && take(2)).collect();
        // An AQM queue's trace is two files: its arrivals and its departures' sojourn times.
        let queue_files = |c: &crate::config::link::ChannelModel| {
            1 + usize::from(c.qdisc.as_ref().is_some_and(crate::net::qdisc::QdiscModel::traces_sojourn))
        };
        let channels = model.channels.iter().map(|c| c.trace_queue && take(queue_files(c))).collect();
        let drops = model.channels.iter().map(|c| c.trace_drops && take(1)).collect();
        Self { flows, channels, drops }
    }

    /// Whether any trace streams.
    pub fn any(&self) -> bool {
        self.flows.iter().chain(&self.channels).chain(&self.drops).any(|&s| s)
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

/// A channel's drop trace.
pub fn drops_file(channel: usize) -> String {
    format!("drops-{channel}.csv")
}

impl CsvRow for TraceRow {
    /// `rtt_sample_s` is empty on rows without a new sample.
    const HEADER: &'static str = "time_s,cwnd,ssthresh,snd_una,snd_nxt,rtt_sample_s,srtt_s,rto_s,flight";
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
        let s = |ns: u64| ns as f64 / 1e9;
        write!(w, "{:.9},{},{},{},{},", s(self.time), self.cwnd, self.ssthresh, self.snd_una, self.snd_nxt)?;
        if let Some(r) = self.rtt_sample {
            write!(w, "{:.9}", s(r))?;
        }
        writeln!(w, ",{:.9},{:.9},{}", s(self.srtt), s(self.rto), self.flight)
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

/// A streamed flow's two files: window and sequence rows, and the data segments sent.
#[derive(Debug)]
struct FlowStreams {
    rows: CsvStream,
    sends: CsvStream,
}

impl FlowStreams {
    /// Write out (and empty) what the sender recorded since the last drain; the buffer keeps
    /// its capacity, so a run that streams allocates nothing per row once it has warmed up.
    #[inline(never)]
    fn write(&mut self, trace: &mut SenderTrace) {
        trace.rows.drain(..).for_each(|r| self.rows.push(&r));
        trace.sends.drain(..).for_each(|s| self.sends.push(&s));
    }
}

/// The traced flows whose traces stream into files, by flow number (empty: none does).
#[derive(Debug, Default)]
pub struct FlowFiles {
    flows: Vec<Option<FlowStreams>>,
}

impl FlowFiles {
    /// Open `trace_file` and `segments_file` in `dir` for every flow the plan streams.
    pub fn open(dir: &Path, plan: &StreamPlan) -> io::Result<Self> {
        let flows = plan
            .flows
            .iter()
            .enumerate()
            .map(|(i, &on)| on.then(|| FlowStreams::open(dir, i as u32)).transpose())
            .collect::<io::Result<_>>()?;
        Ok(Self { flows })
    }

    /// Move flow `flow`'s new records into its files, if they stream (call after every call
    /// into its sender, so its buffer stays small).
    #[inline]
    pub fn drain(&mut self, flow: u32, trace: Option<&mut SenderTrace>) {
        if let (Some(Some(files)), Some(trace)) = (self.flows.get_mut(flow as usize), trace) {
            files.write(trace);
        }
    }

    pub fn is_streamed(&self, flow: u32) -> bool {
        self.flows.get(flow as usize).is_some_and(|f| f.is_some())
    }

    /// Complete every file (see `CsvStream::finish`).
    pub fn finish(&mut self) -> io::Result<()> {
        for f in self.flows.iter_mut().flatten() {
            f.rows.finish()?;
            f.sends.finish()?;
        }
        Ok(())
    }
}

impl FlowStreams {
    fn open(dir: &Path, flow: u32) -> io::Result<Self> {
        Ok(Self {
            rows: CsvStream::create::<TraceRow>(dir.join(trace_file(flow)))?,
            sends: CsvStream::create::<SendRecord>(dir.join(segments_file(flow)))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

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
                rtt_sample: (i % 3 == 0).then_some(i * 1_000_003),
                srtt: i * 999_999,
                rto: 200_000_000 + i,
                flight: 14_600,
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

    /// Files of flow 0 (streamed) and flow 1 (kept in memory) in `d`.
    fn files_of_flow_0(d: &Path) -> FlowFiles {
        FlowFiles::open(d, &StreamPlan { flows: vec![true, false], channels: vec![], drops: vec![] }).unwrap()
    }

    #[test]
    fn draining_a_senders_buffer_streams_its_records_and_empties_it() {
        let d = dir("drain");
        let mut files = files_of_flow_0(&d);
        let (mut streamed, mut kept) = (SenderTrace::default(), SenderTrace::default());
        let all = rows(5000);
        let sends: Vec<SendRecord> = (0..5000)
            .map(|i| SendRecord { time: i * 7, offset: i * 1460, len: 1460, retransmit: i % 3 == 0 })
            .collect();
        for (chunk, send_chunk) in all.chunks(7).zip(sends.chunks(7)) {
            chunk.iter().for_each(|r| streamed.row(*r));
            send_chunk.iter().for_each(|s| streamed.send(*s));
            chunk.iter().for_each(|r| kept.row(*r));
            files.drain(0, Some(&mut streamed));
            files.drain(1, Some(&mut kept));
            assert!(streamed.rows.is_empty() && streamed.sends.is_empty());
        }
        assert!(files.is_streamed(0) && !files.is_streamed(1) && !files.is_streamed(2));
        assert_eq!(kept.rows.len(), 5000, "a flow kept in memory keeps its rows");
        files.finish().unwrap();
        assert_eq!(std::fs::read(d.join(trace_file(0))).unwrap(), in_memory(&all));
        assert_eq!(std::fs::read(d.join(segments_file(0))).unwrap(), in_memory(&sends));
        assert!(!d.join(trace_file(1)).exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_unfinished_stream_leaves_nothing_and_an_old_file_stays() {
        let d = dir("drop");
        std::fs::write(d.join("trace-flow0.csv"), "old\n").unwrap();
        let mut files = files_of_flow_0(&d);
        let mut t = SenderTrace::default();
        rows(1000).into_iter().for_each(|r| t.row(r));
        files.drain(0, Some(&mut t));
        assert!(d.join("trace-flow0.csv.partial").exists());
        drop(files); // the run stopped (Ctrl-C, an error)
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
        let model = crate::config::parse(&text).unwrap().validate(None).unwrap();
        let plan = |files| StreamPlan::new(&model, files);
        let drops = vec![false; 2];
        assert_eq!(plan(100), StreamPlan { flows: vec![true, false, true], channels: vec![true, true], drops });
        // Three files: the first traced flow's two, then one queue; the second flow stays in memory.
        let drops = vec![false; 2];
        assert_eq!(plan(3), StreamPlan { flows: vec![true, false, false], channels: vec![true, false], drops });
        let none = StreamPlan { flows: vec![false; 3], channels: vec![false; 2], drops: vec![false; 2] };
        assert_eq!(plan(0), none);
        assert!(!plan(0).any() && plan(3).any());
        assert!((8..=1024).contains(&file_budget()));
    }
}
