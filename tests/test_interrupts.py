"""Interrupts that did not end as a Ctrl-C does: one while a study's commands are imported
(seconds) ended with status 130 and no word; SIGTERM and SIGHUP left an --out run's files."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SCENARIOS, cli


def test_a_ctrl_c_while_a_study_loads_says_interrupted(monkeypatch: pytest.MonkeyPatch) -> None:
    import tcplab.cli_studies as cli_studies

    def interrupted(entry: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_studies, "_load", interrupted)
    proc = cli("hfc", "buffer", "--cm-buffer", "10KiB")
    assert proc.returncode == 130 and proc.stderr == "error: interrupted\n", proc


def _long_dumbbell(tmp_path: Path) -> Path:
    """The dumbbell for an hour at 1 Gb/s: minutes of work, long enough to be interrupted."""
    text = (SCENARIOS / "dumbbell.toml").read_text()
    text = text.replace('rate = "10Mbps"', 'rate = "1Gbps"', 1)
    # No capture: an hour's capture at 1 Gb/s is estimated at about 50 GB, and the run was
    # refused (status 2) on a disk with less free, before any signal could reach it.
    text = text.replace("pcap = true ", "pcap = false", 1)
    assert "pcap = false" in text
    text = text.replace('duration = "30s"', 'duration = "3000s"')
    assert 'duration = "3000s"' in text
    scenario = tmp_path / "long.toml"
    scenario.write_text(text)
    return scenario


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_terminated_out_run_leaves_nothing_as_a_ctrl_c_does(tmp_path: Path, signame: str) -> None:
    """SIGTERM (timeout, kill, a batch limit) and SIGHUP (a closed terminal) ended the process on
    the spot: the --out folder stayed, holding a hidden stage folder of the run's files."""
    scenario = _long_dumbbell(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-m", "tcplab", "run", scenario, "--out", tmp_path / "out"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "out").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # the folder is made after the imports, as the run begins
    time.sleep(0.5)
    child.send_signal(getattr(signal, signame))
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 130 and stderr == "error: interrupted\n", (child.returncode, stderr)
    assert not (tmp_path / "out").exists()


def _python(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)


def test_a_forked_worker_dies_of_sigterm_not_of_its_parents_handler() -> None:
    """A sweep's workers are forked from the command, and inherited its SIGTERM handler: the
    pool's terminate raised KeyboardInterrupt inside a worker, which printed a traceback and,
    caught holding the pool's result queue's lock, hung the sweep's shutdown forever (a sweep
    stopped by an error, as by a trace folder that is a file)."""
    proc = _python(
        "import multiprocessing, os, signal, time\n"
        "from tcplab._launch import stop_as_on_ctrl_c\n"
        "stop_as_on_ctrl_c()\n"
        "child = multiprocessing.get_context('fork').Process(target=time.sleep, args=(30,))\n"
        "child.start(); time.sleep(0.5); child.terminate(); child.join(20)\n"
        "print(child.exitcode)\n"
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.strip() == str(-signal.SIGTERM) and "Traceback" not in proc.stderr, proc


def test_the_pool_stopped_early_ends_at_once_without_tracebacks() -> None:
    """The sweep's pool stopped with workers mid-run (its caller stops early, as an error or a
    Ctrl-C does), in a process with the command's signal handlers: it ends at once, quietly."""
    proc = _python(
        "import time\n"
        "from tcplab._launch import stop_as_on_ctrl_c\n"
        "from tcplab.experiment import executors\n"
        "stop_as_on_ctrl_c()\n"
        "executors.execute = time.sleep  # a task of t seconds\n"
        "runs = executors._pool([0, 60, 60], 3)\n"
        "next(runs)\n"
        "time.sleep(0.5)  # the other two are mid-run\n"
        "started = time.monotonic()\n"
        "runs.close()\n"
        "print(round(time.monotonic() - started))\n",
        timeout=50,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc
    assert int(proc.stdout) < 20, proc


def test_a_ctrl_c_while_the_command_line_loads_says_interrupted() -> None:
    """The console script imported tcplab.cli (typer, the core: a few hundred ms) before any
    handler was in place: a Ctrl-C there printed a KeyboardInterrupt traceback."""
    proc = _interrupted_at_import("name == 'typer'", ["tcplab", "--help"])
    assert proc.returncode == 130 and proc.stderr == "error: interrupted\n", proc


def _interrupted_at_import(when: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """The command `argv` through its entry point, with a Ctrl-C at the import of the module
    whose `name` meets the condition `when` (as if it arrived while that module loads)."""
    return _python(
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if {when}:\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        f"sys.argv = {argv!r}\n"
        "from tcplab._launch import main\n"
        "main()\n"
    )


def test_importing_tcplab_imports_nothing_heavy() -> None:
    """What the entry point relies on: its handlers are set before the core, typer or pandas load."""
    proc = _python(
        "import sys, tcplab._launch\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tcplab.', 'typer', 'numpy', 'pandas'))))\n"
        "import tcplab\n"
        "print(tcplab.run.__module__, tcplab.__version__ == tcplab._core.__version__)\n"
    )
    assert proc.returncode == 0, proc
    assert proc.stdout.splitlines() == ["['tcplab._launch']", "tcplab.experiment.api True"], proc


def test_a_ctrl_c_while_typer_parses_the_line_says_interrupted() -> None:
    """typer imports pydantic while it parses the command line (about 100 ms) and ends a
    KeyboardInterrupt there with status 130 and no word."""
    proc = _interrupted_at_import(
        "name == 'pydantic' and 'tcplab.cli' in sys.modules", ["tcplab", "validate", "no-such-file.toml"]
    )
    assert proc.returncode == 130 and proc.stderr == "error: interrupted\n", proc


def test_a_benchmark_child_killed_from_outside_is_not_a_bug() -> None:
    """A bench child killed by SIGKILL or SIGTERM was reported as 'a bug in tcplab' (exit 1)."""
    from tcplab.errors import InternalError, StoppedFromOutside
    from tcplab.experiment.bench import _child_failed

    for killed in (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        error = _child_failed(-killed, "")
        assert isinstance(error, StoppedFromOutside) and killed.name in str(error), error
    assert isinstance(_child_failed(-signal.SIGSEGV, "crash"), InternalError)
    assert isinstance(_child_failed(1, "Traceback"), InternalError)


def test_a_benchmark_child_ends_by_sigint_without_a_traceback(tmp_path: Path) -> None:
    """A Ctrl-C reaches the bench's child too: it printed a KeyboardInterrupt traceback, which
    the parent quoted in a 'bug' message."""
    scenario = _long_dumbbell(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-m", "tcplab.experiment._benchrun", scenario],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGINT and "Traceback" not in stderr, (child.returncode, stderr)


_BENCH_PARENT = """
import sys
from pathlib import Path
from tcplab.experiment.bench import run_child
run_child(Path(sys.argv[1]).read_text())
"""


def _children_of(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(status.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_benchmark_child_ends_when_its_bench_is_killed(tmp_path: Path) -> None:
    """SIGKILL to `tcplab bench` left its child measuring, into a pipe no one read (a minute for
    scale_100k)."""
    parent = subprocess.Popen([sys.executable, "-c", _BENCH_PARENT, _long_dumbbell(tmp_path)])
    deadline = time.monotonic() + 60
    while not (children := _children_of(parent.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert children, "the bench started no child"
    time.sleep(1.0)  # the child is in its run by now
    parent.kill()
    parent.wait(timeout=10)
    child = Path(f"/proc/{children[0]}")
    deadline = time.monotonic() + 10
    while child.exists() and "Z" not in _state(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not child.exists() or "Z" in _state(child), "the child outlived its bench"


def _state(proc: Path) -> str:
    try:
        return (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


# Run in a process of their own: signals are held in the main thread only (Python runs its
# handlers there), and pytest-xdist runs tests in another thread.
_SIGNAL_MID_WAY = """
import os, signal, sys, time
from pathlib import Path
from tcplab.experiment import out_dir

def interrupting(real):
    def call(*args, **kwargs):
        if not getattr(call, "done", False):
            call.done = True
            os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C, mid-way
            time.sleep(0.05)
        return real(*args, **kwargs)
    return call

target = Path(sys.argv[1])
try:
    STEP
except KeyboardInterrupt:
    print("interrupted after it")
"""


def _signal_mid_way(step: str, target: Path) -> subprocess.CompletedProcess[str]:
    script = _SIGNAL_MID_WAY.replace("STEP", step.strip().replace("\n", "\n    "))
    return subprocess.run(
        [sys.executable, "-c", script, str(target)], capture_output=True, text=True, timeout=60
    )


def test_a_second_signal_during_the_clean_up_waits_for_it(tmp_path: Path) -> None:
    """Two quick Ctrl-Cs (or SIGTERMs) to `run --out`: the second interrupted the removal of the
    work folder, which stayed behind with the run's files (up to 25 MB)."""
    proc = _signal_mid_way(
        """
folder = out_dir.OutFolder(target, cli=False)
(Path(folder.work) / "trace.csv").write_text("x")
out_dir.remove_tree = interrupting(out_dir.remove_tree)
folder.close(failed=True)
""",
        tmp_path / "out",
    )
    assert proc.stdout == "interrupted after it\n", proc  # delivered once the clean-up is done
    assert not (tmp_path / "out").exists()


def test_a_signal_while_the_files_are_published_waits_for_all_of_them(tmp_path: Path) -> None:
    """A signal between two renames left half a run's output in the folder, without its marker."""
    proc = _signal_mid_way(
        """
with out_dir.OutFolder(target, cli=False) as folder:
    for name in ("a.csv", "b.csv", "c.csv"):
        (Path(folder.work) / name).write_text("x")
    os.replace = interrupting(os.replace)
    folder.publish(marker=True)
""",
        tmp_path / "out",
    )
    assert proc.stdout == "interrupted after it\n", proc
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".tcplab-out", "a.csv", "b.csv", "c.csv"]
