"""Names that become file names (a sweep's ``name`` -> ``out/sweeps/<name>.sqlite``) are checked
here, so that no input can write outside the folder it is meant for."""

from __future__ import annotations

import unicodedata

__all__ = ["file_name_problem"]

MAX_NAME_BYTES = 200


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be used as one file name inside an output folder, or None if it can.

    Rejected: a NUL or other control character, a path separator (so no absolute path and no
    ``a/../b``), the names ``.`` and ``..``, and names too long for a file system.
    """
    if "\0" in name:
        return "contains a NUL character"
    # Category Cc: C0, DEL and the C1 range U+0080-U+009F (U+0085 is a line break to some
    # tools, U+009B starts a terminal escape sequence as ESC [ does).
    bad = next((c for c in name if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        return f"contains a control character (U+{ord(bad):04X})"
    if "/" in name or "\\" in name:
        return f"must be a plain name, not a path (it names a file in the output folder): {name!r}"
    if name.strip() in (".", ".."):
        return f"{name!r} is not a usable file name"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None
