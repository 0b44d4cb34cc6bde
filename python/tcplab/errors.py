"""Errors of the Python layer, and how any error is put into one line for a user.

Two kinds reach the user: their own mistakes (a bad scenario, a missing file, a bad argument),
which the CLI reports in one paragraph with exit status 2, and bugs (``InvariantError`` from the
simulator, ``InternalError`` from the Python layer), reported with status 1. ``ScenarioError``
and ``InvariantError`` come from the Rust core; ``UserError`` is for mistakes found in Python
(an unknown study, say).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from tcplab._core import InvariantError, ScenarioError

__all__ = [
    "CaptureWithoutHandshake",
    "DeprecatedInput",
    "InternalError",
    "InvariantError",
    "ScenarioError",
    "StoppedFromOutside",
    "UserError",
    "cli_errors",
    "counted",
    "deprecated",
    "describe",
    "printable",
]

# What must not reach a terminal raw from a name or a message: C0 and C1 control characters
# (ESC starts terminal sequences, a newline would forge a line), DEL, line and paragraph
# separators, and the bidirectional overrides that reorder what is shown.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

F = TypeVar("F", bound=Callable[..., Any])


class UserError(Exception):
    """Bad input noticed by the Python layer; the message says what and where."""


class DeprecatedInput(FutureWarning):
    """An old spelling that still works (a FutureWarning, so Python shows it to every user)."""


def deprecated(message: str) -> None:
    """Warn about an old spelling; the CLI prints it as one ``warning:`` line."""
    import warnings

    warnings.warn(message, DeprecatedInput, stacklevel=3)


class NotKept(UserWarning):
    """A sweep's runs ask for output the sweep does not keep (pcap captures)."""


def not_kept(fields: list[str]) -> None:
    """Warn that a sweep drops what ``fields`` ask for; the CLI prints it as one line."""
    import warnings

    warnings.warn(
        f"{', '.join(fields)}: a sweep does not keep pcap captures (it keeps each run's report and "
        "its flow, queue and drop traces); run the point with `tcplab run --out` to capture it",
        NotKept,
        stacklevel=3,
    )


class CaptureWithoutHandshake(UserWarning):
    """A pcap whose connection starts without its handshake (``tcp.handshake = "none"``):
    Wireshark cannot learn the window scale."""


class InternalError(RuntimeError):
    """A failure that is not the user's fault (a benchmark child crashed, say): a bug."""


class StoppedFromOutside(RuntimeError):
    """Work stopped by something outside tcplab and outside the input: a worker process killed
    (the kernel's out-of-memory killer, an operator), the Dask scheduler lost. Neither a bug nor
    a mistake; what was stored is kept, and a rerun goes on."""


# The exit status of a command stopped from outside (docs/cli.md's table): not 1, which asks
# for a bug report, nor 2, which says the input is wrong.
STOPPED_FROM_OUTSIDE_STATUS = 4


def counted(n: int, noun: str) -> str:
    """A count and its noun, singular for one: "1 point", "2 points", "1,000,000 replications"
    (messages said "1 points x 1 replications"). Only for nouns whose plural adds an s."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def printable(text: object) -> str:
    """``text`` safe to print on one terminal line: control characters shown as escapes
    (``\\n``, ``\\x1b``, ``\\u202e``), everything else unchanged."""
    return _CONTROL.sub(_escape, str(text))


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def _prefix(source: str | os.PathLike[str] | None) -> str:
    # An empty name is no name: its own error says the name is empty.
    return f"{os.fspath(source)}: " if source is not None and os.fspath(source) else ""


def describe(exc: BaseException, source: str | os.PathLike[str] | None = None) -> str:
    """One paragraph naming the input (``source``), the field and the problem."""
    if isinstance(exc, ScenarioError):
        if len(exc.args) == 2:
            field, message = exc.args
            if str(field).startswith("--"):  # a command-line option: not the file's field
                return f"{field}: {message}"
            return f"{_prefix(source)}{field}: {message}"
        return f"{_prefix(source)}{exc}"
    if isinstance(exc, OSError) and isinstance(exc.filename, str | bytes | os.PathLike):
        reason = exc.strerror or str(exc)
        return f"{os.fspath(exc.filename)}: {reason.lower() if reason[:1].isupper() else reason}"
    text = str(exc)
    if source is not None and text.startswith(f"{os.fspath(source)}: "):
        return text  # the message already names the input
    return f"{_prefix(source)}{text}"


def _fail(status: int, message: str, note: str = "") -> NoReturn:
    import typer

    # Escaped where it is printed: a message may quote a name from the input (a node named
    # "a\nerror: ..." must not forge a second line), the core's messages included.
    typer.echo(f"error: {printable(message)}{note}", err=True)
    raise typer.Exit(status)


# The status of a command whose reader went away (``tcplab examples | head -3``): 128 + SIGPIPE,
# what a shell reports for any Unix tool stopped that way.
BROKEN_PIPE_STATUS = 141


def quiet_broken_pipe() -> NoReturn:
    """Leave quietly when stdout's reader has gone: no message, and nothing left for Python to
    flush into the closed pipe at exit (which would print an error of its own)."""
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass
    raise SystemExit(BROKEN_PIPE_STATUS)


def cli_errors(fn: F) -> F:
    """Wrap a CLI command so exceptions become one-paragraph errors (the one place that does).

    User mistakes print to stderr and exit with status 2, simulator bugs (InvariantError) with
    status 1, and neither shows a traceback. A parameter named ``file`` names the input. It
    lives here, not in tcplab.cli, so that study CLIs use it without importing tcplab.cli.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        source = kwargs.get("file")
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:
            quiet_broken_pipe()
        except (ScenarioError, UserError, OSError) as e:
            _fail(2, describe(e, source))
        except StoppedFromOutside as e:
            _fail(STOPPED_FROM_OUTSIDE_STATUS, describe(e, source))
        except (InvariantError, InternalError) as e:
            _fail(
                1,
                describe(e, source),
                "\nThis is a bug in tcplab, not in the scenario: please report it with the scenario "
                "file and the seed.",
            )
        except KeyboardInterrupt:
            import typer

            from tcplab._launch import say_interrupted

            say_interrupted()
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]
