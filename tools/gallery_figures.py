"""Redraw the figures of docs/gallery.md: run every script of examples/ in full in a temporary
folder and copy the PNGs it draws into docs/gallery/.

    .venv/bin/python tools/gallery_figures.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    dest = ROOT / "docs" / "gallery"
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tcplab-gallery-") as tmp:
        out = Path(tmp) / "out"
        for script in sorted((ROOT / "examples").glob("*.py")):
            print(f"running {script.name} ...", flush=True)
            subprocess.run([sys.executable, script, "--out", out], cwd=tmp, check=True, capture_output=True)
        for png in sorted(out.glob("*.png")):
            shutil.copy(png, dest / png.name)
            print(f"wrote {dest / png.name}")


if __name__ == "__main__":
    main()
