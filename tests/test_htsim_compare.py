"""bench/htsim_compare's sampling of simulation time, without htsim or perf.

compare.py uses only the standard library, so it is imported here. The htsim runs themselves stay
out of the test suite; these tests fix which sampled stacks count as simulation on either side.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict

import bench_scripts
import pytest
from tcplab import _core

cmp = bench_scripts.load("htsim_compare/compare.py", "htsim_compare")

LOOP_MODULE = "tcplab_core::sim::run_loop::<impl tcplab_core::sim::Simulation>::"
TCPLAB = "tcplab_core::sim::Simulation::"


def _cpu(stacks: list[list[str]], loop: str, exclude: tuple[str, ...] = ()) -> float:
    # One run sampled at 1 Hz: the result is the number of stacks counted.
    return cmp.sim_cpu_s(stacks, loop, exclude, runs=1, freq=1)


def test_tcplab_counts_its_event_loop_and_not_the_report_built_after_it() -> None:
    in_loop = ["tcplab_core::net::channel::Channel::arrive", LOOP_MODULE + "run_loop",
               LOOP_MODULE + "run_loop_sized", TCPLAB + "run_until"]
    report = ["__memcpy_avx512_unaligned_erms",
              "tcplab_core::sim::report::<impl tcplab_core::sim::Simulation>::report",
              LOOP_MODULE + "run_loop_sized", TCPLAB + "run_until"]
    checks = ["tcplab_core::sim::invariants::<impl tcplab_core::sim::Simulation>::check_invariants",
              LOOP_MODULE + "run_loop_sized", TCPLAB + "run_until"]
    assert _cpu([in_loop], cmp.TCPLAB_LOOP) == 1
    # run_loop_sized starts with run_loop's name: a prefix match would count the report.
    assert _cpu([report], cmp.TCPLAB_LOOP) == 0
    assert _cpu([checks], cmp.TCPLAB_LOOP) == 0
    assert _cpu([in_loop, report, checks, in_loop], cmp.TCPLAB_LOOP) == 2


def test_htsim_counts_its_event_loop_by_its_cpp_name_less_the_logger() -> None:
    event = ["Queue::completeService()", "EventList::doNextEvent()", "main"]
    logger = ["std::ostream::write(char const*, long)", "SinkLoggerSampling::doNextEvent()",
              "EventList::doNextEvent()", "main"]
    setup = ["Queue::Queue(...)", "main"]
    stacks = [event, logger, setup, event]
    assert _cpu(stacks, cmp.HTSIM_LOOP, cmp.HTSIM_NOT_SIMULATION) == 2
    # Without the exclusion the logger's sample counts: the exclusion is what removes it.
    assert _cpu(stacks, cmp.HTSIM_LOOP) == 3
    # A function whose name merely starts like the loop's is not the loop.
    assert _cpu([["EventList::doNextEventLater()", "main"]], cmp.HTSIM_LOOP) == 0


@pytest.mark.skipif(shutil.which("nm") is None, reason="no nm to read the extension's symbols")
def test_the_sampled_loop_is_a_function_of_the_installed_extension() -> None:
    # A moved or renamed loop would leave every sample unmatched and the ratio undefined (the
    # run loop's move to sim/run_loop.rs changed its name): the name must be in the library,
    # as the event loop's three instantiations (4-ary heap; radix heap without and with the
    # onward prefetches) and nothing else.
    symbols = subprocess.run(["nm", "--demangle", _core.__file__], capture_output=True, text=True,
                             check=True).stdout
    names = [line.split(" ", 2)[2] for line in symbols.splitlines() if line.count(" ") >= 2]
    assert names.count(cmp.TCPLAB_LOOP) == 3, cmp.TCPLAB_LOOP


def test_sampled_runs_alternate_in_short_blocks() -> None:
    # 200 runs a side in blocks of 5: 40 blocks each, alternating.
    assert cmp.perf_blocks(200, 5) == (40, 5)
    assert cmp.perf_blocks(3, 5) == (1, 3)
    assert cmp.perf_blocks(1, 1) == (1, 1)


def test_the_ratio_pools_blocks_and_scales_by_the_packets_each_simulated() -> None:
    # htsim 6 ms and tcplab 4 ms of simulation per run: a CPU ratio of 1.5; tcplab simulated
    # 2% more packets, so its packets per CPU second are 1.53x htsim's.
    speed = cmp.core_speed([6.0, 6.0], [4.0, 4.0], h_packets=100, t_packets=102)
    assert speed["ratio"] == pytest.approx(1.53)
    assert speed["ci"] == pytest.approx([1.53, 1.53])  # no spread, no width
    assert speed["blocks"] == 2


def test_the_interval_holds_the_estimate_and_widens_with_the_spread() -> None:
    steady = [5.0 + 0.1 * (i % 3) for i in range(30)]
    noisy = [5.0 + 1.5 * (i % 3) for i in range(30)]
    t = [4.0] * 30
    lo_s, hi_s = cmp.ratio_interval(steady, t)
    lo_n, hi_n = cmp.ratio_interval(noisy, t)
    assert lo_s <= cmp.cpu_ratio(steady, t) <= hi_s
    assert lo_n <= cmp.cpu_ratio(noisy, t) <= hi_n
    assert hi_n - lo_n > 5 * (hi_s - lo_s)
    assert cmp.ratio_interval(noisy, t) == (lo_n, hi_n)  # seeded: the same blocks, the same interval


def test_the_interval_can_rule_a_ratio_out_and_can_fail_to() -> None:
    # Thirty paired blocks, htsim 1.4x slower with a few percent of spread: 1.3x is excluded.
    # With blocks that swing by a third, the same mean ratio no longer excludes it.
    t = [4.0 + 0.2 * ((7 * i) % 5 - 2) for i in range(30)]
    h_tight = [x * 1.4 * (0.98, 1.0, 1.02)[i % 3] for i, x in enumerate(t)]
    h_loose = [x * 1.4 * (0.55, 1.45, 1.0)[i % 3] for i, x in enumerate(t)]
    assert cmp.cpu_ratio(h_tight, t) == pytest.approx(cmp.cpu_ratio(h_loose, t), rel=0.02)
    assert cmp.ratio_interval(h_tight, t)[0] > 1.3
    lo, hi = cmp.ratio_interval(h_loose, t)
    assert lo < 1.3 < hi


def _saved(tmp_path, name: str, blocks: tuple[list[float], list[float]], packets: tuple[int, int]):
    row = {"htsim": {"sim_cpu_blocks": blocks[0], "injected": packets[0]},
           "tcplab": {"sim_cpu_blocks": blocks[1], "injected": packets[1]}}
    path = tmp_path / name
    path.write_text(json.dumps({"meta": {}, "flows": {"10": row}}))
    return path


def test_combine_pools_the_blocks_of_several_invocations(tmp_path) -> None:
    a = _saved(tmp_path, "a.json", ([6.0, 6.0], [4.0, 4.0]), (100, 100))
    b = _saved(tmp_path, "b.json", ([3.0], [3.0]), (100, 100))
    pooled = cmp.combine([a, b])["10"]
    assert pooled["invocations"] == 2 and pooled["blocks"] == 3
    assert pooled["ratio"] == pytest.approx(15 / 11)


def test_combine_refuses_files_of_other_scenarios_or_without_blocks(tmp_path) -> None:
    a = _saved(tmp_path, "a.json", ([6.0], [4.0]), (100, 100))
    other = _saved(tmp_path, "other.json", ([6.0], [4.0]), (100, 101))
    with pytest.raises(ValueError, match="other packets"):
        cmp.combine([a, other])
    with pytest.raises(ValueError, match="named twice"):
        cmp.combine([a, tmp_path / "." / "a.json"])
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"flows": {"10": {"htsim": {"sim_cpu_s": 1.0}, "tcplab": {"sim_cpu_s": 1.0}}}}))
    with pytest.raises(ValueError, match="no perf blocks"):
        cmp.combine([old])


def test_combine_from_the_command_line_says_what_is_wrong(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    script = bench_scripts.BENCH / "htsim_compare" / "compare.py"
    proc = subprocess.run([sys.executable, str(script), "--combine", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--combine" in proc.stderr and "bad.json" in proc.stderr
    good = _saved(tmp_path, "good.json", ([6.0, 5.0], [4.0, 4.0]), (100, 100))
    proc = subprocess.run([sys.executable, str(script), "--combine", str(good)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "1.38x" in proc.stdout and "interval" in proc.stdout


def test_combine_refuses_to_pool_two_builds(tmp_path) -> None:
    a = _saved(tmp_path, "a.json", ([6.0], [4.0]), (100, 100))
    b = _saved(tmp_path, "b.json", ([6.0], [4.0]), (100, 100))
    c = _saved(tmp_path, "c.json", ([6.0], [4.0]), (100, 100))
    for path, build in ((a, "1111"), (b, "1111"), (c, "2222")):
        saved = json.loads(path.read_text())
        saved["meta"]["extension"] = build
        path.write_text(json.dumps(saved))
    assert cmp.combine([a, b])["10"]["blocks"] == 2
    with pytest.raises(ValueError, match="another build"):
        cmp.combine([a, c])
    # A file from before builds were recorded pools with either.
    old = _saved(tmp_path, "old.json", ([6.0], [4.0]), (100, 100))
    assert cmp.combine([old, c])["10"]["blocks"] == 2


def test_combine_refuses_to_pool_pinned_runs_with_unpinned_ones(tmp_path) -> None:
    def saved(name: str, pin: int | None):
        path = _saved(tmp_path, name, ([6.0], [4.0]), (100, 100))
        doc = json.loads(path.read_text())
        doc["meta"]["pin"] = pin
        path.write_text(json.dumps(doc))
        return path

    on_1, on_0, free = saved("p1.json", 1), saved("p0.json", 0), saved("free.json", None)
    # Pinned to either CPU is one method; the CPUs pool.
    assert cmp.combine([on_1, on_0])["10"]["blocks"] == 2
    with pytest.raises(ValueError, match="pinned"):
        cmp.combine([on_1, free])
    # A file from before --pin was unpinned.
    old = _saved(tmp_path, "old.json", ([6.0], [4.0]), (100, 100))
    assert cmp.combine([old, free])["10"]["blocks"] == 2
    with pytest.raises(ValueError, match="pinned"):
        cmp.combine([old, on_0])


def test_pinning_puts_the_recorder_and_the_sampled_runs_on_cpus_apart(monkeypatch) -> None:
    assert cmp.pinned(None) == ([], [])
    monkeypatch.setattr(cmp.os, "sched_getaffinity", lambda pid: {0, 1, 2})
    recorder, runs = cmp.pinned(1)
    assert runs == ["taskset", "-c", "1"]
    assert recorder == ["taskset", "-c", "0,2"]


def test_pin_to_a_cpu_this_process_cannot_use_is_refused(tmp_path) -> None:
    script = bench_scripts.BENCH / "htsim_compare" / "compare.py"
    fake = tmp_path / "htsim"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    proc = subprocess.run([sys.executable, str(script), "--htsim-bin", str(fake), "--pin", "4096"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--pin" in proc.stderr and "4096" in proc.stderr


def _pooled(ratio: float, lo: float, hi: float, invocations: int) -> dict:
    return {"ratio": ratio, "ci": [lo, hi], "invocations": invocations, "blocks": 30 * invocations}


def test_a_target_is_judged_on_two_invocations_and_the_whole_interval() -> None:
    # Each verdict, and the input one step past its edge that refutes it.
    assert cmp.verdict(_pooled(1.38, 1.31, 1.47, 2), 1.3) == "established"
    assert cmp.verdict(_pooled(1.38, 1.297, 1.47, 2), 1.3).startswith("met (estimate")
    assert "1.297x" in cmp.verdict(_pooled(1.38, 1.297, 1.47, 2), 1.3)
    assert cmp.verdict(_pooled(1.29, 1.21, 1.36, 2), 1.3) == "not met"
    # One invocation never meets a target, however high, but can miss one by its whole interval.
    assert cmp.verdict(_pooled(1.60, 1.50, 1.70, 1), 1.3).startswith("undecided")
    assert cmp.verdict(_pooled(1.18, 1.09, 1.28, 1), 2.0) == "not met"
    assert cmp.verdict(_pooled(1.18, 1.09, 2.01, 1), 2.0).startswith("undecided")


def test_combine_prints_the_verdict_for_the_targeted_flow_counts_only(tmp_path, capsys) -> None:
    a = _saved(tmp_path, "a.json", ([6.0, 6.0], [4.0, 4.0]), (100, 100))
    b = _saved(tmp_path, "b.json", ([6.0, 6.0], [4.0, 4.0]), (100, 100))
    pooled = cmp.combine([a, b])
    cmp.print_combined(pooled)
    assert "target 1.3x: established" in capsys.readouterr().out
    cmp.print_combined({"7": pooled["10"]})
    assert "target" not in capsys.readouterr().out.splitlines()[1]


SITTINGS = bench_scripts.BENCH / "htsim_compare" / "sittings"
README = bench_scripts.BENCH / "htsim_compare" / "README.md"


def _figure(pooled: dict) -> str:
    lo, hi = pooled["ci"]
    return f"{pooled['ratio']:.2f}x ({lo:.2f}x-{hi:.2f}x"


def _sitting_of(path) -> str:
    """A stored file's sitting: its name is `<sitting>-<invocation>.json`."""
    return path.stem.split("-")[0]


