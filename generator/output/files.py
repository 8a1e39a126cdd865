"""The one place that writes files: atomically, and never over an existing file unless forced."""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterable, Optional, Union

from anyascii import anyascii

from generator.core.errors import AttnsheetError


class OutputError(AttnsheetError):
    """A file or folder that cannot be written."""


def reason(error: OSError) -> str:
    """An OS error in a few words."""
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    return error.strerror or str(error)


def ensure_folder(folder: Path) -> None:
    """Create `folder` (and its parents) if missing; fail in one line if it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create folder {folder}: {reason(error)}") from None
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
        raise OutputError(f"cannot write {path}: {reason(error)}") from None
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
        raise OutputError(
            f"{path} is a symbolic link; use --force to replace the link itself (what it points to is left alone)"
        )
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
    """Fail now, in one line, if files cannot be made in `folder`; a missing folder is not made
    (a run that fails later leaves no new folder behind): its nearest existing parent is tried."""
    probe_at = folder
    while target_kind(probe_at) == "missing":
        if probe_at.parent == probe_at:
            break
        probe_at = probe_at.parent
    kind = target_kind(probe_at)
    if kind == "link" and probe_at.is_dir():
        kind = "folder"  # a link to a folder is a folder to write into
    if kind != "folder":
        raise OutputError(f"cannot write into {folder}: {probe_at} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=probe_at, prefix=".attnsheet-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise OutputError(f"cannot write into {folder}: {reason(error)}") from None


_UMASK: list[int] = []
_UMASK_LOCK = threading.Lock()


def file_mode() -> int:
    """The mode a new file gets under this process's umask (0644 under the usual 022)."""
    if not _UMASK:
        with _UMASK_LOCK:
            if not _UMASK:
                _UMASK.append(_read_umask())
    return 0o666 & ~_UMASK[0]


def _read_umask() -> int:
    try:  # Linux says it without changing it (os.umask would, for a moment, for every thread)
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --- leftovers of killed runs -------------------------------------------------------------------

STAGE_PREFIX = ".attnsheet-stage-"
"""A run's hidden folder of staged files: .attnsheet-stage-PID@HOST~RANDOM."""
STALE_ELSEWHERE = 24 * 3600
"""Seconds after which a leftover of another machine's process (a data folder shared by several
servers) is taken to be a killed run's: no batch or scan takes a day."""
_cleaned: set[str] = set()


def owner_tag() -> str:
    """This process as a temporary name says it: PID@HOST (machines sharing a folder tell theirs apart)."""
    host = re.sub(r"[^A-Za-z0-9.-]", "", socket.gethostname())[:60] or "host"
    return f"{os.getpid()}@{host}"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def _owner(name: str) -> Optional[tuple[int, str]]:
    """The process in a temporary name of ours (.attnsheet-stage-PID@HOST~…, .NAME.PID@HOST~….part,
    or an older version's without @HOST), if any: (pid, host, '' when not said)."""
    if name.startswith(STAGE_PREFIX):
        head = name[len(STAGE_PREFIX) :].split("~", 1)[0]
        if "@" not in head:  # an older version's .attnsheet-stage-PID-RANDOM
            head = head.split("-", 1)[0]
        pid, _, host = head.partition("@")
    elif name.endswith(".part") and "~" in name:
        before = name.rsplit("~", 1)[0]  # .NAME.PID@HOST (or an older .NAME.PID): names and hosts have dots
        left, _, host = before.rpartition("@") if "@" in before else (before, "", "")
        pid = left.rsplit(".", 1)[-1]
    else:
        return None
    return (int(pid), host) if pid.isdigit() else None


def tag_alive(tag: str, path: Path) -> bool:
    """Whether the process an `owner_tag` names may still be working on `path`."""
    pid, _, host = tag.strip().partition("@")
    return pid.isdigit() and _alive((int(pid), host), path)


