"""The mixture of experts' sheet: the gate (G where W_g and X cross, the route below it), then every expert's rows in one layer grid, each token worked in its expert's rows only.

Column convention: W_g left of G with X above; r under G (with a weighted sheet's powers, their
column sums, A and g beside); then [X ; 1] above H_pre with [W1 | b1] (every expert's rows, each
numbered at its left) beside it, H beside H_pre, and Y under H with W2 (the experts side by
side) at its left. The row convention is the transpose: W_g above G, X at its left, r beside.
On the key, the cells the route leaves empty are struck out.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.kinds.moe.steps import column_twin, steps
from generator.core.numbers import sheet_value
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, rules_box, stepped
from generator.sheet.worked import dot, equals, factor

TITLE = N_("The mixture of experts by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {"X_layers": "Xa", "b1": "W1"}
"""Givens drawn inside another grid: the layers' X with its row of 1s, the biases as W1's last column."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    row, given = problem.convention == "row", not blank
    d, f, E, n = problem.d_model, problem.d_ff, problem.E, problem.n_tokens
    faces = {s.key[1]: s.face for s in steps(column_twin(problem))}
    grids = {name: tuple(tuple(0 if x is None else x for x in r) for r in g) for name, g in solution.grids.items()}
    # Whole numbers in narrow cells; the fractions (a weighted sheet's A, g and out) in their own.
    width = max(cell_width(m, 4) for m in [problem.X, *(g for k, g in grids.items() if not faces[k].fraction)])
    fractions = max(cell_width(grids[k], 4, True) for k in ("A", "g", "out") if k in grids) if problem.weighted else 0
    tokens = [f"x{j + 1}" for j in range(n)]
    heads = {"tokens": tokens} if not row else {"row_labels": tokens}
    experts = [f"e{e + 1}" for e in range(E) for _ in range(f)]  # each row of W1 and H_pre: its expert
    blocks = tuple(f * e for e in range(1, E))
    if row:
        xa = tuple(tuple(r) + (1,) for r in problem.X)
        w1 = tuple(tuple(e.W1[i][u] for e in problem.experts for u in range(f)) for i in range(d)) + (
            tuple(x for e in problem.experts for x in e.b1),
        )
        w2 = tuple(tuple(r) for e in problem.experts for r in e.W2)
        w1_split, w2_split, h_split = (
            {"split_rows": (d,), "split_cols": blocks},
            {"split_rows": blocks},
            {"split_cols": blocks},
        )
        w1_heads = {"tokens": experts}
    else:
        xa = tuple(map(tuple, problem.X)) + ((1,) * n,)
        w1 = tuple(tuple(r) + (b,) for e in problem.experts for r, b in zip(e.W1, e.b1))
        w2 = tuple(tuple(x for e in problem.experts for x in e.W2[i]) for i in range(d))
        w1_split, w2_split, h_split = (
            {"split_cols": (d,), "split_rows": blocks},
            {"split_cols": blocks},
            {"split_rows": blocks},
        )
        w1_heads = {"row_labels": experts}
    m = {
        "X": matrix("X", _("tokens"), problem.X, tone="input", given=given, cell_w=width, **heads),
        "W_g": matrix(
            "W_g",
            "" if row else _("gate weights"),
            problem.W_g,
            tone="weight",
            given=given,
            cell_w=cell_width(problem.W_g, 4),
        ),
        "Xa": replace(
            matrix("X | 1" if row else "X ; 1", "", xa, tone="input", given=given, cell_w=width, **heads),
            **({"split_cols": (d,)} if row else {"split_rows": (d,)}),
        ),
        "W1": replace(
            matrix(
                "W1 ; b1" if row else "W1 | b1",
                "" if row else _("the experts, bias last"),
                w1,
                tone="weight",
                given=given,
                cell_w=cell_width(w1, 4),
                **w1_heads,
            ),
            **w1_split,
        ),
        "W2": replace(
            matrix(
                "W2",
                "" if row else _("the experts side by side"),
                w2,
                tone="weight",
                given=given,
                cell_w=cell_width(w2, 4),
            ),
            **w2_split,
        ),
    }
    for name, face in faces.items():
        empty = solution.empty.get(name, frozenset()) if key else frozenset()  # struck out on the key
        # Labels alone (G = W_g·X, r): the rules box says what each is, and captions would spread the grid.
        view = matrix(
            face.label[row],
            "",
            grids[name],
            tone=face.tone,
            key=key,
            cell_w=fractions if face.fraction else width,
            two_line=face.fraction,
            masked=tuple(empty),
        )
        m[name] = replace(view, **h_split) if name in ("H_pre", "H") else view
    return stepped(m, tuple(faces), marks)


