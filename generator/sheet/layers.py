"""What an FFN or a transformer-block sheet shows: the layers by hand, each bias its weights' last column, rows of 1s.

A sheet of the feed-forward layer, or of a block with its attention given, is one grid that
flows over the page (a stacked head, as the layout already prints); a block with computed
attention is its attention head(s), as on an attention sheet, then this grid in a frame.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional

from generator.core.errors import LayoutError
from generator.core.numbers import sheet_value
from generator.core.kinds.attention.problem import Solution
from generator.core.student import Student
from generator.sheet.fit import worked_height, worked_panel
from generator.sheet.graded import GradedSheet, score_panel
from generator.sheet.grid import GridView, cell_width, grid, marked, matrix
from generator.sheet.i18n import translations
from generator.sheet.look import SCORE_GAP_PT
from generator.sheet.model import Settings
from generator.sheet.panel import band_panels
from generator.sheet.rules import _dot, _equals, _factor, rules_lines, worked_example
from generator.sheet.sheetview import HeadView, SheetView
from generator.sheet.style import RULES_MAX_PT, raster_width
from generator.sheet.views import (
    CONTENT_WIDTH_PT,
    FRAME_WIDTH_PT,
    MIN_SCALE,
    MIN_SIDE_BY_SIDE_SCALE,
    attention_fits,
    head_view,
    rules_width,
    worked_panel_for,
)

STEPS = {"Zc": "Z", "Zo": "output", "Z": "Z", "R": "R", "Hpre": "H_pre", "H": "H", "Y": "Y", "out": "out"}
"""Each computed matrix of the layer grid, by view name: its step in answers@1 and grade@1 (outside the heads)."""



def _with_bias(w, b, row: bool) -> tuple:
    """Weights with their bias as the last column (the last row, in the row convention)."""
    return tuple(map(tuple, w)) + (tuple(b),) if row else tuple(tuple(r) + (x,) for r, x in zip(w, b))


def _ones(n: int, row: bool) -> tuple:
    return tuple((1,) for _ in range(n)) if row else ((1,) * n,)


def layer_matrices(problem, solution, key: bool, lang: str = "en", blank: bool = False,
                   marks: Optional[dict] = None) -> dict:
    """Every matrix of the layer grid, by view name; on a graded sheet what the student wrote."""
    _ = translations(lang).gettext
    given = not blank
    row = problem.convention == "row"
    n, d, f = problem.n_tokens, problem.d_model, problem.d_ff
    block = problem.kind == "transformer"
    source = "R" if block else "X"
    tokens = {"tokens": [f"x{j + 1}" for j in range(n)]} if not row else {"row_labels": [f"x{j + 1}" for j in range(n)]}
    values = [solution.H_pre, solution.H, solution.Y] + ([solution.out] if solution.out is not None else [])
    if block:
        values += [solution.R, solution.Z] + ([solution.output] if solution.output is not None else [])
    width = max(cell_width(m, 4) for m in values + [problem.X])
    split = {"split_cols": (d,)} if not row else {"split_rows": (d,)}
    m = {}
    if block:
        m["X"] = matrix("X", _("inputs"), problem.X, tone="input", given=given, cell_w=width, **tokens)
        if problem.attention == "given":
            m["A"] = matrix("A", _("attention weights, given"), problem.A, tone="attn", given=given,
                            cell_w=cell_width(problem.A, 4))
            m["Z"] = matrix("Z = A·X" if row else "Z = X·A", _("attended inputs"), solution.Z, tone="attn", key=key,
                            cell_w=width)
        elif problem.W_O is not None:
            heads = len(problem.heads)
            ends = tuple(problem.d_v * h for h in range(1, heads))
            zc = matrix("Z_concat", _("heads' outputs, concatenated"), solution.Z, tone="out", key=key,
                        cell_w=cell_width(solution.Z, 4))
            m["Zc"] = replace(zc, split_cols=ends) if row else replace(zc, split_rows=ends)
            m["W_O"] = matrix("W_O", _("output weights"), problem.W_O, tone="weight", given=given,
                              cell_w=cell_width(problem.W_O, 4))
            m["Zo"] = matrix("Z_concat·W_O" if row else "W_O·Z_concat", _("attention's output"), solution.output,
                             tone="out", key=key, cell_w=width)
        attended = "Z" if problem.attention == "given" or problem.W_O is None else "W_O·Z_concat"
        m["R"] = matrix(f"R = X + {attended}" if not row or attended == "Z" else "R = X + Z_concat·W_O",
                        _("residual"), solution.R, tone="input", key=key, cell_w=width)
        m["ones1"] = matrix("1", _("a row of 1s") if not row else "", _ones(n, row), tone="input",
                            given=True, cell_w=width if not row else 3)
        m["Xa"] = m["R"]
    else:
        m["Xa"] = replace(matrix("X ; 1" if not row else "X | 1", _("inputs, with a row of 1s") if not row else
                                 _("inputs, with a column of 1s"),
                                 problem.X + ((1,) * n,) if not row else tuple(tuple(r) + (1,) for r in problem.X),
                                 tone="input", given=given, cell_w=width, **tokens),
                          **({"split_rows": (d,)} if not row else {"split_cols": (d,)}))
    w1 = _with_bias(problem.W1, problem.b1, row)
    w2 = _with_bias(problem.W2, problem.b2, row)
    m["W1"] = replace(matrix("W1 ; b1" if row else "W1 | b1", _("weights, bias last"), w1, tone="weight",
                             given=given, cell_w=cell_width(w1, 4)), **split)
    m["Hpre"] = matrix(f"H_pre = {source}·W1 + b1" if row else f"H_pre = W1·{source} + b1", _("first layer"),
                       solution.H_pre, tone="score", key=key, cell_w=width)
    m["H"] = matrix("H = ReLU(H_pre)", _("negatives to 0"), solution.H, tone="score", key=key, cell_w=width)
    m["ones2"] = matrix("1", _("a row of 1s") if not row else "", _ones(n, row), tone="input",
                        given=True, cell_w=width if not row else 3)
    m["W2"] = replace(matrix("W2 ; b2" if row else "W2 | b2", _("weights, bias last"), w2, tone="weight",
                             given=given, cell_w=cell_width(w2, 4)), **({"split_cols": (f,)} if not row else
                                                                         {"split_rows": (f,)}))
    m["Y"] = matrix("Y = H·W2 + b2" if row else "Y = W2·H + b2", _("second layer"), solution.Y, tone="out", key=key,
                    cell_w=width)
    if solution.out is not None:
        m["out"] = matrix(f"out = {source} + Y", _("residual"), solution.out, tone="out", key=key, cell_w=width)
    # Each computed matrix named with its step: what a scanner reads where (sheet/boxes.py).
    m = {name: replace(view, step=STEPS[name]) if name in STEPS else view for name, view in m.items()}
    if block:
        m["Xa"] = m["R"]
    if marks is None:
        return m
    out = dict(m)
    for name, step in STEPS.items():
        if name in m and step in marks:
            out[name] = marked(m[name], marks[step])
    out["Xa"] = out["R"] if block else out["Xa"]
    return out


def layer_arrangement(problem, m: dict, stacked: bool = False) -> list[tuple[list, bool]]:
    """Rows of the layer grid, each product where its factors' rows and columns cross: the left
    factor in its row, the one above in its column; `stacked`: in the column convention, every
    step below the one before it (too many tokens for H and out beside their grids). Each row
    comes with whether it holds a factor of the next row's product (a page may not end after it)."""
    block = problem.kind == "transformer"
    keep, free = True, False
    if problem.convention == "column":
        # H (elementwise) beside H_pre; Y under H, its factors [H ; 1] above and [W2 | b2] to the
        # left (under H_pre); out (elementwise) beside Y: a page holds the whole block.
        rows: list[tuple[list, bool]] = []
        if block and problem.attention == "given":
            rows += [([None, m["A"]], keep), ([m["X"], m["Z"]], free)]
        elif block and "Zc" in m:
            rows += [([None, m["Zc"]], keep), ([m["W_O"], m["Zo"]], free)]
        rows += [([None, m["R"]], keep), ([None, m["ones1"]], keep)] if block else [([None, m["Xa"]], keep)]
        if stacked:
            rows += [([m["W1"], m["Hpre"]], free), ([None, m["H"]], keep), ([None, m["ones2"]], keep),
                     ([m["W2"], m["Y"]], free)]
            return rows + ([([None, m["out"]], free)] if "out" in m else [])
        return rows + [([m["W1"], m["Hpre"], m["H"]], keep), ([None, None, m["ones2"]], keep),
                       ([None, m["W2"], m["Y"], m.get("out")], free)]
    # Row convention: tokens are rows. Each weight sits above its product and its input to the
    # left, with the column of 1s between them; the products go down the page, one under another.
    rows = []
    if block and problem.attention == "given":
        rows += [([None, None, m["X"]], keep), ([m["A"], None, m["Z"]], free)]
    elif block and "Zc" in m:
        rows += [([None, None, m["W_O"]], keep), ([m["Zc"], None, m["Zo"]], free)]
    source = [m["R"], m["ones1"]] if block else [m["Xa"], None]
    rows += [([None, None, m["W1"]], keep), ([*source, m["Hpre"]], free), ([None, None, m["W2"]], keep),
             ([m["H"], m["ones2"], m["Y"]], free)]
    return rows + ([([None, None, m["out"]], free)] if "out" in m else [])


