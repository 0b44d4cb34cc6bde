"""Reading the user's input files (scenarios, sweep specs) safely: regular files only, of a
bounded size, decoded as UTF-8, parsed as TOML, every failure one line naming the file.

A FIFO or ``/dev/zero`` given as a scenario would otherwise be read forever, and TOML nested a
few hundred levels deep makes Python's parser raise RecursionError.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tomllib
from typing import Any

from tcplab.errors import UserError

__all__ = ["MAX_INPUT_BYTES", "parse_toml", "read_input"]

# Far above any hand-written scenario or spec (the largest shipped one is a few kB), and room
# for a generated dumbbell of 2 x 10^5 flows (a 10^5-flow one is 23 MB); what the parse costs
# is bounded by input_limits' counts, not by the size.
MAX_INPUT_BYTES = 64 * 1024 * 1024


def read_input(path: str | os.PathLike[str], what: str = "scenario", limit: int = MAX_INPUT_BYTES) -> str:
    """The text of an input file of at most ``limit`` bytes; UserError (one line, naming the
    file) if it cannot be one."""
    name = os.fspath(path)
    if name == "":
        raise UserError(f"{what}: the file name is empty")
    if "\0" in name:
        raise UserError(f"{what}: the file name {name!r} contains a NUL character")
    # Missing, unreadable: the OSError goes up unchanged (the CLI puts it in one line). O_NONBLOCK
    # so that opening a FIFO with no writer does not hang before the check below.
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", name)
        if not stat.S_ISREG(st.st_mode):
            raise UserError(f"{name}: not a regular file (a device, FIFO or socket); give a {what} file")
        if st.st_size > limit:
            raise UserError(f"{name}: {st.st_size} bytes, too large for a {what} (at most {limit})")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UserError(f"{name}: too large for a {what} (at most {limit} bytes)")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (Windows editors write one) is dropped
    except UnicodeDecodeError:
        raise UserError(f"{name}: not a text file (it is not valid UTF-8)") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text; UserError naming ``source`` for a syntax error or absurd nesting."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{source}: not valid TOML: {e}") from None
    except RecursionError:
        raise UserError(f"{source}: not valid TOML: tables or arrays nested too deeply") from None
    except ValueError:  # tomllib's int() past Python's digit limit (not a TOMLDecodeError)
        raise UserError(f"{source}: {too_long_number(text)}") from None


def too_long_number(text: str) -> str:
    """What to say of an integer literal longer than Python converts (``sys.get_int_max_str_digits``):
    tomllib raises a bare ValueError for it, with no line. No field holds such a number, so the
    message names the line and the key written on it, if any."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d{{{limit + 1},}}", text)
    if found is None:
        return f"not valid TOML: an integer of more than {limit} digits"
    line_no = text.count("\n", 0, found.start()) + 1
    line = text.splitlines()[line_no - 1]
    key = re.match(r"\s*([^=\s][^=]*?)\s*=", line)
    where = f"{key.group(1)}: " if key else ""
    return f"{where}number too large: an integer of more than {limit} digits (line {line_no})"
