"""One step of backpropagation's sheet: the forward pass above the backward pass, each product where its factors' rows and columns cross, each transpose written where its product needs it.

Column convention, left to right and down: [W1 | b1] left of Z1 under [X ; 1], H beside Z1 and a
row of 1s under it; [W2 | b2] left of Y under [H ; 1]; beside Y the targets T and dY = Y − T;
dW2 = dY·Hᵀ right of dY with Hᵀ above it, db2 beside; dH = W2ᵀ·dY under dY with W2ᵀ at its left;
dZ1 under dH, and dW1 = dZ1·Xᵀ right of it with Xᵀ above it, db1 beside; the updated weights
last. The row convention is the same grid transposed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.core.numbers import sheet_value
from generator.core.problem import transpose
from generator.kinds.backprop.steps import FINAL_STEPS, column_twin, steps
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, ones, rules_box, stepped, with_bias
from generator.sheet.worked import dot, equals

TITLE = N_("One step of backpropagation by hand")
"""The sheet's title where the batch gives none."""
SHOWN_IN = {"X": "Xa", "b1": "W1", "b2": "W2"}
"""Givens drawn inside another grid: X with its row of 1s, each bias as its weights' last column."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    row, given, n = problem.convention == "row", not blank, problem.n_tokens
    width = max(cell_width(g, 4) for g in [problem.X, *solution.grids.values()])
    d0, d1 = problem.d_model, len(problem.b1)
    xa = tuple(tuple(r) + (1,) for r in problem.X) if row else tuple(map(tuple, problem.X)) + ((1,) * n,)
    split = lambda k: {"split_cols": (k,)} if row else {"split_rows": (k,)}  # noqa: E731
    weights = lambda k: {"split_rows": (k,)} if row else {"split_cols": (k,)}  # noqa: E731
    # Grids bear their names alone: the rules box says what each is, and words under every one of
    # them would take the page's width from a sheet of seven columns.
    m = {
        "Xa": replace(
            matrix("X | 1" if row else "X ; 1", "", xa, tone="input", given=given, cell_w=width), **split(d0)
        ),
        "ones": matrix("1", "", ones(n, row), tone="input", given=True, cell_w=3 if row else width),
        "T": matrix("T", "", problem.T, tone="input", given=given, cell_w=width),
        "X_T": matrix("Xᵀ", "", transpose(problem.X), tone="input", given=given, cell_w=width),
        "W2_T": matrix("W2ᵀ", "", transpose(problem.W2), tone="weight", given=given, cell_w=width),
    }
    for name, w, b, k in (("W1", problem.W1, problem.b1, d0), ("W2", problem.W2, problem.b2, d1)):
        grid = with_bias(w, b, row)
        m[name] = replace(
            matrix(
                f"{name} ; b{name[1]}" if row else f"{name} | b{name[1]}",
                "",
                grid,
                tone="weight",
                given=given,
                cell_w=cell_width(grid, 4),
            ),
            **weights(k),
        )
    for s in steps(column_twin(problem)):
        face = s.face
        m[s.key[1]] = matrix(face.label[row], "", solution[s.key[1]], tone=face.tone, key=key, cell_w=width)
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The grid of the column convention (its transpose in the row convention): forward above backward."""
    g = m.get
    grid = [
        [None, g("Xa")],
        [g("W1"), g("Z1"), g("H")],
        [None, None, g("ones"), None, None, g("H_T")],
        [None, g("W2"), g("Y"), g("T"), g("dY"), g("dW2"), g("db2")],
        [None, None, None, g("W2_T"), g("dH"), g("X_T")],
        [None, None, None, None, g("dZ1"), g("dW1"), g("db1")],
    ]
    if "W2_new" in m:
        grid.append([None, g("W1_new"), g("b1_new"), g("W2_new"), g("b2_new")])
    width = max(len(r) for r in grid)
    grid = [r + [None] * (width - len(r)) for r in grid]
    if problem.convention == "row":
        grid = [list(col) for col in zip(*grid)]
    while grid and not any(grid[-1]):
        grid.pop()

    def rows(stacked: bool) -> Rows:
        return [(cells, k < len(grid) - 1) for k, cells in enumerate(grid)]

    return rows


rules = rules_box(
    Said(
        N_(
            "Forward: Z1 = [W1 | b1] · [X ; 1], H = ReLU(Z1), Y = [W2 | b2] · [H ; 1]; a bias is its weights' last "
            "column, a row of 1s goes under the input."
        ),
        N_(
            "Forward: Z1 = [X | 1] · [W1 ; b1], H = ReLU(Z1), Y = [H | 1] · [W2 ; b2]; a bias is its weights' last "
            "row, a column of 1s goes beside the input."
        ),
    ),
    # The prose font has no superscript T: "transposed" is said in words here (the grids' labels have it).
    Said(
        N_(
            "Backward, with the loss ½·Σ(Y − T)²: dY = Y − T; dW2 = dY · (H transposed) and db2 = each row's sum "
            "of dY; dH = (W2 transposed) · dY; dZ1 = dH where Z1 > 0, else 0; dW1 = dZ1 · (X transposed) and db1 = "
            "each row's sum of dZ1."
        ),
        N_(
            "Backward, with the loss ½·Σ(Y − T)²: dY = Y − T; dW2 = (H transposed) · dY and db2 = each column's "
            "sum of dY; dH = dY · (W2 transposed); dZ1 = dH where Z1 > 0, else 0; dW1 = (X transposed) · dZ1 and "
            "db1 = each column's sum of dZ1."
        ),
    ),
    Said(
        N_("Update: each weight and bias minus lr times its gradient (W_new = W − lr · dW)."),
        when=lambda p: p.lr is not None,
    ),
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """The first entry of dY, dW2 and dH worked out in full, for the key."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    at = (lambda g, a, b: g[b][a]) if row else (lambda g, a, b: g[a][b])  # (unit a, example b) in either layout
    n = problem.n_tokens
    dy = [at(solution["dY"], 0, j) for j in range(n)]
    h = [at(solution["H"], 0, j) for j in range(n)]
    w2 = [at(problem.W2, i, 0) for i in range(len(problem.b2))]
    dys = [at(solution["dY"], i, 0) for i in range(len(problem.b2))]
    return [
        [
            _("dY, first entry = Y − T"),
            f"= {sheet_value(at(solution['Y'], 0, 0))} − {sheet_value(at(problem.T, 0, 0))}",
            equals(at(solution["dY"], 0, 0)),
        ],
        [
            _("dW2, first entry = row 1 of Hᵀ · column 1 of dY")
            if row
            else _("dW2, first entry = row 1 of dY · column 1 of Hᵀ"),
            f"= {dot(h, dy) if row else dot(dy, h)}",
            equals(at(solution["dW2"], 0, 0)),
        ],
        [
            _("dH, first entry = row 1 of dY · column 1 of W2ᵀ")
            if row
            else _("dH, first entry = row 1 of W2ᵀ · column 1 of dY"),
            f"= {dot(dys, w2) if row else dot(w2, dys)}",
            equals(at(solution["dH"], 0, 0)),
        ],
    ]


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
