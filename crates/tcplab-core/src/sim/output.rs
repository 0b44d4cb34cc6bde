//! The files a run writes besides its streamed traces: queue traces kept in memory and pcaps.

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

    /// Write the pcap captures into `dir`.
    pub fn write_pcaps(&self, dir: &Path) -> Result<(), Error> {
        for (p, name) in self.pcaps.iter().zip(&self.model.pcaps) {
            std::fs::write(dir.join(name), p.bytes())?;
        }
        Ok(())
    }
}
