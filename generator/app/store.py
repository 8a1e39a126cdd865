"""The classroom's store: batches, their sheets and what was saved for them, in one database.

SQLite (one file in the data folder, WAL) by default; PostgreSQL by URL for a school server run as
several processes. A batch's files (its PDFs and manifest.json, the CLI's own) stay files in the
data folder, written before its row: a batch exists once its row does, so a batch stopped
half-way is never listed. A save's answers and grade are one row, written in one transaction.
Ids from a request are looked up in the database, never joined into a path as they come.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.app.accounts import MIGRATION as ACCOUNTS
from generator.app.accounts import Accounts
from generator.app.curating import Curating
from generator.app.database import Database
from generator.app.earlier import BATCH_ID, EarlierFolders
from generator.app.errors import NotFound
from generator.app.jobs import MIGRATION as JOBS
from generator.app.jobs import CANCEL, NAMES, PARTS
from generator.app.jobs import Jobs
from generator.app.links import StudentLink
from generator.app.revisions import MIGRATION as REVISIONS
from generator.app.revisions import Revisions
from generator.core.answers import pending_from_json
from generator.core.errors import AttnsheetError
from generator.draw.private import Secret, guard_secret, read_secret, write_secret
from generator.output.files import STAGE_PREFIX, clean_leftovers, ensure_folder, write_atomic
from generator.app.grading import grade_all
from generator.output.gradebook import Graded
from generator.output.manifest import Listed, read_manifest

DATABASE_FILE = "attnsheet.sqlite3"
"""The SQLite database's name in the data folder."""
PLAIN_NAME = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._-]{0,120}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(?:pdf|json|html)")
"""A file name a batch may list: a plain name, at most one plain folder deep (worksheets/01-ana.pdf),
never absolute, never `..` — a manifest's names are data, never a path as they come."""
MANIFESTS_KEPT = 32
"""Parsed manifests a store keeps: the batches in use this week."""
HELD_ID = re.compile(r"[0-9a-f]{32}")
"""The names the store gives the form's files it holds."""
UNLISTED_FOR = 3600
"""Seconds after its number was reserved that an unlisted batch folder is a killed creation's."""
HELD_FOR = 24 * 3600
"""Seconds a held file is kept: a form left open overnight still has its roster."""
FEEDBACK = ("none", "verdicts", "full")
"""What a student sees after handing in: "received" only, right/carried/wrong per box, or the values too."""
RELEASE = ("now", "later")
"""When: at once, or when the teacher releases it."""
ATTEMPTS = (1, 20)
"""The least and most hand-ins with feedback a batch may allow a student."""
TRIVIAL = ("none", "half", "full")
"""What a cell carried from inputs that make its step trivial earns: nothing, half a point, or a point."""