def _rows(problem, m: dict):
    """The grid's rows: the gate, then the experts' layers (see the module's words)."""
    weighted = problem.weighted

    def rows(stacked: bool) -> Rows:
        keep, free = True, False
        if problem.convention == "row":
            out: Rows = [([None, m["W_g"]], keep), ([m["X"], m["G"], m["r"]], free)]
            if weighted:
                out.append(([None, m["powers"], m["totals"], m["A"], m["g"]], free))
            if stacked:
                return out + [
                    ([None, m["W1"]], keep),
                    ([m["Xa"], m["H_pre"]], free),
                    ([None, None, m["W2"]], keep),
                    ([None, m["H"], m["Y"], m.get("out")], free),
                ]
            return out + [
                ([None, m["W1"], None, m["W2"]], keep),
                ([m["Xa"], m["H_pre"], m["H"], m["Y"], m.get("out")], free),
            ]
        out = [([None, m["X"]], keep)]
        out.append(([m["W_g"], m["G"], m["powers"], m["A"]], keep) if weighted else ([m["W_g"], m["G"]], keep))
        out.append(([None, m["r"], m["totals"], m["g"]], free) if weighted else ([None, m["r"]], free))
        if stacked:
            return out + [
                ([None, m["Xa"]], keep),
                ([m["W1"], m["H_pre"]], keep),
                ([None, m["H"]], keep),
                ([m["W2"], m["Y"], m.get("out")], free),
            ]
        return out + [
            ([None, m["Xa"]], keep),
            ([m["W1"], m["H_pre"], m["H"]], keep),
            ([None, m["W2"], m["Y"], m.get("out")], free),
        ]

    return rows


def _weighted(problem) -> bool:
    return problem.weighted


rules = rules_box(
    Said(
        N_(
            "Gate: G = W_g · X. Each token goes to the expert of its largest score (a tie: the lower expert); "
            "write that expert's number in r."
        ),
        N_(
            "Gate: G = X · W_g. Each token goes to the expert of its largest score (a tie: the lower expert); "
            "write that expert's number in r."
        ),
    ),
    Said(
        N_("Softmax by hand: P = 3^G, Σ = each column's sum, A = P / Σ; g = the chosen expert's A."),
        N_("Softmax by hand: P = 3^G, Σ = each row's sum, A = P / Σ; g = the chosen expert's A."),
        _weighted,
    ),
    Said(
        N_(
            "Each token's column of H_pre and H is worked in its expert's rows only (e1, e2, … at the left of "
            "W1); leave the other experts' rows empty."
        ),
        N_(
            "Each token's row of H_pre and H is worked in its expert's columns only (e1, e2, … above W1); "
            "leave the other experts' columns empty."
        ),
    ),
    Said(N_("ReLU: every negative entry becomes 0; the others stay.")),
    Said(
        N_("Y = W2 · H, the empty cells left out: each token's output is its own expert's."),
        N_("Y = H · W2, the empty cells left out: each token's output is its own expert's."),
    ),
    Said(N_("out = Y · g: each token's output times its g."), when=_weighted),
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """Token 1 worked out in full for the key: its gate scores and route, its expert's first unit, its output."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    work = column_twin(problem)
    at = (lambda name, i, j: solution[name][i][j]) if not row else (lambda name, i, j: solution[name][j][i])
    x = [r[0] for r in work.X]
    scores = [at("G", e, 0) for e in range(problem.E)]
    e = int(at("r", 0, 0)) - 1
    unit = e * problem.d_ff
    expert = work.experts[e]
    names = {"e": e + 1, "u": unit + 1}
    lines = [
        [
            _("G, token 1: %(scores)s; the largest is expert %(e)s's")
            % {"scores": ", ".join(sheet_value(s) for s in scores), "e": e + 1},
            f"r = {e + 1}",
        ],
        [
            _("H_pre, row %(u)s (expert %(e)s), token 1 = row %(u)s of [W1 | b1] · column 1 of [X ; 1]") % names
            if not row
            else _("H_pre, token 1, column %(u)s (expert %(e)s) = [X | 1] · column %(u)s of [W1 ; b1]") % names,
            f"= {dot(list(expert.W1[0]) + [expert.b1[0]], x + [1])}",
            equals(at("H_pre", unit, 0)),
        ],
        [f"ReLU({sheet_value(at('H_pre', unit, 0))})", equals(at("H", unit, 0))],
    ]
    hidden = [at("H", unit + k, 0) for k in range(problem.d_ff)]
    lines.append(
        [
            _("Y, feature 1, token 1 = expert %(e)s's part of row 1 of W2 · its rows of H") % names
            if not row
            else _("Y, token 1, feature 1 = its columns of H · expert %(e)s's part of W2") % names,
            f"= {dot(list(expert.W2[0]), hidden)}",
            equals(at("Y", 0, 0)),
        ]
    )
    if problem.weighted:
        lines.append(
            [
                _("out, feature 1, token 1 = Y · g"),
                f"= {factor(at('Y', 0, 0), True)}·{factor(at('g', 0, 0))}",
                equals(at("out", 0, 0)),
            ]
        )
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid of layers (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
