"""Matrices as they are drawn: their cells' text, and grids that place them so products meet their factors."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from generator.core.numbers import (
    Cell,
    sheet_decimal,
    sheet_value,
)
from generator.sheet.style import (
    CAPTION_CHAR,
    CAPTION_LINE_PT,
    FRACTION_LINE_PT,
    GAP,
    VALUE_LINE_PT,
    raster_width,
)


@dataclass(frozen=True)
class MatrixView:
    """One matrix as it is drawn: lines of text over a bracketed body, or over writing boxes."""

    label: str
    """Its name in maths, e.g. 'Q' or 'W_Q'."""
    caption: str
    """What it is, in words (translated)."""
    lines: tuple[str, ...]
    """Text lines of the body, cells centred in cell_w characters; none for empty boxes."""
    rows: int
    """Matrix rows."""
    cols: int
    """Matrix columns."""
    cell_w: int
    """Characters per cell."""
    cell_h: int = 1
    """Lines per cell (2 for fractions with their decimals)."""
    guided: bool = False
    """A faint guide between a cell's two lines: the fraction above it, its decimals below."""
    marks: tuple[tuple[str, ...], ...] = ()
    """On a graded sheet, each cell's verdict (correct, carried, wrong, blank, unreadable, masked)."""
    notes: tuple[tuple[str, ...], ...] = ()
    """On a graded sheet, the expected value, small, in each wrong cell (else empty)."""
    unreduced: tuple[tuple[str, ...], ...] = ()
    """On a key, each cell's unreduced fraction where it reduces ("=9/24"), small on the
    guide between the fraction and its decimals (else empty; none on other sheets)."""
    tone: str = "input"
    """Colour family: input, weight, q, k, v, score, attn, out."""
    boxes: bool = True
    """Draw writing boxes (a value to compute) rather than a plain bracketed matrix."""
    answers: bool = False
    """The text is an answer (printed in the key's colour)."""
    masked: tuple[tuple[int, int], ...] = ()
    """Cells struck out by the causal mask."""
    tokens: tuple[str, ...] = ()
    """Column headings above the body (the tokens x1, x2, ... or the queries q1, ...), one per column."""
    row_labels: tuple[str, ...] = ()
    """Row headings left of the body (the keys k1, k2, ...), one per row."""
    split_rows: tuple[int, ...] = ()
    """Rows after which a heavier line marks where one block ends (a head's, in Z_concat)."""
    split_cols: tuple[int, ...] = ()
    """The same for columns (Z_concat in the row convention)."""
    step: str = ""
    """Its step in answers@1 ("Q", "A", ...); empty for given data."""
    head: Optional[int] = None
    """Its 1-based head; None after the heads and outside them."""
    nodes: tuple[tuple[int, int], ...] = ()
    """A graph drawn in place of a body: each node's (line, character) in the body, its number
    there in a circle (nodes numbered from 1); none for a matrix."""
    edges: tuple[tuple[int, int], ...] = ()
    """A graph's edges, as pairs of nodes (0-based), each a line between their circles."""

    @property
    def label_chars(self) -> int:
        """Matrix characters the row headings take left of the body, with a gap to the bracket."""
        if not self.row_labels:
            return 0
        return math.ceil((max(len(label) for label in self.row_labels) + 1) * CAPTION_CHAR)

    @property
    def text_chars(self) -> int:
        """Width of the body, in characters."""
        return self.cols * self.cell_w

    @property
    def text_lines(self) -> int:
        """Height of the body, in lines."""
        return self.rows * self.cell_h

    @property
    def caption_text(self) -> str:
        """The caption line: name, then what it is."""
        return f"{self.label}  {self.caption}"


@dataclass(frozen=True)
class Placed:
    """A matrix at its place in a grid, on the grid's character and line raster."""

    m: MatrixView
    """The matrix."""
    col: int
    """First character of its body, from the grid's left."""
    row: int
    """Line of its caption, from the grid's top (the body starts below, after any headings)."""
    end: bool
    """Right-aligned: its caption ends where its body ends."""

    @property
    def body_row(self) -> int:
        """First line of the body."""
        return self.row + 1 + (1 if self.m.tokens else 0)


@dataclass(frozen=True)
class GridView:
    """Matrices placed in rows and columns, so that each product sits where its factors cross.

    Positions are whole characters and lines of the matrix font: every number on a panel is
    then one character of a few long text lines, and WeasyPrint lays out those few lines
    instead of a box per matrix (see `panel`).
    """

    cols: int
    """The grid's width, in characters."""
    rows: int
    """The grid's height, in lines."""
    cells: tuple[Placed, ...]
    """The matrices, in reading order, placed from the grid's top."""
    bands: tuple[tuple[int, tuple[Placed, ...]], ...]
    """The same matrices row by row: (lines, matrices placed from the band's top). Drawn one
    after the other, bands can go to the next page; no matrix is ever split."""
    kinds: tuple[str, ...] = ()
    """Each line's kind: caption (names and headings), value (one value a cell) or fraction (a
    line of a two-line cell); its height follows (see `pitches`)."""
    scale: float = 1.0
    """Size relative to the standard 10 pt matrices: below 1 for shapes too wide for the page."""
    stretch: float = 1.0
    """How much taller than their least the value lines are, to use the page (1 or more)."""

    @property
    def width_pt(self) -> float:
        """The grid's width, with room for the outer brackets."""
        return round(raster_width(self.cols) * self.scale, 2)

    @property
    def pitches(self) -> tuple[float, ...]:
        """Each line's height in the raster's units (points at scale 1): captions shrink with the
        grid, writing lines never do, so that a shrunk grid's boxes stay big enough to write in."""
        return line_pitches(self.kinds, self.scale, self.stretch)

    @property
    def tops(self) -> tuple[float, ...]:
        """The top of each line, and the grid's foot last, in the raster's units."""
        return line_tops(self.pitches)

    @property
    def height_pt(self) -> float:
        """The grid's height."""
        return round(sum(self.pitches) * self.scale, 2)


