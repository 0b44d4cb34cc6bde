"""Optional dependencies (pip extras) and the error a user gets when one is missing."""

from __future__ import annotations

import importlib

from tcplab.errors import UserError

__all__ = ["require"]

# extra name -> the modules it provides
EXTRAS: dict[str, tuple[str, ...]] = {"dask": ("dask", "distributed")}


def require(extra: str, what: str) -> None:
    """Raise a one-line UserError naming ``what`` if the modules of ``extra`` are not installed."""
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            raise UserError(
                f"{what}: needs the optional '{extra}' dependencies, which are not installed; "
                f"install them with: pip install 'tcplab[{extra}]'"
            ) from None
