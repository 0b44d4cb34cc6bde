"""The scenario files shipped inside the package: examples and the benchmark inputs.

They live in ``tcplab/scenarios`` (the repository's top-level ``scenarios`` is a link to it), so an
installed tcplab finds them without a checkout: ``tcplab run lossy_link`` runs the packaged
``lossy_link.toml``, ``tcplab examples`` lists them and ``tcplab examples --copy DIR`` copies
them out for editing.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from tcplab.errors import UserError

__all__ = [
    "Example",
    "copy_examples",
    "example_path",
    "list_examples",
    "resolve_scenario",
    "scenario_dir",
    "title",
]


# The reason given for a name that is neither a file nor a packaged example (the CLI shows it as
# "NAME: no such file or directory, ...").
_NOT_FOUND = "No such file or directory, and no shipped example has that name (`tcplab examples` lists them)"


def scenario_dir() -> Traversable:
    """The packaged scenarios folder."""
    return files("tcplab") / "scenarios"


@dataclass(frozen=True)
class Example:
    """One packaged scenario: its name (the path below the folder, without ``.toml``)."""

    name: str
    path: Traversable

    @property
    def summary(self) -> str:
        """The file's title: the first sentence of its opening comment, whole (it may run over
        several comment lines), or ''."""
        return title(self.path.read_text(encoding="utf-8"))


# A sentence ends at a full stop before a capital letter or the end: "Goyal et al. (1998),
# Sec. 6: ..." is one sentence.
_SENTENCE_END = re.compile(r"\.(?=\s+[A-Z`]|\s*$)")


def title(text: str) -> str:
    """The first sentence of the comment paragraph that opens ``text``."""
    words: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#") or not line.lstrip("#").strip():
            break
        words.append(line.lstrip("#").strip())
    paragraph = " ".join(words)
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.end()] if end else paragraph


def list_examples() -> list[Example]:
    """Every packaged scenario, sweeps included (``sweeps/loss_variants``), sorted by name."""
    found: list[Example] = []

    def walk(folder: Traversable, prefix: str) -> None:
        for item in folder.iterdir():
            if item.is_dir():
                walk(item, f"{prefix}{item.name}/")
            elif item.name.endswith(".toml"):
                found.append(Example(prefix + item.name.removesuffix(".toml"), item))

    walk(scenario_dir(), "")
    return sorted(found, key=lambda e: e.name)


def example_path(name: str) -> Traversable | None:
    """The packaged scenario called ``name`` (with or without ``.toml``), or None."""
    want = name.removesuffix(".toml")
    return next((e.path for e in list_examples() if e.name == want), None)


def resolve_scenario(file: str | os.PathLike[str]) -> str | os.PathLike[str] | Traversable:
    """``file`` itself when it exists (a file always wins), else the packaged example of that name.

    A name that is neither raises FileNotFoundError whose message points to ``tcplab examples``
    (a user who typed an example's name wrongly is told where the names are); a path that is
    there but cannot be looked at is returned unchanged, so the caller reports why.
    """
    if Path(file).exists():
        return file
    packaged = example_path(str(file))
    if packaged is not None:
        return packaged
    try:
        os.lstat(file)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, _NOT_FOUND, os.fspath(file)) from None
    except OSError:
        pass
    return file


def copy_examples(dest: Path) -> list[Path]:
    """Copy every packaged scenario into ``dest`` (created if needed); never overwrites a file
    and never writes through a link (a dangling one included): each file is created new,
    through a handle on its folder (``tcplab.experiment.safe_files``)."""
    from tcplab.experiment.safe_files import create_new, open_dir, open_subdir

    examples = list_examples()
    targets = [dest / f"{e.name}.toml" for e in examples]
    inside = {f for t in targets for f in t.parents if f != dest and f.is_relative_to(dest)}
    # A file where a subfolder goes would stop the copy part-way, after other files were written.
    blocked = sorted(str(f) for f in inside if os.path.lexists(f) and not f.is_symlink() and not f.is_dir())
    if blocked:
        raise UserError(f"--copy: {blocked[0]} exists and is not a folder; choose an empty folder")
    clashes = [str(t) for t in targets if os.path.lexists(t)]
    if clashes:
        raise UserError(f"--copy: {clashes[0]} already exists; choose an empty folder")
    links = sorted(str(f) for f in inside if f.is_symlink())
    if links:  # refused before anything is written (the writes below refuse them too)
        raise UserError(f"--copy: {links[0]} is a symbolic link; tcplab does not write through links")
    root = open_dir(dest, "--copy")
    try:
        for e, target in zip(examples, targets, strict=True):
            *folders, name = f"{e.name}.toml".split("/")
            fd, opened = root, []
            try:
                for i, folder in enumerate(folders):
                    fd = open_subdir(fd, folder, dest.joinpath(*folders[: i + 1]))
                    opened.append(fd)
                with create_new(fd, name, target) as f:
                    f.write(e.path.read_bytes())
            finally:
                for d in opened:
                    os.close(d)
    finally:
        os.close(root)
    return targets
