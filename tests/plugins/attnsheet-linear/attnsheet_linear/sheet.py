"""The linear layer's sheet: Y where [W | b] (at its left) and [X ; 1] (above it) cross; the row convention its transpose.

Column convention: X with a row of 1s below it, above Y; the weights with the bias as their last
column at Y's left. Row convention: [X | 1] at Y's left, [W ; b] above it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, rules_box, stepped, with_bias
from generator.sheet.worked import dot, equals

from attnsheet_linear.steps import FINAL_STEPS

TITLE = N_("The linear layer by hand")
"""The sheet's title where the batch gives none."""
SHOWN_IN = {"X": "Xa", "b": "W"}
"""Givens drawn inside another grid: X with its 1s, the bias as the weights' last column (last row)."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name."""
    _ = translations(lang).gettext
    row, given, n, d = problem.convention == "row", not blank, problem.n_tokens, problem.d_model
    width = max(cell_width(m, 4) for m in (problem.X, solution["Y"]))
    xa = tuple(tuple(r) + (1,) for r in problem.X) if row else tuple(map(tuple, problem.X)) + ((1,) * n,)
    w = with_bias(problem.W, problem.b, row)
    m = {
        "Xa": replace(
            matrix(
                "X | 1" if row else "X ; 1",
                _("inputs, with a column of 1s") if row else _("inputs, with a row of 1s"),
                xa,
                tone="input",
                given=given,
                cell_w=width,
            ),
            **({"split_cols": (d,)} if row else {"split_rows": (d,)}),
        ),
        "W": replace(
            matrix(
                "W ; b" if row else "W | b",
                _("weights, bias last"),
                w,
                tone="weight",
                given=given,
                cell_w=cell_width(w, 4),
            ),
            **({"split_rows": (d,)} if row else {"split_cols": (d,)}),
        ),
        "Y": matrix(
            "Y = X·W + b" if row else "Y = W·X + b", _("outputs"), solution["Y"], tone="out", key=key, cell_w=width
        ),
    }
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """Y where its factors' rows and columns cross."""

    def rows(stacked: bool) -> Rows:
        if problem.convention == "row":
            return [([None, m["W"]], True), ([m["Xa"], m["Y"]], False)]
        return [([None, m["Xa"]], True), ([m["W"], m["Y"]], False)]

    return rows


rules = rules_box(
    Said(
        N_("Y = W · X + b: the bias is the weights' last column, and a row of 1s goes below X."),
        N_("Y = X · W + b: the bias is the weights' last row, and a column of 1s goes beside X."),
    )
)
"""The rules box's lines (attnsheet adds the products' rule)."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """Token 1's first output worked out in full, for the key."""
    row = problem.convention == "row"
    x = list(problem.X[0]) if row else [r[0] for r in problem.X]
    w = [r[0] for r in problem.W] if row else list(problem.W[0])
    y = solution["Y"][0][0]
    words = (
        "Y, token 1, output 1 = row 1 of [X | 1] · column 1 of [W ; b]"
        if row
        else "Y, output 1, token 1 = row 1 of [W | b] · column 1 of [X ; 1]"
    )
    return [[words, f"= {dot(w + [problem.b[0]], x + [1])}", equals(y)]]


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE)
"""Its sheet: one grid (attnsheet's sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
