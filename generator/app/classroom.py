"""The classroom's use-cases, over the store: make a batch, save what a sheet holds, grade a class,
hand in and see the feedback the teacher allows. The web app (and the CLI) parse, call and report."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence

from generator.app.links import student_links
from generator.app.revisions import Closed, Saved
from generator.app.store import Store, StoredBatch
from generator.core.answers import parse_answers_json
from generator.core.formats import problem_from_json
from generator.core.grades import cells_json, grade_to_json
from generator.core.registry import grade
from generator.core.numbers import sheet_value
from generator.core.student import student_of
from generator.output.batch import Batch, generate

__all__ = [
    "Closed",
    "Graded",
    "attempts_left",
    "create_batch",
    "feedback_for",
    "feedback_now",
    "grade_sheet",
    "hand_in",
    "handout",
    "save_sheet",
    "wrong_only",
]


def create_batch(
    store: Store,
    batch: Batch,
    feedback: str = "verdicts",
    release: str = "now",
    base_url: str = "",
    attempts: int = 3,
    trivial: str = "none",
    owner: Optional[int] = None,
    reserved: Optional[tuple[str, Path]] = None,
    progress=None,
) -> StoredBatch:
    """Write a batch's files into a fresh folder the database numbered, then list it (its row last:
    a batch that failed or stopped half-way is never listed). With the server's `base_url`, each
    worksheet's QR opens its student's link, and its PIN is printed beside the code; `owner`: the
    teacher who made it (accounts on); `reserved`: the name and folder reserved for it when its job
    was queued; `progress`: told of each document rendered."""
    name, folder = reserved or store.reserve()
    links = student_links(store.secret, name, [(s.index, s.problem.code) for s in batch.sheets])
    sheets = batch.sheets
    if base_url:
        sheets = tuple(
            replace(s, link=f"{base_url.rstrip('/')}/s/{link.token}", pin=link.pin)
            for s, link in zip(batch.sheets, links)
        )
    generate(replace(batch, sheets=sheets, out=folder), progress)
    return store.add(name, links, feedback, release, attempts, trivial, owner)


@dataclass(frozen=True)
class Graded:
    """What is written on a sheet, graded: the answers@1 to keep, the grade@1, each cell's expected value."""

    answers: dict
    """The answers@1, with the sheet's code and student (the server's, never the request's)."""
    grade: dict
    """The grade@1."""
    expected: dict
    """Each cell's expected value given the cells entered so far, shaped as grade@1's cells."""
    saved: Optional[Saved] = None
    """What became of it when it was saved (current, or kept beside the current one), if it was."""


def grade_sheet(sheet: dict, written: dict, trivial: str = "none") -> Graded:
    """Grade what is written on one of a batch's sheets (its problem from the manifest, never the
    request); `trivial`: the batch's credit for cells carried from inputs that make their step trivial."""
    value = {
        **{k: v for k, v in written.items() if k not in ("problem", "base")},
        "format": "attnsheet/answers@1",
        "code": sheet["code"],
    }
    (pending,) = parse_answers_json(json.dumps(value), "answers")
    problem = problem_from_json(sheet["problem"])
    student = student_of(sheet["student"])
    result = grade(problem, pending.answers(problem, student, sheet["code"]), trivial=trivial)
    value["student"] = sheet["student"]
    expected = cells_json(
        result,
        lambda s, i, j: "" if s.carried[i][j] is None or s.verdicts[i][j] == "masked" else sheet_value(s.carried[i][j]),
    )
    return Graded(value, grade_to_json(result), expected)


def save_sheet(
    store: Store,
    batch: StoredBatch,
    sheet: dict,
    written: dict,
    source: str = "teacher",
    base: Optional[int] = None,
    replace_typed: bool = False,
) -> Graded:
    """Grade and keep what a sheet holds: a new revision, its answers and grade in one transaction
    (current, or kept beside the current one: app/revisions). A hand-in after the close, or after
    the sheet's last attempt, is refused (Closed) inside that transaction."""
    graded = grade_sheet(sheet, written, batch.trivial)
    saved = store.save(batch, sheet, graded.answers, graded.grade, source, base, replace_typed)
    return replace(graded, saved=saved)


