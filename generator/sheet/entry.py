"""A sheet as a screen form: every cell of every matrix where the paper has it, in points.

The same grids as the printed sheet (`arrangement`), placed the same way: a teacher
types what is on a student's paper into boxes that sit where that paper's boxes sit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from generator.core.kinds import grid_shapes, has_final, heads_of
from generator.core.kinds.attention.problem import Problem, Solution
from generator.sheet.arrangement import final_arrangement
from generator.sheet.grid import GridView, grid
from generator.sheet.i18n import translations
from generator.sheet.layers import STEPS, attention_solution, layer_layout
from generator.sheet.style import CAPTION_CHAR, CHAR_PT, EDGE_PT, GAP
from generator.sheet.views import FINAL_STEPS, HEAD_STEPS, final_matrices, head_layout

HEAD_GAP_PT = 24.0
"""Space between one head's form and the next."""
TITLE_PT = 18.0
"""Height of a head's title ("Head 2") above its boxes, when a sheet has several heads."""


@dataclass(frozen=True)
class Cell:
    """One box of the form."""

    x: float
    """Left, in points from the form's left."""
    y: float
    """Top, in points from the form's top."""
    w: float
    """Width, in points."""
    h: float
    """Height, in points (two lines for a fraction and its decimals)."""
    i: int
    """Row in the sheet's layout of its grid."""
    j: int
    """Column in the sheet's layout of its grid."""
    text: str = ""
    """The given value (X, the weights); empty for a box to fill."""
    masked: bool = False
    """Struck out by the causal mask: nothing to type."""


@dataclass(frozen=True)
class Box:
    """One matrix of the form."""

    head: Optional[int]
    """1-based head, or None for the concatenation and the output."""
    step: Optional[str]
    """Its step in answers@1 ("Q", "K_T", ...); None for given data."""
    label: str
    """Its name and what it is, as the sheet's caption says."""
    x: float
    """The caption's left."""
    y: float
    """The caption's top."""
    tone: str
    """Colour family (style.TONES)."""
    cells: tuple[Cell, ...]
    """Its boxes, row by row."""
    name: str = ""
    """Its view's name on the sheet ("X", "W_Q", "Qc", "S2", ...): what the projector lights up."""
    headings: tuple[Cell, ...] = ()
    """Its column headings (x1, q1, ...) above it and row headings (k1, ...) left of it, as on paper."""
    end: bool = False
    """Its caption ends where its grid ends (a matrix left of the one it multiplies)."""


@dataclass(frozen=True)
class Form:
    """A whole sheet as a form."""

    boxes: tuple[Box, ...]
    """Every matrix, in the order a student works (given data first in each head)."""
    width: float
    """The form's width, in points."""
    height: float
    """Its height, in points."""
    shapes: dict
    """The shape of each step's grid, as answers@1 wants them: {head: {step: (rows, cols)}}."""
    titles: tuple[tuple[str, float], ...] = ()
    """Each head's title and its top, as the printed sheet titles them (several heads only)."""


def _boxes(g: GridView, left: float, top: float, names: dict[int, str], head: Optional[int],
           views: Optional[dict[int, str]] = None) -> list[Box]:
    out = []
    tops = g.tops
    for c in g.cells:
        m = c.m
        x0 = left + EDGE_PT + c.col * CHAR_PT
        step = names.get(id(m))
        masked = set(m.masked)
        cells = []
        for i in range(m.rows):
            line = m.lines[i * m.cell_h] if m.lines else ""
            for j in range(m.cols):
                given = line[j * m.cell_w:(j + 1) * m.cell_w].strip() if not m.boxes else ""
                y0, y1 = tops[c.body_row + i * m.cell_h], tops[c.body_row + (i + 1) * m.cell_h]
                cells.append(Cell(x0 + j * m.cell_w * CHAR_PT, top + y0, m.cell_w * CHAR_PT, y1 - y0, i, j, given,
                                  (i, j) in masked))
        headings = []
        if m.tokens:  # the line between the caption and the body
            y0, y1 = tops[c.row + 1], tops[c.body_row]
            headings += [Cell(x0 + j * m.cell_w * CHAR_PT, top + y0, m.cell_w * CHAR_PT, y1 - y0, -1, j, name)
                         for j, name in enumerate(m.tokens)]
        for i, name in enumerate(m.row_labels):  # left of the body, in the label_chars before it
            y0, y1 = tops[c.body_row + i * m.cell_h], tops[c.body_row + (i + 1) * m.cell_h]
            headings.append(Cell(x0 - m.label_chars * CHAR_PT, top + y0, m.label_chars * CHAR_PT, y1 - y0, i, -1, name))
        caption_x = (left + EDGE_PT + (c.col + m.text_chars) * CHAR_PT - len(m.caption_text) * CHAR_PT * CAPTION_CHAR
                     if c.end else left + EDGE_PT + c.col * CHAR_PT)
        out.append(Box(head, step, m.caption_text, caption_x, top + tops[c.row], m.tone, tuple(cells),
                       (views or {}).get(id(m), ""), tuple(headings), c.end))
    return out


