#!/usr/bin/env python3
"""Behaviour snapshots: prove that a refactor changes no output.

``snapshot`` runs one tcplab (a checkout's ``.venv/bin/tcplab``) over everything whose bytes a
user could see and writes one file per output, with wall-clock fields removed:

- every shipped scenario: ``tcplab run NAME --json`` and the files of ``--out`` (traces, pcaps,
  summary; PNGs are skipped: matplotlib's bytes are not ours);
- the shipped example sweep: its CSV (wall-time columns dropped);
- every bench scenario's event and packet counts (``tcplab bench --json``);
- every study's ``claims.json`` in quick mode (``tcplab reproduce all --quick``).

``compare A B`` lists every file that differs or exists on one side only, and exits 1 if any
does. ``make check-identical BASE=<rev>`` builds BASE in a temporary worktree and compares it
with the working tree.
"""

from __future__ import annotations

import argparse
import csv as csvmod
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WALL_KEYS = ("wall", "elapsed", "_at", "rss", "events_per_sec", "packets_per_sec", "host")


def _strip_wall(x: Any) -> Any:
    """Drop every key that measures the machine rather than the simulation."""
    if isinstance(x, dict):
        return {k: _strip_wall(v) for k, v in x.items() if not any(w in k for w in WALL_KEYS)}
    if isinstance(x, list):
        return [_strip_wall(v) for v in x]
    return x


def _dump(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_strip_wall(obj), indent=1, sort_keys=True) + "\n")


def _run(cmd: list[str], cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if out.returncode not in ok:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return out.stdout


def _scenarios(checkout: Path) -> list[str]:
    return sorted(p.stem for p in (checkout / "python/tcplab/scenarios").glob("*.toml"))


def snapshot_runs(tcplab: str, out: Path, work: Path, checkout: Path) -> None:
    for name in _scenarios(checkout):
        _dump(out / "run" / f"{name}.json", json.loads(_run([tcplab, "run", name, "--json"])))
        d = work / "run-out" / name
        _run([tcplab, "run", name, "--json", "--out", str(d)])
        for f in sorted(d.iterdir()):
            if f.suffix == ".png" or f.name.startswith("."):
                continue
            if f.suffix == ".json":
                _dump(out / "run-out" / name / f.name, json.loads(f.read_text()))
            else:
                (out / "run-out" / name).mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256(f.read_bytes()).hexdigest()
                (out / "run-out" / name / f"{f.name}.sha256").write_text(digest + "\n")


def snapshot_sweep(tcplab: str, out: Path, work: Path, checkout: Path) -> None:
    spec = checkout / "python/tcplab/scenarios/sweeps/loss_variants.toml"
    csv = work / "sweep.csv"
    store = str(work / "sweep.sqlite")
    _run([tcplab, "sweep", str(spec), "--store", store, "--csv", str(csv), "--workers", "1"])

    with csv.open() as fh:
        rows = list(csvmod.DictReader(fh))
    _dump(out / "sweep" / "loss_variants.json", rows)


def snapshot_bench(tcplab: str, out: Path) -> None:
    # Only the counts matter here: a target missed on a loaded machine (status 3) is no failure.
    report = json.loads(_run([tcplab, "bench", "--json"], ok=(0, 3)))
    scenarios = report.get("scenarios", report)
    counts = {
        name: {k: v for k, v in r.items() if k in ("events", "packets_forwarded", "goodput_bps_total")}
        for name, r in scenarios.items()
        if isinstance(r, dict)
    }
    _dump(out / "bench" / "counts.json", counts)


def snapshot_claims(tcplab: str, out: Path, work: Path) -> None:
    d = work / "reproduce"
    _run([tcplab, "reproduce", "all", "--quick", "--out", str(d)])
    for f in sorted(d.glob("*/claims.json")):
        shutil.copyfile(f, _mkparent(out / "claims" / f"{f.parent.name}.json"))


def _mkparent(p: Path) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def snapshot(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    checkout = Path(args.checkout).resolve()
    tcplab = str(checkout / ".venv/bin/tcplab")
    with tempfile.TemporaryDirectory(prefix="tcplab-identity-") as tmp:
        work = Path(tmp)
        parts = args.parts.split(",")
        if "runs" in parts:
            snapshot_runs(tcplab, out, work, checkout)
        if "sweep" in parts:
            snapshot_sweep(tcplab, out, work, checkout)
        if "bench" in parts:
            snapshot_bench(tcplab, out)
        if "claims" in parts:
            snapshot_claims(tcplab, out, work)
    print(f"snapshot of {checkout} in {out}")


def compare(args: argparse.Namespace) -> int:
    a, b = Path(args.a), Path(args.b)
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    # A part snapshotted on one side only (``--parts``) is left out, and said so.
    parts_a, parts_b = {r.parts[0] for r in files_a}, {r.parts[0] for r in files_b}
    for part in sorted(parts_a ^ parts_b):
        print(f"not compared: {part}/ (snapshotted on one side only)")
    files_a = {r for r in files_a if r.parts[0] in parts_b}
    files_b = {r for r in files_b if r.parts[0] in parts_a}
    bad = 0
    for rel in sorted(files_a | files_b):
        if rel not in files_b or rel not in files_a:
            print(f"only in {'A' if rel in files_a else 'B'}: {rel}")
            bad += 1
        elif (a / rel).read_bytes() != (b / rel).read_bytes():
            print(f"differs: {rel}")
            bad += 1
    total = len(files_a | files_b)
    print(f"{total - bad} of {total} outputs identical" + ("" if bad else " (all)"))
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot", help="write a behaviour snapshot of one checkout")
    s.add_argument("out")
    s.add_argument("--checkout", default=".", help="a checkout with a built .venv (default: here)")
    s.add_argument("--parts", default="runs,sweep,bench,claims")
    c = sub.add_parser("compare", help="compare two snapshots")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args()
    if args.cmd == "snapshot":
        snapshot(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
