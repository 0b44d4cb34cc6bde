"""What users read names papers by their authors and points at nothing outside the repository.

The team's paper files are numbered ("seed 003"); users never see those numbers, and the team's
shared folder is not shipped, so docs, the README and the package's text must not point there.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Whitespace includes a line break: a number wrapped onto the next line is still a seed number.
SEED_NUMBER = re.compile(r"\bseed\s+0\d\d\b", re.IGNORECASE)
OUTSIDE = re.compile(r"\.\./shared|shared/seeds|shared/design\.md|/work/")


def _user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted((ROOT / "python" / "tcplab").rglob("*.py"))
    files += sorted((ROOT / "crates").rglob("*.rs")) + sorted((ROOT / "bench").rglob("*.py"))
    return [f for f in files if f.is_file()]


def test_no_seed_numbers_or_outside_paths() -> None:
    offenders = []
    for path in _user_facing_files():
        text = path.read_text(encoding="utf-8")
        if SEED_NUMBER.search(text):
            offenders.append(f"{path.relative_to(ROOT)}: names a paper by its seed file number")
        if OUTSIDE.search(text):
            offenders.append(f"{path.relative_to(ROOT)}: points outside the repository")
    assert not offenders, "\n".join(offenders)


def test_the_pattern_catches_a_wrapped_number() -> None:
    assert SEED_NUMBER.search("the variant of seed\n003 Sec. 2.5")
    assert not SEED_NUMBER.search("base seed 1998")
