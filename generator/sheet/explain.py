"""How each cell of a sheet is computed, in words, with the value the student's own cells give."""

from __future__ import annotations

from generator.core.engine import hand_divisor
from generator.core.grade import Grade, StepGrade
from generator.core.grades import cells_json
from generator.core.kinds import step_inputs
from generator.core.numbers import sheet_value
from generator.core.problem import Exercise as Problem
from generator.sheet.i18n import translations


def _formula(problem: Problem, step: str, i: int, j: int, _) -> str:
    """The rule of one cell, with its indices (1-based), in the sheet's layout."""
    row = problem.convention == "row"
    # In the column layout a cell (i, j) is feature or key i of token or query j; transposed in rows.
    a, b = (j + 1, i + 1) if row else (i + 1, j + 1)
    words = {
        "Q": _("row %(a)s of W_Q · x%(b)s") if not row else _("x%(b)s · column %(a)s of W_Q"),
        "K": _("row %(a)s of W_K · x%(b)s") if not row else _("x%(b)s · column %(a)s of W_K"),
        "V": _("row %(a)s of W_V · x%(b)s") if not row else _("x%(b)s · column %(a)s of W_V"),
        "Q_copy": _("the same cell of Q"),
        "K_T": _("K's cell with row and column swapped"),
        "V_copy": _("the same cell of V"),
        "scores": _("k%(a)s · q%(b)s: the row of Kᵀ times the column of Q") if not row
        else _("q%(a)s · k%(b)s: the row of Q times the column of Kᵀ"),
        "scaled": (_("floor(score / %(d)s)") % {"d": hand_divisor(problem.d_k), "a": a, "b": b}
                   if problem.rules.scale == "floor" else _("the score, scaled")),
        "powers": _("3 to the power of the scaled score") if problem.rules.softmax == "base3"
        else _("e to the power of the scaled score"),
        "sums": _("the sum of the powers of q%(a)s") % {"a": max(i, j) + 1, "b": b},
        "A": _("the power ÷ its query's sum Σ"),
        "Z": _("row %(a)s of V · the column of A of q%(b)s") if not row else _("q%(a)s's row of A · column %(b)s of V"),
        "output": _("row %(a)s of W_O · column %(b)s of Z_concat") if not row
        else _("row %(a)s of Z_concat · column %(b)s of W_O"),
    }
    text = words.get(step, step)
    return text % {"a": a, "b": b} if "%(" in text else text


def _layer_formula(problem, step: str, i: int, j: int, _) -> str:
    """The rule of one cell of an FFN's or a block's layers (outside the heads), 1-based indices."""
    row = problem.convention == "row"
    a, b = (j + 1, i + 1) if row else (i + 1, j + 1)  # (unit or feature, token), whatever the layout
    source = "R" if problem.kind == "transformer" else "X"
    given = problem.kind == "transformer" and problem.attention == "given"
    words = {
        "Z": (_("row %(a)s of X · column %(b)s of A") if not row else _("row %(b)s of A · column %(a)s of X"))
        if given else _("the heads' Z, stacked"),
        "output": _("row %(a)s of W_O · column %(b)s of Z_concat") if not row
        else _("row %(a)s of Z_concat · column %(b)s of W_O"),
        "R": _("X + the attention's output, cell by cell"),
        "H_pre": (_("row %(a)s of [W1 | b1] · column %(b)s of [%(s)s ; 1]") if not row
                  else _("row %(b)s of [%(s)s | 1] · column %(a)s of [W1 ; b1]")),
        "H": _("ReLU of H_pre's cell: 0 if it is negative, else the same"),
        "Y": (_("row %(a)s of [W2 | b2] · column %(b)s of [H ; 1]") if not row
              else _("row %(b)s of [H | 1] · column %(a)s of [W2 ; b2]")),
        "out": _("%(s)s + Y, cell by cell"),
    }
    return words.get(step, step) % {"a": a, "b": b, "s": source}


def _cell(problem: Problem, s: StepGrade, i: int, j: int, _, ready: bool) -> str:
    verdict = s.verdicts[i][j]
    if verdict == "masked":
        return _("struck out by the causal mask: nothing to write")
    carried, expected = s.carried[i][j], s.expected[i][j]
    layered = problem.kind != "attention" and s.head is None
    text = _layer_formula(problem, s.step, i, j, _) if layered else _formula(problem, s.step, i, j, _)
    if not ready:  # its value is the student's to find: said only once what it is made from is written
        return text + "; " + _("fill in the boxes it is made from first")
    if verdict == "blank":  # and once they have tried it themselves
        return text
    if carried is not None and carried != expected:
        return text + "; " + _("from your own cells: %(v)s") % {"v": sheet_value(carried)}
    return text + "; " + _("from your own cells: %(v)s (right so far)") % {"v": sheet_value(expected)}


def explanations(problem: Problem, grade: Grade, lang: str = "en") -> dict:
    """Every cell's rule and, once the student has written it and every box of the grids it is
    made from, the value their own cells give it, shaped as the cells of grade@1 (heads, then Z
    and output). A value is never stated before: that would be the answer, given away."""
    _ = translations(lang).gettext
    # A block's heads are its attention problem's: their rules (scaling, powers) are its.
    heads = problem.attention_problem() if problem.kind == "transformer" and problem.heads else problem
    written = {(s.head, s.step): all(v != "blank" for row in s.verdicts for v in row) for s in grade.steps}
    inputs = step_inputs(problem)
    # A given (X, the weights) is on the sheet: it counts as written.
    ready = {key: all(written.get(k, k not in inputs) for k in needs) for key, needs in inputs.items()}
    return cells_json(grade, lambda s, i, j: _cell(problem if s.head is None else heads, s, i, j, _,
                                                   ready.get((s.head, s.step), False)))
