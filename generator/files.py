"""The one place that writes files: atomically, and never over an existing file unless forced."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from generator.errors import AttnsheetError


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


def check_free(paths: list[Path], force: bool) -> None:
    """Fail before any work when a target exists and `force` is off."""
    if force:
        return
    for path in paths:
        if path.exists():
            raise OutputError(f"{path} already exists; use --force to overwrite it")


def write_atomic(path: Path, data: bytes, force: bool = False) -> None:
    """Write `data` to `path` under a temporary name in the same folder, then rename it.

    A reader never sees a partial file: the name appears only once the content is complete
    and flushed. Without `force`, an existing file is left alone and this fails.
    """
    ensure_folder(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as error:
        raise OutputError(f"cannot write into {path.parent}: {_reason(error)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if force:
            os.replace(tmp, path)
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
