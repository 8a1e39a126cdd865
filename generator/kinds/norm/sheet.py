"""A norm's sheet: the lines it works on, each line's mean, deviations, squares, variance and σ beside it (or below it), then N and Y = gamma·N + beta; a layer before it, if any, as the layer grid by hand.

A statistic is one value per line: a column beside the grid where the lines are rows (batch norm
in the column convention, layer norm in the row one), a row below it where they are columns.
gamma and beta are one value per feature, beside N or above it likewise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.core.numbers import sheet_value
from generator.kinds.norm.steps import FINAL_STEPS, column_twin, steps
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, rules_box, stepped, with_bias
from generator.sheet.worked import equals, factor

TITLE = N_("Batch norm and layer norm by hand")
"""The sheet's title where the batch gives none."""
SHOWN_IN = {"X": "Xa", "b": "W"}
"""Givens drawn inside another grid (with a layer before the norm): X with its 1s, the bias as the weights' last column."""


def _stats_beside(problem) -> bool:
    """Whether a line's statistics stand beside the grid (its lines are rows on the sheet)."""
    return (problem.axis == "batch") == (problem.convention == "column")


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    row, given, n = problem.convention == "row", not blank, problem.n_tokens
    width = max(cell_width(g, 4) for g in [problem.X, *solution.grids.values()])
    line = (lambda v: (tuple(v),)) if row else (lambda v: tuple((x,) for x in v))  # one value per feature
    m = {
        "gamma": matrix("gamma", _("gains"), line(problem.gamma), tone="weight", given=given, cell_w=width),
        "beta": matrix("beta", _("shifts"), line(problem.beta), tone="weight", given=given, cell_w=width),
    }
    if problem.W is None:
        m["X"] = matrix("X", _("inputs, an example each"), problem.X, tone="input", given=given, cell_w=width)
    else:
        xa = tuple(tuple(r) + (1,) for r in problem.X) if row else tuple(map(tuple, problem.X)) + ((1,) * n,)
        d0 = len(problem.X[0]) if row else len(problem.X)
        m["Xa"] = replace(
            matrix(
                "X | 1" if row else "X ; 1",
                _("inputs, with a column of 1s") if row else _("inputs, with a row of 1s"),
                xa,
                tone="input",
                given=given,
                cell_w=width,
            ),
            **({"split_cols": (d0,)} if row else {"split_rows": (d0,)}),
        )
        w = with_bias(problem.W, problem.b, row)
        m["W"] = replace(
            matrix(
                "W ; b" if row else "W | b",
                _("weights, bias last"),
                w,
                tone="weight",
                given=given,
                cell_w=cell_width(w, 4),
            ),
            **({"split_rows": (d0,)} if row else {"split_cols": (d0,)}),
        )
    for s in steps(column_twin(problem)):
        face, grid = s.face, solution[s.key[1]]
        # A grid of fractions written with their decimals is as wide as its own widest cell needs.
        m[s.key[1]] = matrix(
            face.label[row],
            _(face.caption_in(row)),
            grid,
            tone=face.tone,
            two_line=face.fraction,
            key=key,
            cell_w=cell_width(grid, 3, True) if face.fraction else width,
        )
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The layer before the norm, if any; the norm's source and its statistics; N, and Y under it
    with gamma and beta at its left (above it, in the row convention). Stacked (where side by side
    is too wide): the layer's steps and the statistics one below another."""
    column = problem.convention == "column"

    def rows(stacked: bool) -> Rows:
        out: Rows = []
        if "W" not in m:
            head = [m["X"]]
        elif column:
            out.append(([None, m["Xa"]], True))
            head = [m["W"], m["Z"], m["H"]]
        else:
            out.append(([None, None, m["W"]], True))
            head = [m["Xa"], None, m["Z"], m["H"]]
        if stacked and "W" in m:  # H below Z, not beside it
            out.append((head[:-1], False))
            head = [None] * (len(head) - 2) + [m["H"]]
        pad = [None] * (len(head) - 1)
        # No product below the layer: a page may end after any band (a factor kept with its product only).
        if stacked:
            out += [(head, False)] + [(pad + [m[name]], False) for name in ("mu", "D", "S", "var", "sigma")]
        elif _stats_beside(problem):
            out += [(head + [m["mu"]], False), (pad + [m["D"], m["S"], m["var"], m["sigma"]], False)]
        else:
            out += [
                (head, False),
                (pad + [m["mu"]], False),
                (pad + [m["D"], m["S"]], False),
                (pad + [None, m["var"]], False),
                (pad + [None, m["sigma"]], False),
            ]
        if column and not stacked:
            return out + [(pad + [m["N"], m["gamma"], m["beta"], m["Y"]], False)]
        if not stacked:  # gamma and beta above Y, N at its left
            return out + [
                (pad + [None, m["gamma"]], True),
                (pad + [None, m["beta"]], True),
                (pad + [m["N"], m["Y"]], False),
            ]
        out.append((pad + [m["N"]], False))
        if not column:
            return out + [(pad + [m["gamma"]], True), (pad + [m["beta"]], True), (pad + [m["Y"]], False)]
        shift = [None] * max(0, 2 - len(pad))  # room at Y's left for gamma and beta
        last = shift + pad + [m["Y"]]
        last[-3:-1] = [m["gamma"], m["beta"]]
        return [(shift + cells, keep) for cells, keep in out] + [(last, False)]

    return rows


