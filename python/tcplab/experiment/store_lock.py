"""One sweep per result store at a time: an exclusive flock on ``STORE.lock`` beside the store,
held while a sweep writes (``runner.run_sweep``).

A second sweep on the store is refused at once instead of running every run the two share a
second time (and relabelling rows with its own sweep name). A sidecar file, not the store
itself, because SQLite locks the store with POSIX (fcntl) locks: a process that closes any
descriptor of a file loses every POSIX lock it holds on it, so opening the store here to lock
it could silently drop SQLite's own locks; and where flock is emulated with POSIX locks (NFS),
a flock on the store would collide with SQLite's. Readers take no part in it (load_runs,
load_sweep, a Store opened to read): they are never blocked. The kernel releases a flock when
its holder dies, even by SIGKILL; the file left behind is no lock by itself and is never
removed (removing it would let a third sweep lock a new file while the second holds the old).

The holder's process id is written into the file (emptying it first), so a file there that is
not one tcplab made is refused, never written: one that is not a regular file, has other
names (a hard link: writing would empty the file under its other names too, a store among
them), or holds anything but what tcplab writes there (nothing, or a process id and a newline:
another store named ``STORE.lock``, say).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tcplab.errors import UserError
from tcplab.experiment.safe_files import link_refused

__all__ = ["lock_path", "sweep_lock"]

try:
    import fcntl
except ImportError:  # no flock (Windows): sweeps are not kept apart there
    fcntl = None  # type: ignore[assignment]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Not blocking on a FIFO swapped in for the file between its check and its opening.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# All a lock file tcplab made ever holds: nothing, or its holder's process id and a newline.
_RECORD = re.compile(rb"(?:[0-9]{1,20}\n)?")
_RECORD_MAX = 21
_HELD: set[int] = set()  # descriptors of the sweep locks this process holds


def _forget_locks_in_child() -> None:
    """A forked child (a local pool's worker) closes its copies of the held locks' descriptors:
    a flock lasts while any descriptor of it is open, so a worker outliving a killed sweep
    would otherwise keep the store locked. The lock stays the parent's (closing a copy does
    not release it)."""
    for fd in _HELD:
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks_in_child)


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The sweep lock file of the store at ``path``: beside the file itself (links to the store
    resolved), so every name of one store shares one lock."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + ".lock")


@contextmanager
def sweep_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the store's sweep lock for the block; UserError at once, naming the store (and the
    holder's process id), if another sweep holds it. Not re-entrant: a sweep takes it once, and
    releases it before the next sweep on the store (``tcplab reproduce``) takes it again."""
    if fcntl is None:
        yield
        return
    fd = _open_lock(lock_path(path))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _held(Path(path), fd) from None
        _HELD.add(fd)
        _record(fd, f"{os.getpid()}\n")
        try:
            yield
        finally:
            _record(fd, "")
            # Released explicitly: a process forked meanwhile could still share the descriptor.
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        _HELD.discard(fd)
        os.close(fd)


def _open_lock(lock: Path) -> int:
    """A descriptor on the lock file (created if needed), checked to be one tcplab made (a
    link there is refused)."""
    try:
        _check_lock(lock, os.lstat(lock))  # before opening: a device is not even opened
    except FileNotFoundError:
        pass
    except OSError as e:
        raise _unopenable(lock, e) from None
    fd = _open_lock_file(lock)
    try:
        _check_lock(lock, os.fstat(fd))
        _check_record(lock, fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_lock_file(lock: Path) -> int:
    flags = os.O_CREAT | _NOFOLLOW | _CLOEXEC | _NONBLOCK
    try:
        try:
            return os.open(lock, os.O_RDWR | flags, 0o644)
        except PermissionError:  # another user's lock file: lockable, but the pid is not recorded
            return os.open(lock, os.O_RDONLY | flags)
    except OSError as e:
        raise _unopenable(lock, e) from None


def _unopenable(lock: Path, e: OSError) -> UserError:
    if e.errno == errno.ELOOP:
        return link_refused(lock)
    return UserError(f"{lock}: cannot open the store's lock file ({(e.strerror or str(e)).lower()})")


def _check_lock(lock: Path, info: os.stat_result) -> None:
    """Refuse a lock file whose emptying would destroy something: not a regular file, or one
    with other names (a hard link)."""
    if stat.S_ISLNK(info.st_mode):
        raise link_refused(lock)
    if not stat.S_ISREG(info.st_mode):
        raise UserError(
            f"{lock}: the store's sweep lock file is not a regular file; remove it, or give the "
            "store another name"
        )
    if info.st_nlink > 1:
        raise UserError(
            f"{lock}: the store's sweep lock file has {info.st_nlink} names (hard links), and tcplab "
            "empties it; remove this name (the file keeps its others), or give the store another name"
        )


def _check_record(lock: Path, fd: int) -> None:
    """Refuse a lock file holding anything tcplab does not write there."""
    size = os.fstat(fd).st_size
    text = os.pread(fd, _RECORD_MAX, 0) if size <= _RECORD_MAX else b"-"
    if not _RECORD.fullmatch(text):
        raise UserError(
            f"{lock}: the store's sweep lock file holds data tcplab did not write there (only a "
            "process id); tcplab does not overwrite it: move it away, or give the store another name"
        )


def _record(fd: int, text: str) -> None:
    """Write who holds the lock into its file (best effort: a read-only descriptor cannot)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)
    except OSError:
        pass


def _held(path: Path, fd: int) -> UserError:
    """The one-line refusal of a sweep whose store another sweep is writing to."""
    try:
        pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        pid = ""
    who = f"another sweep (process {pid})" if pid.isdigit() else "another sweep"
    return UserError(
        f"{path}: {who} is writing to this store; nothing was run: wait for it to finish, or give "
        "this sweep another store"
    )