def _sittings() -> dict[str, list]:
    """The stored `--json-out` files by sitting."""
    groups: dict[str, list] = defaultdict(list)
    for path in sorted(SITTINGS.glob("*.json")):
        groups[_sitting_of(path)].append(path)
    return groups


def _builds() -> dict[tuple[str, bool], list]:
    """The stored files by the extension they measured and whether their runs were pinned
    (`--pin`: another method, which does not pool with the unpinned). A sitting measures one
    build by one method, so a file from before the build was recorded takes its sitting's (the
    eighteenth's first two)."""
    groups: dict[tuple[str, bool], list] = defaultdict(list)
    for paths in _sittings().values():
        metas = [json.loads(p.read_text())["meta"] for p in paths]
        builds = {m.get("extension") for m in metas} - {None}
        pinned = {m.get("pin") is not None for m in metas}
        assert len(builds) == 1, f"{[p.name for p in paths]}: one build per sitting, got {builds}"
        assert len(pinned) == 1, f"{[p.name for p in paths]}: one method per sitting"
        groups[(builds.pop(), pinned.pop())].extend(paths)
    return groups


def test_the_readme_quotes_the_stored_sittings_as_combine_computes_them() -> None:
    # The README's ratios are what `compare.py --combine` computes from the files the sittings
    # wrote, kept in sittings/: each invocation alone, and each sitting's invocations pooled.
    readme = README.read_text()

    def assert_quoted(paths: list) -> None:
        for n, pooled in cmp.combine(paths).items():
            assert _figure(pooled) in readme, f"{[p.name for p in paths]}, {n} flows: {_figure(pooled)}"

    groups = _sittings()
    assert groups, "no stored sitting"
    for paths in groups.values():
        for path in paths:
            assert_quoted([path])
        assert_quoted(paths)
    # And every build's files pooled, where it was measured in more than one sitting.
    for paths in _builds().values():
        if len({_sitting_of(p) for p in paths}) > 1:
            assert_quoted(paths)


def test_a_figure_the_stored_blocks_do_not_give_is_not_taken_for_one_they_do(tmp_path) -> None:
    # The check above fails on refuting input: the same blocks with tcplab a tenth slower give
    # a figure the README does not quote.
    path = next(iter(_sittings().values()))[0]
    saved = json.loads(path.read_text())
    for row in saved["flows"].values():
        row["tcplab"]["sim_cpu_blocks"] = [x * 1.1 for x in row["tcplab"]["sim_cpu_blocks"]]
    slower = tmp_path / path.name
    slower.write_text(json.dumps(saved))
    readme = README.read_text()
    assert all(_figure(p) not in readme for p in cmp.combine([slower]).values())