rules = rules_box(
    Said(
        N_("Z = [W | b] · [X ; 1], then H = ReLU(Z): the norm works on H."),
        N_("Z = [X | 1] · [W ; b], then H = ReLU(Z): the norm works on H."),
        when=lambda p: p.W is not None,
    ),
    Said(
        N_(
            "Each feature over the batch: mu is the mean of each line, D each entry minus its line's mean, S = D², "
            "var the mean of each line of S, sigma = √var (exact), N = D ÷ sigma."
        ),
        when=lambda p: p.axis == "batch",
    ),
    Said(
        N_(
            "Each example over its features: mu is the mean of each line, D each entry minus its line's mean, "
            "S = D², var the mean of each line of S, sigma = √var (exact), N = D ÷ sigma."
        ),
        when=lambda p: p.axis == "layer",
    ),
    Said(N_("Y = gamma · N + beta: each feature's entries times its gamma, plus its beta.")),
    products=False,
)
"""The rules box's lines, true for the sheet (with a layer before the norm, a sheet of products too)."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """The first line's statistics and its first entry worked out in full, for the key."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    at = (lambda g, a, b: g[b][a]) if row else (lambda g, a, b: g[a][b])  # (feature a, example b), either layout
    source = solution["H"] if problem.W is not None else problem.X
    by_feature = problem.axis == "batch"
    count = problem.n_tokens if by_feature else problem.d
    line = [at(source, 0, j) if by_feature else at(source, j, 0) for j in range(count)]
    first = lambda g: g[0][0]  # noqa: E731  (the first line's statistic, a column or a row)
    d = at(solution["D"], 0, 0)
    squares = [at(solution["S"], 0, j) if by_feature else at(solution["S"], j, 0) for j in range(count)]
    lines = [
        [_("mu, line 1"), f"= ({' + '.join(map(sheet_value, line))}) ÷ {count}", equals(first(solution["mu"]))],
        [_("D, first entry"), f"= {sheet_value(line[0])} − {sheet_value(first(solution['mu']))}", equals(d)],
        [_("var, line 1"), f"= ({' + '.join(map(sheet_value, squares))}) ÷ {count}", equals(first(solution["var"]))],
        [_("sigma, line 1"), f"= √{factor(first(solution['var']), False)}", equals(first(solution["sigma"]))],
        [
            _("N, first entry"),
            f"= {sheet_value(d)} ÷ {sheet_value(first(solution['sigma']))}",
            equals(at(solution["N"], 0, 0)),
        ],
        [
            _("Y, first entry"),
            f"= {factor(problem.gamma[0], True)}·{factor(at(solution['N'], 0, 0))} + {factor(problem.beta[0])}",
            equals(at(solution["Y"], 0, 0)),
        ],
    ]
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
