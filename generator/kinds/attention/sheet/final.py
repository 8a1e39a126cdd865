"""The grid after an attention sheet's heads: the concatenation and W_O with the output, on the pages it fits."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional

from generator.core.errors import LayoutError
from generator.kinds.attention.problem import Problem, Solution
from generator.kinds.attention.sheet.arrangement import final_arrangement
from generator.kinds.attention.sheet.faced import face_matrix, marked_views, stepped
from generator.kinds.attention.steps import FACES, FINAL_STEPS
from generator.sheet.fit import FRAME_HEIGHT_PT, FRAME_WIDTH_PT, MIN_SCALE, WIDE_FRAME_HEIGHT_PT, WIDE_FRAME_WIDTH_PT
from generator.sheet.grid import GridView, cell_width, grid
from generator.sheet.i18n import translations
from generator.sheet.style import raster_width


@dataclass(frozen=True)
class FinalGrids:
    """The grid after the heads as it prints: whole, or (too tall for any page whole) the
    concatenation on one page and the projection beside W_O on the next, each on a page of the
    orientation it fits."""

    first: GridView
    wide: bool
    """`first` goes on a landscape page of its own."""
    rest: Optional[GridView] = None
    """The projection's band, when the grid is parted: W_O and the output, on a page of its own."""
    rest_wide: bool = False
    """`rest` goes on a landscape page."""


def _scaled(g: GridView, width: float) -> GridView:
    """`g` at the scale that fits it to `width` (down to a hundredth; never enlarged)."""
    scale = min(1.0, width / g.width_pt)
    return replace(g, scale=math.floor(scale * 100) / 100) if scale < 1.0 else g


def _on_a_page(whole: GridView) -> Optional[tuple[GridView, bool]]:
    """`whole` scaled to the first frame it fits, portrait then landscape, and whether that is
    landscape; None when it fits neither (its text under 7 pt, or its writing lines taller)."""
    for width, height, wide in (
        (FRAME_WIDTH_PT, FRAME_HEIGHT_PT, False),
        (WIDE_FRAME_WIDTH_PT, WIDE_FRAME_HEIGHT_PT, True),
    ):
        g = _scaled(whole, width)
        if width / whole.width_pt >= MIN_SCALE and g.height_pt <= height:
            return g, wide
    return None


def final_grid(
    problem: Problem, solution: Solution, key: bool, lang: str, blank: bool = False, marks: Optional[dict] = None
) -> Optional[FinalGrids]:
    """The concatenation (and W_O with the output) placed in a grid, when there is one, on the
    pages it fits."""
    v = final_matrices(problem, solution, key, lang, blank, marks)
    if v is None:
        return None
    rows = final_arrangement(problem.convention, v)
    whole = grid(rows)
    # Each product must stay beside its factors, so the grid is never split inside a band: it
    # is scaled to its frame's width, on a landscape page when too wide for a portrait one (its
    # text under 7 pt), and its writing lines never shrink.
    fit = _on_a_page(whole)
    if fit is not None:
        return FinalGrids(*fit)
    # Too tall whole for any page (4 heads of d_v 6 with W_O: the concatenation's 24 rows above
    # the output's): its bands part, the concatenation on a page and W_O's rows, which meet its
    # columns in the output, on the next, each as the page it fits wants it.
    bands = [grid([[m for m in band if m is not None]]) for band in rows] if len(rows) == 2 else []
    parts = [_on_a_page(band) for band in bands]
    if parts and all(parts):
        (first, wide), (rest, rest_wide) = parts
        return FinalGrids(first, wide, rest, rest_wide)
    # Say what fits nowhere: the grid when it cannot part, else its band that fits no page.
    raise LayoutError(_final_advice(problem, next((b for b, f in zip(bands, parts) if f is None), whole)))


def _final_advice(problem: Problem, g: GridView) -> str:
    """Why the grid `g` after the heads (or a band of it) fits no page, and what to change."""
    heads, dv = len(problem.heads), problem.d_v
    what = "Z_concat" + (("·W_O" if problem.convention == "row" else " and W_O·Z_concat") if problem.W_O else "")
    wide = WIDE_FRAME_WIDTH_PT / g.width_pt < MIN_SCALE
    # Its writing lines never shrink: the tallest page its width allows is the one it missed.
    portrait = FRAME_WIDTH_PT / g.width_pt >= MIN_SCALE
    page, height = ("a page", FRAME_HEIGHT_PT) if portrait else ("a landscape page", WIDE_FRAME_HEIGHT_PT)
    scaled = _scaled(g, FRAME_WIDTH_PT if portrait else WIDE_FRAME_WIDTH_PT)
    size = (
        f"{raster_width(g.cols):.0f} pt wide where a landscape page has {WIDE_FRAME_WIDTH_PT:.0f} (its text under 7 pt)"
        if wide
        else f"{scaled.height_pt:.0f} pt tall where {page} has {height:.0f} (its boxes too small to write in)"
    )
    fix = "fewer --heads or a smaller --d-v" + (" or --d-model" if problem.W_O else "")
    if problem.convention == "row" and wide:
        fix += ", or the column convention"
    return f"{heads} heads of d_v {dv}: {what} would be {size}; use {fix}"


def final_matrices(
    problem: Problem, solution: Solution, key: bool, lang: str = "en", blank: bool = False, marks: Optional[dict] = None
) -> Optional[dict]:
    """Concatenation and output projection, when there are several heads or a W_O."""
    _ = translations(lang).gettext
    given = not blank
    if len(problem.heads) == 1 and problem.W_O is None:
        return None
    row = problem.convention == "row"
    # Each as wide as its own widest value: the output's fractions are often longer than Z's.
    w = cell_width(solution.output, 6, True) if solution.output is not None else 0
    # The concatenation copies each head's Z: its fractions, without their decimals again (one
    # line a cell keeps three or four heads with W_O on one page, every box still 7 mm tall).
    # Row convention: its rows meet the output's two-line rows, so they are two lines tall.
    zc = face_matrix(
        FACES["Z_concat"],
        row,
        _,
        solution.Z,
        key=key,
        cell_w=cell_width(solution.Z, 6),
        tall=row and problem.W_O is not None,
    )
    # A heavier line where one head's block of rows (columns, in the row convention) ends.
    ends = tuple(problem.d_v * h for h in range(1, len(problem.heads)))
    views = {"Z": replace(zc, split_cols=ends) if row else replace(zc, split_rows=ends)}
    if problem.W_O is not None:
        # Column layout: W_O's rows meet the output's two-line rows, so its rows are two lines tall.
        views["W_O"] = face_matrix(
            FACES["W_O"],
            row,
            _,
            problem.W_O,
            given=given,
            cell_w=w if row else cell_width(problem.W_O, 4),
            tall=not row,
        )
        views["output"] = face_matrix(FACES["output"], row, _, solution.output, key=key, cell_w=w)
    views = stepped(views, FINAL_STEPS, None)
    return views if marks is None else marked_views(views, FINAL_STEPS, marks, row)