def feedback_for(batch: StoredBatch, graded: Optional[Graded], final: bool = False) -> dict:
    """What a student may see of their handed-in sheet (`graded`, None before they hand in) under
    the batch's policy: "received" alone; the verdicts and points (no value); or, with "full",
    those and — once they can hand in no more (`final`: their last attempt, or hand-ins closed) —
    the expected value of each box they wrote and got wrong (its value from their own earlier
    cells where that is what was expected). Never a value of a blank box, never a value before
    the last hand-in: an empty sheet, or one handed in again with what came back, learns nothing
    it did not write. A value the policy hides is never in it."""
    if graded is None:
        return {"status": "not handed in"}
    if batch.feedback == "none" or not batch.shown:
        return {"status": "received"}
    out = {
        "status": "graded",
        "cells": graded.grade["cells"],
        "points": graded.grade["points"],
        "total": graded.grade["total"],
    }
    if batch.feedback == "full" and final:
        out["expected"] = wrong_only(graded.expected, graded.grade["cells"])
    return out


def wrong_only(expected: dict, verdicts: dict) -> dict:
    """`expected` with every cell but the wrong ones emptied (both shaped as grade@1's cells)."""

    def keep(values, marks):
        if isinstance(values, dict):
            return {k: keep(v, marks.get(k)) for k, v in values.items()}
        if isinstance(values, list):
            return [keep(v, m) for v, m in zip(values, marks)]
        return values if marks == "wrong" else ""

    return keep(expected, verdicts)


def hand_in(store: Store, batch: StoredBatch, sheet: dict, written: dict, photos: Sequence[str] = ()) -> dict:
    """A student's hand-in kept (refused once closed or out of attempts) and the feedback it gets;
    `photos`: the photos of their paper it was read from, kept with it (app/photos)."""
    graded = save_sheet(store, batch, sheet, written, "student")
    if photos:
        from generator.app.photos import handed_with

        handed_with(batch, int(sheet["index"]), list(photos), written, graded.saved.rev)
    final = graded.saved.last or batch.closed
    return {"handed_in": True, **feedback_for(batch, graded, final), **attempts_left(batch, graded.saved.attempt)}


def feedback_now(store: Store, batch: StoredBatch, sheet: dict) -> dict:
    """The feedback of the sheet as its student last handed it in (the teacher may have released it since)."""
    latest = store.latest(batch, sheet, "student")
    if latest is None:
        return feedback_for(batch, None)
    used = store.attempts_used(batch, sheet)
    graded = grade_sheet(sheet, latest[1], batch.trivial)
    return {**feedback_for(batch, graded, batch.closed or used >= batch.attempts), **attempts_left(batch, used)}


def attempts_left(batch: StoredBatch, used: int) -> dict:
    """How many more hand-ins will be answered with feedback, where the policy shows any."""
    if batch.feedback == "none" or not batch.shown:
        return {}
    return {"attempts": batch.attempts, "left": max(0, batch.attempts - used)}


def handout(store: Store, batch: StoredBatch, base_url: str) -> bytes:
    """A batch's handout as a PDF: each student's card with their link, its QR code and their PIN,
    under `base_url`, the address students' phones reach this server at."""
    from generator.output.handout import Card, handout_pdf
    from generator.sheet.model import Settings

    from generator.output.files import write_atomic

    base = base_url.rstrip("/")
    links = store.links(batch)
    cards = [
        Card(
            int(s["index"]),
            str(s["student"].get("name", "")),
            str(s["code"]),
            f"{base}/s/{links[int(s['index'])].token}",
            links[int(s["index"])].pin,
        )
        for s in batch.sheets
        if int(s["index"]) in links
    ]
    settings = Settings(paper=batch.manifest["settings"]["paper"], lang=batch.manifest["settings"]["lang"])
    # Made once for what it prints (0.9–2.9 s a time): a new PIN, name or address makes it again.
    printed = json.dumps(
        [[c.index, c.name, c.code, c.link, c.pin] for c in cards] + [base, settings.paper, settings.lang, batch.name],
        ensure_ascii=False,
    )
    kept = batch.folder / f".handout-{hashlib.sha256(printed.encode()).hexdigest()[:24]}.pdf"
    if kept.is_file():
        return kept.read_bytes()
    data = handout_pdf(cards, f"{base}/s", settings, batch.name)
    for old in batch.folder.glob(".handout-*.pdf"):  # what an earlier PIN or name printed
        old.unlink(missing_ok=True)
    try:
        write_atomic(kept, data, force=True)
    except OSError:  # a full or read-only disk: the teacher still gets the handout
        pass
    return data
