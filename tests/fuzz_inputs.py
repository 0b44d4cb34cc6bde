"""Seeded mutations of the shipped example scenarios and sweep specs, for tests/test_fuzz.py.

Each case is one mutated file. Text mutations (cut, duplicate, swap bytes, splice tokens) mostly
hit the TOML parser; document mutations (a leaf replaced by a hostile value, a key removed or
added, a table turned into a scalar) reach the schema checks behind it. Case ``i`` of a seed is
always the same file.
"""

from __future__ import annotations

import random
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcplab.experiment.scenario import dumps

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((REPO / "scenarios").glob("*.toml"))
SPECS = sorted((REPO / "scenarios" / "sweeps").glob("*.toml"))

HOSTILE: list[Any] = [
    0, -1, 1, 2**31, 2**32 - 1, 2**63 - 1, -(2**63), 1e308, -1e308, 1e-308, float("nan"),
    float("inf"), 0.5, True, False, "", " ", "0", "-1s", "1e308Gbps", "NaN", "10 furlongs",
    "\u0000", "x" * 300, "../../x", "/abs", "seed", "reno", "1us", "1ns", "10Gbps", "1e9s",
    [], [1, 2], ["a"], {}, {"a": 1}, [{}], [{"a": "b"}],
]
TOKENS = ["=", "[", "]", "[[", "]]", "{", "}", '"', "'''", "\n", "#", ",", ".", "1e308", "-", "\\u0000"]


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_leaves(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_leaves(v, (*path, i)))
    return out


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _doc_mutation(rng: random.Random, doc: dict[str, Any]) -> dict[str, Any]:
    for _ in range(rng.randint(1, 3)):
        paths = _leaves(doc)
        if not paths:
            break
        path = rng.choice(paths)
        parent = _get(doc, path[:-1])
        key = path[-1]
        roll = rng.random()
        if roll < 0.6:
            parent[key] = rng.choice(HOSTILE)
        elif roll < 0.8 and isinstance(parent, dict):
            del parent[key]
        elif isinstance(parent, dict):
            parent[rng.choice(["bogus", "seed", "rate", "mss", "flow", "link"])] = rng.choice(HOSTILE)
        elif isinstance(parent, list):
            parent.append(rng.choice(HOSTILE))
    return doc


def _text_mutation(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 4)):
        if not text:
            return rng.choice(TOKENS)
        i = rng.randrange(len(text))
        roll = rng.random()
        if roll < 0.3:
            j = min(len(text), i + rng.randint(1, 40))
            text = text[:i] + text[j:]
        elif roll < 0.6:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif roll < 0.8:
            lines = text.splitlines(keepends=True)
            k = rng.randrange(len(lines))
            text = "".join(lines[: k + 1] + lines[k:])
        else:
            text = text[:i] + chr(rng.randrange(1, 0x80)) + text[i + 1 :]
    return text


def mutate(rng: random.Random, source: Path) -> str:
    """One mutation of ``source``'s text (half at the text level, half at the document level)."""
    text = source.read_text(encoding="utf-8")
    if rng.random() < 0.5:
        return _text_mutation(rng, text)
    doc = _doc_mutation(rng, tomllib.loads(text))
    try:
        return dumps(doc)
    except (TypeError, ValueError):
        return _text_mutation(rng, text)


def case(seed: int, i: int, kind: str) -> tuple[str, str]:
    """Case ``i``: (the original file's name, the mutated text); ``kind`` 'scenario' or 'spec'."""
    rng = random.Random(f"{seed}/{kind}/{i}")
    sources = SCENARIOS if kind == "scenario" else SPECS
    source = rng.choice(sources)
    return source.name, mutate(rng, source)


Check = Callable[[str, str], None]


# ---------------------------------------------------------------- random cell networks

ATM_RATES = ["64kbps", "256kbps", "1Mbps", "2Mbps", "10Mbps"]
ATM_MSS = [1, 20, 47, 48, 100, 470, 536, 1000, 1460, 4000, 9180]
ATM_MAX_FRAME = [None, "48B", "100B", "500B", "1500B", "9180B", 65535]
ATM_TIMEOUT = [None, "1ms", "10ms", "100ms", "1s"]


def _cell_loss(rng: random.Random, flows: int) -> dict[str, Any] | None:
    roll = rng.random()
    if roll < 0.4:
        return None
    if roll < 0.7:
        return {"model": "bernoulli", "p": rng.choice([0.001, 0.01, 0.05, 0.2])}
    values = sorted(rng.sample(range(1, 200), rng.randint(1, 12)))
    return {"model": "drop_list", "flow": rng.randrange(flows), "by": "tx_index", "values": values}