PITCH_PT = {"caption": CAPTION_LINE_PT, "value": VALUE_LINE_PT, "fraction": FRACTION_LINE_PT}
"""A line's least height, by kind, in points."""


@functools.lru_cache(maxsize=256)  # a batch's sheets share a shape: the same few grids, measured often
def line_pitches(kinds: tuple[str, ...], scale: float, stretch: float) -> tuple[float, ...]:
    """Lines' heights in raster units at `scale`: a caption's scales with it, a writing line's is
    its least height times `stretch`, in points, whatever the scale. Rounded up to a twentieth
    of a unit: both serializers then write every line's position exactly (SVG keeps two
    decimals), so they agree to the pixel."""
    return tuple(CAPTION_LINE_PT if kind == "caption" else math.ceil(PITCH_PT[kind] * stretch / scale * 20 - 1e-6) / 20
                 for kind in kinds)


def line_tops(pitches: Sequence[float]) -> tuple[float, ...]:
    """Where each of lines of these heights starts, and where the last ends."""
    tops, y = [0.0], 0.0
    for pitch in pitches:
        y += pitch
        tops.append(round(y, 4))
    return tuple(tops)


def _band_kinds(band: Sequence[Placed], lines: int) -> list[str]:
    """A band's line kinds: a line no body covers is a caption; a fraction line where any cell
    covering it is two lines tall."""
    kinds = ["caption"] * lines
    for c in band:
        for k in range(c.m.text_lines):
            line = c.body_row + k
            if kinds[line] != "fraction":
                kinds[line] = "fraction" if c.m.cell_h == 2 else "value"
    return kinds


def _caption_chars(m: MatrixView) -> int:
    """Width of a caption, in matrix characters."""
    return math.ceil(len(m.caption_text) * CAPTION_CHAR)


def grid(rows: Sequence[Sequence[Optional[MatrixView]]], spaced: bool = False) -> GridView:
    """Matrices in rows and columns; the first column is right-aligned so its rows meet the next.
    `spaced`: a caption keeps the whole gap from the next column's (a sheet laid out since captions
    ran into each other; the others keep the places they were printed with)."""
    ncols = max(len(r) for r in rows)
    widths = [0] * ncols
    for r in rows:
        for j, m in enumerate(r):
            if m is not None:
                # A caption may reach a character into the gap after it: captions stay apart.
                caption = _caption_chars(m) - (1 if j and not spaced else 0)
                widths[j] = max(widths[j], m.text_chars + m.label_chars, caption)
    lefts = [sum(widths[:j]) + GAP * j for j in range(ncols)]
    cells: list[Placed] = []
    bands = []
    kinds: list[str] = []
    top = 0
    for r in rows:
        band = []
        for j, m in enumerate(r):
            if m is None:
                continue
            if j == 0 and ncols > 1:
                # The body ends at the column's end, where the next column's rows begin.
                band.append(Placed(m, lefts[0] + widths[0] - m.text_chars, 0, True))
            else:
                band.append(Placed(m, lefts[j] + m.label_chars, 0, False))
        lines = max((c.body_row + c.m.text_lines for c in band), default=0)
        cells += [replace(c, row=top) for c in band]
        bands.append((lines, tuple(band)))
        kinds += _band_kinds(band, lines)
        top += lines
    return GridView(cols=lefts[-1] + widths[-1], rows=top, cells=tuple(cells), bands=tuple(bands),
                    kinds=tuple(kinds))


def _center(text: str, width: int) -> str:
    left = (width - len(text) + 1) // 2  # an odd spare space goes left: never flush to the bracket
    return " " * left + text + " " * (width - len(text) - left)


# Cached: a page writes a few dozen distinct values, each measured and then written, and
# Fraction arithmetic is slow. typed: 1, 1.0 and Fraction(1) are written differently.


def cell_width(values: Sequence[Sequence[Cell]], minimum: int, two_line: bool = False,
               small: Sequence[Sequence[str]] = ()) -> int:
    """Characters per cell: room for the longest value (or `small` text, in caption characters)
    plus a space each side."""
    longest = max((len(sheet_value(x)) for row in values for x in row), default=1)
    if two_line:
        longest = max(longest, max((len(sheet_decimal(x)) for row in values for x in row), default=1))
    if small:
        longest = max(longest, math.ceil(max(len(t) for row in small for t in row) * CAPTION_CHAR))
    return max(minimum, longest + 2)


