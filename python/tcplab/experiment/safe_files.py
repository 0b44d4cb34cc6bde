"""Writing output files without following symbolic links.

A folder is opened once (``open_dir``) and every file in it is then made through that handle:
a new file with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (``create_new``: a link, even a dangling one,
is an existing file), a replaced file as a new temporary file renamed over the old name
(``replace_file``: rename replaces a link instead of writing where it points), a subfolder
opened with ``O_NOFOLLOW | O_DIRECTORY`` (``open_subdir``: a link there is refused). So a link
planted in an output folder, before or during a run, never redirects a write, and a folder
renamed or replaced while a run writes into it does not redirect the files either: the handle
still names the folder that was opened.

The folder named by the user is opened following links in its own path (as any program
would: ``--out results`` may be a link to a data disk); nothing below it is followed.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from tcplab.errors import UserError

__all__ = [
    "create_new",
    "fd_path",
    "link_refused",
    "open_dir",
    "open_subdir",
    "remove_tree",
    "replace_file",
    "replacing",
    "replacing_path",
    "write_file",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def open_dir(path: str | os.PathLike[str], what: str, create: bool = True) -> int:
    """A handle (file descriptor) on the folder ``path``, created with its parents if needed;
    UserError naming ``what`` (the option or argument) if it cannot be one."""
    if not os.fspath(path):  # Path("") would be the current folder
        raise UserError(f"{what}: the folder name is empty (give a folder, e.g. {what} results)")
    folder = Path(path)
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            if folder.is_symlink():  # and leads nowhere: mkdir found the link, not a folder
                raise UserError(f"{what}: {folder} is a symbolic link to a missing folder") from None
            raise UserError(f"{what}: {folder} exists and is not a folder") from None
        except OSError as e:
            raise UserError(f"{what}: cannot create the folder {folder}: {_reason(e)}") from None
    try:
        return os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except NotADirectoryError:
        raise UserError(f"{what}: {folder} exists and is not a folder") from None
    except OSError as e:
        raise UserError(f"{what}: cannot open the folder {folder}: {_reason(e)}") from None


def open_subdir(dir_fd: int, name: str, shown: str | os.PathLike[str], create: bool = True) -> int:
    """A handle on the folder ``name`` inside ``dir_fd`` (created if needed), refusing a
    symbolic link there; ``shown`` is its path for messages."""
    if create:
        try:
            os.mkdir(name, 0o777, dir_fd=dir_fd)
        except FileExistsError:
            pass
        except OSError as e:  # named by its path: the bare name alone says nothing
            raise _naming(e, shown) from None
    try:
        return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(dir_fd, name):
            raise link_refused(shown) from None
        if e.errno == errno.ENOTDIR:
            raise UserError(f"{shown} exists and is not a folder") from None
        raise


def link_refused(shown: str | os.PathLike[str]) -> UserError:
    """The error for a symbolic link where tcplab would write (one wording everywhere)."""
    shown = os.fspath(shown)
    return UserError(f"{shown} is a symbolic link; tcplab does not write through links (remove it)")


def create_new(dir_fd: int, name: str, shown: str | os.PathLike[str], mode: int = 0o644) -> BinaryIO:
    """A new file ``name`` in ``dir_fd``, open for writing; UserError if anything (a file, a
    folder, a link, a dangling link) already has that name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(name, flags, mode, dir_fd=dir_fd)
    except FileExistsError:
        raise UserError(
            f"{shown} already exists (tcplab does not overwrite it or write through a link)"
        ) from None
    except OSError as e:  # a read-only folder, say: named by the path the user knows
        raise _naming(e, shown) from None
    return os.fdopen(fd, "wb")


@contextmanager
def replacing(dir_fd: int, name: str, shown: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A new file to write that replaces ``name`` in ``dir_fd`` when the block ends well (a link
    there is replaced, not followed; readers see the old file or the whole new one, never a
    part); after an error nothing is changed."""
    tmp = f".{name}.{secrets.token_hex(4)}.tmp"
    try:
        with create_new(dir_fd, tmp, shown) as f:
            yield f
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as e:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        if isinstance(e, OSError) and e.filename in (None, tmp) and not isinstance(e, BrokenPipeError):
            raise _naming(e, shown) from None
        raise


def _naming(e: OSError, shown: str | os.PathLike[str]) -> Exception:
    """``e`` naming the file the user asked for, not the temporary file it failed on (whose
    name means nothing to them and is gone)."""
    if isinstance(e, IsADirectoryError):
        return UserError(f"{shown} is a folder, not a file; nothing was written there")
    if e.errno is None:
        return e
    return type(e)(e.errno, e.strerror, os.fspath(shown))


def replace_file(dir_fd: int, name: str, data: bytes | str, shown: str | os.PathLike[str]) -> None:
    """Write ``data`` to ``name`` in ``dir_fd`` as ``replacing`` does."""
    with replacing(dir_fd, name, shown) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextmanager
def replacing_path(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """``replacing`` for a path (its folder is opened once, following links in its own path)."""
    out = Path(path)
    if not os.fspath(path):
        raise UserError("the file name is empty; give a file name")
    if out.name in ("", ".."):
        raise UserError(f"{out} is a folder, not a file; give a file name")
    fd = os.open(out.parent if str(out.parent) else ".", os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        with replacing(fd, out.name, out) as f:
            yield f
    finally:
        os.close(fd)


def write_file(path: str | os.PathLike[str], data: bytes | str) -> Path:
    """``replace_file`` for a path: the file in its folder, never through a link at that name."""
    with replacing_path(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def remove_tree(dir_fd: int, name: str, rounds: int = 3) -> None:
    """Remove the folder ``name`` in ``dir_fd`` and what is in it, never following a link
    (a link inside is removed, not what it points to).

    Another thread may remove or add files meanwhile (an interrupted run's core dropping its
    partial files as it stops): a file already gone is fine, and a file that appeared after
    the listing is removed in a further round (at most ``rounds``)."""
    try:
        fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    try:
        for entry in os.scandir(fd):
            try:
                if entry.is_dir(follow_symlinks=False):
                    remove_tree(fd, entry.name)
                else:
                    os.unlink(entry.name, dir_fd=fd)
            except FileNotFoundError:
                pass
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError as e:
        if e.errno != errno.ENOTEMPTY or rounds <= 1:
            raise
        remove_tree(dir_fd, name, rounds - 1)


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def fd_path(fd: int, fallback: str | os.PathLike[str]) -> Path:
    """A path that names the folder open as ``fd`` whatever happens to its name meanwhile
    (Linux's /proc/self/fd), for code that takes paths (the core, matplotlib); ``fallback``
    where there is no /proc."""
    path = Path(f"/proc/self/fd/{fd}")
    return path if path.is_dir() else Path(fallback)


def _reason(e: OSError) -> str:
    return (e.strerror or str(e)).lower()
