"""The one place that writes files: atomically, and never over an existing file unless forced."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Union

from generator.core.errors import AttnsheetError


class OutputError(AttnsheetError):
    """A file or folder that cannot be written."""


def _reason(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    return error.strerror or str(error)


def ensure_folder(folder: Path) -> None:
    """Create `folder` (and its parents) if missing; fail in one line if it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create folder {folder}: {_reason(error)}") from None
    if not folder.is_dir():
        raise OutputError(f"cannot write into {folder}: not a folder")


def target_kind(path: Path) -> str:
    """What stands at `path` now: missing, file, link, stream (a character device or a FIFO),
    folder, or other (a block device, a socket). A link is a link, whatever it points to."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        raise OutputError(f"cannot write {path}: {_reason(error)}") from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    return "folder" if stat.S_ISDIR(mode) else "other"


def check_target(path: Path, force: bool) -> str:
    """Fail unless `path` can be written: missing, a stream (written through, as `cp` does), or
    with `force` a regular file or a symbolic link (the link itself is replaced, never its
    target). Folders and other special files are never replaced. Returns the target's kind."""
    kind = target_kind(path)
    if kind == "file" and not force:
        raise OutputError(f"{path} already exists; use --force to overwrite it")
    if kind == "link" and not force:
        raise OutputError(f"{path} is a symbolic link; use --force to replace the link itself "
                          "(what it points to is left alone)")
    if kind == "folder":
        raise OutputError(f"{path} is a folder; choose another name")
    if kind == "other":
        raise OutputError(f"{path} is a special file (not a regular file, device or pipe); choose another name")
    return kind


def check_free(paths: list[Path], force: bool) -> None:
    """Fail before any work when a target cannot be written (see `check_target`)."""
    for path in paths:
        check_target(path, force)


def check_writable(folder: Path) -> None:
    """Create `folder` if missing and fail now, in one line, if a file cannot be made in it."""
    ensure_folder(folder)
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".attnsheet-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise OutputError(f"cannot write into {folder}: {_reason(error)}") from None


def write_atomic(path: Path, data: Union[bytes, Iterable[bytes]], force: bool = False) -> None:
    """Write `data` to `path` under a temporary name in the same folder, then rename it.

    A reader never sees a partial file: the name appears only once the content is complete
    and flushed. Without `force`, an existing file is left alone and this fails. A character
    device or a FIFO (/dev/null, /dev/stdout) is written through, as a shell would. `data` may
    be pieces, written as they come (a big HTML batch is never held whole).
    """
    chunks = (data,) if isinstance(data, bytes) else data
    if check_target(path, force) == "stream":
        _write_through(path, chunks)
        return
    ensure_folder(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as error:
        raise OutputError(f"cannot write into {path.parent}: {_reason(error)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if force:
            os.replace(tmp, path)  # a symbolic link is replaced, not followed
        else:
            _publish_new(tmp, path)
    except FileExistsError:
        _discard(tmp)
        raise OutputError(f"{path} already exists; use --force to overwrite it") from None
    except OSError as error:
        _discard(tmp)
        raise OutputError(f"cannot write {path}: {_reason(error)}") from None
    except BaseException:
        _discard(tmp)
        raise


def _write_through(path: Path, chunks: Iterable[bytes]) -> None:
    """Write into a device or a pipe that is already there: it has no temporary name to take."""
    try:
        with open(path, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {_reason(error)}") from None


def remove_files(paths: list[Path]) -> None:
    """Remove regular files (not links, folders or devices); one that is already gone is fine."""
    for path in paths:
        if target_kind(path) == "file":
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                raise OutputError(f"cannot remove {path}: {_reason(error)}") from None


def _publish_new(tmp: str, path: Path) -> None:
    """Give the finished temporary file its name, failing if that name exists."""
    try:
        # link() fails if the name exists, so two writers can never overwrite each other.
        os.link(tmp, path)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # A file system without hard links: check, then rename (a narrow race, but no tear).
        if path.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(path)) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
