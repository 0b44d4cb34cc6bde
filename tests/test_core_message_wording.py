"""Wording of the core's scenario errors as `tcplab run` shows them (a probe of the messages,
round 57): TOML values rather than Rust types, the bound actually broken, no test-only field
in the lists of known ones, a sweep spec given to `run` named as one, and few digits in a huge
rate. The core's own tests (crates/tcplab-core/tests/error_wording.rs) check the same messages;
these check that they reach the user whole, on one line with status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS, cli

BASE = 'duration = "1s"\nnodes = ["a", "b"]\n[[flow]]\nsrc = "a"\ndst = "b"\n'
LINK = '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "1ms"\n'
CASES = {
    "string_for_integer": (
        BASE + LINK + '[tcp]\nmss = "1460"\n',
        'tcp.mss: expected an integer, got the string "1460" (write numbers without quotes)',
    ),
    "negative_seed": (
        "seed = -1\n" + BASE + LINK,
        "seed: expected a non-negative integer, got the integer -1",
    ),
    "queue_past_u32": (BASE + LINK + "queue = 4294967296\n", "link[0].queue: must be at most 4294967295"),
    "mss_past_u32": (BASE + LINK + "[tcp]\nmss = 99999999999\n", "tcp.mss: must fit an IPv4 packet"),
    "huge_rate": (
        BASE + LINK.replace("10Mbps", "1e30Gbps"),
        "link[0].rate: rate must be at most 1e15 b/s (1 Pb/s), got 1e39 b/s",
    ),
}


def _run(path: Path) -> str:
    proc = cli("run", path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_core_errors_speak_toml(case: str, tmp_path: Path) -> None:
    text, expected = CASES[case]
    path = tmp_path / f"{case}.toml"
    path.write_text(text)
    stderr = _run(path)
    assert stderr.startswith(f"error: {path}: {expected}"), stderr
    for rust in ("i64", "u64", "invalid type", "invalid value"):
        assert rust not in stderr, stderr


def test_run_on_a_sweep_spec_says_to_use_sweep() -> None:
    stderr = _run(SCENARIOS / "sweeps" / "loss_variants.toml")
    assert "base: unknown field `base`: this file looks like a sweep spec" in stderr, stderr
    assert "`tcplab sweep`" in stderr and "_test_corrupt" not in stderr, stderr


def test_unknown_top_level_fields_do_not_list_the_test_hook(tmp_path: Path) -> None:
    path = tmp_path / "colour.toml"
    path.write_text("colour = 1\n" + BASE + LINK)
    stderr = _run(path)
    assert "colour: unknown field `colour`, expected one of `name`" in stderr, stderr
    assert "_test_corrupt" not in stderr, stderr
