//! The files a run writes besides its streamed traces: queue and drop traces kept in memory,
//! the streamed pcaps, and every trace as CSV text for a caller without an output folder.

use std::collections::BTreeMap;
use std::path::Path;

use super::Simulation;
use crate::csv::{write_csv, Rows};
use crate::error::Error;
use crate::metrics::FlowTrace;
use crate::net::sojourn_trace::sojourn_file;
use crate::trace_stream::{drops_file, queue_file, segments_file, trace_file};

impl Simulation {
    /// Write `queue-<channel>.csv` for every channel that traced its queue, and
    /// `drops-<channel>.csv` for every channel that traced its drops, when kept in memory.
    pub fn write_queue_traces(&self, dir: &Path) -> Result<(), Error> {
        for (i, c) in self.channels.iter().enumerate() {
            write_queue_trace(&c.queue, &dir.join(queue_file(i)))?;
            if let Some(Rows::Memory(rows)) = c.queue.drops.as_deref().map(|d| &d.rows) {
                write_file(&dir.join(drops_file(i)), rows)?;
            }
            if let Some(Rows::Memory(rows)) = c.queue.sojourn_trace().map(|t| &t.rows) {
                write_file(&dir.join(sojourn_file(i)), rows)?;
            }
        }
        Ok(())
    }

    /// Stream the drop traces `plan` names (by channel) into `dir` from now on.
    pub(super) fn stream_drops(&mut self, dir: &Path, plan: &[bool]) -> Result<(), Error> {
        for (i, c) in self.channels.iter_mut().enumerate().filter(|(i, _)| plan[*i]) {
            if let Some(d) = c.queue.drops.as_deref_mut() {
                d.rows = Rows::file(dir.join(drops_file(i)))?;
            }
        }
        Ok(())
    }

    /// Every trace of a run kept in memory, as the CSV files a run with an output folder
    /// writes, by file name: the flows' (`traces`, as the run returned them), the queues'
    /// and the drop traces.
    pub fn trace_files_in_memory(&self, traces: &[FlowTrace]) -> Result<BTreeMap<String, Vec<u8>>, Error> {
        let mut files = BTreeMap::new();
        for t in traces {
            let (mut rows, mut sends) = (Vec::new(), Vec::new());
            t.write_csv(&mut rows)?;
            t.write_sends_csv(&mut sends)?;
            files.insert(trace_file(t.flow), rows);
            files.insert(segments_file(t.flow), sends);
        }
        for (i, c) in self.channels.iter().enumerate() {
            if let Some(Rows::Memory(samples)) = c.queue.trace.as_deref() {
                let mut out = Vec::new();
                write_csv(samples, &mut out)?;
                files.insert(queue_file(i), out);
            }
            if let Some(Rows::Memory(rows)) = c.queue.drops.as_deref().map(|d| &d.rows) {
                let mut out = Vec::new();
                write_csv(rows, &mut out)?;
                files.insert(drops_file(i), out);
            }
            if let Some(Rows::Memory(rows)) = c.queue.sojourn_trace().map(|t| &t.rows) {
                let mut out = Vec::new();
                write_csv(rows, &mut out)?;
                files.insert(sojourn_file(i), out);
            }
        }
        Ok(files)
    }

    /// Capture into files in `dir` from now on (without this, nothing is captured).
    pub fn stream_pcaps(&mut self, dir: &Path) -> Result<(), Error> {
        for (p, name) in self.pcaps.iter_mut().zip(&self.model.pcaps) {
            *p = crate::pcap::PcapWriter::create(dir.join(name))?;
        }
        Ok(())
    }

    /// Complete the pcap captures of a run that ended well.
    pub fn finish_pcaps(&mut self) -> Result<(), Error> {
        self.pcaps.iter_mut().try_for_each(|p| p.finish())?;
        Ok(())
    }
}

/// Write `rows` as CSV into the file `path`.
fn write_file<R: crate::csv::CsvRow>(path: &Path, rows: &[R]) -> Result<(), Error> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    write_csv(rows, &mut w)?;
    std::io::Write::flush(&mut w)?;
    Ok(())
}

/// Write a queue's trace as CSV (time_s, packets, bytes, avg; avg empty without RED), if it
/// kept one in memory (a streamed trace is already in its file).
fn write_queue_trace(q: &crate::net::Queue, path: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write as _;
    let Some(Rows::Memory(t)) = q.trace.as_deref() else { return Ok(()) };
    let mut w = std::io::BufWriter::new(crate::csv::create_file(path)?);
    crate::csv::write_csv(t, &mut w)?;
    w.flush()
}
