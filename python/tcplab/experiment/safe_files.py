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

An output named on the command line may also be a named pipe or a character device (a FIFO a
reader waits on, /dev/null, a terminal): ``writing_path`` writes into those, since replacing
one with a regular file would destroy a node tcplab did not make and send the output nowhere.
``check_output_file`` refuses, before any work is done, a name that cannot become that file.
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
    "check_output_file",
    "create_new",
    "fd_path",
    "link_refused",
    "open_dir",
    "open_subdir",
    "remove_abandoned_temps",
    "remove_tree",
    "replace_file",
    "replacing",
    "replacing_path",
    "write_file",
    "writing_path",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
LINK_HINT = "remove it, or give the file it leads to"


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
    tmp = _temp_name(dir_fd, name)
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


_TAG_HEX = 4  # random bytes in a temporary file's tag, hex-encoded


def _temp_name(dir_fd: int, name: str) -> str:
    """A hidden, unique name for the file that will replace ``name``: it fits the folder
    whenever ``name`` does, since the part taken from ``name`` is cut to leave room for the
    random tag (a 255-byte name would otherwise fail as "file name too long")."""
    tag = f".{secrets.token_hex(_TAG_HEX)}.tmp"
    room = _name_max(dir_fd) - 1 - len(tag)
    # Cut as bytes, the unit of the limit; a character cut in two round-trips through fsdecode.
    return "." + os.fsdecode(os.fsencode(name)[: max(room, 1)]) + tag


def remove_abandoned_temps(dir_fd: int) -> int:
    """Remove from folder ``dir_fd`` the temporary files ``replacing`` left when its process was
    killed while writing (SIGKILL runs no clean-up); returns how many. Only for the folder's one
    writer (a sweep holds its store's lock): another writer's file in progress would go too."""
    removed = 0
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if _is_temp_name(entry.name) and not entry.is_dir(follow_symlinks=False):
                try:
                    os.unlink(entry.name, dir_fd=dir_fd)
                    removed += 1
                except FileNotFoundError:
                    pass
    return removed


def _is_temp_name(name: str) -> bool:
    """Whether ``name`` is one ``_temp_name`` makes: hidden, ending in a dot, the hex tag and
    ".tmp"."""
    stem, dot, tag = name.removesuffix(".tmp").rpartition(".")
    hexdigits = set("0123456789abcdef")
    return (
        name.startswith(".")
        and name.endswith(".tmp")
        and bool(stem and dot)
        and len(tag) == 2 * _TAG_HEX
        and set(tag) <= hexdigits
    )


