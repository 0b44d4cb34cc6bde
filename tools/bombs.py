"""Issue 27's memory bombs and slow interrupts, measured: for each bomb, the CLI's peak
resident memory, wall time, exit status and first error line under ``--max-memory 1GB`` and
under an address-space limit of 4,000,000 KiB (``ulimit -v 4000000``); then the Ctrl-C latency
of the two runs whose events are slow.

    python3 tools/bombs.py [--only NAME ...] [--work DIR] [--markdown]

Run it from a worktree with a built .venv, under ``nice``: each bomb is at most a few GB for a
few seconds. The ``--max-memory`` runs also get an 12 GB address-space cap, so a bomb that
escapes its estimate cannot take the machine (the cap is far above 1 GB: it does not change
the limit the run applies).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".venv" / "bin" / "python"
ULIMIT_V_KIB = 4_000_000
SAFETY_CAP = 12 << 30
sys.path.insert(0, str(REPO / "tests"))
from test_input_caps import _name  # noqa: E402  (the tests' distinct short key names)

TWO = 'nodes = ["a", "b"]\n'
LINK = '[[link]]\na = "a"\nb = "b"\nrate = "10Mbps"\ndelay = "10ms"\n'


def route_chain() -> str:
    """A 2.1 MB chain of 20,000 nodes crossed end to end by 20,000 flows."""
    n = 20_000
    nodes = ",".join(f'"n{i}"' for i in range(n))
    flows = ",".join([f'{{src="n0",dst="n{n - 1}"}}'] * n)
    links = "".join(f'[[link]]\na="n{i}"\nb="n{i + 1}"\nrate="1Mbps"\n' for i in range(n - 1))
    return f'duration = "1s"\nnodes = [{nodes}]\nflow = [{flows}]\n{links}'


def pcap_both() -> str:
    """A 20 s, 10 Gb/s bulk flow captured at both ends of its link."""
    return (
        'duration = "20s"\n' + TWO + '[tcp]\nrcv_buf = "64MiB"\nwindow_scaling = true\n'
        '[[link]]\na = "a"\nb = "b"\nrate = "10Gbps"\ndelay = "1ms"\nqueue = 10000\npcap = "both"\n'
        '[[flow]]\nsrc = "a"\ndst = "b"\n'
    )


def marker_series(
    bin_: str, duration: str, flows: int, marked: int, per_flow: bool = False
) -> Callable[[], str]:
    """Series of `bin_` over `duration`, `flows` flows of which `marked` carry a marker."""

    def text() -> str:
        link = LINK.replace("10Mbps", "100Mbps") + ("per_flow_series = true\n" if per_flow else "")
        marker = 'marker = { rate = "5Mbps", depth_time = "50ms" }\n'
        body = "".join(
            '[[flow]]\nsrc = "a"\ndst = "b"\n' + (marker if i < marked else "") for i in range(flows)
        )
        return f'duration = "{duration}"\nseries_bin = "{bin_}"\n' + TWO + link + body

    return text


def many_links(n: int) -> Callable[[], str]:
    """`n` parallel links between two nodes, inline, 21 bytes a link (the issue's 14.7 MB)."""
    return lambda: 'duration = "1s"\n' + TWO + "link = [" + '{a="a",b="b",rate=1},' * n + "]\n"


def inline_links(n: int) -> Callable[[], str]:
    """`n` parallel links as inline tables of one array."""
    return lambda: 'duration = "1s"\n' + TWO + "link = [" + '{a="a",b="b",rate="1Gbps"},' * n + "]\n"


def series_1us() -> str:
    """Issue 26 item 2: 20 flows with 1 us series bins over 10 s."""
    flows = "flow = [" + ", ".join(['{src = "a", dst = "b"}'] * 20) + "]\n"
    return 'duration = "10s"\nseries_bin = "1us"\n' + TWO + flows + LINK


def zero_rto() -> str:
    return (
        'duration = "20ms"\n'
        + TWO
        + '[tcp]\nmin_rto = "0s"\nmax_rto = "0s"\n'
        + LINK
        + '[[flow]]\nsrc="a"\ndst="b"\n'
    )


TOP = 'duration = "1s"\n' + TWO
INPUT_CAPS = {
    "quoted_key_900k_flows": lambda: TOP + '"flow" = [' + '{src="a",dst="b"},' * 900_000 + "]\n" + LINK,
    "quoted_header_flows": lambda: TOP + LINK + '[["flow"]]\nsrc="a"\ndst="b"\n' * 300_000,
    "inline_www_pairs": lambda: TOP + "[www]\npair = [" + '{client="a",server="b"},' * 130_000 + "]\n" + LINK,
    "dotted_key_tables": lambda: TOP + "".join(f"{_name(i)}.x=1\n" for i in range(600_000)) + LINK,
}


@dataclass
class Bomb:
    name: str
    what: str
    make: Callable[[], str]
    command: str = "run"  # run, validate, run-out, sweep, sweep-dry
    spec: Callable[[Path], Path] | None = None


def big_name_sweep(side: int) -> Callable[[Path], Path]:
    """A base with a 4 MB name over `side` x `side` points."""

    def spec(work: Path) -> Path:
        base = f'name = "{"x" * 4_000_000}"\nduration = "10ms"\n' + TWO + LINK
        (work / "base.toml").write_text(base + '[[flow]]\nsrc="a"\ndst="b"\nbytes=1000\n')
        mss = ", ".join(str(500 + i) for i in range(side))
        rcv = ", ".join(f'"{64 + i}KiB"' for i in range(side))
        path = work / "big_name.toml"
        factors = f'[factors]\n"tcp.mss" = [{mss}]\n"tcp.rcv_buf" = [{rcv}]\n'
        path.write_text('name = "big_name"\nbase = "base.toml"\n' + factors)
        return path

    return spec


def common_seed_dry_run(work: Path) -> Path:
    """A --dry-run with common seeds: 100 x 100 points whose name levels are 150 kB each."""
    (work / "base.toml").write_text(
        'duration = "1s"\n' + TWO + LINK + '[[flow]]\nsrc="a"\ndst="b"\nbytes=1000\n'
    )
    names = ", ".join(f'"{i:03d}{"x" * 150_000}"' for i in range(100))  # the spec stays under 16 MB
    mss = ", ".join(str(500 + i) for i in range(100))
    spec = work / "common.toml"
    spec.write_text(
        f'name = "common"\nbase = "base.toml"\nseeds = "common"\n[factors]\n'
        f'name = [{names}]\n"tcp.mss" = [{mss}]\n'
    )
    return spec


BOMBS = [
    Bomb("route_chain_run", "20,000-node chain, 20,000 flows: run", route_chain),
    Bomb("route_chain_validate", "the same: validate", route_chain, "validate"),
    Bomb("pcap_both_10G_20s", "10 Gb/s for 20 s, pcap = both, --out", pcap_both, "run-out"),
    Bomb("marker_1us_10s_2f", "series 1 us x 10 s, 2 flows, 1 marked", marker_series("1us", "10s", 2, 1)),
    Bomb(
        "marker_10us_10s_8f", "series 10 us x 10 s, 8 flows, all marked", marker_series("10us", "10s", 8, 8)
    ),
    Bomb(
        "marker_near_1GB",
        "series 10 us x 2 s, 8 flows marked: estimate near 1 GB",
        marker_series("10us", "2s", 8, 8),
    ),
    Bomb(
        "marker_per_flow",
        "series 100 us x 10 s, 20 flows marked, per-flow series",
        marker_series("100us", "10s", 20, 20, True),
    ),
    Bomb("links_700k", "700,000 inline links (14.7 MB)", many_links(700_000)),
    Bomb("links_520k_inline", "520,000 inline links (16.5 MB)", inline_links(520_000)),
    Bomb("series_1us_20f", "issue 26: series 1 us x 10 s, 20 flows", series_1us),
    Bomb("zero_rto", "min_rto = max_rto = 0s", zero_rto),
    *[Bomb(k, k.replace("_", " "), v) for k, v in INPUT_CAPS.items()],
    Bomb("sweep_4MB_name_64", "sweep: base with a 4 MB name, 64 points", str, "sweep", big_name_sweep(8)),
    Bomb("sweep_4MB_name_256", "sweep: base with a 4 MB name, 256 points", str, "sweep", big_name_sweep(16)),
    Bomb(
        "sweep_dry_4MB_name_1024",
        "sweep --dry-run: 4 MB name, 1,024 points",
        str,
        "sweep-dry",
        big_name_sweep(32),
    ),
    Bomb(
        "sweep_dry_common",
        "sweep --dry-run, common seeds, 10,000 points of 150 kB levels",
        str,
        "sweep-dry",
        common_seed_dry_run,
    ),
]


def _limits(address_space: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return apply


def measure(bomb: Bomb, work: Path, mode: str) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    for old in work.glob("*"):
        subprocess.run(["rm", "-rf", str(old)], check=True)
    scenario = work / f"{bomb.name}.toml"
    if bomb.spec is None:
        scenario.write_text(bomb.make())
    args: list[str]
    if bomb.command in ("run", "validate"):
        args = [bomb.command, str(scenario)]
    elif bomb.command == "run-out":
        args = ["run", str(scenario), "--out", str(work / "out")]
    else:
        assert bomb.spec is not None
        spec = bomb.spec(work)
        args = ["sweep", str(spec), "--store", str(work / "s.sqlite"), "-q", "--workers", "2"]
        if bomb.command == "sweep-dry":
            args = ["sweep", str(spec), "--dry-run"]
    if mode == "max-memory" and bomb.command != "sweep-dry":
        args += ["--max-memory", "1GB"]
    cap = SAFETY_CAP if mode == "max-memory" else ULIMIT_V_KIB * 1024
    cmd = ["/usr/bin/time", "-f", "TIME %e %M", str(PYTHON), "-m", "tcplab", *args]
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limits(cap),
        start_new_session=True,  # a timeout stops the sweep's workers too
    )
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"status": "timeout", "peak_mb": "-", "wall_s": 600, "line": "(killed after 600 s)"}
    wall = time.monotonic() - started
    lines = err.strip().splitlines()
    timing = next((x for x in lines if x.startswith("TIME ")), None)
    rest = [x for x in lines if not x.startswith("TIME ") and not x.startswith("Command exited")]
    peak = int(timing.split()[2]) / 1024 if timing else float("nan")
    status = proc.returncode
    m = re.search(r"Command terminated by signal (\d+)", err)
    if m:
        status = -int(m.group(1))
    first = rest[0] if rest else (out.strip().splitlines() or [""])[-1]
    return {
        "status": status,
        "peak_mb": f"{peak:.0f}",
        "wall_s": f"{wall:.1f}",
        "lines": len(rest),
        "line": first[:160],
    }