def layer_grid(problem, solution, key: bool, lang: str, blank: bool = False, marks: Optional[dict] = None,
               framed: bool = False) -> GridView:
    """The layer grid, scaled to the page's width, or a LayoutError saying what to change."""
    return layer_layout(problem, solution, key, lang, blank, marks, framed)[1]


def layer_layout(problem, solution, key: bool, lang: str = "en", blank: bool = False, marks: Optional[dict] = None,
                 framed: bool = False) -> tuple[dict, GridView, bool]:
    """The layer grid's matrices by name, the grid as the printed sheet places them (compact, or
    each step below the last where that is too wide: `stacked`), scaled to the page, and `stacked`."""
    m = layer_matrices(problem, solution, key, lang, blank, marks)
    width = FRAME_WIDTH_PT if framed else CONTENT_WIDTH_PT
    for stacked in (False, True):
        g = grid([cells for cells, _ in layer_arrangement(problem, m, stacked)])
        # A caption may reach a character past its column (grid): the last column's has no gap
        # to reach into, so the page keeps one character for it.
        scale = min(1.0, width / raster_width(g.cols + 1))
        if scale >= MIN_SIDE_BY_SIDE_SCALE:
            break
    if scale < MIN_SCALE:
        raise LayoutError(f"{problem.kind} sheet: its grid would be {g.width_pt:.0f} pt wide where a page has "
                          f"{width:.0f} (its text under 7 pt); use fewer --tokens, a smaller --d-model or --d-ff, "
                          "or the column convention")
    return m, replace(g, scale=math.floor(scale * 100) / 100) if scale < 1.0 else g, stacked


