"""How each cell of a sheet of any kind is computed, in words (from its step's op), with the value the student's own cells give."""

from __future__ import annotations

from generator.core.faces import (
    ADD,
    AFFINE,
    ARGMAX,
    COPY,
    DIVIDE,
    PICK,
    PRODUCT,
    ROUTED,
    RULE,
    SCALE,
    STACK,
    SUM,
    TRANSPOSE,
    N_,
)
from generator.core.grade import Grade, StepGrade
from generator.core.grades import cells_json
from generator.core.registry import flat_steps, kind_of
from generator.core.numbers import sheet_value
from generator.sheet.i18n import translations


OP_WORDS = {
    # (column convention, row convention): the sheet of the row convention shows every grid transposed.
    PRODUCT: (N_("row %(i)s of %(a)s · column %(j)s of %(b)s"), N_("row %(i)s of %(b)s · column %(j)s of %(a)s")),
    AFFINE: (N_("row %(i)s of [%(a)s | %(c)s] · column %(j)s of [%(b)s ; 1]"),
             N_("row %(i)s of [%(b)s | 1] · column %(j)s of [%(a)s ; %(c)s]")),
    COPY: (N_("the same cell of %(a)s"),) * 2,
    TRANSPOSE: (N_("%(a)s's cell with row and column swapped"),) * 2,
    STACK: (N_("the heads' %(a)s, stacked"),) * 2,
    # A sum's grade is one row, one cell per query, in either convention: j is its query.
    SUM: (N_("the sum of column %(j)s of %(a)s"), N_("the sum of row %(j)s of %(a)s")),
    DIVIDE: (N_("%(a)s's cell ÷ its column's %(b)s"), N_("%(a)s's cell ÷ its row's %(b)s")),
    ADD: (N_("%(a)s + %(b)s, cell by cell"),) * 2,
    SCALE: (N_("%(a)s's cell × its column's %(b)s"), N_("%(a)s's cell × its row's %(b)s")),
    # A choice per token is one row (one column, in the row convention): its place is j (i).
    ARGMAX: (N_("the row of %(a)s's largest cell in column %(j)s (a tie: the upper one)"),
             N_("the column of %(a)s's largest cell in row %(i)s (a tie: the left one)")),
    PICK: (N_("%(b)s's cell in column %(j)s, in the row its %(a)s names"),
           N_("%(b)s's cell in row %(i)s, in the column its %(a)s names")),
    ROUTED: (N_("row %(i)s of %(b)s · column %(j)s of %(c)s, over the block of rows its %(a)s names"),
             N_("row %(i)s of %(c)s · column %(j)s of %(b)s, over the block of columns its %(a)s names")),
}
"""How a cell of each op is made, in words: its inputs by their symbols, its place 1-based on the sheet."""


def _formula(step, symbols: list[str], row: bool, i: int, j: int, _) -> str:
    """The rule of one cell (i, j of the sheet's layout), with its inputs named as the sheet names them."""
    op = step.op
    if op.name == AFFINE and len(symbols) > 3:  # several weights and inputs: [w1 | w2 | b]·[x1 ; x2 ; 1]
        weights, inputs = symbols[:-1:2], symbols[1:-1:2]
        symbols = [(" ; " if row else " | ").join(weights), (" | " if row else " ; ").join(inputs), symbols[-1]]
    names = {"i": i + 1, "j": j + 1, **{k: v for k, v in zip("abc", symbols)}}
    if op.name == SUM and row and step.key[1] not in flat_steps():
        names["j"] = i + 1  # a sum per row, written as a column in the row convention: its place is i
    if op.name == RULE:
        return _(op.words) % {"x": symbols[0], **op.params}
    return _(OP_WORDS[op.name][row]) % names


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
