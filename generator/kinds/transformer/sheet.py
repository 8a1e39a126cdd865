"""The transformer block's sheet: its attention (given A, or computed heads framed as on an attention sheet), then R and the FFN's layer grid.

A block with its attention given is one grid that flows over the page: A above Z = X·A, X left
of it, R below, then the FFN's layers on R. A block with computed attention is its head(s), as
on an attention sheet, then that grid in a frame (with W_O's product at its top).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.faces import N_
from generator.kinds.attention.problem import Solution
from generator.kinds.attention.sheet.rules import rules_lines, worked_example
from generator.kinds.attention.sheet.views import attention_fits, head_layout, head_view
from generator.kinds.ffn.sheet import face_matrix, layer_matrices, layer_rows, rules, tokens_of, worked
from generator.kinds.transformer.steps import FINAL_STEPS, steps
from generator.core.student import Student
from generator.sheet.fit import worked_height, worked_panel
from generator.sheet.graded import GradedSheet
from generator.sheet.grid import cell_width, matrix
from generator.sheet.i18n import translations
from generator.sheet.layers import layer_head, layer_layout, layer_sheet, ones, score_height, stepped
from generator.sheet.model import Settings
from generator.sheet.style import RULES_MAX_PT

TITLE = N_("A transformer block by hand")
"""The sheet's title where the batch gives none."""

SHOWN_IN = {"b1": "W1", "b2": "W2"}
"""Givens drawn inside another grid: X with its row of 1s, each bias as its weights' last column."""


def attention_solution(problem, solution) -> Solution:
    """A computed block's attention part as the attention kind's solution."""
    return Solution(problem=problem.attention_problem(), heads=solution.heads, Z=solution.Z, output=solution.output)


def _matrices(problem, solution, key: bool, lang: str, blank: bool, marks: Optional[dict]) -> dict:
    _ = translations(lang).gettext
    given, row = not blank, problem.convention == "row"
    by_name = {s.key[1]: s for s in steps(problem) if s.key[0] is None}
    values = [solution.H_pre, solution.H, solution.Y, solution.out, solution.R, solution.Z]
    values += [solution.output] if solution.output is not None else []
    width = max(cell_width(m, 4) for m in values + [problem.X])
    m = {"X": matrix("X", _("inputs"), problem.X, tone="input", given=given, cell_w=width, **tokens_of(problem))}
    if problem.attention == "given":
        m["A"] = matrix(
            "A", _("attention weights, given"), problem.A, tone="attn", given=given, cell_w=cell_width(problem.A, 4)
        )
        m["Z"] = face_matrix(by_name["Z"], row, _, solution.Z, key=key, cell_w=width)
    elif problem.W_O is not None:
        ends = tuple(problem.d_v * h for h in range(1, len(problem.heads)))
        zc = face_matrix(by_name["Z"], row, _, solution.Z, key=key, cell_w=cell_width(solution.Z, 4))
        m["Z"] = replace(zc, split_cols=ends) if row else replace(zc, split_rows=ends)
        m["W_O"] = matrix(
            "W_O", _("output weights"), problem.W_O, tone="weight", given=given, cell_w=cell_width(problem.W_O, 4)
        )
        m["output"] = face_matrix(by_name["output"], row, _, solution.output, key=key, cell_w=width)
    m["R"] = face_matrix(by_name["R"], row, _, solution.R, key=key, cell_w=width)
    m["ones1"] = matrix(
        "1",
        _("a row of 1s") if not row else "",
        ones(problem.n_tokens, row),
        tone="input",
        given=True,
        cell_w=width if not row else 3,
    )
    m.update(layer_matrices(problem, solution, by_name, key, _, blank, width))
    return stepped(m, FINAL_STEPS, marks)


def _rows(problem, m: dict):
    """The grid's rows: the attention's (A, or W_O's product), R and its row of 1s, then the layers."""
    keep, free = True, False
    before: list = []
    if problem.convention == "column":
        if problem.attention == "given":
            before += [([None, m["A"]], keep), ([m["X"], m["Z"]], free)]
        elif "W_O" in m:
            before += [([None, m["Z"]], keep), ([m["W_O"], m["output"]], free)]
        before += [([None, m["R"]], keep), ([None, m["ones1"]], keep)]
    else:
        if problem.attention == "given":
            before += [([None, None, m["X"]], keep), ([m["A"], None, m["Z"]], free)]
        elif "W_O" in m:
            before += [([None, None, m["W_O"]], keep), ([m["Z"], None, m["output"]], free)]
    return lambda stacked: layer_rows(problem, m, stacked, before, [m["R"], m["ones1"]])


