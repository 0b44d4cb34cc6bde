"""Trace-driven UDP sources read from a file (``source = { kind = "trace", file = ... }``): the
Python front end reads the file into the core's ``packets``, from a scenario file, text, a dict
or a sweep's base; a bad file is named by field, file and line, with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import tcplab
from conftest import cli

SCENARIO = """
name = "trace_file"
duration = "1s"
nodes = ["a", "b"]

[[link]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"

[[flow]]
src = "a"
dst = "b"
protocol = "udp"
source = { kind = "trace", file = "frames.txt" }
"""

FRAMES = """# time after the start, payload
0       1400
0.0002  1400B
40ms    600   # a small frame
80ms, 600
"""


def _write(folder: Path, frames: str = FRAMES) -> Path:
    (folder / "frames.txt").write_text(frames)
    path = folder / "s.toml"
    path.write_text(SCENARIO)
    return path


def _udp(report: dict) -> dict:
    return report["flows"][0]["udp"]


def test_a_trace_file_next_to_the_scenario_is_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path)
    monkeypatch.chdir(Path("/"))  # found next to the scenario file, not in the current folder
    report = tcplab.run(path).report
    u = _udp(report)
    assert (u["packets_sent"], u["bytes_sent"], u["packets_delivered"]) == (4, 4000, 4)
    # 10 ms + (payload + 28) x 8 / 10 Mb/s, and the second packet, 0.2 ms after the first,
    # waits for the first to finish (1.1424 ms on the wire): the times and sizes of the file.
    assert u["delay_min_s"] == pytest.approx(0.010 + 628 * 8 / 10e6)
    assert u["delay_max_s"] == pytest.approx(0.010 + 2 * 1428 * 8 / 10e6 - 0.0002)


def test_text_dicts_and_sweeps_read_it_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert _udp(tcplab.run(SCENARIO).report)["packets_sent"] == 4
    doc = tcplab.experiment.scenario.loads(SCENARIO)
    assert _udp(tcplab.run(doc).report)["packets_sent"] == 4
    assert doc["flow"][0]["source"] == {"kind": "trace", "file": "frames.txt"}  # the caller's dict untouched
    spec = tcplab.SweepSpec(name="tf", base=doc, factors={"link.0.delay": ["10ms", "20ms"]}, seed=1)
    flows = tcplab.sweep(spec, store=tmp_path / "s.sqlite", workers=1, progress=False).flows_df()
    assert list(flows["packets_sent"]) == [4, 4]


@pytest.mark.parametrize(
    ("frames", "says"),
    [
        ("0 1400\n1 2 3\n", "line 2: give a time and a size"),
        ("0 1400\n5xs 100\n", "line 2: time"),
        ("# nothing\n\n", "no packets"),
        # The core's own rules, named by the file's line (they named `packets[2]`, a field the
        # user never wrote): times in order, and the core's payload bounds.
        ("# time size\n0 100\n0.1, 200B\n40ms 300\n", "line 4: times must not decrease"),
        ("0 100\n0.1 0\n", "line 2: a size must be 1 to 65507 bytes"),
        ("0 100\n0.1 65508\n", "line 2: a size must be 1 to 65507 bytes"),
    ],
)
def test_a_bad_trace_file_names_the_field_file_and_line(tmp_path: Path, frames: str, says: str) -> None:
    path = _write(tmp_path, frames)
    out = cli("run", path)
    assert out.returncode == 2, out.stderr
    assert "flow[0].source.file" in out.stderr and says in out.stderr and "frames.txt" in out.stderr


def test_a_missing_trace_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    out = cli("run", path)
    assert out.returncode == 2 and "flow[0].source.file" in out.stderr and "cannot read" in out.stderr


def test_a_sweep_spec_reads_the_trace_file_beside_its_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "net").mkdir()
    _write(tmp_path / "net")
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text('name = "tf"\nbase = "net/s.toml"\n[factors]\n"link.0.delay" = ["10ms"]\n')
    monkeypatch.chdir(Path("/"))
    spec = tcplab.load_spec(spec_path)
    packets = spec.base["flow"][0]["source"]["packets"]
    assert packets == [[0, 1400], [0.0002, "1400B"], ["40ms", 600], ["80ms", 600]]


@pytest.mark.parametrize(("size", "ok"), [(65_507, True), (65_508, False)])
def test_the_files_payload_bound_is_the_cores(size: int, ok: bool) -> None:
    """trace_files.MAX_PAYLOAD is the core's `udp::MAX_PAYLOAD`: the core decides the same."""
    from tcplab import _core
    from tcplab.experiment.trace_files import MAX_PAYLOAD

    assert MAX_PAYLOAD == _core.UDP_MAX_PAYLOAD == 65_507
    inline = SCENARIO.replace('file = "frames.txt"', f"packets = [[0, {size}]]")
    if ok:
        tcplab.validate(inline)
    else:
        with pytest.raises(tcplab.ScenarioError, match="65507"):
            tcplab.validate(inline)
