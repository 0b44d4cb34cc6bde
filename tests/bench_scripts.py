"""Import a script from bench/ by path: bench/ is not a package, and its scripts run as
``python3 bench/NAME/script.py``, so the tests that check them load them from their files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load(relative: str, name: str) -> ModuleType:
    """The module in bench/`relative`, registered as `name`."""
    spec = importlib.util.spec_from_file_location(name, BENCH / relative)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod
