"""The ```python blocks of a markdown file, in order (what the docs tests run)."""

from __future__ import annotations

import re
from pathlib import Path

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(path: Path) -> list[str]:
    return _BLOCK.findall(path.read_text(encoding="utf-8"))
