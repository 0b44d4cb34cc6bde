//! Python bindings: thin wrappers over tcplab-core. No simulation logic lives here.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::prelude::*;
use tcplab_core::{Error, RunOptions};

mod oom;

#[global_allocator]
static ALLOCATOR: oom::OneLineOnFailure = oom::OneLineOnFailure;

create_exception!(
    _core,
    ScenarioError,
    pyo3::exceptions::PyValueError,
    "The scenario is invalid; args are (field, message)."
);
create_exception!(_core, InvariantError, pyo3::exceptions::PyRuntimeError, "A simulator invariant broke (a bug).");

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Scenario(s) => ScenarioError::new_err((s.field, s.message)),
        // The text names the path, "(os error N)" and the errno ("[ENOSPC]"): the output folder
        // (`out_dir.OutFolder.translate`) turns it into an OSError of that errno naming the folder.
        Error::Io(io) => pyo3::exceptions::PyOSError::new_err(io.to_string()),
        Error::Invariant(m) => InvariantError::new_err(m),
        Error::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"),
    }
}

/// How often the calling thread looks for Ctrl-C while a run goes on.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How long a Ctrl-C waits for the run to stop before returning without it: an event takes
/// microseconds as a rule, seconds at worst (then the caller does not wait for it).
const STOP_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Run on a thread of its own while this one, without the GIL, waits for the result and every
/// `SIGNAL_POLL` takes the GIL for a moment so that Python's signal handlers run, and calls
/// `progress(simulated_s, end_s)` if given (`end_s` is 0 until the event loop starts). On
/// Ctrl-C (KeyboardInterrupt), or an exception from `progress`, it stops the run and waits
/// for it to stop (it does within `interrupt::CHECK_PERIOD` and an event, dropping its partial
/// files) for at most `STOP_WAIT`: one event can take seconds (TCP Boston decoding a segment
/// of a thousand cells), and the user does not wait for it.
fn run_watched<T, J>(py: Python<'_>, progress: Option<PyObject>, job: J) -> PyResult<T>
where
    T: Send + 'static,
    J: FnOnce(tcplab_core::Stop<'_>) -> Result<T, Error> + Send + 'static,
{
    use std::sync::Arc;
    use tcplab_core::interrupt::Watch;
    let watch = Arc::new(Watch::new());
    let (tx, rx) = std::sync::mpsc::channel::<Result<T, Error>>();
    let seen = Arc::clone(&watch);
    std::thread::Builder::new()
        .name("tcplab-run".into())
        .stack_size(8 << 20) // as a main thread has
        .spawn(move || {
            let out = job(tcplab_core::Stop::Watch(&seen));
            let _ = tx.send(out);
        })
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot start the run's thread: {e}")))?;
    let mut rx = rx;
    loop {
        let (got, back) = py.allow_threads(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match got {
            Ok(Ok(done)) => return Ok(done),
            // A run that failed while a Ctrl-C was pending (its files may have gone with the
            // interrupted command) reports the interrupt, not the fallout.
            Ok(Err(e)) => return Err(py.check_signals().err().unwrap_or_else(|| to_py(e))),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let told = py.check_signals().and_then(|()| match &progress {
                    Some(call) => {
                        let (now, end) = watch.progress();
                        call.call1(py, (tcplab_core::time::secs(now), tcplab_core::time::secs(end))).map(|_| ())
                    }
                    None => Ok(()),
                });
                if let Err(e) = told {
                    watch.stop();
                    // Give the run the moment it needs to stop and drop its partial files, so
                    // that the caller's clean-up of the output folder does not race it (both
                    // removed the same files: "trace-flow0.csv.partial: no such file"). A run
                    // inside a slow event is left to stop on its own.
                    py.allow_threads(move || rx.recv_timeout(STOP_WAIT)).ok();
                    return Err(e);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(InvariantError::new_err("the run's thread ended without a result (a panic)"));
            }
        }
    }
}

/// Run one scenario given as TOML text; returns the run report as a JSON string.
/// With `out_dir`, also writes summary.json, trace CSVs and pcaps there.
/// `max_memory` (bytes) replaces the default limit on the run's memory estimate. `progress`,
/// if given, is called as `progress(simulated_s, end_s)` every 50 ms of the run.
#[pyfunction]
#[pyo3(signature = (text, seed=None, out_dir=None, max_memory=None, progress=None))]
fn run_scenario(
    py: Python<'_>,
    text: String,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    max_memory: Option<u64>,
    progress: Option<PyObject>,
) -> PyResult<String> {
    let opts = RunOptions { seed, out_dir };
    let (report, _) =
        run_watched(py, progress, move |stop| tcplab_core::run_scenario_until(&text, &opts, max_memory, stop))?;
    Ok(serde_json::to_string(&report).expect("report serialises"))
}

/// Run one scenario without an output folder and return its report (JSON) and its traces as
/// CSV text kept in memory, by file name (`trace-flowN.csv`, `segments-flowN.csv`,
/// `queue-N.csv`, `drops-N.csv`): what a run with `out_dir` streams into its files.
#[pyfunction]
#[pyo3(signature = (text, seed=None, max_memory=None))]
fn run_scenario_traces(
    py: Python<'_>,
    text: String,
    seed: Option<u64>,
    max_memory: Option<u64>,
) -> PyResult<(String, std::collections::BTreeMap<String, String>)> {
    let opts = RunOptions { seed, out_dir: None };
    let (report, files) = run_watched(py, None, move |stop| {
        let mut sim = tcplab_core::sim::prepare(&text, &opts, max_memory)?;
        let (report, traces) = sim.run_until(stop)?;
        Ok((report, sim.trace_files_in_memory(&traces)?))
    })?;
    let text = |b: Vec<u8>| String::from_utf8(b).expect("CSV is ASCII");
    let files = files.into_iter().map(|(name, bytes)| (name, text(bytes))).collect();
    Ok((serde_json::to_string(&report).expect("report serialises"), files))
}

/// Parse and validate a scenario without running it.
#[pyfunction]
#[pyo3(signature = (text, seed=None))]
fn validate_scenario(text: &str, seed: Option<u64>) -> PyResult<()> {
    tcplab_core::check_scenario(text, seed).map_err(to_py)?;
    Ok(())
}

/// Refuse (ScenarioError) a scenario whose memory estimate exceeds `max_memory` bytes (default:
/// what the machine has free, `tcplab_core::mem_limit`), without running it.
#[pyfunction]
#[pyo3(signature = (text, seed=None, max_memory=None))]
fn check_memory(text: &str, seed: Option<u64>, max_memory: Option<u64>) -> PyResult<()> {
    tcplab_core::budget::check_text(text, seed, max_memory).map_err(to_py)
}

/// The parts of a scenario's memory estimate as (field, what, bytes), the first being the
/// cost of its parse (`budget::check_parse_cost`), the rest the run's (`budget::estimate_for`,
/// `streamed` as with an output folder): for measuring the estimate against real peaks.
#[pyfunction]
#[pyo3(signature = (text, seed=None, streamed=false))]
fn memory_estimate(text: &str, seed: Option<u64>, streamed: bool) -> PyResult<Vec<(String, String, u64)>> {
    let parse = tcplab_core::budget::parse_cost(text);
    let model =
        tcplab_core::config::parse(text).and_then(|s| s.validate(seed)).map_err(|e| to_py(Error::Scenario(e)))?;
    let parts = tcplab_core::budget::estimate_for(&model, streamed);
    Ok(std::iter::once(parse).chain(parts).map(|p| (p.field, p.what.to_string(), p.bytes)).collect())
}

/// Parse a quantity with the scenario files' unit grammar (tcplab-core's parser, so Python and
/// scenario files accept the same units). `kind` is "rate" (bit/s), "size" (bytes) or "duration"
/// (seconds); a bad value raises ValueError with the core's message.
#[pyfunction]
fn parse_quantity(text: &str, kind: &str) -> PyResult<f64> {
    use tcplab_core::units::{self, Quantity};
    // A command line has no way to write a bare number but as text, so here a plain number is
    // the base unit, as a bare number is in a scenario file (where "10" with quotes is refused).
    let q = match text.trim().parse::<f64>() {
        Ok(v) => Quantity::Num(v),
        Err(_) => Quantity::Text(text.to_string()),
    };
    let bad = pyo3::exceptions::PyValueError::new_err;
    match kind {
        "rate" => units::rate_bps(&q).map(|v| v as f64).map_err(bad),
        "size" => units::bytes(&q).map(|v| v as f64).map_err(bad),
        "duration" => units::duration_ns(&q).map(|ns| ns as f64 / 1e9).map_err(bad),
        _ => Err(bad(format!("unknown quantity kind '{kind}' (rate, size, duration)"))),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario_traces, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(check_memory, m)?)?;
    m.add_function(wrap_pyfunction!(memory_estimate, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InvariantError", m.py().get_type::<InvariantError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The trace-file reader checks sizes by file and line before the core sees them.
    m.add("UDP_MAX_PAYLOAD", tcplab_core::udp::MAX_PAYLOAD)?;
    // How this extension was compiled, for `tcplab --version` and benchmark records: the
    // Makefile sets TCPLAB_BUILD when it builds with a trained profile (tools/pgo_profile.sh).
    m.add("__build__", option_env!("TCPLAB_BUILD").unwrap_or("ordinary"))?;
    Ok(())
}
