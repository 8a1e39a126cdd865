"""A graph convolution's sheet: the graph drawn beside its adjacency, each M{ℓ} where the features and A cross, each Z{ℓ} where [W{ℓ} | b{ℓ}] and [M{ℓ} ; 1] cross, its rules and worked example.

Column convention: A above M1 with the graph beside it, X at M1's left, a row of 1s under M1 and
[W1 | b1] at the left of Z1 below it, H1 beside Z1; a second layer's A stands above M2, at H1's
right, and the network runs down and across the page. Where that is too wide, each step stands
below the last (H1 at M2's left). The row convention is the transpose: the graph above A, A at
the left of each M, the features above it, [W ; b] above each Z with a column of 1s between.
"""

from __future__ import annotations

from typing import Optional

from generator.core.faces import N_
from generator.core.numbers import sheet_value
from generator.kinds.gcn.steps import FINAL_STEPS, column_twin, edges, steps
from generator.sheet.grid import cell_width, graph, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, layer_weights, ones_row, rules_box, stepped
from generator.sheet.worked import dot, equals

TITLE = N_("A graph convolution by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {f"b{k}": f"W{k}" for k in range(1, 3)}
"""Givens drawn inside another grid: each bias as its weights' last column."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is, the graph as "graph"."""
    _ = translations(lang).gettext
    row, given, n, L = problem.convention == "row", not blank, problem.n_tokens, len(problem.layers)
    faces = {s.key[1]: s.face for s in steps(column_twin(problem))}
    width = max(cell_width(m, 4) for m in [problem.X, *solution.grids.values()])
    nodes = [str(j + 1) for j in range(n)]
    heads = {"row_labels": nodes} if row else {"tokens": nodes}
    m = {
        "X": matrix("X", _("features, a node each"), problem.X, tone="input", given=given, cell_w=width, **heads),
        "graph": graph(
            _("the graph"),
            _("a node is its own neighbour"),
            n,
            () if blank else edges(column_twin(problem).A),
            tone="k",
        ),
    }
    for k in range(1, L + 1):
        m["A" if k == 1 else f"A{k}"] = matrix(
            "A",
            _("adjacency") if k == 1 else _("adjacency, again"),
            problem.A,
            tone="k",
            given=given,
            cell_w=3,
            tokens=nodes,
            row_labels=nodes,
        )
        m[f"W{k}"] = layer_weights(k, problem.layers[k - 1], problem.sizes()[k - 1], row, given, _)
        m[f"ones{k}"] = ones_row(n, row, width, _)
    for name, face in faces.items():
        m[name] = matrix(
            face.label[row], _(face.caption_in(row)), solution[name], tone=face.tone, key=key, cell_w=width
        )
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The grid's rows: each layer's gathering where the features and A cross, then its product."""
    L, keep, free = len(problem.layers), True, False

    def rows(stacked: bool) -> Rows:
        if problem.convention == "row":
            out: Rows = [([m["graph"], m["X"], None, m["W1"]], keep)]
            for k in range(1, L + 1):
                a = m["A"] if k == 1 else m[f"A{k}"]
                last = [m[f"H{k}"]] if k == L and not stacked else []
                out.append(([a, m[f"M{k}"], m[f"ones{k}"], m[f"Z{k}"], *last], keep if k < L else free))
                if k == L and stacked:  # too wide: the last H below its Z
                    out.append(([None, None, None, m[f"H{k}"]], free))
                if k < L:
                    out.append(([None, m[f"H{k}"], None, m[f"W{k + 1}"]], keep))
            return out
        out = [([None, m["A"], m["graph"]], keep), ([m["X"], m["M1"]], keep), ([None, m["ones1"]], keep)]
        if L == 1:
            return out + [([m["W1"], m["Z1"], m["H1"]], free)]
        if stacked:
            return out + [
                ([m["W1"], m["Z1"]], free),
                ([None, m["A2"]], keep),
                ([m["H1"], m["M2"]], keep),
                ([None, m["ones2"]], keep),
                ([m["W2"], m["Z2"], m["H2"]], free),
            ]
        out[-1] = ([None, m["ones1"], None, m["A2"]], keep)
        return out + [
            ([m["W1"], m["Z1"], m["H1"], m["M2"]], keep),
            ([None, None, None, m["ones2"]], keep),
            ([None, None, m["W2"], m["Z2"], m["H2"]], free),
        ]

    return rows


rules = rules_box(
    Said(
        N_(
            "M = H·A: column j of M gathers the features of node j's neighbours, itself too (the 1s of "
            "column j of A); the first layer's H is X."
        ),
        N_(
            "M = A·H: row i of M gathers the features of node i's neighbours, itself too (the 1s of row i of "
            "A); the first layer's H is X."
        ),
    ),
    Said(
        N_("Mean: divide column j of M by node j's degree, the number of 1s in column j of A."),
        N_("Mean: divide row i of M by node i's degree, the number of 1s in row i of A."),
        when=lambda p: p.aggregate == "mean",
    ),
    Said(
        N_("Z = [W | b] · [M ; 1]: a bias is its weights' last column, a row of 1s goes below M."),
        N_("Z = [M | 1] · [W ; b]: a bias is its weights' last row, a column of 1s goes beside M."),
    ),
    Said(N_("ReLU: H is Z with every negative entry made 0; the next layer gathers over H.")),
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """Node 1's first feature gathered, and its first unit, worked out in full for the key."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    column = column_twin(problem)
    a = [r[0] for r in column.A]
    m1, z1, h1 = (solution[name][0][0] for name in ("M1", "Z1", "H1"))
    sum_ = dot(a, list(column.X[0])) if row else dot(list(column.X[0]), a)
    if problem.aggregate == "mean":
        sum_ = f"({sum_}) ÷ {sum(a)}"
    words = (
        _("M1, feature 1, node 1 = row 1 of X · column 1 of A")
        if not row
        else _("M1, node 1, feature 1 = row 1 of A · column 1 of X")
    )
    layer = column.layers[0]
    z_words = (
        _("Z1, unit 1, node 1 = row 1 of [W1 | b1] · column 1 of [M1 ; 1]")
        if not row
        else _("Z1, node 1, unit 1 = row 1 of [M1 | 1] · column 1 of [W1 ; b1]")
    )
    m_column = [r[0] for r in (solution["M1"] if not row else zip(*solution["M1"]))]
    return [
        [words, f"= {sum_}", equals(m1)],
        [z_words, f"= {dot(list(layer.W[0]) + [layer.b[0]], m_column + [1])}", equals(z1)],
        ["H1, " + _("unit 1, node 1") + f" = ReLU({sheet_value(z1)})", equals(h1)],
    ]


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE)
"""Its sheet: one grid of layers (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
