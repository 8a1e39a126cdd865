"""The feed-forward layer's sheet: the layer grid by hand (each bias its weights' last column, rows of 1s), its rules and worked example.

Each product sits where its factors cross: [W1 | b1] left of H_pre, [X ; 1] above it; H beside
it; [W2 | b2] left of Y, [H ; 1] above it; out beside Y (the row convention is the transpose).
The transformer block builds its layers from these pieces, on its R.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.kinds.ffn.steps import FINAL_STEPS
from generator.core.numbers import sheet_value
from generator.draw.rebuild import grown_since
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import PRODUCT_RULE, OneGrid, Rows, ones, stepped, with_bias
from generator.sheet.worked import dot, equals, factor

TITLE = N_("The feed-forward layer by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {"X": "Xa", "b1": "W1", "b2": "W2"}
"""Givens drawn inside another grid: X with its row of 1s, each bias as its weights' last column."""


def face_matrix(step, row: bool, _, values, **options):
    """A step's matrix labelled, captioned and toned as its face says."""
    face = step.face
    return matrix(face.label[row], _(face.caption_in(row)), values, tone=face.tone, two_line=face.fraction, **options)


def tokens_of(problem) -> dict:
    """The tokens' headings of an input grid: above its columns, or left of its rows."""
    names = [f"x{j + 1}" for j in range(problem.n_tokens)]
    return {"tokens": names} if problem.convention == "column" else {"row_labels": names}


def layer_matrices(problem, solution, steps: dict, key: bool, _, blank: bool, width: int) -> dict:
    """The FFN's own matrices of the grid (its layers, their biases and rows of 1s, ReLU, the
    residual), by name: each step's view named as its step is."""
    given, row = not blank, problem.convention == "row"
    n, f = problem.n_tokens, problem.d_ff
    split = {"split_cols": (problem.d_model,)} if not row else {"split_rows": (problem.d_model,)}
    w1, w2 = with_bias(problem.W1, problem.b1, row), with_bias(problem.W2, problem.b2, row)
    m = {
        "W1": replace(
            matrix(
                "W1 ; b1" if row else "W1 | b1",
                _("weights, bias last"),
                w1,
                tone="weight",
                given=given,
                cell_w=cell_width(w1, 4),
            ),
            **split,
        ),
        "H_pre": face_matrix(steps["H_pre"], row, _, solution.H_pre, key=key, cell_w=width),
        "H": face_matrix(steps["H"], row, _, solution.H, key=key, cell_w=width),
        "ones2": matrix(
            "1",
            _("a row of 1s") if not row else "",
            ones(n, row),
            tone="input",
            given=True,
            cell_w=width if not row else 3,
        ),
        "W2": replace(
            matrix(
                "W2 ; b2" if row else "W2 | b2",
                _("weights, bias last"),
                w2,
                tone="weight",
                given=given,
                cell_w=cell_width(w2, 4),
            ),
            **({"split_cols": (f,)} if not row else {"split_rows": (f,)}),
        ),
        "Y": face_matrix(steps["Y"], row, _, solution.Y, key=key, cell_w=width),
    }
    if solution.out is not None:
        m["out"] = face_matrix(steps["out"], row, _, solution.out, key=key, cell_w=width)
    return m