def _cell_drop(rng: random.Random) -> dict[str, Any] | None:
    policy = rng.choice([None, "tail", "ppd", "epd", "sd"])
    if policy in (None, "tail", "ppd"):
        return None if policy is None else {"policy": policy}
    drop: dict[str, Any] = {"policy": policy, "threshold": rng.choice([0.1, 0.5, 0.9])}
    if policy == "sd":
        drop["z"] = rng.choice([0.25, 0.5, 1.0])
    return drop


def _cell_link(rng: random.Random, a: str, b: str, flows: int, atm: bool = True) -> dict[str, Any]:
    link: dict[str, Any] = {
        "a": a,
        "b": b,
        "rate": rng.choice(ATM_RATES),
        "delay": rng.choice(["0ms", "1ms", "5ms", "20ms"]),
        "atm": atm,
        "queue": rng.choice([2, 8, 64, 1000]),
    }
    if atm and (drop := _cell_drop(rng)) is not None:
        link["drop"] = drop
    for direction in ("ab", "ba"):
        if (loss := _cell_loss(rng, flows)) is not None:
            link[direction] = {"loss": loss}
    return link


def _cell_tcp(rng: random.Random) -> dict[str, Any]:
    tcp: dict[str, Any] = {
        "codec": rng.choice(["plain", "boston", "boston", "boston_bitmap"]),
        "mss": rng.choice(ATM_MSS),
        "variant": rng.choice(["reno", "newreno", "tahoe", "sack", "sack_rfc6675"]),
        "initial_cwnd": rng.choice([1, 2, 4, 10]),
        "min_rto": rng.choice(["10ms", "200ms", "1s"]),
        "handshake": rng.choice(["none", "sender", "receiver"]),
        "boston_partial": rng.choice(["wait", "fresh"]),
        "boston_redundancy": rng.choice([0, 0, 1, 3]),
        "boston_dispersal": rng.choice([1, 2, 4]),
    }
    if rng.random() < 0.3:
        tcp["delayed_ack"] = True
    return tcp


def _cell_atm(rng: random.Random) -> dict[str, Any]:
    framing = rng.choice(["aal5", "flag"])
    atm: dict[str, Any] = {
        "framing": framing,
        "reassembly": rng.choice(["aal5", "per_packet"]),
        "llc_snap": rng.random() < 0.5,
        "max_frame": rng.choice(ATM_MAX_FRAME),
        "reassembly_timeout": rng.choice(ATM_TIMEOUT),
    }
    if framing == "aal5":
        atm["trailer"] = rng.random() < 0.7
    return atm


def atm_case(seed: int, i: int) -> str:
    """Case ``i``: a random cell network (two hosts on one cell link, a star of senders through
    a switch, or a path mixing a packet link with a cell link), AAL5 and TCP Boston knobs, drop
    policies and losses, short enough to run in milliseconds. Run, it must end with its
    ledgers balanced or be refused in one line: never an invariant error."""
    rng = random.Random(f"{seed}/atm/{i}")
    flows = rng.randint(1, 4)
    shape = rng.choice(["pair", "star", "star", "mixed"])
    if shape == "pair":
        nodes, switches = ["a", "b"], []
        links = [_cell_link(rng, "a", "b", flows)]
        ends = [("a", "b")] * flows
    elif shape == "star":
        senders = [f"s{k}" for k in range(flows)]
        nodes, switches = [*senders, "sw", "r"], ["sw"]
        links = [_cell_link(rng, s, "sw", flows) for s in senders] + [_cell_link(rng, "sw", "r", flows)]
        ends = [(s, "r") for s in senders]
    else:
        nodes, switches = ["a", "router", "b"], []
        links = [_cell_link(rng, "a", "router", flows, atm=False), _cell_link(rng, "router", "b", flows)]
        ends = [("a", "b")] * flows
    # At most about 2 Mbit of traffic: a case runs in milliseconds.
    duration = rng.choice([0.05, 0.2, 0.5, 1.0, 2.0])
    doc: dict[str, Any] = {
        "duration": duration,
        "seed": rng.randrange(1000),
        "nodes": nodes,
        "switches": switches,
        "atm": _cell_atm(rng),
        "tcp": _cell_tcp(rng),
        "link": links,
        "flow": [],
    }
    for src, dst in ends:
        flow: dict[str, Any] = {"src": src, "dst": dst, "start": rng.choice([0.0, 0.01, 0.1])}
        if rng.random() < 0.5:
            flow["bytes"] = rng.choice([1, 100, 1000, 10_000, 100_000])
        if rng.random() < 0.2:
            flow["tcp"] = _cell_tcp(rng)
        doc["flow"].append(flow)
    return dumps(doc)
