"""The web app's data folder: batches as `generate` writes them, answers and grades beside them.

The files are the CLI's own (manifest.json, answers@1, grade@1): `attnsheet grade` reads what
the web app saved, and the web app lists what the CLI wrote into `batches/`. Ids from a request
are looked up among the folders that exist; they are never joined into a path as they come.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.core.answers import pending_from_json
from generator.core.errors import AttnsheetError
from generator.core.formats import dumps
from generator.draw.private import Secret, read_secret, write_secret
from generator.output.files import ensure_folder, write_atomic
from generator.output.gradebook import Graded, grade_all
from generator.output.manifest import Listed, read_manifest

BATCH_ID = re.compile(r"batch-\d{4,6}")
"""The names the store gives batch folders."""
PLAIN_NAME = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._-]{0,120}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(?:pdf|json|html)")
"""A file name a batch may list: a plain name, at most one plain folder deep (worksheets/01-ana.pdf),
never absolute, never `..` — a manifest's names are data, never a path as they come."""
HELD_ID = re.compile(r"[0-9a-f]{32}")
"""The names the store gives the form's files it holds."""
HELD_FOR = 24 * 3600
"""Seconds a held file is kept: a form left open overnight still has its roster."""


class NotFound(AttnsheetError):
    """An id that names nothing in the store."""


@dataclass(frozen=True)
class StoredBatch:
    """A batch in the store."""

    id: str
    """Its folder's name."""
    folder: Path
    """Its folder."""
    manifest: dict
    """Its manifest@1, as written."""

    @property
    def sheets(self) -> list[dict]:
        """The manifest's sheets, in order."""
        return self.manifest["sheets"]

    def files(self) -> list[str]:
        """Every worksheet and key file it wrote, relative to its folder, and the manifest: only
        plain names (a planted manifest's `/etc/passwd` or `../x` is no file of the batch)."""
        names = {place.get("file") for sheet in self.sheets for place in (sheet.get("worksheet"), sheet.get("key"))
                 if isinstance(place, dict)}
        return sorted(n for n in names if isinstance(n, str) and PLAIN_NAME.fullmatch(n)) + ["manifest.json"]

    def listed(self) -> dict[str, Listed]:
        """Its sheets by code, as `grade` finds them."""
        return read_manifest((self.folder / "manifest.json").read_text(encoding="utf-8"), "manifest.json")


class Store:
    """Batches under `root/batches`, each one `generate`'s output folder plus answers/ and grades/."""

    def __init__(self, root: Path) -> None:
        self.root = root
        ensure_folder(root / "batches")
        self.secret = _server_secret(root / "secret")
        """The server's secret: its batches' codes are private, their keys rebuilt with it alone
        (`attnsheet key CODE --secret-file DATA/secret`)."""

    def ids(self) -> list[str]:
        """Every batch, newest first."""
        found = [p.name for p in (self.root / "batches").iterdir()
                 if BATCH_ID.fullmatch(p.name) and (p / "manifest.json").is_file()]
        return sorted(found, reverse=True)

    def new_folder(self) -> tuple[str, Path]:
        """A fresh batch folder's id and path (not yet created)."""
        taken = [int(p.name.split("-")[1]) for p in (self.root / "batches").iterdir() if BATCH_ID.fullmatch(p.name)]
        batch_id = f"batch-{max(taken, default=0) + 1:04d}"
        return batch_id, self.root / "batches" / batch_id

    def batch(self, batch_id: str) -> StoredBatch:
        """The batch of `batch_id`, if the store has it."""
        if batch_id not in self.ids():
            raise NotFound("no such batch")
        folder = self.root / "batches" / batch_id
        return StoredBatch(batch_id, folder, json.loads((folder / "manifest.json").read_text(encoding="utf-8")))

    def file(self, batch_id: str, name: str) -> Path:
        """One of a batch's files, if it is among those its manifest lists."""
        batch = self.batch(batch_id)
        if name not in batch.files():
            raise NotFound("no such file")
        path = batch.folder / name
        # A name that passed as plain may still lead out through a link planted in the folder.
        if not path.resolve().is_relative_to(batch.folder.resolve()) or not path.is_file():
            raise NotFound("no such file")
        return path

    def sheet(self, batch_id: str, index: str) -> tuple[StoredBatch, dict]:
        """A batch and one of its sheets, by the sheet's 1-based index as text."""
        batch = self.batch(batch_id)
        by_index = {str(sheet["index"]): sheet for sheet in batch.sheets}
        if index not in by_index:
            raise NotFound("no such sheet")
        return batch, by_index[index]

    def save(self, batch: StoredBatch, sheet: dict, answers: dict, grade: dict) -> tuple[Path, Path]:
        """Write a sheet's answers@1 and grade@1 (replacing an earlier save of the same sheet)."""
        stem = f"{sheet['index']:03d}"
        paths = batch.folder / "answers" / f"{stem}.json", batch.folder / "grades" / f"{stem}.json"
        for path, value in zip(paths, (answers, grade)):
            write_atomic(path, (dumps(value) + "\n").encode("utf-8"), force=True)
        return paths

    def saved(self, batch: StoredBatch) -> dict[int, dict]:
        """The grade@1 of every sheet saved so far, by index."""
        folder = batch.folder / "grades"
        out: dict[int, dict] = {}
        if folder.is_dir():
            for path in sorted(folder.glob("[0-9][0-9][0-9].json")):
                out[int(path.stem)] = json.loads(path.read_text(encoding="utf-8"))
        return out

    def graded(self, batch: StoredBatch) -> list[Graded]:
        """Every saved sheet graded again from its answers (as `attnsheet grade` would)."""
        folder = batch.folder / "answers"
        if not folder.is_dir():
            return []
        pendings = [pending_from_json(json.loads(p.read_text(encoding="utf-8")), p.name)
                    for p in sorted(folder.glob("[0-9][0-9][0-9].json"))]
        return grade_all(pendings, batch.listed(), carry=True)

    def answers(self, batch: StoredBatch, sheet: dict) -> Optional[dict]:
        """A sheet's saved answers@1, if any."""
        path = batch.folder / "answers" / f"{sheet['index']:03d}.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def hold(self, content: bytes) -> str:
        """Keep a file the form sent (a roster, a problem file) under a new id, so that a form sent
        back with an error, or the preview, uses it again without the teacher choosing it again."""
        folder = self.root / "held"
        ensure_folder(folder)
        now = time.time()
        for old in folder.iterdir():  # yesterday's files: a form is not left open that long
            if HELD_ID.fullmatch(old.name) and now - old.stat().st_mtime > HELD_FOR:
                old.unlink(missing_ok=True)
        held_id = secrets.token_hex(16)
        write_atomic(folder / held_id, content)
        return held_id

    def held(self, held_id: str) -> bytes:
        """A held file's content, by the id `hold` gave it."""
        path = self.root / "held" / held_id
        if not HELD_ID.fullmatch(held_id) or not path.is_file():
            raise NotFound("the file the form held is gone (kept one day): choose it again")
        return path.read_bytes()


def _server_secret(path: Path) -> Secret:
    """The data folder's secret, made (readable by its owner alone) the first time the server starts."""
    try:
        return write_secret(path)
    except FileExistsError:  # made before, or by another server process just now
        return read_secret(path)
