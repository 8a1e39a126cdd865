"""The attnsheet/answers@1 format, written cells, and the long answers CSV."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from generator.core.cells import read_cell, read_cell_text
from generator.core.errors import AttnsheetError
from generator.core.formats import problem_from_json, problem_to_json
from generator.core.grade import BLANK, Answers, Entry, Grid
from generator.core.registry import final_steps as every_final_step
from generator.core.registry import flat_steps, grid_shapes, heads_of, step_names
from generator.core.registry import head_steps as every_head_step
from generator.core.problem import Exercise as Problem
from generator.core.student import Student
from generator.core.table import Row, Table, TableError, header_line, read_table
from generator.core.usertext import clean_text

ANSWERS_FORMAT = "attnsheet/answers@1"
CSV_COLUMNS = ("code", "head", "step", "row", "col", "value")
"""The long CSV's required columns; `name`, `id` and `group` may follow."""


def _keys() -> tuple[str, ...]:
    """answers@1's keys: its own, and every registered kind's grids outside the heads."""
    return ("format", "code", "problem", "student", "heads", *every_final_step())


_STUDENT_KEYS = ("name", "id", "group")


class AnswersError(AttnsheetError):
    """Answers that cannot be matched to their sheet: bad JSON, a wrong shape, an unknown step."""


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
    """A written grid of the expected shape (a flat list for a flat grid); null is a blank grid."""
    rows, cols = shape
    if value is None:
        return tuple(tuple(BLANK for _ in range(cols)) for _ in range(rows))
    if flat:
        if not isinstance(value, list) or len(value) != cols or any(isinstance(x, (list, dict)) for x in value):
            raise AnswersError(f"{where}: expected a list of {cols} values, got {_kind(value)}")
        return (tuple(read_cell(x) for x in value),)
    ok = isinstance(value, list) and len(value) == rows and all(isinstance(r, list) and len(r) == cols for r in value)
    if not ok:
        got = (
            f"{len(value)}×{len(value[0])}"
            if isinstance(value, list) and value and isinstance(value[0], list)
            else _kind(value)
        )
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
    unknown = [k for k in value if k not in _keys()]
    if unknown:
        raise AnswersError(f"{where}: unknown key {unknown[0][:60]!r} (allowed: {', '.join(_keys())})")
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
    head_steps, final_steps = step_names(problem)
    heads_value = value.get("heads") or []
    if not isinstance(heads_value, list):
        raise AnswersError(f"{where}.heads: expected a list of heads")
    if len(heads_value) > heads_of(problem):
        raise AnswersError(f"{where}.heads: the sheet has {heads_of(problem)} head(s), got {len(heads_value)}")
    heads = []
    for h, head in enumerate(heads_value):
        if head is None:
            heads.append({})
            continue
        if not isinstance(head, dict):
            raise AnswersError(f"{where}.heads[{h}]: expected an object of grids")
        unknown = [k for k in head if k not in head_steps]
        if unknown:
            raise AnswersError(f"{where}.heads[{h}]: unknown step {unknown[0][:60]!r} (steps: {', '.join(head_steps)})")
        heads.append(
            {
                name: _grid(head.get(name), f"{where}.heads[{h}].{name}", shapes[name], name in flat_steps())
                for name in head_steps
                if head.get(name) is not None
            }
        )
    final = {}
    for name in every_final_step():
        if value.get(name) is None:
            continue
        if name not in final_shapes:
            raise AnswersError(
                f"{where}.{name}: this sheet has no {name} "
                f"(its grids after the heads: {', '.join(final_shapes) or 'none'})"
            )
        final[name] = _grid(value[name], f"{where}.{name}", final_shapes[name], False)
    return Answers(heads=tuple(heads), final=final, code=code, student=student)


