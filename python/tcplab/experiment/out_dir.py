"""The ``--out`` folder of ``tcplab run``: checked before the run, marked after it.

tcplab writes into a folder only if it is new, empty, or one tcplab wrote before (it holds the
marker file ``.tcplab-out``), unless ``--force``; it never writes through a symbolic link found
inside; and it checks that the folder is writable before simulating, so that a long run is not
lost to a permission error at the end.
"""

from __future__ import annotations

import os
from pathlib import Path

from tcplab.errors import UserError

__all__ = ["MARKER", "mark_out_dir", "prepare_out_dir"]

MARKER = ".tcplab-out"


def prepare_out_dir(out: str, force: bool = False) -> Path:
    """Check (and create) the output folder named ``out``; UserError naming it if unusable."""
    if out.strip() == "":
        raise UserError("--out: the folder name is empty (give a folder, e.g. --out results)")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"--out: {folder} exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        reason = (e.strerror or str(e)).lower()
        raise UserError(f"--out: cannot create the folder {folder}: {reason}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"--out: the folder {folder} is not writable")
    entries = sorted(folder.iterdir())
    for entry in entries:
        if entry.is_symlink():
            raise UserError(
                f"--out: {entry} is a symbolic link; tcplab does not write through links (remove it)"
            )
    names = {e.name for e in entries}
    if names and MARKER not in names and not force:
        raise UserError(
            f"--out: the folder {folder} is not empty and was not written by tcplab; "
            "choose an empty folder, or add --force to write into it"
        )
    return folder


def mark_out_dir(folder: Path) -> None:
    """Mark ``folder`` as written by tcplab (after a run finished in it)."""
    (folder / MARKER).write_text("written by tcplab run; tcplab may overwrite files here\n", encoding="utf-8")
