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


def main() -> None:
    stop_as_on_ctrl_c()
    try:
        from tcplab.cli import main as command_line
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    command_line()
