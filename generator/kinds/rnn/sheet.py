"""The recurrent layer's sheet: the steps unrolled left to right, each a_t where [W_x | W_h | b] and [x_t ; h_{t−1} ; 1] cross, its rules and worked example.

Column convention: the weights (bias last) at the left of the a-row; above each a_t its input
column, x_t over h_{t−1} (copied in from the step before; h0 = 0) over a 1; h_t below a_t and
y_t below that, W_y at the left of the y-row. The row convention is the transpose: the weights
above, one time step a row, the input row at the left of a_t.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.kinds.rnn.steps import column_twin, steps
from generator.core.numbers import sheet_value
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import OneGrid, Rows, Said, rules_box, stepped, with_bias
from generator.sheet.worked import dot, equals

TITLE = N_("The recurrent layer by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {"W_x": "W", "W_h": "W", "b": "W"}
"""Givens drawn inside another grid: the weights side by side, the bias last."""


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    """Every matrix of the sheet, by name: each step's view named as its step is."""
    _ = translations(lang).gettext
    row, given = problem.convention == "row", not blank
    work = steps(column_twin(problem))
    faces = {s.key[1]: s.face for s in work}
    grids = solution.grids
    width = max(cell_width(m, 4) for m in [problem.X, *grids.values()])
    x_of = (lambda t: (tuple(problem.X[t]),)) if row else (lambda t: tuple((r[t],) for r in problem.X))
    h0 = ((0,) * problem.d_h,) if row else tuple((0,) for _ in range(problem.d_h))
    one = ((1,),)
    joined = (
        tuple(map(tuple, problem.W_x)) + tuple(map(tuple, problem.W_h))
        if row
        else tuple(tuple(a) + tuple(h) for a, h in zip(problem.W_x, problem.W_h))
    )
    w = with_bias(joined, problem.b, row)
    split = {"split_rows" if row else "split_cols": (problem.d_model, problem.d_model + problem.d_h)}
    # In the row convention the weights stand above the a column: a caption would push the h column away.
    m = {
        "W": replace(
            matrix(
                "W_x ; W_h ; b" if row else "W_x | W_h | b",
                "" if row else _("weights, bias last"),
                w,
                tone="weight",
                given=given,
                cell_w=cell_width(w, 4),
            ),
            **split,
        ),
        "h0": matrix("h0", "", h0, tone="k", given=True, cell_w=width),
    }
    if problem.W_y is not None:
        m["W_y"] = matrix(
            "W_y",
            "" if row else _("readout"),
            problem.W_y,
            tone="weight",
            given=given,
            cell_w=cell_width(problem.W_y, 4),
        )
    # The time steps' grids bear their names alone (x2, h1, a2): the rules box says what each is,
    # and words under every one of them would spread the steps apart.
    for t in range(1, problem.steps + 1):
        m[f"x{t}"] = matrix(f"x{t}", "", x_of(t - 1), tone="input", given=given, cell_w=width)
        m[f"one{t}"] = matrix("1", "", one, tone="input", given=True, cell_w=width)
    for name, face in faces.items():
        m[name] = matrix(face.symbol, "", tuple(map(tuple, grids[name])), tone=face.tone, key=key, cell_w=width)
    return stepped(m, tuple(faces), marks)


def _rows(problem, m: dict):
    """The grid's rows: time steps left to right (top to bottom, in the row convention)."""
    T = problem.steps
    state = ["h0"] + [f"h{t}_copy" for t in range(1, T)]
    readout = "W_y" in m

    def rows(stacked: bool) -> Rows:
        keep, free = True, False
        if problem.convention == "row":
            out: Rows = [([None, None, None, m["W"], None, m.get("W_y")], keep)]
            return out + [
                ([m[f"x{t}"], m[state[t - 1]], m[f"one{t}"], m[f"a{t}"], m[f"h{t}"], m.get(f"y{t}")], free)
                for t in range(1, T + 1)
            ]
        out = [
            ([None, *(m[f"x{t}"] for t in range(1, T + 1))], keep),
            ([None, *(m[name] for name in state)], keep),
            ([None, *(m[f"one{t}"] for t in range(1, T + 1))], keep),
            ([m["W"], *(m[f"a{t}"] for t in range(1, T + 1))], keep),
            ([None, *(m[f"h{t}"] for t in range(1, T + 1))], keep if readout else free),
        ]
        if readout:
            out.append(([m["W_y"], *(m[f"y{t}"] for t in range(1, T + 1))], free))
        return out

    return rows


rules = rules_box(
    Said(
        N_(
            "Step by step, from the first: copy the state h of the step before below the step's input x "
            "(h0 = 0), then a = [W_x | W_h | b] · [x ; h ; 1], one row · column."
        ),
        N_(
            "Step by step, from the first: copy the state h of the step before beside the step's input x "
            "(h0 = 0), then a = [x | h | 1] · [W_x ; W_h ; b], one row · column."
        ),
    ),
    Said(N_("ReLU: the step's state h is its a with every negative entry made 0.")),
    Said(N_("Each step's output y = W_y · h."), N_("Each step's output y = h · W_y."), lambda p: p.W_y is not None),
)
"""The rules box's lines, true for the sheet."""


def worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """The second step's first unit, worked out in full for the key: the recurrence at work."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    t = 2 if problem.steps > 1 else 1
    flat = lambda m: [x for r in m for x in r]  # noqa: E731  (a vector, whichever way it is written)
    unit = (lambda w: list(w[0])) if not row else (lambda w: [r[0] for r in w])
    x = flat((tuple(problem.X[t - 1]),) if row else tuple((r[t - 1],) for r in problem.X))
    h = flat(solution[f"h{t - 1}"]) if t > 1 else [0] * problem.d_h
    a, h_t = flat(solution[f"a{t}"])[0], flat(solution[f"h{t}"])[0]
    names = {"t": t, "s": t - 1}
    first = (
        _("a%(t)s, unit 1 = row 1 of [W_x | W_h | b] · [x%(t)s ; h%(s)s ; 1]")
        if not row
        else _("a%(t)s, unit 1 = [x%(t)s | h%(s)s | 1] · column 1 of [W_x ; W_h ; b]")
    ) % names
    lines = [
        [first, f"= {dot(unit(problem.W_x) + unit(problem.W_h) + [problem.b[0]], x + h + [1])}", equals(a)],
        [_("h%(t)s, unit 1 = ReLU(%(a)s)") % {"t": t, "a": sheet_value(a)}, equals(h_t)],
    ]
    if problem.W_y is not None:
        y = flat(solution[f"y{t}"])[0]
        second = (
            _("y%(t)s, output 1 = row 1 of W_y · h%(t)s")
            if not row
            else _("y%(t)s, output 1 = h%(t)s · column 1 of W_y")
        ) % names
        lines.append([second, f"= {dot(unit(problem.W_y), flat(solution[f'h{t}']))}", equals(y)])
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(3))
"""Its sheet: one grid of layers (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