def form(problem, solution, lang: str = "en") -> Form:
    """The sheet of `problem` (any kind) as a form, in its convention's layout, its captions in `lang`."""
    boxes: list[Box] = []
    top, width, titles = 0.0, 0.0, []
    layered = problem.kind != "attention"
    attention = problem if not layered else problem.attention_problem() if getattr(problem, "heads", ()) else None
    if attention is not None:
        # A block's concatenation and W_O are in its layer grid, as on its printed sheet.
        boxes, top, width, titles = _attention_boxes(attention, attention_solution(problem, solution) if layered
                                                     else solution, lang, final=not layered)
    if layered:
        m, g, _ = layer_layout(problem, solution, False, lang)  # the printed sheet's grid, at full size
        g = replace(g, scale=1.0)
        names = {id(view): STEPS[name] for name, view in m.items() if name in STEPS}
        boxes += _boxes(g, 0.0, top, names, None)
        top += g.height_pt
        width = max(width, g.width_pt)
    heads, final = grid_shapes(problem)
    shapes = {h + 1: heads for h in range(heads_of(problem))}
    if final:
        shapes[None] = final
    return Form(tuple(boxes), round(width, 2), round(top, 2), shapes, tuple(titles))


def _attention_boxes(problem: Problem, solution: Solution, lang: str,
                     final: bool = True) -> tuple[list[Box], float, float, list[tuple[str, float]]]:
    """The heads (and, on an attention sheet, the concatenation) as boxes; the height and width they
    take; each head's title and its top (several heads: "Head 2", as on paper)."""
    boxes: list[Box] = []
    top, width, titles = 0.0, 0.0, []
    row = problem.convention == "row"
    _ = translations(lang).gettext
    for h in range(len(problem.heads)):
        if len(problem.heads) > 1:
            titles.append((_("Head %(n)s") % {"n": h + 1}, round(top, 2)))
            top += TITLE_PT
        m, grids, stacked = head_layout(problem, solution, h, False, lang)  # the printed sheet's grids
        names = {id(view): HEAD_STEPS[name] for name, view in m.items() if name in HEAD_STEPS}
        views = {id(view): name for name, view in m.items()}
        if row or stacked:  # one grid below the other, as on paper
            for name in [name for name in ("proj", "att", "out") if name in grids]:
                boxes += _boxes(grids[name], 0.0, top, names, h + 1, views)
                top += grids[name].height_pt + HEAD_GAP_PT
                width = max(width, grids[name].width_pt)
        else:  # the projections left, the attention block right, side by side as on paper
            right = (grids["proj"].cols + GAP) * CHAR_PT
            boxes += (_boxes(grids["proj"], 0.0, top, names, h + 1, views)
                      + _boxes(grids["att"], right, top, names, h + 1, views))
            top += max(grids["proj"].height_pt, grids["att"].height_pt)
            width = max(width, right + grids["att"].width_pt)
        top += HEAD_GAP_PT
    if final and has_final(problem):
        m = final_matrices(problem, solution, False, lang)
        names = {id(view): FINAL_STEPS[name] for name, view in m.items() if name in FINAL_STEPS}
        g = grid(final_arrangement(problem.convention, m))
        boxes += _boxes(g, 0.0, top, names, None, {id(view): name for name, view in m.items()})
        top += g.height_pt + HEAD_GAP_PT
        width = max(width, g.width_pt)
    return boxes, top, width, titles

