"""The attnsheet/answers@1 format, written cells, and the long answers CSV."""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

from generator.core.errors import AttnsheetError
from generator.core.formats import problem_from_json, problem_to_json
from generator.core.grade import (
    BLANK,
    FINAL_STEPS,
    HEAD_STEPS,
    Answers,
    Entry,
    Grid,
    grid_shapes,
)
from generator.core.numbers import normalize
from generator.core.problem import Problem
from generator.core.student import Student
from generator.core.usertext import clean_text

ANSWERS_FORMAT = "attnsheet/answers@1"
CSV_COLUMNS = ("code", "head", "step", "row", "col", "value")
"""The long CSV's required columns; `name`, `id` and `group` may follow."""

MAX_DIGITS = 400
"""Longest run of digits read in one number (3^600, the largest power a sheet holds, has 287):
a longer one is unreadable, not arithmetic to do."""

_KEYS = ("format", "code", "problem", "student", "heads", "Z", "output")
_STUDENT_KEYS = ("name", "id", "group")


class AnswersError(AttnsheetError):
    """Answers that cannot be matched to their sheet: bad JSON, a wrong shape, an unknown step."""


# --- one written cell -------------------------------------------------------------------------

_INT = re.compile(rf"[+-]?\d{{1,{MAX_DIGITS}}}")
_FRACTION = re.compile(rf"([+-]?\d{{1,{MAX_DIGITS}}})/([+-]?\d{{1,{MAX_DIGITS}}})")
_DECIMAL = re.compile(rf"([+-]?)(\d{{0,{MAX_DIGITS}}})[.,](\d{{1,{MAX_DIGITS}}})")
_SLASH = re.compile(r"\s*/\s*")
_SEPARATORS = ("=", "≈", "~")  # "3/8 = 0.38" reads as "3/8 0.38"


def _exact(token: str) -> Optional[Fraction]:
    if _INT.fullmatch(token):
        return Fraction(int(token))
    m = _FRACTION.fullmatch(token)
    if m and int(m.group(2)) != 0:
        return Fraction(int(m.group(1)), int(m.group(2)))
    return None


def _decimal(token: str) -> Optional[tuple[Fraction, int]]:
    m = _DECIMAL.fullmatch(token)
    if not m:
        return None
    sign, whole, places = m.groups()
    value = Fraction(int(whole or "0") * 10 ** len(places) + int(places), 10 ** len(places))
    return (-value if sign == "-" else value), len(places)


@functools.lru_cache(maxsize=4096)  # a class writes the same few dozen strings over and over
def read_cell_text(text: str) -> Entry:
    """A cell as written: an integer, a fraction p/q, a decimal (0.38, .38, 0,38), or a fraction
    and a decimal; a true minus (U+2212) is a minus. Anything else is unreadable."""
    raw = text.strip()
    if not raw:
        return BLANK
    tokens = [tok for tok in _SLASH.sub("/", raw.replace("\u2212", "-")).split() if tok not in _SEPARATORS]
    exact, decimal = None, None
    for token in tokens:
        as_exact = _exact(token)
        if as_exact is not None and exact is None and decimal is None:
            exact = normalize(as_exact)
            continue
        as_decimal = _decimal(token)
        if as_decimal is not None and decimal is None:
            decimal = as_decimal
            continue
        return Entry("unreadable", raw=raw[:40])
    if exact is None and decimal is None:
        return Entry("unreadable", raw=raw[:40])
    return Entry("value", exact=exact, decimal=decimal, raw=raw[:40])


@functools.lru_cache(maxsize=2048)
def _small_int(value: int) -> Entry:
    return Entry("value", exact=value, raw=str(value))