def layer_head(problem, solution, key: bool, lang: str, blank: bool = False, marks: Optional[dict] = None,
               framed: bool = False) -> HeadView:
    """The layer grid as a head that flows over the page, a band at a time."""
    m, g, stacked = layer_layout(problem, solution, key, lang, blank, marks, framed)
    # A band holding a factor of the next band's product never ends a page (grid bands are its rows).
    rows = layer_arrangement(problem, m, stacked)
    kept = frozenset(k for k, (_, keep) in enumerate(rows) if keep and k < len(g.bands) - 1)
    return HeadView(stacked=True, beside=False, beside_out=False, out_apart=False, proj_width_pt=g.width_pt,
                    rules_left_pt=0.0, bands=(("layer", tuple(band_panels(g, kept))),))


def attention_solution(problem, solution) -> Solution:
    """A computed block's attention part as the attention kind's solution."""
    return Solution(problem=problem.attention_problem(), heads=solution.heads, Z=solution.Z, output=solution.output)


def layer_rules(problem, key: bool, lang: str = "en") -> list[str]:
    """The rules box's lines for an FFN or a block, true for the sheet."""
    _ = translations(lang).gettext
    lines = []
    if problem.kind == "transformer":
        if problem.attention == "computed":
            lines += [line[2:] for line in rules_lines(problem.attention_problem(), True, lang)[:3]]
        else:
            lines.append(_("Z = X·A: each column of A says how much of each token's column of X to take.")
                         if problem.convention == "column" else
                         _("Z = A·X: each row of A says how much of each token's row of X to take."))
        lines.append(_("R = X + Z, and out = R + Y: add entry by entry (the residual connections)."))
    elif problem.residual:
        lines.append(_("out = X + Y: add entry by entry (the residual connection)."))
    lines.append(_("A bias is its weights' last column, and a row of 1s goes below the input, so each product is "
                   "still row · column.") if problem.convention == "column" else
                 _("A bias is its weights' last row, and a column of 1s goes beside the input, so each product is "
                   "still row · column."))
    lines.append(_("ReLU: every negative entry becomes 0; the others stay."))
    lines.append(_("Each entry of a product = the row of the factor on its left · the column of the factor above "
                   "it."))
    if not key and problem.kind == "transformer":
        lines.append(_("Write fractions (they need not be reduced); no decimals are needed."))
    return ["• " + line for line in lines]


