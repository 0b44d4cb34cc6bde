"""bench/htsim_compare's sampling of simulation time, without htsim or perf.

compare.py uses only the standard library, so it is imported here. The htsim runs themselves stay
out of the test suite; these tests fix which sampled stacks count as simulation on either side.
"""

from __future__ import annotations

import shutil
import subprocess

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
