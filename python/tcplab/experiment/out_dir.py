"""The output folder of a run (``tcplab run --out``, ``tcplab.run(out_dir=...)``): locked, written
through a handle, published at the end.

- **One run at a time.** The folder is opened once and locked (``flock``, exclusive, on its
  handle) for the whole run; a second run into it is refused in one line instead of mixing
  the two runs' files. The lock goes with the process, even a killed one.
- **Nothing is written through a link.** The core and the plots write into a private work
  folder (``.tcplab-stage-XXXXXXXX``, mode 0700, made for this run), named to the core through
  the handle (``/proc/self/fd/N`` on Linux) so that renaming or replacing the output folder
  mid-run redirects nothing. When the run ends well its files are moved into the output folder
  by rename through the handles: a link planted there (even during the run) is replaced, never
  followed. A failed or interrupted run leaves nothing (its work folder is removed, and the
  output folder too if this run made it).
- **One run's files.** The CLI marks the folder as tcplab's with ``.tcplab-out``, which lists
  the files the run wrote; a rerun into the folder removes the last run's listed files that it
  does not write again (files the user added are not listed, and stay).
- **The CLI's rules** (``cli=True``): tcplab writes into a folder only if it is new, empty, or
  one tcplab wrote before (it holds the marker file ``.tcplab-out``), unless ``--force``; it
  refuses a folder holding a symbolic link; and it checks that the folder is writable before
  simulating, so that a long run is not lost to a permission error at the end.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import signal
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from tcplab.errors import UserError
from tcplab.experiment.safe_files import fd_path, open_dir, remove_tree, replace_file

__all__ = ["MARKER", "STAGE_PREFIX", "OutFolder"]

MARKER = ".tcplab-out"
# The marker's first line; the names of the files the run wrote follow, one a line.
MARKER_HEADER = "written by tcplab run; tcplab may overwrite files here; the last run wrote:\n"
STAGE_PREFIX = ".tcplab-stage-"


class OutFolder:
    """An output folder open for one run; use as a context manager.

    ``work`` is where the run writes (a path for the core and matplotlib); ``publish()`` moves
    what it wrote into ``path``.
    """

    def __init__(
        self,
        out: str | os.PathLike[str],
        force: bool = False,
        cli: bool = True,
        handle: int | None = None,
        what: str | None = None,
    ) -> None:
        """``handle``: the folder ``out`` already open (a duplicate is kept; nothing is made or,
        after a failure, removed); ``what``: the option that names it in messages."""
        self.what = what or ("--out" if cli else "out_dir")
        name = os.fspath(out) if isinstance(out, str | os.PathLike) else None
        if name is None:
            raise UserError(f"{self.what}: give a folder name, got {type(out).__name__} {out!r}")
        if name.strip() == "":
            raise UserError(
                f"{self.what}: the folder name is empty (give a folder, e.g. {self.what} results)"
            )
        if "\0" in name:
            raise UserError(f"{self.what}: the folder name {name!r} contains a NUL character")
        self.path = Path(name)
        self._made = _missing_folders(self.path) if handle is None else []
        self.fd = open_dir(self.path, self.what) if handle is None else os.dup(handle)
        self._stage: str | None = None
        self._stage_fd: int | None = None
        try:
            self._lock()
            self._remove_stale_stages()
            if cli:
                self._check_cli_rules(force)
            self._stage = STAGE_PREFIX + secrets.token_hex(4)
            try:
                os.mkdir(self._stage, 0o700, dir_fd=self.fd)
            except OSError as e:
                self._stage = None
                reason = (e.strerror or str(e)).lower()
                raise UserError(f"{self.what}: cannot write into the folder {self.path}: {reason}") from None
            self._stage_fd = os.open(
                self._stage, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=self.fd
            )
        except BaseException:
            self.close(failed=True)
            raise
        self.work = fd_path(self._stage_fd, self.path / self._stage)

    # ------------------------------------------------------------ opening

    def _lock(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"{self.what}: the folder {self.path} is in use by another tcplab run; wait for it to "
                "end or choose another folder"
            ) from None
        except OSError as e:
            # A filesystem without locks (some network ones): the run goes on unlocked.
            if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                raise

    def _entries(self) -> list[os.DirEntry[str]]:
        return sorted(os.scandir(self.fd), key=lambda e: e.name)

    def _remove_stale_stages(self) -> None:
        """Work folders of runs killed before they could clean up (we hold the lock: no run
        is using them)."""
        for entry in self._entries():
            if entry.name.startswith(STAGE_PREFIX) and entry.is_dir(follow_symlinks=False):
                try:
                    remove_tree(self.fd, entry.name)
                except OSError:
                    pass  # best effort (a read-only folder is refused below)

    def _check_cli_rules(self, force: bool) -> None:
        if not os.access(self._handle_path(), os.W_OK | os.X_OK):
            raise UserError(f"--out: the folder {self.path} is not writable")
        entries = self._entries()
        for entry in entries:
            if entry.is_symlink():
                raise UserError(
                    f"--out: {self.path / entry.name} is a symbolic link; tcplab does not write through "
                    "links (remove it)"
                )
        names = {e.name for e in entries}
        if names and MARKER not in names and not force:
            raise UserError(
                f"--out: the folder {self.path} is not empty and was not written by tcplab; "
                "choose an empty folder, or add --force to write into it"
            )

    def _handle_path(self) -> Path:
        return fd_path(self.fd, self.path)

    # ------------------------------------------------------------ finishing

    def _check_nothing_in_the_way(self, names: list[str]) -> None:
        """Refuse before anything is moved if a folder (not a link: that is replaced) holds
        one of ``names``: a rename would fail there, half-way through the run's files."""
        for name in names:
            try:
                mode = os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(mode):
                raise UserError(
                    f"{self.path / name} is a folder; the run's file of that name was not written "
                    "(nor any other: remove or rename that folder and rerun)"
                )

    def publish(self, marker: bool = False) -> list[str]:
        """Move every file the run wrote into the folder (replacing, never following, what had
        its name); returns their names. ``marker``: also mark the folder as tcplab's."""
        assert self._stage_fd is not None, "publish() after close()"
        names = [
            entry.name
            for entry in sorted(os.scandir(self._stage_fd), key=lambda e: e.name)
            # only the run's own regular files (the core writes nothing else)
            if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
        ]
        self._check_nothing_in_the_way(names + [MARKER] if marker else names)
        # All the files or none: a signal in the middle left half a run's output, unmarked.
        with signals_held():
            return self._move(names, marker)

    def _move(self, names: list[str], marker: bool) -> list[str]:
        moved = []
        for name in names:
            try:
                # A folder planted after the check above still stops here, in one line.
                os.replace(name, name, src_dir_fd=self._stage_fd, dst_dir_fd=self.fd)
            except IsADirectoryError:
                raise UserError(
                    f"{self.path / name} is a folder; the run's file of that name was not written"
                ) from None
            moved.append(name)
        if marker:
            self._remove_files_of_the_last_run(set(moved))
            listed = "".join(f"{name}\n" for name in moved)
            replace_file(self.fd, MARKER, MARKER_HEADER + listed, self.path)
        return moved

    def _remove_files_of_the_last_run(self, kept: set[str]) -> None:
        """The files the marker lists (the last run's) that this run did not write: a rerun
        into the folder left the last run's traces, pcaps and plots beside this run's summary.
        Only listed names of regular files go; what the user put there is not listed."""
        try:
            with os.fdopen(os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=self.fd)) as f:
                lines = f.read().splitlines()[1:]
        except (OSError, UnicodeDecodeError):
            return  # no marker (a new folder, --force) or an unreadable one: nothing is known
        for name in set(lines) - kept:
            if not name or "/" in name or name in (".", "..", MARKER) or name.startswith(STAGE_PREFIX):
                continue
            try:
                if stat.S_ISREG(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                    os.unlink(name, dir_fd=self.fd)
            except OSError:
                continue  # gone already, or not ours to remove: the new files are in place

    def close(self, failed: bool = False) -> None:
        """Remove the work folder, release the lock; after a failure, also the folder and the
        parent folders this run made, those still empty. A second Ctrl-C (or SIGTERM) waits
        until this is done: it interrupted the removal and left the work folder behind."""
        with signals_held():
            self._close(failed)

    def _close(self, failed: bool) -> None:
        if self._stage_fd is not None:
            os.close(self._stage_fd)
            self._stage_fd = None
        if self._stage is not None:
            try:
                remove_tree(self.fd, self._stage)
            except OSError:
                if not failed:
                    raise
                # After a failure or a Ctrl-C, what the user must see is that, not a leftover
                # work folder (the next run into the folder removes it: _remove_stale_stages).
            self._stage = None
        if self.fd >= 0:
            os.close(self.fd)  # releases the lock
            self.fd = -1
            if failed:
                _remove_empty(self._made)

    def __enter__(self) -> OutFolder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close(failed=exc is not None)

    def translate(self, exc: BaseException) -> BaseException:
        """``exc`` with the work folder's path in its message replaced by the output folder's;
        an I/O error of the core (its text only, "No space left on device (os error 28)")
        becomes an OSError with that errno naming the output folder."""
        work = str(self.work)
        if any(isinstance(a, str) and work in a for a in exc.args):
            exc.args = tuple(a.replace(work, str(self.path)) if isinstance(a, str) else a for a in exc.args)
        if isinstance(exc, OSError) and exc.errno is None:
            code = re.search(r"\(os error (\d+)\)", str(exc))
            if code:
                return OSError(int(code.group(1)), os.strerror(int(code.group(1))), str(self.path))
        return exc


def _missing_folders(path: Path) -> list[Path]:
    """``path`` and its parents that do not exist yet (the run will make them), deepest
    first: what a failed run removes again."""
    missing = []
    for folder in [path, *path.parents]:
        if os.path.lexists(folder) or str(folder) in ("", "."):
            break
        missing.append(folder)
    return missing


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP kept pending for the block (in the main thread, where Python
    runs its handlers): one arriving then is delivered, as a KeyboardInterrupt, when it ends."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (deepest first) while they are empty: a folder someone else put a
    file in meanwhile is kept, and so are its parents."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return