def read_cell(value: Any) -> Entry:
    """A cell of answers@1: null or "" (blank), a JSON integer, or a string (see read_cell_text)."""
    if value is None:
        return BLANK
    if isinstance(value, bool):
        return Entry("unreadable", raw=str(value).lower())
    if isinstance(value, int):
        if -1000 < value < 1000:
            return _small_int(value)
        if abs(value) >= 10**MAX_DIGITS:
            return Entry("unreadable", raw=str(value)[:40])
        return Entry("value", exact=value, raw=str(value))
    if isinstance(value, float):
        # A spreadsheet may export a decimal as a JSON number: read it as the decimal it prints.
        return read_cell_text(repr(value)) if value == value and abs(value) < 1e15 else Entry("unreadable")
    if isinstance(value, str):
        return read_cell_text(value)
    return Entry("unreadable", raw="(not a value)")


# --- answers@1 --------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return "a single value"


def _grid(value: Any, where: str, shape: tuple[int, int], flat: bool) -> Grid:
    """A written grid of the expected shape (a flat list for sums); null is a blank grid."""
    rows, cols = shape
    if value is None:
        return tuple(tuple(BLANK for _ in range(cols)) for _ in range(rows))
    if flat:
        if not isinstance(value, list) or len(value) != cols or any(isinstance(x, (list, dict)) for x in value):
            raise AnswersError(f"{where}: expected a list of {cols} values, got {_kind(value)}")
        return (tuple(read_cell(x) for x in value),)
    ok = (isinstance(value, list) and len(value) == rows
          and all(isinstance(r, list) and len(r) == cols for r in value))
    if not ok:
        got = (f"{len(value)}×{len(value[0])}" if isinstance(value, list) and value and isinstance(value[0], list)
               else _kind(value))
        raise AnswersError(f"{where}: expected {rows}×{cols} (rows × columns), got {got}")
    if any(isinstance(x, (list, dict)) for r in value for x in r):
        raise AnswersError(f"{where}: expected values in the cells, got a list or an object")
    return tuple(tuple(read_cell(x) for x in r) for r in value)


def student_from_json(value: Any, where: str = "student") -> Student:
    """A student object ({name, id, group}, each optional), cleaned as roster text is."""
    if value is None:
        return Student()
    if not isinstance(value, dict) or any(k not in _STUDENT_KEYS for k in value):
        raise AnswersError(f"{where}: expected an object with name, id and group")
    fields = {}
    for key in _STUDENT_KEYS:
        text = value.get(key, "")
        if not isinstance(text, str):
            raise AnswersError(f"{where}.{key}: expected a string")
        fields[key] = clean_text(text)
    return Student(**fields)


@dataclass(frozen=True)
class Pending:
    """Answers read from a file, waiting for their sheet's problem to check their shapes."""

    where: str
    """Where they came from, for messages: a file and a position."""
    code: Optional[str]
    """The sheet's code, as written."""
    problem: Optional[Problem] = None
    """The problem itself, when the answers carry it."""
    student: Student = Student()
    """Who wrote them, when the file says."""
    json: Optional[dict] = None
    """An answers@1 object, or None for cells from a CSV."""
    cells: dict = field(default_factory=dict)
    """CSV cells: (head or None, step, row, col) -> (value, line)."""

    def answers(self, problem: Problem, student: Student, code: Optional[str]) -> Answers:
        """The answers, checked against the sheet's shapes."""
        if self.json is not None:
            return _answers_from_json(self.json, problem, student, code, self.where)
        return _answers_from_cells(self.cells, problem, student, code, self.where)