def _alive(owner: tuple[int, str], path: Path) -> bool:
    """Whether the process that made a leftover may still be working on it."""
    pid, host = owner
    if host and host != owner_tag().partition("@")[2]:
        try:
            return time.time() - path.stat().st_mtime < STALE_ELSEWHERE
        except OSError:
            return False
    return _pid_alive(pid)


def clean_leftovers(folder: Path) -> list[str]:
    """Remove what a killed run of this tool left in `folder`: staging folders and `.part` files
    whose process is gone (a `.part` without a process id is an older version's, and removed).
    Returns the names removed."""
    key = str(folder)
    if key in _cleaned:
        return []
    _cleaned.add(key)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for name in names:
        if not (name.startswith(STAGE_PREFIX) or (name.startswith(".") and name.endswith(".part"))):
            continue
        path = folder / name
        owner = _owner(name)
        if owner is not None and _alive(owner, path):
            continue
        kind = target_kind(path)
        try:
            if kind == "folder" and name.startswith(STAGE_PREFIX):
                shutil.rmtree(path)
            elif kind == "file":
                path.unlink()
            else:
                continue
        except OSError:
            continue
        removed.append(name)
    return removed


def write_atomic(path: Path, data: Union[bytes, Iterable[bytes]], force: bool = False) -> None:
    """Write `data` to `path` under a temporary name in the same folder, then rename it.

    A reader never sees a partial file: the name appears only once the content is complete
    and flushed. Without `force`, an existing file is left alone and this fails. A character
    device or a FIFO (/dev/null, /dev/stdout) is written through, as a shell would. `data` may
    be pieces, written as they come (a big HTML batch is never held whole).
    """
    chunks = (data,) if isinstance(data, bytes) else data
    if check_target(path, force) == "stream":
        write_through(path, chunks)
        return
    ensure_folder(path.parent)
    clean_leftovers(path.parent)
    tmp = write_temporary(path, chunks)
    try:
        if force:
            os.replace(tmp, path)  # a symbolic link is replaced, not followed
        else:
            publish_new(tmp, path)
    except FileExistsError:
        _discard(tmp)
        raise OutputError(f"{path} already exists; use --force to overwrite it") from None
    except OSError as error:
        _discard(tmp)
        raise OutputError(f"cannot write {path}: {reason(error)}") from None
    except BaseException:
        _discard(tmp)
        raise


def write_temporary(path: Path, chunks: Iterable[bytes]) -> str:
    """`chunks` written, flushed and synced to a new temporary file beside `path`, with the mode
    the umask gives; its name (`.NAME.PID@HOST~RANDOM.part`) says whose it is, for `clean_leftovers`."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{owner_tag()}~", suffix=".part")
    except OSError as error:
        raise OutputError(f"cannot write into {path.parent}: {reason(error)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, file_mode())
    except OSError as error:
        _discard(tmp)
        raise OutputError(f"cannot write {path}: {reason(error)}") from None
    except BaseException:
        _discard(tmp)
        raise
    return tmp


def write_through(path: Path, chunks: Iterable[bytes]) -> None:
    """Write into a device or a pipe that is already there: it has no temporary name to take."""
    try:
        with open(path, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {reason(error)}") from None


def remove_files(paths: list[Path]) -> None:
    """Remove regular files (not links, folders or devices); one that is already gone is fine."""
    for path in paths:
        if target_kind(path) == "file":
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:
                raise OutputError(f"cannot remove {path}: {reason(error)}") from None


def publish_new(tmp: str, path: Path) -> None:
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


def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe version of a name: ASCII letters, digits and hyphens only, transliterated
    from any script (Ø → O, 王小明 → WangXiaoMing) rather than dropped."""
    ascii_text = anyascii(text)
    cleaned = re.sub(r"[^A-Za-z0-9]+", "-", ascii_text).strip("-").lower()
    return cleaned[:limit].strip("-")
