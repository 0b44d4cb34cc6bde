"""Issue 11's hostile-input items: Ctrl-C, output names, the many-flow table, invariants firing."""

from __future__ import annotations

import io
import signal
import sys
import time
import tomllib
from pathlib import Path

import pytest
import tcplab as tl
from conftest import REPO, SCENARIOS, cli, interruptible
from rich.console import Console
from tcplab.errors import UserError
from tcplab.experiment.scenario import dumps
from tcplab.experiment.spec import SweepSpec
from tcplab.report.flow_summary import HEAD_ROWS
from tcplab.report.terminal import print_run

# ---------------------------------------------------------------- item 3: Ctrl-C


def test_ctrl_c_stops_a_run_promptly_with_130_and_writes_nothing(tmp_path: Path) -> None:
    doc = tomllib.loads((SCENARIOS / "bench_dumbbell_10.toml").read_text())
    doc["duration"] = "100000s"  # hours of wall time if not stopped
    scenario = tmp_path / "long.toml"
    scenario.write_text(dumps(doc))
    out = tmp_path / "out"
    proc = interruptible(sys.executable, "-m", "tcplab", "run", scenario, "--out", out, cwd=REPO)
    time.sleep(4)  # imports done, deep inside the core's event loop
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert err.strip() == "error: interrupted"
    assert took < 2.0, f"stopped {took:.1f} s after SIGINT"
    assert not out.exists() or not any(out.iterdir()), "nothing half-written"


# One event of this run (TCP Boston decoding a lossy segment of 1,425 cells over GF(2^16)) takes
# seconds: an interrupt check between events, however frequent, would wait for it (628 s before
# issue 27). The core runs on a thread of its own and the caller returns at once.
SLOW_EVENTS = """
duration = "100s"
nodes = ["a", "b"]
[atm]
max_frame = "100000B"
[tcp]
rcv_buf = "16MiB"
window_scaling = true
codec = "boston"
mss = 65495
[[link]]
a = "a"
b = "b"
rate = "100Mbps"
delay = "10ms"
atm = true
queue = 100000
loss = { model = "bernoulli", p = 0.001 }
[[flow]]
src = "a"
dst = "b"
"""


def test_ctrl_c_stops_a_run_of_slow_events_within_a_second(tmp_path: Path) -> None:
    scenario = tmp_path / "slow.toml"
    scenario.write_text(SLOW_EVENTS)
    proc = interruptible(sys.executable, "-m", "tcplab", "run", scenario, cwd=REPO)
    time.sleep(4)
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    took = time.monotonic() - sent
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err
    assert took < 2.0, f"stopped {took:.1f} s after SIGINT"


# ---------------------------------------------------------------- item 4: output names


@pytest.mark.parametrize("header_bytes", [20, 40, 52, 120])
def test_pcaps_show_real_lengths_whatever_header_bytes(tmp_path: Path, header_bytes: int) -> None:
    """Issue 27 item 8: with ``header_bytes`` other than 40 the IP length carried the simulated
    header allowance, so readers saw ACKs of 12 bytes and data out of order on a lossless run."""
    from tcplab.analysis.pcap import iter_segments

    mss = 1000
    scenario = (
        'duration = "1s"\nnodes = ["a", "b"]\n'
        f"[tcp]\nmss = {mss}\nheader_bytes = {header_bytes}\n"
        '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "5ms"\npcap = true\n'
        '[[flow]]\nsrc = "a"\ndst = "b"\nbytes = 200000\n'
    )
    tl.run(scenario, out_dir=tmp_path / "o", plots=False)
    segments = list(iter_segments(tmp_path / "o" / "link-a-b.pcap"))
    data = [s for s in segments if s.length > 0]
    acks = [s for s in segments if s.length == 0 and "S" not in s.tcp_flags]
    assert data and acks
    assert {s.length for s in data} == {mss}, "every segment a full one: 200 kB is 200 of them"
    assert [s.seq for s in data] == sorted(s.seq for s in data), "in order on a lossless link"
    assert all(b.seq - a.seq == mss for a, b in zip(data, data[1:], strict=False))


