"""Practice and the projector, as use-cases: a fresh sheet drawn, a public code's sheet rebuilt, what is typed graded and explained, a sheet walked cell by cell."""

from __future__ import annotations

import json

from generator.core.answers import parse_answers_json
from generator.core.errors import AttnsheetError
from generator.core.grades import grade_to_json
from generator.core.registry import default_kind, kinds, grade, solve
from generator.core.student import Student
from generator.draw.choose import kind_options
from generator.draw.rebuild import rebuild
from generator.draw.search import draw, fresh_seed
from generator.draw.settings import PRESET_NAMES
from generator.sheet.entry import form
from generator.sheet.explain import explanations
from generator.sheet.present import frames, frames_json


def practice_code(kind: str = default_kind(), preset: str = "medium") -> str:
    """The code of a fresh sheet to practise on (drawn now: the code opens it again, and can be shared)."""
    if preset not in PRESET_NAMES or kind not in kinds():
        raise AttnsheetError(f"--preset: one of {', '.join(PRESET_NAMES)}; --kind: one of {', '.join(kinds())}")
    return draw(kind_options(kind, preset=preset), fresh_seed())[0].code


def public_problem(code: str):
    """The problem of a public code, drawn again (a private or own code: an AttnsheetError)."""
    return rebuild(code)


def practised(problem, written: dict, lang: str = "en") -> dict:
    """What is typed on a practice sheet graded (grade@1), and how each cell is computed ("explain")."""
    value = {**written, "format": "attnsheet/answers@1", "code": problem.code}
    (pending,) = parse_answers_json(json.dumps(value), "answers")
    result = grade(problem, pending.answers(problem, Student(), problem.code))
    return {**grade_to_json(result), "explain": explanations(problem, result, lang)}


def sheet_form(problem, lang: str = "en"):
    """A sheet as a screen form (long for a big shape)."""
    return form(problem, solve(problem), lang)


def walk(problem, lang: str = "en") -> tuple[list, object]:
    """The projector's frames of a sheet (as its page reads them) and its form."""
    solution = solve(problem)
    return frames_json(frames(problem, solution, lang)), form(problem, solution, lang)
