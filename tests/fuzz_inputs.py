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