MIGRATIONS = (
    (  # 1: batches, their sheets (with each student's link), saves
        "CREATE TABLE batch_ids (id {serial}, reserved {real} NOT NULL)",
        "CREATE TABLE batches (id BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE, manifest TEXT NOT NULL, "
        "created {real} NOT NULL, feedback TEXT NOT NULL DEFAULT 'verdicts', release_mode TEXT NOT NULL "
        "DEFAULT 'now', released INTEGER NOT NULL DEFAULT 0, closed INTEGER NOT NULL DEFAULT 0)",
        "CREATE TABLE sheets (batch_id BIGINT NOT NULL REFERENCES batches(id), idx INTEGER NOT NULL, "
        "code TEXT NOT NULL, token TEXT NOT NULL UNIQUE, pin TEXT NOT NULL, PRIMARY KEY (batch_id, idx))",
        "CREATE INDEX sheets_code ON sheets (code)",
        "CREATE TABLE saves (batch_id BIGINT NOT NULL REFERENCES batches(id), idx INTEGER NOT NULL, "
        "answers TEXT NOT NULL, grade TEXT NOT NULL, saved {real} NOT NULL, source TEXT NOT NULL, "
        "handins INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (batch_id, idx))",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    REVISIONS,
    ACCOUNTS,
    JOBS,
    PARTS,
    NAMES,
    CANCEL,
)
"""The schema, one migration after another; never edit one that has shipped: add the next."""


def check_policy(feedback: str, release: str, attempts: int, trivial: str) -> None:
    """A batch's policy, every part one of its values (an AttnsheetError naming the first that is not)."""
    if feedback not in FEEDBACK or release not in RELEASE:
        raise AttnsheetError(f"feedback: one of {', '.join(FEEDBACK)}; release: one of {', '.join(RELEASE)}")
    if not (isinstance(attempts, int) and ATTEMPTS[0] <= attempts <= ATTEMPTS[1]):
        raise AttnsheetError(f"attempts: a whole number from {ATTEMPTS[0]} to {ATTEMPTS[1]}")
    if trivial not in TRIVIAL:
        raise AttnsheetError(f"trivial: one of {', '.join(TRIVIAL)}")


def shown_now(feedback: str, release: str, released: bool) -> bool:
    """Whether students see their feedback as they hand in, under a policy."""
    return feedback != "none" and (release == "now" or released)


@dataclass(frozen=True)
class StoredBatch:
    """A batch in the store."""

    id: str
    """Its name (batch-0001), also its folder's."""
    folder: Path
    """Its folder: the files `generate` wrote."""
    manifest: dict
    """Its manifest@1, as written."""
    number: int = 0
    """Its row's id."""
    feedback: str = "verdicts"
    """What a student who hands in sees (FEEDBACK)."""
    release: str = "now"
    """When they see it (RELEASE)."""
    released: bool = False
    """The teacher has released the feedback (for release "later")."""
    closed: bool = False
    """Hand-ins are closed."""
    attempts: int = 3
    """Hand-ins a student may make that are answered with feedback (ATTEMPTS)."""
    trivial: str = "none"
    """The credit of a cell carried from inputs that make its step trivial (TRIVIAL)."""
    owner: Optional[int] = None
    """The teacher who made it (None: made before accounts, the first admin's)."""
    label: str = ""
    """What the teacher renamed it to ("": its title, else its id)."""
    archived: bool = False
    """Put away: listed apart, under "archived"; nothing of it is changed."""
    created: float = 0.0
    """When it was listed (seconds since the epoch)."""

    @property
    def name(self) -> str:
        """What the lists call it: the teacher's name for it, its title, or its id."""
        return self.label or self.manifest["settings"].get("title") or self.id

    def file_name(self, what: str) -> str:
        """A download's file name after the class ("monday-3b-gradebook.csv"), its id where its name
        has no letter or digit a file name keeps."""
        from generator.output.files import slug

        return f"{slug(self.name) or self.id}-{what}"

    @property
    def kind(self) -> str:
        """The exercise its sheets are of (problem@1's kind; attention for files of before kinds)."""
        from generator.core.registry import default_kind

        return self.sheets[0]["problem"].get("kind", default_kind()) if self.sheets else default_kind()

    @property
    def sheets(self) -> list[dict]:
        """The manifest's sheets, in order."""
        return self.manifest["sheets"]

    @property
    def shown(self) -> bool:
        """Whether students see the feedback now."""
        return self.release == "now" or self.released

    def files(self) -> list[str]:
        """Every worksheet and key file it wrote, relative to its folder, and the manifest: only
        plain names (a planted manifest's `/etc/passwd` or `../x` is no file of the batch)."""
        names = {place.get("file") for sheet in self.sheets for place in (sheet.get("worksheet"), sheet.get("key"))
                 if isinstance(place, dict)}
        return sorted(n for n in names if isinstance(n, str) and PLAIN_NAME.fullmatch(n)) + ["manifest.json"]

    def listed(self) -> dict[str, Listed]:
        """Its sheets by code, as `grade` finds them."""
        return read_manifest(json.dumps(self.manifest), "manifest.json")


class Store(Revisions, Accounts, Jobs, Curating, EarlierFolders):
    """The database and the batch folders of one data folder (and its secret)."""

    def __init__(self, root: Path, database: Optional[str] = None) -> None:
        self.root = root
        ensure_folder(root / "batches")
        self.warnings: list[str] = []
        """What the front end should say once (a secret file others could read, made private)."""
        self.secret = _server_secret(root / "secret", self.warnings)
        """The server's secret: its batches' codes are private, their keys rebuilt with it alone
        (`attnsheet key CODE --secret-file DATA/secret`), and it makes the students' links."""
        self.db = Database(database or root / DATABASE_FILE)
        self.db.migrate(MIGRATIONS)
        # A batch's manifest never changes once its row is written (its policy is in other
        # columns): parsed once, not on every student's request (a class's is a megabyte).
        self._manifests: OrderedDict[int, dict] = OrderedDict()
        self._manifests_lock = threading.Lock()
        self._import_json_folders()
        self.cleaned = self.clean_leftovers()
        """The batch folders of killed batch creations removed when this store opened."""

    # --- batches ---------------------------------------------------------------------------------

    def ids(self) -> list[str]:
        """Every batch, newest first."""
        return [name for (name,) in self.db.query("SELECT name FROM batches ORDER BY id DESC")]

    def reserve(self) -> tuple[str, Path]:
        """A fresh batch's name and folder (the folder not yet made): numbered by the database, so
        two processes never take the same one."""
        with self.db.transaction() as cur:
            (number,), = cur.rows("INSERT INTO batch_ids (reserved) VALUES (?) RETURNING id", (time.time(),))
        name = f"batch-{number:04d}"
        return name, self.root / "batches" / name

    def add(self, name: str, links: list[StudentLink], feedback: str = "verdicts", release: str = "now",
            attempts: int = 3, trivial: str = "none", owner: Optional[int] = None) -> StoredBatch:
        """List a batch whose files are written: its row, last (a stopped batch is never listed);
        `owner`: the teacher who made it, with accounts on."""
        check_policy(feedback, release, attempts, trivial)
        folder = self.root / "batches" / name
        manifest = (folder / "manifest.json").read_text(encoding="utf-8")
        number = int(name.split("-")[1])
        with self.db.transaction() as cur:
            cur.run("INSERT INTO batches (id, name, manifest, created, feedback, release_mode, attempts, trivial, "
                    "owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (number, name, manifest, time.time(), feedback, release, attempts, trivial, owner))
            for link in links:
                cur.run("INSERT INTO sheets (batch_id, idx, code, token, pin) VALUES (?, ?, ?, ?, ?)",
                        (number, link.index, link.code, link.token, link.pin))
        return self.batch(name)

    def clean_leftovers(self) -> list[str]:
        """Remove what killed batch creations left: the folder of a batch that was never listed,
        once no live process stages into it and its number was reserved an hour ago or more
        (a batch being made now is left alone). The names removed."""
        folder = self.root / "batches"
        listed = {name for (name,) in self.db.query("SELECT name FROM batches")} | self.making()
        reserved = dict(self.db.query("SELECT id, reserved FROM batch_ids"))
        removed = []
        for path in sorted(folder.iterdir()):
            if not BATCH_ID.fullmatch(path.name) or path.name in listed or not path.is_dir() or path.is_symlink():
                continue
            clean_leftovers(path)  # staging folders of dead processes
            if any(p.name.startswith(STAGE_PREFIX) for p in path.iterdir()):
                continue  # a live process is making it
            if time.time() - reserved.get(int(path.name.split("-")[1]), 0) < UNLISTED_FOR:
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
        return removed

    def batch(self, name: str) -> StoredBatch:
        """The batch of `name`, if the store has it."""
        rows = self.db.query("SELECT id, feedback, release_mode, released, closed, attempts, trivial, owner, label, "
                             "archived, created FROM batches WHERE name = ?", (str(name)[:40],))
        if not rows:
            raise NotFound("no such batch")
        number, feedback, release, released, closed, attempts, trivial, owner, label, archived, created = rows[0]
        return StoredBatch(name, self.root / "batches" / name, self._manifest(number), number, feedback, release,
                           bool(released), bool(closed), attempts, trivial, owner, label, bool(archived), created)

    def _manifest(self, number: int) -> dict:
        """A batch's manifest, parsed once (shared: read it, never change it)."""
        with self._manifests_lock:
            if number in self._manifests:
                self._manifests.move_to_end(number)
                return self._manifests[number]
        ((text,),) = self.db.query("SELECT manifest FROM batches WHERE id = ?", (number,))
        manifest = json.loads(text)
        with self._manifests_lock:
            self._manifests[number] = manifest
            while len(self._manifests) > MANIFESTS_KEPT:
                self._manifests.popitem(last=False)
        return manifest

    def set_policy(self, batch: StoredBatch, feedback: Optional[str] = None, release: Optional[str] = None,
                   released: Optional[bool] = None, closed: Optional[bool] = None, attempts: Optional[int] = None,
                   trivial: Optional[str] = None) -> StoredBatch:
        """Change what students see and when, how often they may hand in, or open or close hand-ins.
        A close waits for the hand-ins being written (their transactions hold the batch's row) and
        is final once answered: no hand-in is kept after it."""
        feedback = batch.feedback if feedback is None else feedback
        release = batch.release if release is None else release
        attempts = batch.attempts if attempts is None else attempts
        trivial = batch.trivial if trivial is None else trivial
        check_policy(feedback, release, attempts, trivial)
        released = batch.released if released is None else released
        with self.db.transaction() as cur:
            (was_feedback, was_release, was_released), = cur.rows(
                "SELECT feedback, release_mode, released FROM batches WHERE id = ?{for_update}", (batch.number,))
            cur.run("UPDATE batches SET feedback = ?, release_mode = ?, released = ?, closed = ?, attempts = ?, "
                    "trivial = ? WHERE id = ?",
                    (feedback, release, int(released), int(batch.closed if closed is None else closed), attempts,
                     trivial, batch.number))
            if not shown_now(was_feedback, was_release, bool(was_released)) and shown_now(feedback, release, released):
                # A release shows each student the hand-in they made unseen: that look is one of their
                # attempts with feedback, as a hand-in's is when it is shown at once.
                cur.run("UPDATE sheets SET answered = answered + 1 WHERE batch_id = ? AND handins > answered",
                        (batch.number,))
        return self.batch(batch.id)

    def file(self, name: str, filename: str) -> Path:
        """One of a batch's files, if it is among those its manifest lists."""
        batch = self.batch(name)
        if filename not in batch.files():
            raise NotFound("no such file")
        path = batch.folder / filename
        # A name that passed as plain may still lead out through a link planted in the folder.
        if not path.resolve().is_relative_to(batch.folder.resolve()) or not path.is_file():
            raise NotFound("no such file")
        return path

    # --- sheets ----------------------------------------------------------------------------------

    def sheet(self, name: str, index: str) -> tuple[StoredBatch, dict]:
        """A batch and one of its sheets, by the sheet's 1-based index as text."""
        batch = self.batch(name)
        by_index = {str(sheet["index"]): sheet for sheet in batch.sheets}
        if index not in by_index:
            raise NotFound("no such sheet")
        return batch, by_index[index]

    def by_token(self, token: str) -> tuple[StoredBatch, dict]:
        """The batch and sheet a student's link names."""
        rows = self.db.query("SELECT b.name, s.idx FROM sheets s JOIN batches b ON b.id = s.batch_id "
                             "WHERE s.token = ?", (str(token)[:64],))
        if not rows:
            raise NotFound("no such sheet: check the link on your sheet")
        return self.sheet(rows[0][0], str(rows[0][1]))

    def links(self, batch: StoredBatch) -> dict[int, StudentLink]:
        """Each sheet's student link and PIN, by index."""
        rows = self.db.query("SELECT idx, code, token, pin FROM sheets WHERE batch_id = ?", (batch.number,))
        return {idx: StudentLink(idx, code, token, pin) for idx, code, token, pin in rows}

    def by_code(self, code_key: str) -> list[tuple[str, int, str, str]]:
        """Sheets whose code is `code_key` (normalised): (batch name, index, token, pin)."""
        return [(name, idx, token, pin) for name, idx, token, pin in self.db.query(
            "SELECT b.name, s.idx, s.token, s.pin FROM sheets s JOIN batches b ON b.id = s.batch_id "
            "WHERE s.code = ?", (code_key[:64],))]

    # --- the form's held files -------------------------------------------------------------------

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

    def graded(self, batch: StoredBatch) -> list[Graded]:
        """Every saved sheet graded again from its current answers (as `attnsheet grade` would)."""
        pendings = [pending_from_json(answers, f"{idx:03d}.json") for idx, answers, _ in self.saves(batch)]
        return grade_all(pendings, batch.listed(), carry=True, trivial=batch.trivial) if pendings else []

    def close(self) -> None:
        """Stop running jobs here, and close the database's connections."""
        if self.queue is not None and hasattr(self.queue, "stop"):
            self.queue.stop(wait=5)
        self.db.close()

def _server_secret(path: Path, warnings: list[str]) -> Secret:
    """The data folder's secret, made (readable by its owner alone) the first time the server
    starts; one others could read is made private, and `warnings` says so."""
    try:
        return write_secret(path)
    except FileExistsError:  # made before, or by another server process just now
        warning = guard_secret(path)
        if warning:
            warnings.append(warning)
        return read_secret(path)
