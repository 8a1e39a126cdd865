"""A sheet of layers by hand: one grid that flows over the page, each bias its weights' last column, rows of 1s.

What every kind worked as layers shares (a kind's folder gives its matrices and where they go):
a grid placed so each product sits where its factors' rows and columns cross, compact or each
step below the last where that is too wide, scaled to the page, kept with the band after it
where a band holds a factor of the next band's product, flowing a band at a time; and the
sheet around it (heads before it, the rules box, the worked example, the score).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

from generator.core.errors import LayoutError
from generator.core.words import N_
from generator.sheet.entry import Block
from generator.sheet.fit import (
    CONTENT_WIDTH_PT,
    FRAME_WIDTH_PT,
    MIN_SCALE,
    MIN_SIDE_BY_SIDE_SCALE,
    page_room,
    rules_height,
    rules_width,
    worked_height,
    worked_panel,
    worked_panel_for,
)
from generator.sheet.graded import GradedSheet, score_panel
from generator.sheet.i18n import translations
from generator.sheet.grid import GridView, MatrixView, cell_width, grid, marked, matrix
from generator.sheet.look import ASIDE_GAP_PT, HEADER_GAP_PT, SCORE_GAP_PT, SPACED_PT
from generator.sheet.model import Settings
from generator.sheet.panel import band_panels
from generator.sheet.sheetview import HeadView, SheetView
from generator.sheet.style import FOOT_PT, MAX_STRETCH, RULES_CHROME_W_PT, RULES_LINE_PT, content_width, raster_width

Rows = list[tuple[list, bool]]
"""A layer grid's rows, each with whether it holds a factor of the next row's product (a page may
not end after it)."""


PRODUCT_RULE = N_("Each entry of a product = the row of the factor on its left · the column of the factor above it.")
"""The rules box's line on products, on every sheet with one (a message id)."""


@dataclass(frozen=True)
class Said:
    """One line of a rules box: its words in the column convention, in the row convention where
    they differ (message ids), and which sheets it is true for."""

    column: str
    row: str = ""
    when: Callable[[Any], bool] = lambda problem: True


def rules_box(*lines: Said, products: bool = True) -> Callable[..., list[str]]:
    """A kind's `rules(problem, key, lang)` from its lines: those true for the sheet, in its
    convention and language, then (`products`: a sheet of products) the products' rule, each a bullet."""

    def rules(problem, key: bool, lang: str = "en") -> list[str]:
        _ = translations(lang).gettext
        row = problem.convention == "row"
        said = [_(line.row if row and line.row else line.column) for line in lines if line.when(problem)]
        return ["• " + line for line in said + ([_(PRODUCT_RULE)] if products else [])]

    return rules


def with_bias(w, b, row: bool) -> tuple:
    """Weights with their bias as the last column (the last row, in the row convention)."""
    return tuple(map(tuple, w)) + (tuple(b),) if row else tuple(tuple(r) + (x,) for r, x in zip(w, b))


def ones(n: int, row: bool) -> tuple:
    """A row of n 1s (a column, in the row convention): what a bias multiplies."""
    return tuple((1,) for _ in range(n)) if row else ((1,) * n,)


def layer_weights(k: int, layer, inputs: int, row: bool, given: bool, _: Callable) -> MatrixView:
    """Layer k's [W | b] ([W ; b] in the row convention), a line where its bias begins (after its `inputs`)."""
    w = with_bias(layer.W, layer.b, row)
    return replace(
        matrix(
            f"W{k} ; b{k}" if row else f"W{k} | b{k}",
            _("weights, bias last"),
            w,
            tone="weight",
            given=given,
            cell_w=cell_width(w, 4),
        ),
        **({"split_rows": (inputs,)} if row else {"split_cols": (inputs,)}),
    )


def ones_row(n: int, row: bool, width: int, _: Callable) -> MatrixView:
    """The row of n 1s a bias multiplies (a column, in the row convention), as wide as the grid's cells."""
    return matrix(
        "1", "" if row else _("a row of 1s"), ones(n, row), tone="input", given=True, cell_w=3 if row else width
    )


def stepped(m: dict, steps: tuple, marks: Optional[dict] = None) -> dict:
    """Views named with their step (what a scanner reads where), and on a graded sheet each
    step's view filled with what the student wrote."""
    m = {name: replace(view, step=name) if name in steps else view for name, view in m.items()}
    if marks is None:
        return m
    return {name: marked(view, marks[name]) if name in steps and name in marks else view for name, view in m.items()}


