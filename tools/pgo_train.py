"""Run the training scenarios on an instrumented build of the extension (tools/pgo_profile.sh).

The instrumented library is loaded from where cargo left it, not installed: a failed training
leaves the virtualenv's extension as it was. Each scenario runs to its end through the same entry
point `tcplab run` uses, and must succeed (a profile of an error path would steer the build wrong).

Generated dumbbells add what the shipped scenarios leave out: the TCP configurations of
`TCP_SETS`, and runs whose flows and channels outgrow the cache, which take the run loop compiled
with prefetches (`cache::worth_prefetching`). A path no training run takes is compiled as cold.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType


def load_core(library: Path) -> ModuleType:
    # The module's name must be `_core`: Python calls the library's PyInit__core.
    spec = importlib.util.spec_from_file_location("_core", library)
    if spec is None or spec.loader is None:
        raise SystemExit(f"pgo_train: cannot load {library}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The TCP configurations the generated dumbbells run: each loss recovery the core's dumbbells
# commonly use, delayed ACKs, and timestamps with a handshake (a code path a profile must see,
# or it is compiled as cold). Not a scenario that measures the result.
TCP_SETS: list[dict[str, str | bool]] = [
    {"variant": "newreno"},
    {"variant": "reno", "delayed_ack": True},
    {"variant": "sack"},
    {"variant": "tahoe"},
    {"variant": "newreno", "rtt_sample": "timestamp", "handshake": "sender"},
]


def dumbbell(flows: int, seconds: float, bottleneck: str, queue: int, tcp: dict[str, str | bool]) -> str:
    """`flows` bulk flows, one sender and one receiver node each, through a `bottleneck`, 10 ms
    link with room for `queue` packets, their starts spread over the first half of the run."""
    senders = [f"s{i}" for i in range(flows)]
    receivers = [f"d{i}" for i in range(flows)]
    tcp_lines = [f"{k} = {str(v).lower() if isinstance(v, bool) else f'{v!r}'}" for k, v in tcp.items()]
    lines = [
        f'name = "pgo-dumbbell-{flows}"\nduration = "{seconds}s"\nseed = 1',
        "nodes = [" + ", ".join(f'"{n}"' for n in ["r1", "r2", *senders, *receivers]) + "]",
        "[tcp]\nmss = 1460\nmin_rto = '200ms'\n" + "\n".join(tcp_lines),
        f'[[link]]\na = "r1"\nb = "r2"\nrate = "{bottleneck}"\ndelay = "10ms"\nqueue = {queue}',
    ]
    for s, d in zip(senders, receivers, strict=True):
        lines.append(f'[[link]]\na = "{s}"\nb = "r1"\nrate = "100Mbps"\ndelay = "1ms"\nqueue = 100')
        lines.append(f'[[link]]\na = "r2"\nb = "{d}"\nrate = "100Mbps"\ndelay = "1ms"\nqueue = 100')
    for i, (s, d) in enumerate(zip(senders, receivers, strict=True)):
        lines.append(f'[[flow]]\nsrc = "{s}"\ndst = "{d}"\nstart = "{i * seconds / (2 * flows):.6f}s"')
    return "\n\n".join(lines) + "\n"


def generated() -> list[tuple[str, str]]:
    """A small dumbbell for each TCP configuration (a queue short enough to lose packets, so
    that each recovery runs), and a wide one (2,000 flows, past the
    prefetch threshold of 1 MiB of flow and channel records) for the first and the last."""
    runs = []
    for i, tcp in enumerate(TCP_SETS):
        runs.append((f"a 16-flow dumbbell, {tcp}", dumbbell(16, 20.0, "10Mbps", 30, tcp)))
        if i in (0, len(TCP_SETS) - 1):
            runs.append((f"a 2000-flow dumbbell, {tcp}", dumbbell(2000, 1.0, "1Gbps", 1000, tcp)))
    return runs


def shipped(arg: str) -> tuple[str, str]:
    """A scenario file, `FILE.toml` or `FILE.toml@DURATION` to shorten it: a long run would
    outweigh the others in the profile, whose hot and cold are shares of all counts."""
    path, _, duration = arg.partition("@")
    text = Path(path).read_text()
    if duration:
        text = re.sub(r"^duration = .*$", f'duration = "{duration}"', text, count=1, flags=re.M)
    return arg, text


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: pgo_train.py LIBRARY SCENARIO.toml...", file=sys.stderr)
        return 2
    core = load_core(Path(argv[0]))
    scenarios = [shipped(arg) for arg in argv[1:]]
    for name, text in [*scenarios, *generated()]:
        try:
            core.run_scenario(text)
        except (core.ScenarioError, core.InvariantError) as e:
            print(f"pgo_train: {name}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