def pending_from_json(value: Any, where: str) -> Pending:
    """One answers@1 object, its cells not yet checked against the sheet."""
    if not isinstance(value, dict):
        raise AnswersError(f"{where}: expected an answers@1 object, got {_kind(value)}")
    unknown = [k for k in value if k not in _KEYS]
    if unknown:
        raise AnswersError(f"{where}: unknown key {unknown[0][:60]!r} (allowed: {', '.join(_KEYS)})")
    if value.get("format") != ANSWERS_FORMAT:
        raise AnswersError(f"{where}.format: expected {ANSWERS_FORMAT!r}")
    code = value.get("code")
    if code is not None and not isinstance(code, str):
        raise AnswersError(f"{where}.code: expected a string")
    problem = None
    if value.get("problem") is not None:
        try:
            problem = problem_from_json(value["problem"])
        except AttnsheetError as error:
            raise AnswersError(f"{where}.problem: {error}") from None
    if code is None and problem is None:
        raise AnswersError(f"{where}: expected a 'code' or a 'problem' to say which sheet it is")
    return Pending(where, code, problem, student_from_json(value.get("student"), f"{where}.student"), json=value)


def _answers_from_json(value: dict, problem: Problem, student: Student, code: Optional[str], where: str) -> Answers:
    shapes, final_shapes = grid_shapes(problem)
    heads_value = value.get("heads") or []
    if not isinstance(heads_value, list):
        raise AnswersError(f"{where}.heads: expected a list of heads")
    if len(heads_value) > len(problem.heads):
        raise AnswersError(f"{where}.heads: the sheet has {len(problem.heads)} head(s), got {len(heads_value)}")
    heads = []
    for h, head in enumerate(heads_value):
        if head is None:
            heads.append({})
            continue
        if not isinstance(head, dict):
            raise AnswersError(f"{where}.heads[{h}]: expected an object of grids")
        unknown = [k for k in head if k not in HEAD_STEPS]
        if unknown:
            raise AnswersError(f"{where}.heads[{h}]: unknown step {unknown[0][:60]!r} "
                               f"(steps: {', '.join(HEAD_STEPS)})")
        heads.append({name: _grid(head.get(name), f"{where}.heads[{h}].{name}", shapes[name], name == "sums")
                      for name in HEAD_STEPS if head.get(name) is not None})
    final = {}
    for name in FINAL_STEPS:
        if value.get(name) is None:
            continue
        if name not in final_shapes:
            raise AnswersError(f"{where}.{name}: this sheet has no {'concatenation' if name == 'Z' else 'W_O'}")
        final[name] = _grid(value[name], f"{where}.{name}", final_shapes[name], False)
    return Answers(heads=tuple(heads), final=final, code=code, student=student)


def skeleton(problem: Problem, code: Optional[str], student: Student = Student()) -> dict:
    """The empty answers@1 object for a sheet: every grid in its shape, every cell null."""
    shapes, final_shapes = grid_shapes(problem)

    def empty(name: str, shape: tuple[int, int]) -> list:
        return [None] * shape[1] if name == "sums" else [[None] * shape[1] for _ in range(shape[0])]

    out: dict[str, Any] = {"format": ANSWERS_FORMAT}
    if code:
        out["code"] = code
    else:
        out["problem"] = problem_to_json(problem)
    out["student"] = {"name": student.name, "id": student.id, "group": student.group}
    out["heads"] = [{name: empty(name, shapes[name]) for name in HEAD_STEPS} for _ in problem.heads]
    for name, shape in final_shapes.items():
        out[name] = empty(name, shape)
    return out


