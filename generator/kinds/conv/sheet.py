"""A convolution layer's sheet: the image above, then each kernel with its bias, its map, its ReLU and its pool in a row; its rules and worked example.

There is no product of matrices here: each cell of a map is the kernel laid over a window of the
image, so the kernel stands at the left of its map and the image above the maps, each map as wide
as the windows across the image; the projector lights the window of the current cell.
"""

from __future__ import annotations

from typing import Optional

from generator.core.faces import N_
from generator.kinds.conv.steps import FINAL_STEPS, column_twin, steps
from generator.core.numbers import sheet_value
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, rules_box, stepped
from generator.sheet.worked import dot, equals


TITLE = N_("A convolution layer by hand")
"""The sheet's title where the batch gives none."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    given = not blank
    width = max(cell_width(m, 3) for m in [problem.X, *solution.grids.values()])
    m = {"X": matrix("X", _("the image"), problem.X, tone="input", given=given, cell_w=width)}
    for c, kernel in enumerate(problem.kernels, start=1):
        m[f"K{c}"] = matrix(f"K{c}", _("kernel"), kernel.K, tone="weight", given=given, cell_w=cell_width(kernel.K, 3))
        m[f"b{c}"] = matrix(f"b{c}", _("bias"), ((kernel.b,),), tone="weight", given=given, cell_w=3)
    for s in steps(column_twin(problem)):
        name, face = s.key[1], s.face
        m[name] = matrix(face.label[0], _(face.caption), solution[name], tone=face.tone, key=key, cell_w=width)
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The image above the maps; a row per kernel: its weights, its bias, its map, ReLU and pool."""

    def rows(stacked: bool) -> Rows:
        out: Rows = [([None, None, m["X"]], True)]
        for c in range(1, len(problem.kernels) + 1):
            if stacked:
                out += [
                    ([m[f"K{c}"], m[f"b{c}"], m[f"Z{c}"]], False),
                    ([None, None, m[f"H{c}"], m.get(f"P{c}")], False),
                ]
            else:
                out.append(([m[f"K{c}"], m[f"b{c}"], m[f"Z{c}"], m[f"H{c}"], m.get(f"P{c}")], False))
        return out

    return rows


rules = rules_box(
    Said(
        N_(
            "Z: lay the kernel over each window of X, its top left corner moving one cell at a time: multiply "
            "each of its cells by the image's cell under it, add them up, then add b. The kernel is not flipped."
        )
    ),
    Said(N_("ReLU: H is Z with every negative entry made 0.")),
    Said(
        N_("P: the largest entry of each 2 × 2 block of H, blocks side by side (stride 2)."),
        when=lambda p: bool(p.pool),
    ),
    products=False,
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """The first kernel's first cell worked out in full for the key, its ReLU and its pool."""
    _ = translations(lang).gettext
    kernel, k = problem.kernels[0], len(problem.kernels[0].K)
    window = [problem.X[u][v] for u in range(k) for v in range(k)]
    z = solution["Z1"][0][0]
    lines = [
        [
            _("Z1, row 1, column 1 = K1 over the window of X from row 1, column 1, + b1"),
            f"= {dot([x for r in kernel.K for x in r] + [kernel.b], window + [1])}",
            equals(z),
        ],
        [f"H1 = ReLU({sheet_value(z)})", equals(solution["H1"][0][0])],
    ]
    if problem.pool:
        block = [solution["H1"][u][v] for u in (0, 1) for v in (0, 1)]
        lines.append(
            [
                _("P1, row 1, column 1 = the largest of %(xs)s") % {"xs": ", ".join(map(sheet_value, block))},
                equals(solution["P1"][0][0]),
            ]
        )
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
