"""What a sheet holds, kept with its history and its source: no save silently replaces another's work.

Every save is a revision (typed by the teacher, handed in by the student, read from a scan),
kept for good. One revision of a sheet is current (what the gradebook grades). A newer one of
the same source takes its place; the teacher's entry always does (the teacher decides). A
newer one of another source does not: it is kept beside the current one as a conflict the class
page shows, until the teacher takes it or leaves it — a student's hand-in after the teacher
typed the paper, a scan after either (unless the teacher says the scan replaces what was typed).
A scan of a blank page never replaces written answers. A hand-in is checked against the batch's
close and its attempts inside the same transaction as its write: once a close is answered, no
hand-in in flight is kept after it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Optional

from generator.core.errors import AttnsheetError
from generator.core.formats import dumps

SOURCES = ("teacher", "student", "scan")
"""Who made a revision: typed on the entry page, handed in from the student's page, read from a scan."""
STATES = ("current", "replaced", "conflict", "left", "blank")
"""current: what is graded; replaced: an earlier one; conflict: newer, of another source, waiting
for the teacher; left: a conflict the teacher left; blank: a blank page's scan, never used over
written answers."""

MIGRATION = (  # 2: every save's history and source, conflicts, hand-ins and attempts per sheet
    "ALTER TABLE batches ADD COLUMN attempts INTEGER NOT NULL DEFAULT 3",
    "ALTER TABLE batches ADD COLUMN trivial TEXT NOT NULL DEFAULT 'none'",
    "ALTER TABLE sheets ADD COLUMN handins INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE sheets ADD COLUMN answered INTEGER NOT NULL DEFAULT 0",
    "UPDATE sheets SET handins = COALESCE((SELECT s.handins FROM saves s WHERE s.batch_id = sheets.batch_id "
    "AND s.idx = sheets.idx), 0)",
    "UPDATE sheets SET answered = handins",  # what earlier hand-ins were shown is unknown: all of them count
    "CREATE TABLE revisions (id {serial}, batch_id BIGINT NOT NULL REFERENCES batches(id), idx INTEGER NOT NULL, "
    "answers TEXT NOT NULL, grade TEXT NOT NULL, saved {real} NOT NULL, source TEXT NOT NULL, state TEXT NOT NULL, "
    "note TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX revisions_sheet ON revisions (batch_id, idx)",
    "INSERT INTO revisions (batch_id, idx, answers, grade, saved, source, state) "
    "SELECT batch_id, idx, answers, grade, saved, source, 'current' FROM saves",
    "ALTER TABLE saves ADD COLUMN rev BIGINT",
    "UPDATE saves SET rev = (SELECT MAX(r.id) FROM revisions r WHERE r.batch_id = saves.batch_id "
    "AND r.idx = saves.idx)",
)


class Closed(AttnsheetError):
    """A hand-in after the teacher closed the batch, or after the sheet's last attempt."""

    def __init__(self, message: str, reason: str = "closed") -> None:
        super().__init__(message)
        self.reason = reason
        """closed (the teacher closed hand-ins) or attempts (the last one is used): what the
        student's page says in the sheet's language."""


@dataclass(frozen=True)
class Saved:
    """What became of a save."""

    rev: int
    """Its revision's id."""
    state: str
    """current, conflict or blank (STATES)."""
    attempt: int = 0
    """For a hand-in answered with feedback: which one (1-based); 0 otherwise."""
    last: bool = False
    """A hand-in after which the student can hand in no more (their attempts used)."""


@dataclass(frozen=True)
class Revision:
    """One save of a sheet, as the class page and the entry page show it."""

    rev: int
    index: int
    source: str
    state: str
    saved: float
    points: float
    total: int
    note: str = ""


def _typed(answers: dict) -> bool:
    """Whether answers@1 hold a value someone wrote (null and "" are not)."""

    def walk(value) -> bool:
        if isinstance(value, dict):
            return any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return (isinstance(value, str) and value.strip() != "") or (
            isinstance(value, (int, float)) and not isinstance(value, bool)
        )

    return walk({k: v for k, v in answers.items() if k not in ("format", "code", "student", "problem")})