def fitted(g: GridView, framed: bool = False) -> GridView:
    """A grid scaled down to the page's width where it is wider (scale 1 where it is not)."""
    # A caption may reach a character past its column (grid): the last column's has no gap
    # to reach into, so the page keeps one character for it.
    scale = min(1.0, (FRAME_WIDTH_PT if framed else CONTENT_WIDTH_PT) / raster_width(g.cols + 1))
    return replace(g, scale=math.floor(scale * 100) / 100) if scale < 1.0 else g


def layer_layout(
    m: dict, rows: Callable[[bool], Rows], what: str, framed: bool = False, spaced: bool = False
) -> tuple[GridView, bool]:
    """The layer grid of matrices `m` as the printed sheet places them (`rows(stacked)`: compact,
    or each step below the last where that is too wide), scaled to the page, and whether it is
    stacked; a LayoutError saying what to change where no scale prints it legibly (`what`: the sheet)."""
    width = FRAME_WIDTH_PT if framed else CONTENT_WIDTH_PT
    for stacked in (False, True):
        g = grid([cells for cells, _ in rows(stacked)], spaced)
        # A caption may reach a character past its column (grid): the last column's has no gap
        # to reach into, so the page keeps one character for it.
        scale = min(1.0, width / raster_width(g.cols + 1))
        if scale >= MIN_SIDE_BY_SIDE_SCALE:
            break
    if scale < MIN_SCALE:
        raise LayoutError(
            f"{what} sheet: its grid would be {g.width_pt:.0f} pt wide where a page has "
            f"{width:.0f} (its text under 7 pt); use fewer --tokens, a smaller --d-model or --d-ff, "
            "or the column convention"
        )
    return (replace(g, scale=math.floor(scale * 100) / 100) if scale < 1.0 else g), stacked


GROW_SLACK_PT = 2 * RULES_LINE_PT
"""Kept free under a grown grid: the rules box's height is estimated from its characters."""
MAX_GROWTH = 1.5
"""The most a layer grid grows: its boxes and numbers half as large again (10.5 mm lines)."""
STACK_FOR_GROWTH = 0.2
"""How much more a grid must grow with each step below the last for its sheet to stack it (the
compact grid, each product where its factors cross, reads best where it has room)."""


def growth(g: GridView, rules: list[str], worked: Optional[list], paper: str, header_pt: float) -> Optional[GridView]:
    """The layer grid grown as far as its first page lets it (to MAX_GROWTH): as wide as the page,
    and its writing lines as tall, both by one factor, under the header, the rules box and a key's
    worked example (`worked`: its lines), as `flowing` places them; None where it is shrunk to the
    page's width or does not fit its first page as it is."""
    if g.scale < 1.0:
        return None
    width = content_width(paper) - RULES_CHROME_W_PT  # a layer grid's rules box goes across the page
    above = max(HEADER_GAP_PT, SPACED_PT) - HEADER_GAP_PT + rules_height(rules, width) + ASIDE_GAP_PT + SPACED_PT
    if worked:
        above += worked_height(worked_panel(worked, width))
    room = page_room(paper, False, header_pt) - above - GROW_SLACK_PT
    widest = math.floor(CONTENT_WIDTH_PT / raster_width(g.cols + 1) * 100) / 100  # as layer_layout keeps a character
    for hundredths in range(math.floor(MAX_GROWTH * 100), 99, -5):
        # As wide as the page lets it; its lines as tall, or a little taller than wide (MAX_STRETCH).
        scale = min(hundredths / 100, widest)
        big = replace(g, scale=scale, stretch=min(hundredths / 100, scale * MAX_STRETCH))
        if big.height_pt + FOOT_PT * scale * len(g.bands) <= room:  # a foot under every band's panel
            return big
    return None


def layer_head(g: GridView, rows: Rows) -> HeadView:
    """The layer grid as a head that flows over the page, a band at a time: a band holding a
    factor of the next band's product never ends a page (grid bands are its rows)."""
    kept = frozenset(k for k, (_, keep) in enumerate(rows) if keep and k < len(g.bands) - 1)
    return HeadView(
        stacked=True,
        beside=False,
        beside_out=False,
        out_apart=False,
        proj_width_pt=g.width_pt,
        rules_left_pt=0.0,
        bands=(("layer", tuple(band_panels(g, kept))),),
    )


