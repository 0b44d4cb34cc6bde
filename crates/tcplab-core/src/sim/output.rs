//! The files a run writes besides its streamed traces: queue traces kept in memory and the
//! streamed pcaps.

use std::path::Path;

use super::Simulation;
use crate::error::Error;
use crate::trace_stream::queue_file;

impl Simulation {
    /// Write `queue-<channel>.csv` for every channel that traced its queue.
    pub fn write_queue_traces(&self, dir: &Path) -> Result<(), Error> {
        for (i, c) in self.channels.iter().enumerate() {
            crate::net::queue::write_trace(&c.queue, &dir.join(queue_file(i)))?;
        }
        Ok(())
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
