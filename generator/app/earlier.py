"""The folders of earlier attnsheets, imported into the store once (the Store's part of it)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from generator.app.database import MIGRATION_LOCK
from generator.app.links import manifest_sheets, student_links
from generator.core.errors import AttnsheetError

BATCH_ID = re.compile(r"batch-\d{4,9}")
"""The names the store gives batches (and their folders)."""


class EarlierFolders:
    """Batches an earlier attnsheet kept as files alone, listed once (`db`, `root`, `secret` are the Store's)."""

    def _import_json_folders(self) -> None:
        """Batches an earlier attnsheet kept as files alone (manifest.json, answers/NNN.json,
        grades/NNN.json): listed once, with every save, nothing lost; their files stay as they are.
        Once per database, when it is made: the folders of later batches have their rows already."""
        if self.db.query("SELECT value FROM meta WHERE key = 'folders_imported'"):
            return
        with self.db.transaction() as cur:
            if self.db.dialect == "postgresql":  # two processes starting at once: one imports
                cur.run("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK + 1,))
            if cur.rows("SELECT value FROM meta WHERE key = 'folders_imported'"):
                return
            known = {name for (name,) in cur.rows("SELECT name FROM batches")}
            for folder in sorted((self.root / "batches").iterdir()):
                if BATCH_ID.fullmatch(folder.name) and folder.name not in known:
                    self._import(cur, folder)
            cur.run("INSERT INTO meta (key, value) VALUES ('folders_imported', ?)", (str(time.time()),))
            if self.db.dialect == "postgresql":  # the numbering goes on past the imported batches
                cur.run(
                    "SELECT setval(pg_get_serial_sequence('batch_ids', 'id'), MAX(id)) FROM batch_ids "
                    "HAVING MAX(id) IS NOT NULL"
                )

    def _import(self, cur, folder: Path) -> None:
        """One folder of an earlier attnsheet, with its saves (a folder that is no batch is left alone)."""
        try:
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            links = student_links(self.secret, folder.name, manifest_sheets(manifest))
        except (OSError, ValueError, KeyError, TypeError, AttnsheetError):
            return
        number = int(folder.name.split("-")[1])
        cur.run("INSERT INTO batch_ids (id, reserved) VALUES (?, ?)", (number, time.time()))
        cur.run(
            "INSERT INTO batches (id, name, manifest, created, feedback, release_mode) "
            "VALUES (?, ?, ?, ?, 'verdicts', 'now')",
            (number, folder.name, json.dumps(manifest), (folder / "manifest.json").stat().st_mtime),
        )
        for link in links:
            cur.run(
                "INSERT INTO sheets (batch_id, idx, code, token, pin) VALUES (?, ?, ?, ?, ?)",
                (number, link.index, link.code, link.token, link.pin),
            )
        for path in sorted((folder / "answers").glob("[0-9][0-9][0-9].json")):
            grade = folder / "grades" / path.name
            if grade.is_file():
                answers, grade_text, saved = (
                    path.read_text(encoding="utf-8"),
                    grade.read_text(encoding="utf-8"),
                    path.stat().st_mtime,
                )
                ((rev,),) = cur.rows(
                    "INSERT INTO revisions (batch_id, idx, answers, grade, saved, source, state) "
                    "VALUES (?, ?, ?, ?, ?, 'teacher', 'current') RETURNING id",
                    (number, int(path.stem), answers, grade_text, saved),
                )
                self._make_current(cur, number, int(path.stem), rev, answers, grade_text, saved, "teacher")
