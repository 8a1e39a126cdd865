"""The attnsheet/manifest@1 format: what a batch wrote, for whom, and every sheet's problem and key."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Optional, Sequence

from generator import __version__
from generator.core.answers import AnswersError
from generator.core.errors import AttnsheetError
from generator.core.formats import dumps, problem_from_json, problem_to_json, solution_to_json
from generator.core.registry import metrics, part
from generator.core.problem import Exercise as Problem
from generator.core.student import STUDENT_KEYS, Sheet, Student, student_of
from generator.core.usertext import clean_text
from generator.sheet.model import Settings

MANIFEST_FORMAT = "attnsheet/manifest@1"


@dataclass(frozen=True)
class Origin:
    """How a batch's problems came to be: drawn with options, or rebuilt from one code."""

    options: Optional[Any] = None
    """The draw's options, any kind's (`generate`)."""
    code: Optional[str] = None
    """The code the one sheet was rebuilt from (`key`)."""
    roster: Optional[str] = None
    """The roster file the students came from, if any."""
    problem_file: Optional[str] = None
    """The file of a teacher's own problems the sheets were printed from (`--problem`)."""


def manifest_chunks(
    origin: Origin,
    settings: Settings,
    split: bool,
    fmt: str,
    seed: Optional[int],
    sheets: Sequence[Sheet],
    places: Sequence[dict],
) -> Iterator[bytes]:
    """The manifest@1 of a batch as UTF-8 JSON (in `dumps`'s layout), a sheet at a time: a big
    batch's manifest is written as it is made, never held whole. Everything needed to grade
    without opening a PDF, and to rebuild any sheet."""
    head = dumps({**_head(origin, settings, split, fmt, seed, len(sheets)), "sheets": []})
    if not sheets:
        yield (head + "\n").encode("utf-8")
        return
    yield (head[: -len("[]\n}")] + "[\n").encode("utf-8")  # the head up to the sheets' list, opened
    for k, (sheet, place) in enumerate(zip(sheets, places)):
        yield ("    " + dumps(_sheet(sheet, place), 2, 2) + (",\n" if k + 1 < len(sheets) else "\n")).encode("utf-8")
    yield "  ]\n}\n".encode("utf-8")


def _head(origin: Origin, settings: Settings, split: bool, fmt: str, seed: Optional[int], count: int) -> dict:
    shown = {"paper": settings.paper, "lang": settings.lang, "format": fmt, "worked": settings.worked}
    if origin.code is not None:
        options = {
            "code": origin.code,
            **({"problem_file": origin.problem_file} if origin.problem_file else {}),
            **shown,
        }
    elif origin.problem_file is not None:
        options = {
            "problem_file": origin.problem_file,
            "count": count,
            "roster": origin.roster,
            "title": settings.title,
            "split": split,
            **shown,
        }
    else:
        drawn = part(origin.options.kind, "draw").manifest(origin.options) if origin.options is not None else {}
        options = {**drawn, "count": count, "roster": origin.roster, "title": settings.title, "split": split, **shown}
    return {
        "format": MANIFEST_FORMAT,
        "tool": {"name": "attnsheet", "version": __version__},
        "options": options,
        "seed": seed,
        "settings": {k: v for k, v in asdict(settings).items() if k not in ("timestamp", "blank")},
        **({"created": settings.timestamp} if settings.timestamp else {}),
    }


def _sheet(sheet: Sheet, place: dict) -> dict:
    return {
        "index": sheet.index,
        "code": sheet.problem.code,
        "student": sheet.student.record(),
        **place,
        "metrics": metrics(sheet.problem, sheet.solution),
        "problem": problem_to_json(sheet.problem),
        "solution": solution_to_json(sheet.solution),
    }


def code_key(code: str) -> str:
    """A code as typed, in one spelling: case and hyphens do not matter."""
    return "".join(code.split()).replace("-", "").upper()


@dataclass(frozen=True)
class Listed:
    """One sheet of a manifest: enough to grade it."""

    code: str
    """Its code, as printed."""
    problem: Problem
    """Its problem."""
    student: Student
    """Who it was printed for."""


