"""The ``tcplab`` command's entry point: the signal handling a command needs before anything
heavy is imported. Importing ``tcplab.cli`` (typer, the core, the experiment layer) takes a few
hundred milliseconds; a Ctrl-C, ``timeout`` or ``kill`` in them is an interrupt, not a
traceback. This module and ``tcplab/__init__.py`` import nothing heavy (the package's names
load on first use), so the window left is Python's own start-up.
"""

from __future__ import annotations

import os
import signal
import sys


def stop_as_on_ctrl_c() -> None:
    """SIGTERM (``timeout``, ``kill``, a batch system's limit) and SIGHUP (a closed terminal)
    end a command as Ctrl-C does, through the same clean-up: an interrupted ``--out`` run leaves
    nothing, a benchmark's child is stopped. Their default action would end the process on the
    spot, leaving a run's staged files behind.

    Only in this process: a child forked from it (a sweep's worker) inherits the handler, and
    a worker its pool terminates must die at once, as the default action does, not raise
    KeyboardInterrupt wherever it is (holding its pool's result queue's lock, the pool's
    shutdown then waited forever)."""
    owner = os.getpid()

    def interrupt(signum: int, frame: object) -> None:
        if os.getpid() != owner:  # a forked child, before it set its own handlers
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), interrupt)


_said = False  # whether this process has said it was interrupted


def say_interrupted() -> None:
    """The one line an interrupted command prints (every place that ends one says it here)."""
    global _said
    _said = True
    print("error: interrupted", file=sys.stderr, flush=True)


def main() -> None:
    stop_as_on_ctrl_c()
    try:
        from tcplab.cli import main as command_line
    except KeyboardInterrupt:
        say_interrupted()
        raise SystemExit(130) from None
    try:
        command_line()
    except SystemExit as e:
        # typer ends a command interrupted while it parses the line (it imports pydantic then,
        # about 100 ms) with status 130 and no word: the line is said here.
        if e.code == 130 and not _said:
            say_interrupted()
        raise
