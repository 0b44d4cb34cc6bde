"""The installed tcplab's version and build: one source, the Cargo workspace's ``version``.

maturin writes it into the package metadata (``dynamic = ["version"]`` in pyproject.toml) and
the core is compiled with it, so the two always agree; the core's copy covers a source tree used
without an install.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["build", "version"]


def version() -> str:
    try:
        return metadata.version("tcplab")
    except metadata.PackageNotFoundError:
        from tcplab._core import __version__

        return str(__version__)


def build() -> str:
    """How the core was compiled: ``"profile-guided"`` (``make build``, trained on the shipped
    scenarios) or ``"ordinary"`` (a plain wheel, or ``make build PGO=0``). Timings differ between
    the two; outputs do not."""
    from tcplab._core import __build__

    return str(__build__)