SACK_MSS1 = (
    'duration = "1000s"\n'
    + TWO
    + '[tcp]\nvariant = "sack_rfc6675"\nmss = 1\nrcv_buf = "1MiB"\nwindow_scaling = true\n'
    '[[link]]\na = "a"\nb = "b"\nrate = "100Mbps"\ndelay = "10ms"\nqueue = 100000\n'
    'loss = { model = "bernoulli", p = 0.01 }\n[[flow]]\nsrc = "a"\ndst = "b"\n'
)


def ctrl_c_latency(name: str, text: str, work: Path, wait: float = 15.0) -> dict[str, object]:
    work.mkdir(parents=True, exist_ok=True)
    scenario = work / f"{name}.toml"
    scenario.write_text(text)
    proc = subprocess.Popen(
        [str(PYTHON), "-m", "tcplab", "run", str(scenario), "--max-memory", "1GB"],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # A background job inherits SIGINT ignored (and Python then keeps it so): restore it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(wait)
    running = proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    took = time.monotonic() - sent
    return {
        "running_at_signal": running,
        "latency_s": f"{took:.2f}",
        "status": proc.returncode,
        "line": err.strip()[:120],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--work", type=Path, default=Path("/tmp/tcplab-bombs"))
    ap.add_argument("--no-ctrl-c", action="store_true")
    ns = ap.parse_args()
    print(f"# load {os.getloadavg()[0]:.2f} at start")
    print("| bomb | limit | exit | peak MB | wall s | lines | first line |")
    print("|---|---|---|---|---|---|---|")
    for bomb in BOMBS:
        if ns.only and not any(o in bomb.name for o in ns.only):
            continue
        for mode in ("max-memory", "ulimit"):
            r = measure(bomb, ns.work / bomb.name, mode)
            limit = "--max-memory 1GB" if mode == "max-memory" else "ulimit -v 4000000"
            line = str(r["line"]).replace("|", "\\|")
            print(
                f"| {bomb.name} | {limit} | {r['status']} | {r['peak_mb']} | {r['wall_s']} "
                f"| {r.get('lines', '-')} | {line} |",
                flush=True,
            )
    if ns.no_ctrl_c:
        return
    sys.path.insert(0, str(REPO / "tests"))
    from test_hostile import SLOW_EVENTS

    print("\n| slow run | running at SIGINT | latency s | exit | stderr |")
    print("|---|---|---|---|---|")
    for name, text in (("sack_rfc6675_mss1", SACK_MSS1), ("boston_mss65495", SLOW_EVENTS)):
        if ns.only and not any(o in name for o in ns.only):
            continue
        r = ctrl_c_latency(name, text, ns.work / name)
        print(
            f"| {name} | {r['running_at_signal']} | {r['latency_s']} | {r['status']} | {r['line']} |",
            flush=True,
        )
    print(f"# load {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
