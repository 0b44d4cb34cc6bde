//! The CSV writer of traces: a record type says how it is one line (`CsvRow`), and a trace's
//! rows are either kept in memory or streamed through one fixed buffer into a file
//! (`Rows`). It knows nothing of what the records are: `trace_stream` plans which traces go
//! where.
//!
//! Rows are formatted into the buffer in place (no allocation per row), by the same code that
//! writes an in-memory trace, so the files hold the same bytes either way.
//!
//! Nothing half-written: a stream writes `NAME.partial` and renames it to NAME only when the
//! run has ended well (`CsvStream::finish`). A stream dropped unfinished (an i/o error, a
//! broken invariant, Ctrl-C, a panic) removes its partial file, so a file under a trace's own
//! name is always complete. Only a killed process (SIGKILL, a power cut) leaves a `.partial`
//! file behind, under that suffix.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The buffer of one streamed trace file (what a streamed trace costs in memory).
pub const BUFFER_BYTES: usize = 64 * 1024;

/// Suffix of a trace file while its run is still writing it.
pub const PARTIAL_SUFFIX: &str = ".partial";

/// A trace record that is one CSV line.
pub trait CsvRow {
    /// The column names, without the line end.
    const HEADER: &'static str;
    /// Write the record as one line, newline included.
    fn write_csv(&self, w: &mut impl Write) -> io::Result<()>;
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
        let mut s = Self::create_raw(path)?;
        s.line(|w| writeln!(w, "{}", R::HEADER));
        Ok(s)
    }

    /// Start `path` as `create` does, empty: a stream of any bytes (a pcap capture's).
    pub fn create_raw(path: PathBuf) -> io::Result<Self> {
        let mut name = path.clone().into_os_string();
        name.push(PARTIAL_SUFFIX);
        let partial = PathBuf::from(name);
        let file = create_file(&partial)?;
        Ok(Self { out: BufWriter::with_capacity(BUFFER_BYTES, file), partial, path, error: None, finished: false })
    }

    /// Append raw bytes (a stream made by `create_raw`).
    #[inline]
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.line(|w| w.write_all(bytes));
    }

    /// Append one row (of the type the header was written for).
    #[inline]
    pub fn push<R: CsvRow>(&mut self, row: &R) {
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

/// Create (or truncate) `path` for writing without following a symbolic link in its last
/// component: a link planted where a run writes (even during the run) makes the write fail
/// (ELOOP) instead of redirecting it. Errors name the path.
pub fn create_file(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| with_path(e, path))
}

/// Write `bytes` to `path` whole, as `NAME.partial` renamed into place (never through a link).
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut s = CsvStream::create_raw(path.to_path_buf())?;
    s.write_bytes(bytes);
    s.finish()
}

/// An i/o error with the path it concerns and its errno's name (`EACCES`, `ENOSPC`,
/// `ELOOP`...), so that a user can search for it; the kind and the raw errno stay readable
/// (`crate::error::os_error_code`).
pub fn with_path(e: io::Error, path: &Path) -> io::Error {
    crate::error::PathError::wrap(e, path)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of this module's own, so the writer is tested without any simulator type.
    #[derive(Debug, Clone, Copy)]
    struct Pair(u64, f64);

    impl CsvRow for Pair {
        const HEADER: &'static str = "n,x";
        fn write_csv(&self, w: &mut impl Write) -> io::Result<()> {
            writeln!(w, "{},{:.3}", self.0, self.1)
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tcplab-csv-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn in_memory<R: CsvRow>(rows: &[R]) -> Vec<u8> {
        let mut v = Vec::new();
        write_csv(rows, &mut v).unwrap();
        v
    }

    #[test]
    fn a_streamed_file_holds_the_in_memory_bytes_under_its_name_only_when_finished() {
        let d = dir("equal");
        let path = d.join("pairs.csv");
        // Many buffers' worth, so the buffer is flushed and reused.
        let pairs: Vec<Pair> = (0..30_000).map(|i| Pair(i * 7919, i as f64 / 3.0)).collect();
        let mut s = Rows::<Pair>::file(path.clone()).unwrap();
        let mut mem = Rows::default();
        for p in &pairs {
            s.push(*p);
            mem.push(*p);
        }
        assert!(s.is_streamed() && !mem.is_streamed());
        assert!(!path.exists() && d.join("pairs.csv.partial").exists());
        s.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 4 * BUFFER_BYTES);
        assert_eq!(bytes, in_memory(&mem.take()));
        assert!(s.take().is_empty(), "a streamed trace keeps no rows");
        assert!(!d.join("pairs.csv.partial").exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn an_unfinished_stream_removes_its_partial_file_and_keeps_an_old_one() {
        let d = dir("drop");
        std::fs::write(d.join("pairs.csv"), "old\n").unwrap();
        let mut s = CsvStream::create::<Pair>(d.join("pairs.csv")).unwrap();
        (0..100).for_each(|i| s.push(&Pair(i, 0.0)));
        drop(s);
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["pairs.csv"]);
        assert_eq!(std::fs::read_to_string(d.join("pairs.csv")).unwrap(), "old\n");
        std::fs::remove_dir_all(d).unwrap();
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
        (0..10).for_each(|i| s.push(&Pair(i, 1.5)));
        let e = s.finish().unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/x.csv.partial: "), "{e}");
    }
}