def _name_max(dir_fd: int) -> int:
    try:
        return os.fpathconf(dir_fd, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255  # every common file system's limit


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
    fd, out = _open_parent(path)
    try:
        with replacing(fd, out.name, out) as f:
            yield f
    finally:
        os.close(fd)


@contextmanager
def writing_path(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """``replacing_path``, except that a named pipe (FIFO) or character device at ``path`` is
    written into, as a shell's ``>`` does: a reader waits on the pipe, and a device node swapped
    for a regular file would be destroyed and the output lost. Opening a pipe waits for its
    reader."""
    fd, out = _open_parent(path)
    try:
        stream = _open_stream(fd, out.name, out)
        if stream is None:
            with replacing(fd, out.name, out) as f:
                yield f
        else:
            with stream:
                yield stream
    finally:
        os.close(fd)


def _open_parent(path: str | os.PathLike[str]) -> tuple[int, Path]:
    out = Path(path)
    if not os.fspath(path):
        raise UserError("the file name is empty; give a file name")
    if out.name in ("", ".."):
        raise UserError(f"{out} is a folder, not a file; give a file name")
    return os.open(out.parent if str(out.parent) else ".", os.O_RDONLY | _DIRECTORY | _CLOEXEC), out


def _is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _open_stream(dir_fd: int, name: str, shown: Path) -> BinaryIO | None:
    """``name`` open for writing if it is a FIFO or character device; None if it is anything
    else (or nothing), to be replaced."""
    try:
        if not _is_stream(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            return None
        # Neither O_CREAT nor O_TRUNC: a node swapped for a regular file since the stat is left
        # as it was, and replaced below like any file.
        fd = os.open(name, os.O_WRONLY | _NOFOLLOW | _NOCTTY | _CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:  # a link now: replaced, never followed
            return None
        raise _naming(e, shown) from None
    if not _is_stream(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "wb")


def check_output_file(path: str, what: str, link_hint: str = LINK_HINT) -> None:
    """Refuse, in one line naming ``what`` (the option) and ``path``, an output that
    ``writing_path`` could not write or should not touch. Called before long work: the mistake
    is told at once, not after the work, whose result would then have nowhere to go.

    A symbolic link is refused: writing through it breaks tcplab's rule, and replacing it would
    destroy a link tcplab did not make (``/dev/stdout``, as root). A block device or socket is
    refused too; a FIFO or character device must be writable; otherwise the folder must exist
    or be creatable, and be writable, and the name must fit in it."""
    if not path:
        raise UserError(f"{what}: the file name is empty; give a file name")
    if path.endswith(os.sep) or os.path.basename(path) in (".", ".."):
        raise UserError(f"{what}: {path} names a folder, not a file; give a file name")
    try:
        mode: int | None = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # the folder check says why
    except OSError as e:
        raise UserError(f"{what}: {path}: {_reason(e)}") from None
    if mode is not None:
        _check_existing(path, mode, what, link_hint)
    if mode is None or stat.S_ISREG(mode):
        _check_folder(path, what)


def _check_existing(path: str, mode: int, what: str, link_hint: str) -> None:
    if stat.S_ISLNK(mode):
        raise UserError(
            f"{what}: {path} is a symbolic link; tcplab neither writes through a link "
            f"nor replaces it ({link_hint})"
        )
    if stat.S_ISDIR(mode):
        raise UserError(f"{what}: {path} is a folder; give a file name")
    if _is_stream(mode):
        if not os.access(path, os.W_OK):
            raise UserError(f"{what}: {path}: permission denied (it cannot be opened for writing)")
        return
    if not stat.S_ISREG(mode):
        kind = "block device" if stat.S_ISBLK(mode) else "socket" if stat.S_ISSOCK(mode) else "special file"
        raise UserError(
            f"{what}: {path} is a {kind}; give a regular file, a named pipe (FIFO) or a character device"
        )


def _check_folder(path: str, what: str) -> None:
    """The folder of ``path`` exists or can be made, is a folder, is writable, and takes the
    name: the CSV is written as a new file there (see ``replacing``).

    What the kernel alone knows is asked of it: root passes every permission check, even where
    nothing can be made (/proc, an immutable folder), so the first missing folder is made and
    removed again, or, when the folder exists, a temporary file is made there and removed."""
    folder = os.path.dirname(path) or "."
    existing, st, missing = _nearest_existing(folder, path, what)
    if not stat.S_ISDIR(st.st_mode):
        raise UserError(f"{what}: {path}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        action = "write in" if existing == folder else "create a folder in"
        raise UserError(f"{what}: {path}: cannot {action} the folder {existing}: {_unwritable(existing)}")
    _check_name_lengths(path, existing, missing, what)
    if missing:
        _try_folder(missing[0], path, what)
    else:
        _try_file(existing, path, what)


def _check_name_lengths(path: str, existing: str, missing: list[str], what: str) -> None:
    """Each folder still to be made, and the file's name, fit the file system's NAME_MAX (as
    far as the nearest existing folder tells: the new ones will be on its file system)."""
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        return
    for folder in missing:
        if len(os.fsencode(os.path.basename(folder))) > name_max:
            raise UserError(
                f"{what}: {path}: the folder name {os.path.basename(folder)[:40]}... is too long "
                f"(at most {name_max} bytes)"
            )
    if len(os.fsencode(os.path.basename(path))) > name_max:
        raise UserError(f"{what}: {path}: file name too long (at most {name_max} bytes)")


def _try_folder(folder: str, path: str, what: str) -> None:
    """Make ``folder`` (the outermost one missing) and remove it again: a refused command
    leaves no folder behind, and the one that writes makes it for good."""
    try:
        os.mkdir(folder)
    except FileExistsError:
        return  # made meanwhile (another process): there it is
    except OSError as e:
        raise UserError(f"{what}: {path}: cannot create the folder {folder}: {_reason(e)}") from None
    try:
        os.rmdir(folder)
    except OSError:
        pass  # something was put in it meanwhile: not ours to remove any more


def _try_file(folder: str, path: str, what: str) -> None:
    """Make a temporary file in ``folder`` under the name ``replacing`` would use, and remove
    it: whether the CSV can be written there, not only whether permissions say so."""
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as e:
        raise UserError(f"{what}: {path}: cannot open the folder {folder}: {_reason(e)}") from None
    try:
        tmp = _temp_name(fd, os.path.basename(path))
        try:
            os.close(
                os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=fd)
            )
        except OSError as e:
            raise UserError(f"{what}: {path}: cannot write in the folder {folder}: {_reason(e)}") from None
        try:
            os.unlink(tmp, dir_fd=fd)
        except FileNotFoundError:
            pass
    finally:
        os.close(fd)


def _nearest_existing(folder: str, path: str, what: str) -> tuple[str, os.stat_result, list[str]]:
    """``folder`` or its nearest ancestor that exists, with its status (links followed), and
    the folders below it that are missing, outermost first."""
    missing: list[str] = []
    while True:
        try:
            return folder, os.stat(folder), missing
        except (FileNotFoundError, NotADirectoryError):
            if os.path.islink(folder):
                raise UserError(f"{what}: {path}: {folder} is a symbolic link to a missing folder") from None
            missing.insert(0, folder)
            folder = os.path.dirname(folder) or "."
        except OSError as e:
            raise UserError(f"{what}: {path}: cannot reach the folder {folder}: {_reason(e)}") from None


def _unwritable(folder: str) -> str:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        pass
    return "permission denied"


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


def make_missing_folders(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; the ones made, outermost first (for
    ``remove_made_folders`` should what needed them be refused). A folder another process makes
    meanwhile is its, not ours; if a mkdir fails, those made are removed and the error goes up."""
    missing = []
    for up in (folder, *folder.parents):
        if os.path.lexists(up):
            break
        missing.append(up)
    made: list[Path] = []
    try:
        for up in reversed(missing):
            try:
                up.mkdir()
            except FileExistsError:
                if not up.is_dir():
                    raise
                continue
            made.append(up)
    except BaseException:
        remove_made_folders(made)
        raise
    return made


def remove_made_folders(made: list[Path]) -> None:
    """Remove again the folders ``make_missing_folders`` made, innermost first, if still empty
    (anything put there since is someone else's and stays)."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            pass