def parse_answers_json(text: str, label: str) -> list[Pending]:
    """Answers from JSON text: one answers@1 object or a list of them."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise AnswersError(f"{label}: not valid JSON ({str(error).splitlines()[0][:80]})") from None
    if isinstance(value, list):
        if not value:
            raise AnswersError(f"{label}: an empty list; expected answers@1 objects")
        return [pending_from_json(item, f"{label}[{i}]") for i, item in enumerate(value)]
    return [pending_from_json(value, label)]


# --- the long CSV -----------------------------------------------------------------------------


def parse_answers_csv(text: str, label: str) -> list[Pending]:
    """Answers from a long CSV: `code,head,step,row,col,value`, one row per written cell.

    Rows and columns are 1-based; `head` is blank for the concatenation Z and the output;
    `sums` takes its query in `col` (its `row` is 1 or blank). Optional `name`, `id`, `group`.
    """
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise AnswersError(f"{label}: empty; expected a header row {','.join(CSV_COLUMNS)}")
    header = [clean_text(h).lower() for h in rows[0]]
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise AnswersError(f"{label}: the header row has no {missing[0]!r} column "
                           f"(expected {','.join(CSV_COLUMNS)})")
    at = {name: header.index(name) for name in CSV_COLUMNS + _STUDENT_KEYS if name in header}
    sheets: dict[str, Pending] = {}
    for line, row in enumerate(rows[1:], start=2):
        def cell(name: str) -> str:
            i = at.get(name)
            return row[i].strip() if i is not None and i < len(row) else ""

        code = cell("code")
        if not code:
            raise AnswersError(f"{label}: line {line} has no code")
        head_text, step = cell("head"), cell("step")
        head = _positive(head_text, label, line, "head") if head_text else None
        allowed = HEAD_STEPS if head is not None else FINAL_STEPS
        if step not in allowed:
            scope = "a head" if head is not None else "a blank head (the concatenation and output)"
            raise AnswersError(f"{label}: line {line}: unknown step {step[:40]!r} for {scope} "
                               f"(steps: {', '.join(allowed)})")
        r_text, c_text = cell("row"), cell("col")
        r = _positive(r_text, label, line, "row") if r_text or step != "sums" else 1
        c = _positive(c_text, label, line, "col")
        key = code.upper().replace("-", "")
        pending = sheets.get(key)
        student = Student(**{k: clean_text(cell(k)) for k in _STUDENT_KEYS})
        if pending is None:
            pending = sheets[key] = Pending(f"{label} (code {code[:20]})", code, student=student)
        where = (head, step, r, c)
        if where in pending.cells:
            raise AnswersError(f"{label}: line {line} writes the same cell as line {pending.cells[where][1]}")
        pending.cells[where] = (cell("value"), line)
    return list(sheets.values())


def _positive(text: str, label: str, line: int, column: str) -> int:
    if not text.isdigit() or int(text) < 1 or len(text) > 6:
        raise AnswersError(f"{label}: line {line}: {column} must be a whole number from 1, got {text[:20]!r}")
    return int(text)


def _answers_from_cells(cells: dict, problem: Problem, student: Student, code: Optional[str],
                        where: str) -> Answers:
    shapes, final_shapes = grid_shapes(problem)
    grids: dict[tuple[Optional[int], str], list[list[Entry]]] = {}
    for (head, step, r, c), (value, line) in cells.items():
        if head is not None and head > len(problem.heads):
            raise AnswersError(f"{where}: line {line}: head {head}, but the sheet has {len(problem.heads)}")
        if head is None and step not in final_shapes:
            raise AnswersError(f"{where}: line {line}: this sheet has no {step} after the heads")
        rows, cols = (shapes if head is not None else final_shapes)[step]
        if step == "sums" and r != 1 and c == 1:
            r, c = 1, r  # a column of sums, as the row convention prints them
        if not (1 <= r <= rows and 1 <= c <= cols):
            raise AnswersError(f"{where}: line {line}: row {r}, col {c} is outside {step} ({rows}×{cols})")
        grid = grids.setdefault((head, step), [[BLANK] * cols for _ in range(rows)])
        grid[r - 1][c - 1] = read_cell_text(value)
    heads = [{} for _ in problem.heads]
    final = {}
    for (head, step), grid in grids.items():
        frozen = tuple(map(tuple, grid))
        if head is None:
            final[step] = frozen
        else:
            heads[head - 1][step] = frozen
    return Answers(heads=tuple(heads), final=final, code=code, student=student)


def parse_answers(text: str, label: str) -> list[Pending]:
    """Answers from a file: JSON (one object or a list) or a long CSV."""
    start = text.lstrip()[:1]
    if start in ("{", "["):
        return parse_answers_json(text, label)
    return parse_answers_csv(text, label)