class Revisions:
    """The saves of a store's sheets (the store's `db` is set by its subclass)."""

    db: object

    def save(
        self,
        batch,
        sheet: dict,
        answers: dict,
        grade: dict,
        source: str = "teacher",
        base: Optional[int] = None,
        replace_typed: bool = False,
    ) -> Saved:
        """Keep a sheet's answers@1 and grade@1 as a new revision, in one transaction: current, or
        beside the current one (see the module). A student's hand-in is refused (Closed) once the
        batch is closed or the sheet's attempts are used, checked inside the transaction. `base`:
        the revision the teacher's page was showing; `replace_typed`: a scan takes the place of
        what the teacher typed."""
        if source not in SOURCES:
            raise AttnsheetError(f"source: one of {', '.join(SOURCES)}")
        index = int(sheet["index"])
        with self.db.transaction() as cur:
            attempt, last = 0, False
            if source == "student":
                attempt, last = self._hand_in(cur, batch.number, index)
            rows = cur.rows(
                "SELECT s.rev, s.source, s.answers FROM saves s WHERE s.batch_id = ? AND s.idx = ?{for_update}",
                (batch.number, index),
            )
            current = rows[0] if rows else None
            state, note = "current", ""
            if current is not None and current[1] != source and source != "teacher":
                if source == "scan" and not _typed(answers) and _typed(json.loads(current[2])):
                    state, note = "blank", "a blank page's scan"
                elif not (source == "scan" and replace_typed):
                    state = "conflict"
            if (
                source == "teacher"
                and current is not None
                and current[1] != "teacher"
                and base is not None
                and base != current[0]
            ):  # base 0: the page showed no save at all
                note = "saved over a newer revision the page had not shown"
            now = time.time()
            text_a, text_g = dumps(answers), dumps(grade)
            # A newer revision of a source ends that source's waiting conflict: the newest is the one to decide on.
            cur.run(
                "UPDATE revisions SET state = 'replaced' WHERE batch_id = ? AND idx = ? AND source = ? "
                "AND state = 'conflict'",
                (batch.number, index, source),
            )
            ((rev,),) = cur.rows(
                "INSERT INTO revisions (batch_id, idx, answers, grade, saved, source, state, note) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (batch.number, index, text_a, text_g, now, source, state, note),
            )
            if state == "current":
                self._make_current(
                    cur,
                    batch.number,
                    index,
                    rev,
                    text_a,
                    text_g,
                    now,
                    source,
                    "conflict" if note.startswith("saved over") else "replaced",
                )
        return Saved(rev, state, attempt, last)

    def _hand_in(self, cur, number: int, index: int) -> tuple[int, bool]:
        """A hand-in's checks and counts, inside its transaction: the close and the attempts as they
        are now (a close being answered waits for this, or this sees it)."""
        rows = cur.rows(
            "SELECT closed, feedback, release_mode, released, attempts FROM batches WHERE id = ?{for_share}", (number,)
        )
        closed, feedback, release, released, attempts = rows[0]
        if closed:
            raise Closed("hand-ins for this sheet are closed: ask your teacher")
        shown = feedback != "none" and (release == "now" or bool(released))
        ((answered,),) = cur.rows(
            "SELECT answered FROM sheets WHERE batch_id = ? AND idx = ?{for_update}", (number, index)
        )
        if shown and answered >= attempts:
            raise Closed(
                f"you have handed in this sheet {attempts} time{'s' if attempts != 1 else ''} with "
                "feedback, the most your teacher allows: your last hand-in is the one that counts",
                "attempts",
            )
        cur.run(
            "UPDATE sheets SET handins = handins + 1, answered = answered + ? WHERE batch_id = ? AND idx = ?",
            (int(shown), number, index),
        )
        return (answered + 1, answered + 1 >= attempts) if shown else (0, False)

    @staticmethod
    def _make_current(
        cur,
        number: int,
        index: int,
        rev: int,
        answers: str,
        grade: str,
        saved: float,
        source: str,
        old_state: str = "replaced",
    ) -> None:
        cur.run(
            "UPDATE revisions SET state = ? WHERE batch_id = ? AND idx = ? AND state = 'current' AND id <> ?",
            (old_state, number, index, rev),
        )
        cur.run("UPDATE revisions SET state = 'current' WHERE id = ?", (rev,))
        cur.run(
            "INSERT INTO saves (batch_id, idx, answers, grade, saved, source, rev) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (batch_id, idx) DO UPDATE SET answers = excluded.answers, grade = excluded.grade, "
            "saved = excluded.saved, source = excluded.source, rev = excluded.rev",
            (number, index, answers, grade, saved, source, rev),
        )

    def decide(self, batch, rev: int, take: bool) -> None:
        """The teacher's decision on a conflict: take it (it becomes current; the current one is
        kept as replaced), or leave it (kept, no longer shown as waiting)."""
        with self.db.transaction() as cur:
            rows = cur.rows(
                "SELECT idx, answers, grade, source, state FROM revisions WHERE id = ? AND batch_id = ?{for_update}",
                (int(rev), batch.number),
            )
            if not rows or rows[0][4] not in ("conflict", "blank", "left"):
                raise AttnsheetError("this revision is not waiting for a decision: reload the page")
            index, answers, grade, source, _ = rows[0]
            if take:
                self._make_current(cur, batch.number, index, int(rev), answers, grade, time.time(), source)
            else:
                cur.run("UPDATE revisions SET state = 'left' WHERE id = ?", (int(rev),))

    def saved(self, batch) -> dict[int, dict]:
        """The grade@1 of every sheet's current revision, by index."""
        rows = self.db.query("SELECT idx, grade FROM saves WHERE batch_id = ?", (batch.number,))
        return {idx: json.loads(grade) for idx, grade in rows}

    def handins(self, batch) -> dict[int, int]:
        """How many times each sheet was handed in by its student, by index."""
        rows = self.db.query("SELECT idx, handins FROM sheets WHERE batch_id = ? AND handins > 0", (batch.number,))
        return {idx: n for idx, n in rows}

    def attempts_used(self, batch, sheet: dict) -> int:
        """How many of a sheet's hand-ins were answered with feedback."""
        rows = self.db.query(
            "SELECT answered FROM sheets WHERE batch_id = ? AND idx = ?", (batch.number, int(sheet["index"]))
        )
        return rows[0][0] if rows else 0

    def answers(self, batch, sheet: dict) -> Optional[dict]:
        """A sheet's current answers@1, if any."""
        rows = self.db.query(
            "SELECT answers FROM saves WHERE batch_id = ? AND idx = ?", (batch.number, int(sheet["index"]))
        )
        return json.loads(rows[0][0]) if rows else None

    def current(self, batch, sheet: dict) -> tuple[Optional[int], Optional[dict]]:
        """A sheet's current revision's id and answers@1 (None, None before any save)."""
        rows = self.db.query(
            "SELECT rev, answers FROM saves WHERE batch_id = ? AND idx = ?", (batch.number, int(sheet["index"]))
        )
        return (rows[0][0], json.loads(rows[0][1])) if rows else (None, None)

    def latest(self, batch, sheet: dict, source: str) -> Optional[tuple[int, dict, str]]:
        """A sheet's newest revision from `source` (its id, answers@1 and state), whatever its state."""
        rows = self.db.query(
            "SELECT id, answers, state FROM revisions WHERE batch_id = ? AND idx = ? AND source = ? "
            "ORDER BY id DESC LIMIT 1",
            (batch.number, int(sheet["index"]), source),
        )
        return (rows[0][0], json.loads(rows[0][1]), rows[0][2]) if rows else None

    def replace_revision(self, batch, rev: int, answers: dict, grade: dict) -> str:
        """A scan's revision with a box confirmed: a new revision of the same source and state in its
        place (the old one kept as replaced); the state."""
        with self.db.transaction() as cur:
            rows = cur.rows(
                "SELECT idx, source, state FROM revisions WHERE id = ? AND batch_id = ?{for_update}",
                (int(rev), batch.number),
            )
            if not rows:
                raise AttnsheetError("no such revision")
            index, source, state = rows[0]
            now, text_a, text_g = time.time(), dumps(answers), dumps(grade)
            ((new,),) = cur.rows(
                "INSERT INTO revisions (batch_id, idx, answers, grade, saved, source, state, note) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, '') RETURNING id",
                (batch.number, index, text_a, text_g, now, source, "replaced"),
            )
            cur.run("UPDATE revisions SET state = 'replaced' WHERE id = ?", (int(rev),))
            if state == "current":
                self._make_current(cur, batch.number, index, new, text_a, text_g, now, source)
            else:
                cur.run("UPDATE revisions SET state = ? WHERE id = ?", (state, new))
        return state

    def regraded(self, batch, rev: int, grade: dict) -> bool:
        """A current revision's grade under the batch's rule as it is now (its answers unchanged);
        whether it was still current. The same rule gives the same grade: doing it twice is harmless."""
        text = dumps(grade)
        with self.db.transaction() as cur:
            rows = cur.rows(
                "UPDATE revisions SET grade = ? WHERE id = ? AND batch_id = ? AND state = 'current' RETURNING idx",
                (text, int(rev), batch.number),
            )
            if rows:
                cur.run(
                    "UPDATE saves SET grade = ? WHERE batch_id = ? AND idx = ? AND rev = ?",
                    (text, batch.number, rows[0][0], int(rev)),
                )
        return bool(rows)

    def history(self, batch, sheet: Optional[dict] = None) -> list[Revision]:
        """Every revision of a batch (or of one sheet), newest first."""
        where, params = (
            ("batch_id = ?", (batch.number,))
            if sheet is None
            else ("batch_id = ? AND idx = ?", (batch.number, int(sheet["index"])))
        )
        rows = self.db.query(
            f"SELECT id, idx, source, state, saved, grade, note FROM revisions WHERE {where} ORDER BY id DESC", params
        )
        out = []
        for rev, idx, source, state, saved, grade, note in rows:
            g = json.loads(grade)
            out.append(Revision(rev, idx, source, state, saved, g.get("points", 0), g.get("total", 0), note))
        return out

    def conflicts(self, batch) -> list[tuple[Revision, Revision]]:
        """Each revision waiting for the teacher's decision, beside its sheet's current one."""
        everything = self.history(batch)
        current = {r.index: r for r in everything if r.state == "current"}
        return [(r, current[r.index]) for r in reversed(everything) if r.state == "conflict" and r.index in current]

    def saves(self, batch) -> list[tuple[int, dict, dict]]:
        """Every sheet's current revision: (index, answers@1, grade@1), in sheet order."""
        rows = self.db.query("SELECT idx, answers, grade FROM saves WHERE batch_id = ? ORDER BY idx", (batch.number,))
        return [(idx, json.loads(a), json.loads(g)) for idx, a, g in rows]
