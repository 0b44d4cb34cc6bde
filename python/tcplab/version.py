"""The installed tcplab's version: one source, the Cargo workspace's ``version``.

maturin writes it into the package metadata (``dynamic = ["version"]`` in pyproject.toml) and
the core is compiled with it, so the two always agree; the core's copy covers a source tree used
without an install.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["version"]


def version() -> str:
    try:
        return metadata.version("tcplab")
    except metadata.PackageNotFoundError:
        from tcplab._core import __version__

        return str(__version__)