def layout(
    problem,
    solution,
    key: bool,
    lang: str = "en",
    blank: bool = False,
    marks: Optional[dict] = None,
    framed: bool = False,
):
    """The layer grid's matrices by name, the grid as printed, and whether it is stacked."""
    m = _matrices(problem, solution, key, lang, blank, marks)
    g, stacked = layer_layout(m, _rows(problem, m), problem.kind, framed)
    return m, g, stacked


def block_rules(problem, key: bool, lang: str = "en") -> list[str]:
    """The rules box's lines, true for the sheet."""
    _ = translations(lang).gettext
    if problem.attention == "computed":
        first = [line[2:] for line in rules_lines(problem.attention_problem(), True, lang)[:3]]
    else:
        first = [
            _("Z = X·A: each column of A says how much of each token's column of X to take.")
            if problem.convention == "column"
            else _("Z = A·X: each row of A says how much of each token's row of X to take.")
        ]
    first.append(_("R = X + Z, and out = R + Y: add entry by entry (the residual connections)."))
    last = [] if key else [_("Write fractions (they need not be reduced); no decimals are needed.")]
    return rules(problem, key, lang, tuple(first), tuple(last))


def view(problem, solution, student: Student, settings: Settings, key: bool, graded: Optional[GradedSheet] = None):
    """Everything the template needs for a block's worksheet, key or graded sheet."""
    lang = settings.lang
    _ = translations(lang).gettext
    marks = graded.marks if graded else {}
    computed = problem.attention == "computed"
    lines = None
    if key and settings.worked:
        lines = (
            worked_example(problem.attention_problem(), attention_solution(problem, solution), lang) if computed else []
        ) + worked(problem, solution, lang, solution.R, "R")
    heads, titles = (), ()
    if computed:
        attention, att_solution = problem.attention_problem(), attention_solution(problem, solution)
        # A head whose frame, with the rules box and worked example, would not fit the first page
        # flows a band at a time instead (kept whole, it would leave that page empty).
        worked_pt = worked_height(worked_panel(lines, RULES_MAX_PT)) if lines else 0.0
        header = score_height(graded, lang)
        heads = tuple(
            head_view(
                attention,
                att_solution,
                h,
                key,
                settings,
                marks.get(h + 1) if graded else None,
                header,
                worked_pt if h == 0 else 0.0,
                framed=True,
            )
            for h in range(len(problem.heads))
        )
        titles = (
            tuple(_("Head %(n)s") % {"n": h + 1} for h in range(len(heads))) if len(heads) > 1 else (_("Attention"),)
        )
        titles += (_("Residual and feed-forward layer"),)
    m, g, stacked = layout(
        problem, solution, key, lang, settings.blank, marks.get(None) if graded else None, framed=computed
    )
    layer = layer_head(g, _rows(problem, m)(stacked))
    return layer_sheet(
        problem, student, settings, key, graded, heads, layer, block_rules(problem, key, lang), lines, titles, _(TITLE)
    )


def check_fits(problem, solution, settings: Settings) -> None:
    """Raise LayoutError now if the sheet cannot be printed legibly (checked on empty boxes)."""
    computed = problem.attention == "computed"
    layout(problem, solution, False, settings.lang, True, None, computed)
    if computed:
        attention_fits(problem.attention_problem(), attention_solution(problem, solution), settings)


def form_blocks(problem, solution, lang: str = "en") -> list:
    """The sheet's grids as the printed sheet places them, at full size, for a screen form: a
    computed attention's heads (without their concatenation: it is in the layer grid), then the grid."""
    from generator.kinds.attention.sheet import head_blocks
    from generator.sheet.entry import Block

    blocks = []
    if problem.attention == "computed":
        blocks += head_blocks(problem.attention_problem(), attention_solution(problem, solution), lang)
    m, g, _ = layout(problem, solution, False, lang)
    return blocks + [Block(None, "", (replace(g, scale=1.0),), m)]


__all__ = ["TITLE", "attention_solution", "check_fits", "form_blocks", "head_layout", "view"]