def skeleton(problem: Problem, code: Optional[str], student: Student = Student()) -> dict:
    """The empty answers@1 object for a sheet: every grid in its shape, every cell null."""
    shapes, final_shapes = grid_shapes(problem)

    def empty(name: str, shape: tuple[int, int]) -> list:
        return [None] * shape[1] if name in flat_steps() else [[None] * shape[1] for _ in range(shape[0])]

    out: dict[str, Any] = {"format": ANSWERS_FORMAT}
    if code:
        out["code"] = code
    else:
        out["problem"] = problem_to_json(problem)
    out["student"] = {"name": student.name, "id": student.id, "group": student.group}
    if heads_of(problem):
        out["heads"] = [
            {name: empty(name, shapes[name]) for name in step_names(problem)[0]} for _ in range(heads_of(problem))
        ]
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
    Separated by commas, semicolons or tabs (found from the header); any problem a spreadsheet's
    export can have (a stray quote, a decimal comma splitting a row, a thousands separator, a
    digit that is not 0-9) is refused with its line, never read as something else.
    """
    try:
        table = read_table(text, CSV_COLUMNS)
    except TableError as error:
        raise AnswersError(f"{label}: {error}") from None
    if table is None:
        header = [h.lower() for h in re.split(r"[,;\t]", header_line(text))]
        missing = [c for c in CSV_COLUMNS if c not in header][:1] or ["code"]
        raise AnswersError(
            f"{label}: the header row has no {missing[0]!r} column "
            f"(expected {','.join(CSV_COLUMNS)}, separated by commas, semicolons or tabs)"
        )
    if not table.header:
        raise AnswersError(f"{label}: empty; expected a header row {','.join(CSV_COLUMNS)}")
    at = {name: table.column(name) for name in CSV_COLUMNS + _STUDENT_KEYS if name in table.header}
    problems = dict(table.problems)
    sheets: dict[str, Pending] = {}
    for row in table.rows:
        line = row.line
        if line in problems:
            raise AnswersError(f"{label}: line {line}: {_problem(problems[line], row, table, at)}")

        def cell(name: str) -> str:
            i = at.get(name)
            return row.fields[i].strip() if i is not None and i < len(row.fields) else ""

        code = cell("code")
        if not code:
            raise AnswersError(f"{label}: line {line} has no code")
        head_text, step = cell("head"), cell("step")
        head = _positive(head_text, label, line, "head") if head_text else None
        allowed = every_head_step() if head is not None else every_final_step()
        if step not in allowed:
            scope = "a head" if head is not None else "a blank head (the concatenation and output)"
            raise AnswersError(
                f"{label}: line {line}: unknown step {clean_text(step, 40)!r} for {scope} (steps: {', '.join(allowed)})"
            )
        r_text, c_text = cell("row"), cell("col")
        r = _positive(r_text, label, line, "row") if r_text or step not in flat_steps() else 1
        c = _positive(c_text, label, line, "col")
        value = cell("value")
        if _THOUSANDS.fullmatch(value.replace("\u2212", "-")):
            raise AnswersError(
                f"{label}: line {line}: {clean_text(value, 40)!r} reads as a number with a thousands "
                "separator or as a decimal: write a whole number without separators (1000), "
                "or a decimal with a point (1.000)"
            )
        key = code.upper().replace("-", "")
        pending = sheets.get(key)
        student = Student(**{k: clean_text(cell(k)) for k in _STUDENT_KEYS})
        if pending is None:
            pending = sheets[key] = Pending(f"{label} (code {clean_text(code, 20)})", code, student=student)
        where = (head, step, r, c)
        if where in pending.cells:
            raise AnswersError(f"{label}: line {line} writes the same cell as line {pending.cells[where][1]}")
        pending.cells[where] = (value, line)
    if not sheets:
        raise AnswersError(f"{label}: a header row but no answers (one row per written cell)")
    return list(sheets.values())


_THOUSANDS = re.compile(
    r"[+-]?[1-9]\d{0,2}(,\d{3})+|[+-]?\d{1,3}([.,]\d{3}){2,}(?:[.,]\d+)?|"
    r"[+-]?\d{1,3}(,\d{3})+\.\d+|[+-]?\d{1,3}(\.\d{3})+,\d+"
)
"""A value a spreadsheet may have written with thousands separators (1,000; 1.000.000;
1,000.5; 1.000,5): refused, since read as a decimal it would be a thousand times too small."""


def _problem(what: str, row: Row, table: Table, at: dict) -> str:
    """A line's problem in words, with the likely cause where a spreadsheet has one."""
    if "fields but" not in what:
        return what
    v = at.get("value")
    if (
        table.separator == ","
        and v is not None
        and len(row.fields) == len(table.header) + 1
        and v + 1 < len(row.fields)
    ):
        first, second = clean_text(row.fields[v], 20), clean_text(row.fields[v + 1], 20)
        return (
            f"column {v + 1} (value): {first!r} and {second!r} would be read as two fields: a decimal comma? "
            f'Quote the value ("{first},{second}") or save the file with semicolons as separator'
        )
    return f"{what} (a comma inside a value needs quotes)"


def _positive(text: str, label: str, line: int, column: str) -> int:
    # ASCII digits only: '²' and '①' are digits to str.isdigit() but no number anyone typed.
    if not (text.isascii() and text.isdigit()) or int(text) < 1 or len(text) > 6:
        raise AnswersError(
            f"{label}: line {line}: {column} must be a whole number from 1 in the digits 0-9, "
            f"got {clean_text(text, 20)!r}"
        )
    return int(text)


def _answers_from_cells(cells: dict, problem: Problem, student: Student, code: Optional[str], where: str) -> Answers:
    shapes, final_shapes = grid_shapes(problem)
    grids: dict[tuple[Optional[int], str], list[list[Entry]]] = {}
    for (head, step, r, c), (value, line) in cells.items():
        if head is not None and head > heads_of(problem):
            raise AnswersError(f"{where}: line {line}: head {head}, but the sheet has {heads_of(problem)}")
        if head is None and step not in final_shapes:
            raise AnswersError(f"{where}: line {line}: this sheet has no {step} after the heads")
        rows, cols = (shapes if head is not None else final_shapes)[step]
        if step in flat_steps() and r != 1 and c == 1:
            r, c = 1, r  # a flat grid written as a column, as the row convention prints sums
        if not (1 <= r <= rows and 1 <= c <= cols):
            raise AnswersError(f"{where}: line {line}: row {r}, col {c} is outside {step} ({rows}×{cols})")
        grid = grids.setdefault((head, step), [[BLANK] * cols for _ in range(rows)])
        grid[r - 1][c - 1] = read_cell_text(value)
    heads = [{} for _ in range(heads_of(problem))]
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


def cell_at(answers: dict, head: Optional[int], step: str, row: int, col: int) -> Any:
    """One cell of an answers@1 object (or of grade@1's `cells`, shaped alike), 0-based in the
    sheet's layout; a flat grid is a flat list, `head` None outside the heads."""
    grids = answers if head is None else answers["heads"][head - 1]
    return grids[step][col] if step in flat_steps() else grids[step][row][col]


def put_cell(answers: dict, head: Optional[int], step: str, row: int, col: int, value: Any) -> None:
    """Sets one cell of an answers@1 object, in place (see `cell_at`)."""
    grids = answers if head is None else answers["heads"][head - 1]
    if step in flat_steps():
        grids[step][col] = value
    else:
        grids[step][row][col] = value
