"""How much of a page a sheet's grids take, and how much their writing lines grow to fill it."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from generator.sheet.grid import GridView
from generator.sheet.look import FRAME_INSET_PT, SPACED_PT
from generator.sheet.panel import PanelView, text_panel
from generator.sheet.sheetview import HeadView
from generator.sheet.style import (
    CHAR_PT,
    FONT_PT,
    FOOT_PT,
    HEADER_PT,
    MAX_STRETCH,
    RULES_CHAR_PT,
    RULES_CHROME_PT,
    RULES_CHROME_W_PT,
    RULES_LINE_PT,
    RULES_MAX_PT,
    STYLES,
    content_height,
    content_width,
)

CONTENT_WIDTH_PT = 520.0
"""Width inside the page margins (A4 is the narrower paper): wider grids are scaled down."""


MIN_SIDE_BY_SIDE_SCALE = 0.8
"""Below this, a head is stacked rather than shrunk further beside itself."""


FRAME_WIDTH_PT = 500.0
"""Width inside a frame (the concatenation's): the content width less its border and padding."""


FRAME_HEIGHT_PT = 676.0
"""Height inside a frame on a page of its own (Letter, the shorter paper), under its title."""


WIDE_FRAME_WIDTH_PT = 698.0
"""Width inside a frame on a landscape page (Letter, the narrower paper turned: 718 pt inside its margins)."""


WIDE_FRAME_HEIGHT_PT = 479.0
"""Height inside a frame on a landscape page of its own (A4 turned, the shorter), under its title."""


MIN_SCALE = 0.7
"""The least any grid is scaled: its text stays at 7 pt or more."""


FRAME_CHROME_PT = 34.0
"""What a head's frame takes of a page's height: its title, padding, border and margin."""


SLACK_PT = 0.5
"""Kept free at a page's foot: the rounding of the panels' places."""


def page_room(paper: str, framed: bool, header_pt: float = 0.0) -> float:
    """The height a head may take on a sheet's first page: under the header (and a graded
    sheet's score, `header_pt`), inside its frame when there are several heads."""
    return content_height(paper) - HEADER_PT - header_pt - (FRAME_CHROME_PT if framed else 0.0) - SLACK_PT


def rules_height(rules: Sequence[str], width_pt: float) -> float:
    """About how tall the rules box of these lines is at this width (give the worksheet's, the
    longer of the two: a key has the same boxes as its worksheet)."""
    per_line = max(1, int(width_pt / RULES_CHAR_PT))
    lines = sum(math.ceil(len(line) / per_line) for line in rules)
    return lines * RULES_LINE_PT + RULES_CHROME_PT


def worked_panel(lines: Sequence[Sequence[str]], width_pt: float) -> PanelView:
    """A key's worked example as a text panel `width_pt` wide, each line broken only between
    its expressions, and a sum too long for a line before one of its terms ("+ ...")."""
    chars = int(width_pt / (CHAR_PT * STYLES["workings"].size / FONT_PT))
    return text_panel(
        [("workings", [piece for expr in line for piece in _terms(expr, chars)]) for line in lines],
        width_pt,
        1.0,
        RULES_LINE_PT,
    )


def _terms(expr: str, chars: int) -> list[str]:
    """`expr` whole, or where it is longer than `chars`, its terms: the first, then "+ term"."""
    if len(expr) <= chars or " + " not in expr:
        return [expr]
    first, *rest = expr.split(" + ")
    return [first, *(f"+ {term}" for term in rest)]


def worked_height(panel: PanelView) -> float:
    """How tall the worked example's box is below a grid, with its gap."""
    return SPACED_PT + RULES_CHROME_PT + panel.height_pt


def stack_height(stack: tuple[list[GridView], float], stretch: float = 1.0) -> float:
    """A stack's height with its writing lines at `stretch` (each grid's panel: its lines and
    the bottom brackets' half width)."""
    grids, other = stack
    return sum(replace(g, stretch=stretch).height_pt + FOOT_PT * g.scale for g in grids) + other


def stretch_to(stacks: list[tuple[list[GridView], float]], room: float, least: float = 1.0) -> float:
    """How much the writing lines may grow so that every stack still fits in `room` (`least`,
    1 for a sheet to write on, to MAX_STRETCH).

    A grid's height is nearly linear in its stretch (lines are rounded to a twentieth of a
    point), so each stack's bound is one division, then checked."""
    best = MAX_STRETCH
    for stack in stacks:
        low, high = stack_height(stack, 1.0), stack_height(stack, 2.0)
        if high > low:
            best = min(best, 1.0 + (room - low) / (high - low))
    best = math.floor(best * 100) / 100
    while best > least and any(stack_height(stack, best) > room for stack in stacks):
        best = round(best - 0.01, 2)
    return max(least, best)


def worked_panel_for(worked: list[list[str]], head: HeadView, row: bool, paper: str, framed: bool):
    """A key's worked example as a text panel, as wide as the first head's layout leaves it."""
    return worked_panel(worked, worked_width(head, row, paper, framed))


def worked_width(head: HeadView, row: bool, paper: str, framed: bool) -> float:
    """The width of the worked example's text, wherever the first head's layout puts it."""
    room = content_width(paper) - (2 * FRAME_INSET_PT if framed else 0) - RULES_CHROME_W_PT
    if head.stacked:
        return round(room, 2)  # above the grids, across the page, under the rules box
    if not row:
        return round(head.proj_width_pt - RULES_CHROME_W_PT, 2)  # under the rules box, as wide
    return round(min(RULES_MAX_PT, room), 2)  # after the output


def rules_width(head: HeadView, row: bool, paper: str, framed: bool) -> float:
    """The width of the rules box's text, wherever the first head's layout puts the box: set,
    not left to the page's CSS, so that text laid out once fits every sheet of a batch."""
    room = content_width(paper) - (2 * FRAME_INSET_PT if framed else 0)
    chrome = RULES_CHROME_W_PT
    if head.stacked:
        return round(room - chrome, 2)  # above the grids, across the page
    if not row:
        return round(head.proj_width_pt - chrome, 2)  # below the projections, as wide as they are
    if head.beside or head.beside_out:
        return round(min(RULES_MAX_PT, room - head.rules_left_pt - chrome), 2)
    return round(room - chrome, 2)