def layer_worked(problem, solution, lang: str = "en") -> list[list[str]]:
    """One entry of every layer step, worked out in full for the key (token 1, feature or unit 1)."""
    _ = translations(lang).gettext
    row = problem.convention == "row"
    # Entries by meaning, whatever the convention: (unit or feature r, token j).
    at = (lambda m, a, b: m[a][b]) if not row else (lambda m, a, b: m[b][a])
    token = (lambda m, j: [r[j] for r in m]) if not row else (lambda m, j: list(m[j]))
    unit = (lambda w: list(w[0])) if not row else (lambda w: [r[0] for r in w])
    source = solution.R if problem.kind == "transformer" else problem.X
    names = {"x": "R" if problem.kind == "transformer" else "X"}
    h = at(solution.H_pre, 0, 0)
    first = (_("H_pre, unit 1, token 1 = row 1 of [W1 | b1] · column 1 of [%(x)s ; 1]") if not row else
             _("H_pre, token 1, unit 1 = row 1 of [%(x)s | 1] · column 1 of [W1 ; b1]")) % names
    second = (_("Y, feature 1, token 1 = row 1 of [W2 | b2] · column 1 of [H ; 1]") if not row else
              _("Y, token 1, feature 1 = row 1 of [H | 1] · column 1 of [W2 ; b2]"))
    lines = [[first, f"= {_dot(unit(problem.W1) + [problem.b1[0]], token(source, 0) + [1])}", _equals(h)],
             [f"ReLU({sheet_value(h)})", _equals(at(solution.H, 0, 0))],
             [second, f"= {_dot(unit(problem.W2) + [problem.b2[0]], token(solution.H, 0) + [1])}",
              _equals(at(solution.Y, 0, 0))]]
    if solution.out is not None:
        lines.append([_("out, feature 1, token 1 = %(x)s + Y") % names,
                      f"= {sheet_value(at(source, 0, 0))} + {_factor(at(solution.Y, 0, 0))}",
                      _equals(at(solution.out, 0, 0))])
    return lines


def layer_sheet_view(problem, solution, student: Student, settings: Settings, key: bool,
                     graded: Optional[GradedSheet] = None) -> SheetView:
    """Everything the template needs for an FFN's or a block's worksheet, key or graded sheet."""
    lang = settings.lang
    _ = translations(lang).gettext
    marks = graded.marks if graded else {}
    score = score_panel(graded, CONTENT_WIDTH_PT, lang) if graded else None
    header = score.height_pt + SCORE_GAP_PT if score else 0.0
    computed = problem.kind == "transformer" and problem.attention == "computed"
    worked = None
    if key and settings.worked:
        worked = (worked_example(problem.attention_problem(), attention_solution(problem, solution), lang)
                  if computed else []) + layer_worked(problem, solution, lang)
    heads: tuple[HeadView, ...] = ()
    titles: tuple[str, ...] = ()
    if computed:
        attention, att_solution = problem.attention_problem(), attention_solution(problem, solution)
        # A head whose frame, with the rules box and worked example, would not fit the first page
        # flows a band at a time instead (kept whole, it would leave that page empty).
        worked_pt = worked_height(worked_panel(worked, RULES_MAX_PT)) if worked else 0.0
        heads = tuple(head_view(attention, att_solution, h, key, settings, marks.get(h + 1) if graded else None,
                                header, worked_pt if h == 0 else 0.0, framed=True) for h in range(len(problem.heads)))
        titles = tuple(_("Head %(n)s") % {"n": h + 1} for h in range(len(heads))) if len(heads) > 1 else (
            _("Attention"),)
        titles += (_("Residual and feed-forward layer"),)
    layer = layer_head(problem, solution, key, lang, settings.blank, marks.get(None) if graded else None,
                       framed=computed)
    heads += (layer,)
    framed = len(heads) > 1
    return SheetView(
        problem=problem, heads=heads, final=None, key=key, student=student,
        rules=tuple(layer_rules(problem, key, lang)),
        rules_width_pt=rules_width(heads[0], problem.convention == "row", settings.paper, framed),
        worked=worked and worked_panel_for(worked, heads[0], problem.convention == "row", settings.paper, framed),
        graded=graded, score=score, titles=titles,
        default_title=_("A transformer block by hand") if problem.kind == "transformer" else
        _("The feed-forward layer by hand"),
    )


def layer_check_fits(problem, solution, settings: Settings) -> None:
    """Raise LayoutError now if an FFN's or a block's sheet cannot be printed legibly."""
    computed = problem.kind == "transformer" and problem.attention == "computed"
    layer_grid(problem, solution, False, settings.lang, True, None, computed)
    if computed:
        attention_fits(problem.attention_problem(), attention_solution(problem, solution), settings)

