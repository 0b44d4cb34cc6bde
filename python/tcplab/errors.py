"""Errors of the Python layer, and how any error is put into one line for a user.

Two kinds reach the user: their own mistakes (a bad scenario, a missing file, a bad argument),
which the CLI reports in one paragraph with exit status 2, and bugs (``InvariantError`` from the
simulator, ``InternalError`` from the Python layer), reported with status 1. ``ScenarioError``
and ``InvariantError`` come from the Rust core; ``UserError`` is for mistakes found in Python
(an unknown study, say).
"""

from __future__ import annotations

import os

from tcplab._core import InvariantError, ScenarioError

__all__ = ["InternalError", "InvariantError", "ScenarioError", "UserError", "describe"]


class UserError(Exception):
    """Bad input noticed by the Python layer; the message says what and where."""


class InternalError(RuntimeError):
    """A failure that is not the user's fault (a benchmark child crashed, say): a bug."""


def _prefix(source: str | os.PathLike[str] | None) -> str:
    return f"{os.fspath(source)}: " if source is not None else ""


def describe(exc: BaseException, source: str | os.PathLike[str] | None = None) -> str:
    """One paragraph naming the input (``source``), the field and the problem."""
    if isinstance(exc, ScenarioError):
        if len(exc.args) == 2:
            field, message = exc.args
            return f"{_prefix(source)}{field}: {message}"
        return f"{_prefix(source)}{exc}"
    if isinstance(exc, OSError) and exc.filename is not None:
        reason = exc.strerror or str(exc)
        return f"{os.fspath(exc.filename)}: {reason.lower() if reason[:1].isupper() else reason}"
    return f"{_prefix(source)}{exc}"