def read_manifest(text: str, label: str) -> dict[str, Listed]:
    """The sheets of a manifest@1 file, by code key."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise AnswersError(f"{label}: not valid JSON") from None
    if not isinstance(value, dict) or value.get("format") != MANIFEST_FORMAT:
        raise AnswersError(f"{label}: not an attnsheet manifest (expected format {MANIFEST_FORMAT!r})")
    sheets = value.get("sheets")
    if not isinstance(sheets, list):
        raise AnswersError(f"{label}: no list of sheets")
    listed: dict[str, Listed] = {}
    for i, sheet in enumerate(sheets):
        where = f"{label}: sheets[{i}]"
        if not isinstance(sheet, dict) or not isinstance(sheet.get("code"), str):
            raise AnswersError(f"{where}: expected an object with a code")
        try:
            problem = problem_from_json(sheet.get("problem"))
        except AttnsheetError as error:
            raise AnswersError(f"{where}.problem: {error}") from None
        student = sheet.get("student") or {}
        if not isinstance(student, dict):
            raise AnswersError(f"{where}.student: expected an object")
        key = code_key(sheet["code"])
        if key in listed:
            first = next(i for i, s in enumerate(sheets) if isinstance(s, dict) and code_key(str(s.get("code"))) == key)
            raise AnswersError(
                f"{where}: the same code as sheets[{first}] ({clean_text(sheet['code'], 40)}); "
                "a manifest lists each sheet once"
            )
        listed[key] = Listed(
            sheet["code"],
            problem,
            student_of({k: clean_text(str(student.get(k, ""))) for k in STUDENT_KEYS}),
        )
    return listed


def check_codes(listed: dict[str, Listed], label: str, secret=None) -> None:
    """Fail unless every sheet's problem is the one its code names: a drawn code's problem drawn
    again, a teacher's own problem's numbers checked against its code, a private code's drawn
    again with the teacher's `secret` (a draw/private.Secret; without it a private sheet's
    numbers cannot be checked, and the manifest's are taken). A manifest edited by hand or with
    its sheets swapped is refused, naming the first sheet that does not match."""
    from generator.core.problem import same_numbers
    from generator.draw.codes import CodeError  # the drawing (and numpy) load only to check
    from generator.draw.private import read_private
    from generator.draw.search import draw_keys
    from generator.draw.sheetcodes import content_key, decode_code, read_own_code

    drawn: dict = {}  # options -> [(seed, index), listed]: one draw per batch of options
    for sheet in listed.values():
        try:
            private = read_private(sheet.code)
            if private is not None:
                if secret is None:
                    continue
                if secret.check(private.inner.seed) != private.check:
                    raise AnswersError(f"{label}: sheet {private.code} was not made with this secret file")
                key = (secret.seed(private.inner.seed), private.inner.index)
                drawn.setdefault(private.inner.options, []).append((key, sheet))
                continue
            own = read_own_code(sheet.code)
            if own is not None:
                if content_key(sheet.problem) != own.key:
                    raise AnswersError(
                        f"{label}: sheet {sheet.code}: its problem is not the one its code was "
                        "printed for (was the manifest edited?)"
                    )
                continue
            decoded = decode_code(sheet.code)
        except CodeError as error:
            raise AnswersError(f"{label}: sheet {clean_text(sheet.code, 40)}: {error}") from None
        drawn.setdefault(decoded.options, []).append(((decoded.seed, decoded.index), sheet))
    for options, items in drawn.items():
        try:
            problems = draw_keys(options, [k for k, _ in items])
        except AttnsheetError as error:
            raise AnswersError(f"{label}: sheet {items[0][1].code}: {error}") from None
        for problem, (_, sheet) in zip(problems, items):
            if not same_numbers(problem, sheet.problem):
                raise AnswersError(
                    f"{label}: sheet {sheet.code}: its problem is not the one its code draws "
                    "(sheets swapped, or the manifest edited?); regenerate it, or grade without "
                    "--manifest to use the codes alone"
                )


def manifest_settings(text: str, label: str) -> dict:
    """A manifest's sheet settings (paper, language, title): what its graded sheets and report
    print like, unless told otherwise. Only values a sheet accepts are kept."""
    from generator.sheet.i18n import languages
    from generator.sheet.model import PAPERS

    try:
        value = json.loads(text).get("settings") or {}
    except (ValueError, RecursionError, AttributeError):
        raise AnswersError(f"{label}: not valid JSON") from None
    out = {}
    if value.get("paper") in PAPERS:
        out["paper"] = value["paper"]
    if value.get("lang") in languages():
        out["lang"] = value["lang"]
    if isinstance(value.get("title"), str):
        out["title"] = clean_text(value["title"], 120)
    if isinstance(value.get("decimal_comma"), bool):
        out["decimal_comma"] = value["decimal_comma"]
    return out
