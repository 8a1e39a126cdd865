"""All or nothing: a run's files staged in one hidden folder, then moved into place together."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Optional, Union

from generator.output.files import (
    STAGE_PREFIX,
    OutputError,
    check_target,
    clean_leftovers,
    owner_tag,
    ensure_folder,
    publish_new,
    reason,
    target_kind,
    write_temporary,
    write_through,
)


class Staging:
    """A run's files written first into one hidden folder inside `root`, then moved into place
    together by `commit`: a run that fails or is stopped before that leaves `root` as it was.

    Use as a context manager; leaving it without `commit` (an error, Ctrl-C) removes what was
    staged and any folder the run made. If a move fails during `commit` (a full disk), the
    files already moved are taken back and the files they replaced restored.
    """

    def __init__(self, root: Path, force: bool = False) -> None:
        self.root, self.force = root, force
        self._made: list[Path] = []  # folders this run created, outermost first
        self._staged: dict[Path, tuple[Path, bool]] = {}  # target -> (staged file, force)
        self._streams: dict[Path, Path] = {}  # device or pipe targets -> staged file
        self._stage: Optional[Path] = None

    def __enter__(self) -> "Staging":
        self._make_folder(self.root)
        clean_leftovers(self.root)
        try:
            self._stage = Path(tempfile.mkdtemp(dir=self.root, prefix=f"{STAGE_PREFIX}{owner_tag()}~"))
        except OSError as error:
            self._remove_made()
            raise OutputError(f"cannot write into {self.root}: {reason(error)}") from None
        return self

    def __exit__(self, kind, error, trace) -> None:
        if self._stage is not None:  # not committed: nothing of this run stays
            shutil.rmtree(self._stage, ignore_errors=True)
            self._stage = None
            self._remove_made()

    def write(self, path: Path, data: Union[bytes, Iterable[bytes]], force: Optional[bool] = None) -> None:
        """Stage `data` for `path` (a file under `root`); `force` overrides the run's for this file."""
        assert self._stage is not None, "write inside the with block"
        replace_ = self.force if force is None else force
        kind = check_target(path, replace_)
        relative = path.relative_to(self.root)
        staged = self._stage / relative
        if staged.parent != self._stage:
            staged.parent.mkdir(parents=True, exist_ok=True)
        chunks = (data,) if isinstance(data, bytes) else data
        tmp = write_temporary(staged, chunks)
        os.replace(tmp, staged)
        if kind == "stream":
            self._streams[path] = staged
        else:
            self._staged[path] = (staged, replace_)

    def commit(self) -> None:
        """Move every staged file into place; on failure, put back what was there and fail."""
        assert self._stage is not None
        backups = self._stage.parent / f"{self._stage.name}-old"
        moved: list[tuple[Path, Optional[Path]]] = []  # (target, where the file it replaced went)
        try:
            for target, (staged, replace_) in self._staged.items():
                self._make_folder(target.parent)
                clean_leftovers(target.parent)
                check_target(target, replace_)  # still free: nothing changed it while we rendered
                old = None
                if target_kind(target) != "missing":
                    old = backups / target.relative_to(self.root)
                    old.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(target, old)
                moved.append((target, old))
                if old is None:
                    publish_new(str(staged), target)
                else:
                    os.replace(staged, target)
        except (OSError, OutputError) as error:
            self._undo(moved)
            shutil.rmtree(backups, ignore_errors=True)
            why = reason(error) if isinstance(error, OSError) else str(error)
            raise OutputError(f"cannot write into {self.root}: {why}; nothing was changed") from None
        except BaseException:
            self._undo(moved)
            shutil.rmtree(backups, ignore_errors=True)
            raise
        shutil.rmtree(backups, ignore_errors=True)
        for target, staged in self._streams.items():  # a device or pipe cannot be taken back: last
            with open(staged, "rb") as handle:
                write_through(target, iter(lambda: handle.read(1 << 20), b""))
        shutil.rmtree(self._stage, ignore_errors=True)
        self._stage = None

    def _undo(self, moved: list[tuple[Path, Optional[Path]]]) -> None:
        for target, old in reversed(moved):
            try:
                if target_kind(target) != "missing":
                    os.unlink(target)
                if old is not None:
                    os.replace(old, target)
            except OSError:
                pass

    def _make_folder(self, folder: Path) -> None:
        """Create `folder` and its missing parents, remembering which, to remove them on failure."""
        missing = []
        probe = folder
        while target_kind(probe) == "missing" and probe.parent != probe:
            missing.append(probe)
            probe = probe.parent
        ensure_folder(folder)
        self._made += reversed(missing)

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            try:
                folder.rmdir()  # only if empty: never what someone else put there meanwhile
            except OSError:
                pass
        self._made = []
