"""The classroom's use-cases, over the store: make a batch, save what a sheet holds, grade a class,
hand in and see the feedback the teacher allows. The web app (and the CLI) parse, call and report."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Optional

from generator.app.links import student_links
from generator.app.store import Store, StoredBatch
from generator.core.answers import parse_answers_json
from generator.core.errors import AttnsheetError
from generator.core.formats import problem_from_json
from generator.core.grades import cells_json, grade_to_json
from generator.core.kinds import grade
from generator.core.numbers import sheet_value
from generator.core.student import Student
from generator.output.batch import Batch, generate


class Closed(AttnsheetError):
    """A hand-in after the teacher closed the batch."""


def create_batch(store: Store, batch: Batch, feedback: str = "verdicts", release: str = "now",
                 base_url: str = "") -> StoredBatch:
    """Write a batch's files into a fresh folder the database numbered, then list it (its row last:
    a batch that failed or stopped half-way is never listed). With the server's `base_url`, each
    worksheet's QR opens its student's link, and its PIN is printed beside the code."""
    name, folder = store.reserve()
    links = student_links(store.secret, name, [(s.index, s.problem.code) for s in batch.sheets])
    sheets = batch.sheets
    if base_url:
        sheets = tuple(replace(s, link=f"{base_url.rstrip('/')}/s/{link.token}", pin=link.pin)
                       for s, link in zip(batch.sheets, links))
    generate(replace(batch, sheets=sheets, out=folder))
    return store.add(name, links, feedback, release)


@dataclass(frozen=True)
class Graded:
    """What is written on a sheet, graded: the answers@1 to keep, the grade@1, each cell's expected value."""

    answers: dict
    """The answers@1, with the sheet's code and student (the server's, never the request's)."""
    grade: dict
    """The grade@1."""
    expected: dict
    """Each cell's expected value given the cells entered so far, shaped as grade@1's cells."""


def grade_sheet(sheet: dict, written: dict) -> Graded:
    """Grade what is written on one of a batch's sheets (its problem from the manifest, never the request)."""
    value = {**{k: v for k, v in written.items() if k != "problem"}, "format": "attnsheet/answers@1",
             "code": sheet["code"]}
    (pending,) = parse_answers_json(json.dumps(value), "answers")
    problem = problem_from_json(sheet["problem"])
    student = Student(**{k: str(sheet["student"].get(k, "")) for k in ("name", "id", "group")})
    result = grade(problem, pending.answers(problem, student, sheet["code"]))
    value["student"] = sheet["student"]
    expected = cells_json(result, lambda s, i, j: "" if s.carried[i][j] is None or s.verdicts[i][j] == "masked"
                          else sheet_value(s.carried[i][j]))
    return Graded(value, grade_to_json(result), expected)


def save_sheet(store: Store, batch: StoredBatch, sheet: dict, written: dict, source: str = "teacher") -> Graded:
    """Grade and keep what a sheet holds: its answers and grade in one transaction."""
    if source == "student" and batch.closed:
        raise Closed("hand-ins for this sheet are closed: ask your teacher")
    graded = grade_sheet(sheet, written)
    store.save(batch, sheet, graded.answers, graded.grade, source)
    return graded


def feedback_for(batch: StoredBatch, graded: Optional[Graded]) -> dict:
    """What a student may see of their handed-in sheet (`graded`, None before they hand in) under
    the batch's policy: "received" alone; the verdicts and points (no value); or those and each
    box's expected value (true, or carried from their own cells). A value the policy hides is
    never in it."""
    if graded is None:
        return {"status": "not handed in"}
    if batch.feedback == "none" or not batch.shown:
        return {"status": "received"}
    out = {"status": "graded", "cells": graded.grade["cells"], "points": graded.grade["points"],
           "total": graded.grade["total"]}
    if batch.feedback == "full":
        out["expected"] = graded.expected
    return out