def _lines(values: Optional[Sequence[Sequence[Cell]]], rows: int, cols: int, cell_w: int,
           cell_h: int, decimals: bool, masked: frozenset) -> tuple[str, ...]:
    """Body lines: each cell centred in its width; no lines when `values` is None.

    A cell `cell_h` lines tall holds its value on the first line and, with `decimals`, the
    value rounded to two decimals on the second.
    """
    if values is None:
        return ()  # writing boxes only: the body's size and background draw them, no text needed
    out = []
    for i, row in enumerate(values):
        cells = ["" if (i, j) in masked else sheet_value(x) for j, x in enumerate(row)]
        out.append("".join(_center(c, cell_w) for c in cells).rstrip())  # trailing spaces cost glyphs
        if cell_h == 2:
            # Floats (exact rules) are already decimals on the first line: no need to repeat them.
            second = ["" if (i, j) in masked or not decimals or isinstance(x, float) else sheet_decimal(x)
                      for j, x in enumerate(row)]
            out.append("".join(_center(c, cell_w) for c in second).rstrip())
    return tuple(out)


@dataclass(frozen=True)
class Marking:
    """What a student wrote in a grid and how it was graded: a graded sheet shows it."""

    texts: tuple[tuple[tuple[str, str], ...], ...]
    """Per cell, the two lines written (the second empty but for a fraction with its decimals)."""
    verdicts: tuple[tuple[str, ...], ...]
    """Per cell, its verdict."""
    notes: tuple[tuple[str, ...], ...]
    """Per cell, the expected value where the cell is wrong, else empty."""


def _fit(text: str, width: int) -> str:
    """A written value cut to fit its cell, with an ellipsis (a student may write a long one)."""
    return text if len(text) <= width - 2 else text[: max(1, width - 3)] + "…"


def _marked_lines(marking: Marking, cell_w: int, cell_h: int) -> tuple[str, ...]:
    out = []
    for row in marking.texts:
        for line in range(cell_h):
            out.append("".join(_center(_fit(cell[line] if line < 2 else "", cell_w), cell_w) for cell in row).rstrip())
    return tuple(out)


def matrix(label: str, caption: str, values: Sequence[Sequence[Cell]], *, tone: str, given: bool = False,
           key: bool = False, cell_w: int = 0, two_line: bool = False, tall: bool = False,
           masked: Sequence[tuple[int, int]] = (), tokens: Sequence[str] = (),
           row_labels: Sequence[str] = (), unreduced: Sequence[Sequence[str]] = ()) -> MatrixView:
    """The view of one matrix: given values, or writing boxes (filled on the key).

    `two_line` cells hold a value and its decimals; `tall` cells are two lines high with the
    value alone, to line up with a two-line neighbour; `unreduced`, a key's unreduced fractions.
    """
    rows, cols = len(values), len(values[0])
    width = cell_w or cell_width(values, 3, two_line)
    hidden = frozenset(masked)
    shown = values if (given or key) else None
    cell_h = 2 if two_line or tall else 1
    return MatrixView(
        label=label, caption=caption, lines=_lines(shown, rows, cols, width, cell_h, two_line, hidden), rows=rows,
        cols=cols, cell_w=width, cell_h=cell_h, tone=tone, boxes=not given, answers=key and not given,
        masked=tuple(sorted(hidden)), tokens=tuple(tokens), row_labels=tuple(row_labels), guided=two_line,
        unreduced=tuple(tuple("" if (i, j) in hidden else t for j, t in enumerate(line))
                        for i, line in enumerate(unreduced)) if key and not given else (),
    )


GRAPH_PLACES = {
    2: ((1, 1), (1, 9)),
    3: ((0, 5), (2, 1), (2, 9)),
    4: ((0, 1), (0, 9), (2, 9), (2, 1)),
    5: ((0, 5), (1, 10), (2, 8), (2, 2), (1, 0)),
    6: ((0, 3), (0, 7), (1, 10), (2, 7), (2, 3), (1, 0)),
}
"""Where a graph of n nodes puts them, as (line, character) in a body of 3 lines and 11
characters: around a convex polygon, so that no edge runs through a third node."""
GRAPH_CHARS = 11
"""A graph's width, in matrix characters."""


def graph(label: str, caption: str, n: int, edges: Sequence[tuple[int, int]], *, tone: str) -> MatrixView:
    """A graph of n nodes drawn where a matrix's body would be: numbered circles and its edges."""
    return MatrixView(label=label, caption=caption, lines=(), rows=3, cols=1, cell_w=GRAPH_CHARS, tone=tone,
                      boxes=False, nodes=GRAPH_PLACES[n], edges=tuple(edges))


def marked(view: MatrixView, marking: Marking) -> MatrixView:
    """A matrix's writing boxes filled with what a student wrote, each with its verdict's mark."""
    return replace(view, lines=_marked_lines(marking, view.cell_w, view.cell_h), answers=False,
                   marks=marking.verdicts, notes=marking.notes, unreduced=())