def test_pcap_names_stay_in_the_folder_and_never_collide(tmp_path: Path) -> None:
    nodes = ["x/../../..", "a-b", "c", "a", "b-c", "p", "q"]
    links = [
        {"a": "x/../../..", "b": "c", "rate": "10Mbps", "delay": "1ms", "pcap": True},
        {"a": "a-b", "b": "c", "rate": "10Mbps", "delay": "1ms", "pcap": True},
        {"a": "a", "b": "b-c", "rate": "10Mbps", "delay": "1ms", "pcap": True},
        {"a": "p", "b": "q", "rate": "10Mbps", "delay": "1ms", "pcap": True},
        {"a": "p", "b": "q", "rate": "10Mbps", "delay": "1ms", "pcap": "both"},
    ]
    flows = [{"src": "a", "dst": "b-c", "bytes": 10_000}, {"src": "x/../../..", "dst": "c", "bytes": 10_000}]
    doc = {"duration": "1s", "nodes": nodes, "link": links, "flow": flows}
    out = tmp_path / "deep" / "out"
    before = set(tmp_path.rglob("*"))
    tl.run(doc, out_dir=out)
    written = set(tmp_path.rglob("*")) - before
    assert all(p.is_relative_to(out) or out.is_relative_to(p) for p in written), sorted(map(str, written))
    pcaps = sorted(p.name for p in out.glob("*.pcap"))
    assert len(pcaps) == 6, pcaps  # five links, one of them captured at both ends
    assert all(p.parent == out for p in out.glob("*.pcap"))


@pytest.mark.parametrize("name", ["../../x", "/tmp/abs", "a/b", "..", "a\0b", "a\\b", "x" * 300])
def test_unsafe_sweep_names_are_rejected(name: str) -> None:
    with pytest.raises(UserError, match="name: ") as e:
        SweepSpec(base={"duration": "1s", "nodes": ["a"]}, name=name)
    assert "\n" not in str(e.value)


def test_cli_rejects_an_escaping_sweep_name_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(f'name = "../../escaped"\nbase = "{SCENARIOS / "lossy_link.toml"}"\n')
    proc = cli("sweep", spec, cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "name:" in proc.stderr
    assert not (tmp_path.parent / "escaped.sqlite").exists() and not (tmp_path / "out").exists()


# ---------------------------------------------------------------- item 8: the many-flow table


def _report(n: int) -> dict:
    flows = [
        {
            "id": i,
            "name": "ftp",
            "src": f"s{i}",
            "dst": f"d{i}",
            "goodput_bps": 1e6 + i,
            "bytes_delivered": 1000 * (i + 1),
            "retransmits": i % 3,
            "fast_retransmits": 0,
            "timeouts": 0,
            "completion_time_s": None if i % 2 else 1.0,
        }
        for i in range(n)
    ]
    return {"scenario": "big", "seed": 1, "sim_time_s": 1.0, "flows": flows, "events": 1, "wall_s": 0.0}


def _draw(report: dict) -> str:
    buf = io.StringIO()
    print_run(report, Console(file=buf, width=140, markup=False, highlight=False))
    return buf.getvalue()


def test_a_huge_run_is_summarised_quickly() -> None:
    report = _report(100_000)
    t0 = time.perf_counter()
    text = _draw(report)
    took = time.perf_counter() - t0
    assert took < 3.0, f"{took:.1f} s to draw"
    assert len(text.splitlines()) < 40
    assert f"... {100_000 - HEAD_ROWS} more flows" in text
    total_kb = sum(f["bytes_delivered"] for f in report["flows"]) / 1000
    assert f"{total_kb:.1f}" in text, "the total row sums every flow"
    assert "50000 of 100000 done" in text


def test_a_small_run_lists_every_flow() -> None:
    text = _draw(_report(12))
    assert all(f"s{i} -> d{i}" in text for i in range(12)) and "more flows" not in text


# ---------------------------------------------------------------- item 9: invariants fire


def _hooked(tmp_path: Path, what: str) -> Path:
    doc = tomllib.loads((SCENARIOS / "lossy_link.toml").read_text())
    doc["_test_corrupt"] = what
    path = tmp_path / "hooked.toml"
    path.write_text(dumps(doc))
    return path


def test_corrupted_run_fails_with_the_invariant_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _hooked(tmp_path, "conservation")
    monkeypatch.delenv("TCPLAB_TEST_HOOKS", raising=False)
    refused = cli("run", path)
    assert refused.returncode == 2 and "_test_corrupt" in refused.stderr
    monkeypatch.setenv("TCPLAB_TEST_HOOKS", "1")
    broken = cli("run", path)
    assert broken.returncode == 1, broken.stderr
    assert "packet conservation: injected" in broken.stderr and "bug in tcplab" in broken.stderr


def test_a_sweep_store_records_the_corrupted_run_as_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCPLAB_TEST_HOOKS", "1")
    base = tomllib.loads((SCENARIOS / "lossy_link.toml").read_text())
    base["_test_corrupt"] = ""
    spec = SweepSpec(base=base, name="hooked", factors={"_test_corrupt": ["", "conservation"]})
    result = tl.sweep(spec, store=tmp_path / "s.sqlite", workers=1)
    assert (result.ran, result.failed) == (2, 1)
    df = result.df.set_index("_test_corrupt")
    assert df.loc["", "status"] == "ok"
    assert df.loc["conservation", "status"] == "failed"
    assert "packet conservation" in df.loc["conservation", "error"]