def layer_sheet(
    problem,
    student,
    settings: Settings,
    key: bool,
    graded: Optional[GradedSheet],
    heads: tuple[HeadView, ...],
    layer: HeadView,
    rules: list[str],
    worked: Optional[list],
    titles: tuple[str, ...],
    title: str,
) -> SheetView:
    """A sheet of layers: the heads before the layer grid (if any), the grid, the rules box, a
    key's worked example, a graded sheet's score."""
    score = score_panel(graded, CONTENT_WIDTH_PT, settings.lang) if graded else None
    heads += (layer,)
    framed, row = len(heads) > 1, problem.convention == "row"
    return SheetView(
        problem=problem,
        heads=heads,
        final=None,
        key=key,
        student=student,
        rules=tuple(rules),
        rules_width_pt=rules_width(heads[0], row, settings.paper, framed),
        worked=worked and worked_panel_for(worked, heads[0], row, settings.paper, framed),
        graded=graded,
        score=score,
        titles=titles,
        default_title=title,
    )


def score_height(graded: Optional[GradedSheet], lang: str) -> float:
    """How much a graded sheet's score takes of its first page's header."""
    score = score_panel(graded, CONTENT_WIDTH_PT, lang) if graded else None
    return score.height_pt + SCORE_GAP_PT if score else 0.0


@dataclass(frozen=True)
class OneGrid:
    """A kind's sheet that is one grid of layers (the by-hand layout), from the kind's own words:
    its matrices, its rows, its rules box and its worked example; the protocol's view, check_fits
    and form_blocks written once for every such kind."""

    matrices: Callable[..., dict]
    """matrices(problem, solution, key, lang, blank, marks) -> every matrix of the sheet, by name."""
    rows: Callable[[object, dict], Callable[[bool], Rows]]
    """rows(problem, matrices) -> rows(stacked): the grid's rows, each with whether it keeps with the next."""
    rules: Callable[..., list]
    """rules(problem, key, lang) -> the rules box's lines."""
    worked: Callable[..., list]
    """worked(problem, solution, lang) -> a key's worked example, line by line."""
    title: str
    """The sheet's title where the batch gives none (a message id)."""
    grows: Callable[[Any], bool] = lambda problem: True
    """grows(problem) -> whether its writing lines grow where the page has room (a kind's sheets
    printed before they grew keep their layout: draw/rebuild.grown_since)."""

    def layout(
        self, problem, solution, key: bool, lang: str = "en", blank: bool = False, marks: Optional[dict] = None
    ) -> tuple[dict, GridView, bool]:
        """The sheet's matrices by name, the grid as printed, and whether it is stacked."""
        m = self.matrices(problem, solution, key, lang, blank, marks)
        g, stacked = layer_layout(m, self.rows(problem, m), problem.kind, spaced=self.grows(problem))
        return m, g, stacked

    def view(
        self, problem, solution, student, settings: Settings, key: bool, graded: Optional[GradedSheet] = None
    ) -> SheetView:
        """Everything the template needs for the worksheet, key or graded sheet."""
        marks = graded.marks.get(None) if graded else None
        m, g, stacked = self.layout(problem, solution, key, settings.lang, settings.blank, marks)
        lines = self.worked(problem, solution, settings.lang) if key and settings.worked else None
        rules = self.rules(problem, key, settings.lang)
        if self.grows(problem):
            if not stacked:  # each step below the last may leave its boxes far more room
                # Decided on the worksheet, so that its key and its graded sheet are laid out alike.
                tall = fitted(grid([cells for cells, _ in self.rows(problem, m)(True)], spaced=True))
                big = growth(tall, rules, None, settings.paper, 0.0)
                if big and big.scale >= (growth(g, rules, None, settings.paper, 0.0) or g).scale + STACK_FOR_GROWTH:
                    g, stacked = tall, True
            g = growth(g, rules, lines, settings.paper, score_height(graded, settings.lang)) or g
        layer = layer_head(g, self.rows(problem, m)(stacked))
        return layer_sheet(
            problem,
            student,
            settings,
            key,
            graded,
            (),
            layer,
            rules,
            lines,
            (),
            translations(settings.lang).gettext(self.title),
        )

    def check_fits(self, problem, solution, settings: Settings) -> None:
        """Raise LayoutError now if the sheet cannot be printed legibly (checked on empty boxes)."""
        self.layout(problem, solution, False, settings.lang, True)

    def form_blocks(self, problem, solution, lang: str = "en") -> list:
        """The sheet's grid as the printed sheet places it, at full size, for a screen form."""
        m, g, _ = self.layout(problem, solution, False, lang)
        return [Block(None, "", (replace(g, scale=1.0),), m)]
