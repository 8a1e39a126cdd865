"""The multi-layer perceptron's sheet: the layer grid by hand, each Z{ℓ} where [W{ℓ} | b{ℓ}] and [H{ℓ−1} ; 1] cross, its rules and worked example.

Column convention: X with a row of 1s on top; each layer's weights (bias last) at the left of its
Z, its H beside Z, a row of 1s under H, and the next layer's Z under those, one column to the
right: the network runs down and across the page. Where that is too wide, each step stands below
the last. The row convention is the transpose: each layer's weights above its Z, its input (with
a column of 1s) at its left, the layers one under another.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.kinds.mlp.steps import FINAL_STEPS, column_twin, steps
from generator.core.numbers import sheet_value
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, layer_weights, ones_row, rules_box, stepped
from generator.sheet.worked import dot, equals

TITLE = N_("The multi-layer perceptron by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {"X": "Xa", **{f"b{k}": f"W{k}" for k in range(1, 5)}}
"""Givens drawn inside another grid: X with its row of 1s, each bias as its weights' last column."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    row, given, n = problem.convention == "row", not blank, problem.n_tokens
    faces = {s.key[1]: s.face for s in steps(column_twin(problem))}
    width = max(cell_width(m, 4) for m in [problem.X, *solution.grids.values()])
    examples = [f"x{j + 1}" for j in range(n)]
    xa = tuple(tuple(r) + (1,) for r in problem.X) if row else tuple(map(tuple, problem.X)) + ((1,) * n,)
    m = {
        "Xa": replace(
            matrix(
                "X | 1" if row else "X ; 1",
                _("inputs, with a column of 1s") if row else _("inputs, with a row of 1s"),
                xa,
                tone="input",
                given=given,
                cell_w=width,
                **({"row_labels": examples} if row else {"tokens": examples}),
            ),
            **({"split_cols": (problem.d_model,)} if row else {"split_rows": (problem.d_model,)}),
        )
    }
    sizes = problem.sizes()
    for k, layer in enumerate(problem.layers, start=1):
        m[f"W{k}"] = layer_weights(k, layer, sizes[k - 1], row, given, _)
        if k > 1:
            m[f"ones{k}"] = ones_row(n, row, width, _)
    for name, face in faces.items():
        m[name] = matrix(
            face.label[row], _(face.caption_in(row)), solution[name], tone=face.tone, key=key, cell_w=width
        )
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The grid's rows: each layer's product where its factors cross, layer after layer."""
    L, keep, free = len(problem.layers), True, False

    def rows(stacked: bool) -> Rows:
        out: Rows = []
        if problem.convention == "row":
            for k in range(1, L + 1):
                source = [m["Xa"], None] if k == 1 else [m[f"H{k - 1}"], m[f"ones{k}"]]
                out += [
                    ([None, None, m[f"W{k}"]], keep),
                    ([*source, m[f"Z{k}"], m.get(f"H{L}") if k == L else None], free),
                ]
            return out
        out.append(([None, m["Xa"]], keep))
        for k in range(1, L + 1):
            h = m.get(f"H{k}")
            if stacked and k == L:  # nothing works on the last H: it stands beside its Z
                out.append(([m[f"W{k}"], m[f"Z{k}"], h], free))
            elif stacked:
                out += [([m[f"W{k}"], m[f"Z{k}"]], free), ([None, h], keep), ([None, m[f"ones{k + 1}"]], keep)]
            else:
                out.append(([*[None] * (k - 1), m[f"W{k}"], m[f"Z{k}"], h], keep if k < L else free))
                out += [([*[None] * (k + 1), m[f"ones{k + 1}"]], keep)] if k < L else []
        return out

    return rows


rules = rules_box(
    Said(
        N_(
            "Z = [W | b] · [H ; 1]: a bias is its weights' last column, a row of 1s goes below each layer's "
            "input (X, then the H before)."
        ),
        N_(
            "Z = [H | 1] · [W ; b]: a bias is its weights' last row, a column of 1s goes beside each layer's "
            "input (X, then the H before)."
        ),
    ),
    Said(
        N_("ReLU: H is Z with every negative entry made 0; the next layer works on H."),
        when=lambda p: len(p.layers) > 1 or p.last == "relu",
    ),
    Said(
        N_("The last layer is linear: its Z is the network's output, with no ReLU after it."),
        when=lambda p: p.last == "linear",
    ),
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """The first unit of the first and the last layer, example 1, worked out in full for the key."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    L = len(problem.layers)
    first = lambda grid: grid[0][0]  # noqa: E731  (unit 1, example 1, in either layout)
    column = (lambda g: [r[0] for r in g]) if not row else (lambda g: list(g[0]))
    unit = (lambda w: list(w[0])) if not row else (lambda w: [r[0] for r in w])
    lines = []
    for k in sorted({1, L}):
        layer, source = problem.layers[k - 1], "X" if k == 1 else f"H{k - 1}"
        inputs = column(problem.X if k == 1 else solution[f"H{k - 1}"])
        names = {"k": k, "s": source}
        words = (
            _("Z%(k)s, unit 1, example 1 = row 1 of [W%(k)s | b%(k)s] · column 1 of [%(s)s ; 1]")
            if not row
            else _("Z%(k)s, example 1, unit 1 = row 1 of [%(s)s | 1] · column 1 of [W%(k)s ; b%(k)s]")
        ) % names
        z = first(solution[f"Z{k}"])
        lines.append([words, f"= {dot(unit(layer.W) + [layer.b[0]], inputs + [1])}", equals(z)])
        if problem.has_h(k):
            lines.append(
                [f"H{k}, " + _("unit 1, example 1") + f" = ReLU({sheet_value(z)})", equals(first(solution[f"H{k}"]))]
            )
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid of layers (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
