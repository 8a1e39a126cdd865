"""How each cell of a sheet of any kind is computed, in words (from its step's operation, core/ops), with the value the student's own cells give."""

from __future__ import annotations

from generator.core.grade import Grade, StepGrade
from generator.core.grades import cells_json
from generator.core.registry import flat_steps, kind_of
from generator.core.numbers import sheet_value
from generator.sheet.i18n import translations


def _formula(step, symbols: list[str], row: bool, i: int, j: int, _) -> str:
    """The rule of one cell (i, j of the sheet's layout), with its inputs named as the sheet names them."""
    return step.op.operation.formula(step.op, symbols, row, i, j, step.key[1] in flat_steps(), _)


def _cell(step, symbols: list[str], row: bool, s: StepGrade, i: int, j: int, _, ready: bool) -> str:
    verdict = s.verdicts[i][j]
    if verdict == "masked":
        if step.skip is not None and ((j, i) if row else (i, j)) not in step.masked:
            return _(step.skip.words)  # empty by the student's own choice (their route)
        return _("struck out by the causal mask: nothing to write")
    carried, expected = s.carried[i][j], s.expected[i][j]
    text = _formula(step, symbols, row, i, j, _)
    if not ready:  # its value is the student's to find: said only once what it is made from is written
        return text + "; " + _("fill in the boxes it is made from first")
    if verdict == "blank":  # and once they have tried it themselves
        return text
    if carried is not None and carried != expected:
        return text + "; " + _("from your own cells: %(v)s") % {"v": sheet_value(carried)}
    return text + "; " + _("from your own cells: %(v)s (right so far)") % {"v": sheet_value(expected)}


def explanations(problem, grade: Grade, lang: str = "en") -> dict:
    """Every cell's rule and, once the student has written it and every box of the grids it is
    made from, the value their own cells give it, shaped as the cells of grade@1 (heads, then Z
    and output). A value is never stated before: that would be the answer, given away."""
    _ = translations(lang).gettext
    kind = kind_of(problem)
    steps = {s.key: s for s in kind.steps(kind.column_twin(problem))}
    faces = getattr(kind, "FACES", {})
    row = problem.convention == "row"

    def symbol(key) -> str:
        step = steps.get(key)
        face = step.face if step is not None and step.face else faces.get(key[1])
        return face.symbol if face else key[1]

    written = {(s.head, s.step): all(v != "blank" for row_ in s.verdicts for v in row_) for s in grade.steps}
    inputs = {key: step.inputs for key, step in steps.items()}
    # A given (X, the weights) is on the sheet: it counts as written.
    ready = {key: all(written.get(k, k not in inputs) for k in needs) for key, needs in inputs.items()}

    def cell(s: StepGrade, i: int, j: int) -> str:
        step = steps[(s.head, s.step)]
        return _cell(step, [symbol(k) for k in step.inputs], row, s, i, j, _, ready.get((s.head, s.step), False))

    return cells_json(grade, cell)
