"""Child process of ``tcplab bench``: run one scenario file, print its measurements as JSON.

Runs alone in a fresh interpreter so that the peak resident set size is this scenario's only.
Imports nothing heavy (no pandas, no matplotlib) to keep the baseline small.

    python -m tcplab.experiment._benchrun FILE.toml|- [REPEATS]

``-`` reads the scenario from standard input (as ``tcplab bench`` passes it).

With REPEATS > 1 the scenario runs that many times in the same process and the fastest run is
reported (the usual way to take the noise of a shared machine out of a short timing); the
median is reported alongside. The simulation is deterministic, so every repeat does the same work.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import resource
import signal
import statistics
import sys
import time

from tcplab._core import run_scenario

# Set by ``tcplab bench`` to its own pid: the parent whose death ends this child.
PARENT_PID_VARIABLE = "TCPLAB_BENCH_PARENT"
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def end_with_parent() -> None:
    """Ask Linux to kill this process when the bench that started it dies.

    A bench killed by SIGKILL cannot stop its child, which went on measuring into a closed
    pipe (a minute for scale_100k). Linux sends the signal when the parent's thread that
    started the child ends; ``tcplab bench`` starts its children from its main thread. The
    parent may have died before the request: then its pid is no longer this process's parent.
    Elsewhere (no prctl) the child runs to its end, as before."""
    expected = os.environ.get(PARENT_PID_VARIABLE)
    if not sys.platform.startswith("linux") or not expected:
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return
    if str(os.getppid()) != expected:
        os._exit(1)


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB.

    Linux: VmHWM of /proc/self/status, the high-water mark of this program's own memory. Not
    ru_maxrss: Linux carries it across exec from the forking parent, so a child started by a
    `tcplab bench` that had just built scale_100k's scenario (about 250 MB of Python objects)
    reported that as its own peak. Elsewhere ru_maxrss (KiB on Linux, bytes on macOS)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**10
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10


def measure(text: str, repeats: int = 1) -> dict[str, float | int | str]:
    walls, totals, setups = [], [], []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = run_scenario(text)
        t1 = time.perf_counter()
        report = json.loads(out)
        totals.append(time.perf_counter() - t0)
        walls.append(report["wall_s"])
        # Everything in the core's call but the event loop: parse, checks, memory estimate,
        # building the model and writing the report. An upper bound on the time to the first event.
        setups.append(t1 - t0 - report["wall_s"])
    wall = min(walls)
    return {
        "scenario": report["scenario"],
        "flows": len(report["flows"]),
        "sim_time_s": report["sim_time_s"],
        "events": report["events"],
        "packets_forwarded": report["packets_forwarded"],
        "wall_s": wall,
        "wall_s_median": statistics.median(walls),
        "repeats": len(walls),
        "total_s": min(totals),
        "setup_s": min(setups),
        "events_per_sec": report["events"] / wall if wall > 0 else 0.0,
        "packets_per_sec": report["packets_forwarded"] / wall if wall > 0 else 0.0,
        "goodput_bps_total": sum(f["goodput_bps"] for f in report["flows"]),
        "peak_rss_mb": peak_rss_mb(),
    }


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: python -m tcplab.experiment._benchrun FILE.toml|- [REPEATS]", file=sys.stderr)
        return 2
    if argv[0] == "-":
        text = sys.stdin.read()
    else:
        with open(argv[0], encoding="utf-8") as f:
            text = f.read()
    repeats = int(argv[1]) if len(argv) == 2 else 1
    print(json.dumps(measure(text, repeats)))
    return 0


if __name__ == "__main__":
    # A Ctrl-C reaches the whole process group: the parent reports it; this child just ends,
    # by the signal, as its parent reads it (a child killed from outside), with no traceback.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    end_with_parent()
    sys.exit(main(sys.argv[1:]))