def layer_rows(problem, m: dict, stacked: bool, before: Rows, source: list) -> Rows:
    """Rows of the layer grid after `before`, each product where its factors' rows and columns
    cross; `source`: the input's cells left of H_pre in the row convention; `stacked`: in the
    column convention every step below the one before it (too many tokens for H and out beside)."""
    keep, free = True, False
    rows = list(before)
    if problem.convention == "column":
        # H (elementwise) beside H_pre; Y under H, its factors [H ; 1] above and [W2 | b2] to the
        # left (under H_pre); out (elementwise) beside Y: a page holds the whole layer.
        if stacked:
            rows += [
                ([m["W1"], m["H_pre"]], free),
                ([None, m["H"]], keep),
                ([None, m["ones2"]], keep),
                ([m["W2"], m["Y"]], free),
            ]
            return rows + ([([None, m["out"]], free)] if "out" in m else [])
        return rows + [
            ([m["W1"], m["H_pre"], m["H"]], keep),
            ([None, None, m["ones2"]], keep),
            ([None, m["W2"], m["Y"], m.get("out")], free),
        ]
    # Row convention: tokens are rows. Each weight sits above its product and its input to the
    # left, with the column of 1s between them; the products go down the page, one under another.
    rows += [
        ([None, None, m["W1"]], keep),
        ([*source, m["H_pre"]], free),
        ([None, None, m["W2"]], keep),
        ([m["H"], m["ones2"], m["Y"]], free),
    ]
    return rows + ([([None, None, m["out"]], free)] if "out" in m else [])


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    from generator.kinds.ffn.steps import steps as ffn_steps

    _ = translations(lang).gettext
    row = problem.convention == "row"
    values = [solution.H_pre, solution.H, solution.Y] + ([solution.out] if solution.out is not None else [])
    width = max(cell_width(m, 4) for m in values + [problem.X])
    n, d = problem.n_tokens, problem.d_model
    steps = {s.key[1]: s for s in ffn_steps(problem)}
    m = {
        "Xa": replace(
            matrix(
                "X ; 1" if not row else "X | 1",
                _("inputs, with a row of 1s") if not row else _("inputs, with a column of 1s"),
                problem.X + ((1,) * n,) if not row else tuple(tuple(r) + (1,) for r in problem.X),
                tone="input",
                given=not blank,
                cell_w=width,
                **tokens_of(problem),
            ),
            **({"split_rows": (d,)} if not row else {"split_cols": (d,)}),
        )
    }
    m.update(layer_matrices(problem, solution, steps, key, _, blank, width))
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    return lambda stacked: layer_rows(
        problem, m, stacked, [([None, m["Xa"]], True)] if problem.convention == "column" else [], [m["Xa"], None]
    )


def rules(problem, key: bool, lang: str = "en", first: tuple = (), last: tuple = ()) -> list[str]:
    """The rules box's lines, true for the sheet (`first` and `last`: a kind built on it adds its own)."""
    _ = translations(lang).gettext
    lines = list(first)
    if problem.residual and not first:
        lines.append(_("out = X + Y: add entry by entry (the residual connection)."))
    lines.append(
        _(
            "A bias is its weights' last column, and a row of 1s goes below the input, so each product is "
            "still row · column."
        )
        if problem.convention == "column"
        else _(
            "A bias is its weights' last row, and a column of 1s goes beside the input, so each product is "
            "still row · column."
        )
    )
    lines.append(_("ReLU: every negative entry becomes 0; the others stay."))
    lines.append(_(PRODUCT_RULE))
    return ["• " + line for line in lines + list(last)]


def worked(problem, solution, lang: str = "en", source=None, source_name: str = "X") -> list[list[str]]:
    """One entry of every layer step, worked out in full for the key (token 1, feature or unit 1)."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    # Entries by meaning, whatever the convention: (unit or feature r, token j).
    at = (lambda m, a, b: m[a][b]) if not row else (lambda m, a, b: m[b][a])
    token = (lambda m, j: [r[j] for r in m]) if not row else (lambda m, j: list(m[j]))
    unit = (lambda w: list(w[0])) if not row else (lambda w: [r[0] for r in w])
    source = problem.X if source is None else source
    names = {"x": source_name}
    h = at(solution.H_pre, 0, 0)
    first = (
        _("H_pre, unit 1, token 1 = row 1 of [W1 | b1] · column 1 of [%(x)s ; 1]")
        if not row
        else _("H_pre, token 1, unit 1 = row 1 of [%(x)s | 1] · column 1 of [W1 ; b1]")
    ) % names
    second = (
        _("Y, feature 1, token 1 = row 1 of [W2 | b2] · column 1 of [H ; 1]")
        if not row
        else _("Y, token 1, feature 1 = row 1 of [H | 1] · column 1 of [W2 ; b2]")
    )
    lines = [
        [first, f"= {dot(unit(problem.W1) + [problem.b1[0]], token(source, 0) + [1])}", equals(h)],
        [f"ReLU({sheet_value(h)})", equals(at(solution.H, 0, 0))],
        [
            second,
            f"= {dot(unit(problem.W2) + [problem.b2[0]], token(solution.H, 0) + [1])}",
            equals(at(solution.Y, 0, 0)),
        ],
    ]
    if solution.out is not None:
        lines.append(
            [
                _("out, feature 1, token 1 = %(x)s + Y") % names,
                f"= {sheet_value(at(source, 0, 0))} + {factor(at(solution.Y, 0, 0))}",
                equals(at(solution.out, 0, 0)),
            ]
        )
    return lines


SHEET = OneGrid(_matrices, _rows, rules, worked, TITLE, grows=grown_since(2))
"""Its sheet: one grid of layers (sheet/layers)."""
view, check_fits, form_blocks = SHEET.view, SHEET.check_fits, SHEET.form_blocks
