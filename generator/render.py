"""Worksheets and answer keys as HTML strings, in the classic by-hand layout.

One strict Jinja environment (autoescape, StrictUndefined, gettext from the catalogs), and the
view model it renders: a grid of matrices becomes a panel, one SVG drawing under a few blocks of
monospaced text lines, so a sheet is a couple of dozen layout boxes rather than hundreds of
table cells (WeasyPrint's cost grows with boxes and lines). Nothing here writes files.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Sequence

import jinja2
import segno
from markupsafe import Markup

from generator import __version__
from generator.engine import hand_divisor
from generator.i18n import translations
from generator.numbers import Cell, decimal_str, normalize
from generator.model import PAPERS, Settings, Student
from generator.problem import Problem, Solution, transpose

CHAR_PT = 6.0
"""Width of one character of the 10 pt monospaced matrix font (0.6 em)."""
LINE_PT = 16.0
"""Height of one line of a matrix: a writing box is this tall."""


def templates_dir() -> Path:
    """Where the templates live: inside the installed package, or at the repository's top."""
    packaged = Path(__file__).resolve().parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "templates"


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
    tone: str = "input"
    """Colour family: input, weight, q, k, v, score, attn, out."""
    boxes: bool = True
    """Draw writing boxes (a value to compute) rather than a plain bracketed matrix."""
    answers: bool = False
    """The text is an answer (printed in the key's colour)."""
    masked: tuple[tuple[int, int], ...] = ()
    """Cells struck out by the causal mask."""
    tokens: tuple[str, ...] = ()
    """Column headings above the body (the tokens x1, x2, ...), one per column."""

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
    scale: float = 1.0
    """Size relative to the standard 10 pt matrices: below 1 for shapes too wide for the page."""

    @property
    def width_pt(self) -> float:
        """The grid's width, with room for the outer brackets."""
        return round(_raster_width(self.cols) * self.scale, 2)

    @property
    def height_pt(self) -> float:
        """The grid's height."""
        return round(self.rows * LINE_PT * self.scale, 2)


GAP = 2
"""Characters between the bodies of two columns: room for both brackets and some air."""
EDGE_PT = 3.5
"""Room for the outer brackets, each side of a grid."""
CAPTION_CHAR = 0.75
"""A caption character (7.5 pt) in matrix characters (10 pt)."""


def _raster_width(cols: int) -> float:
    """Width of a raster `cols` characters wide, with room for the outer brackets (at scale 1)."""
    return cols * CHAR_PT + 2 * EDGE_PT


def _caption_chars(m: MatrixView) -> int:
    """Width of a caption, in matrix characters."""
    return math.ceil(len(m.caption_text) * CAPTION_CHAR)


def grid(rows: Sequence[Sequence[Optional[MatrixView]]], scale: float = 1.0) -> GridView:
    """Matrices in rows and columns; the first column is right-aligned so its rows meet the next."""
    ncols = max(len(r) for r in rows)
    widths = [0] * ncols
    for r in rows:
        for j, m in enumerate(r):
            if m is not None:
                # A caption may reach a character into the gap after it: captions stay apart.
                caption = _caption_chars(m) - (1 if j else 0)
                widths[j] = max(widths[j], m.text_chars, caption)
    lefts = [sum(widths[:j]) + GAP * j for j in range(ncols)]
    cells: list[Placed] = []
    bands = []
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
                band.append(Placed(m, lefts[j], 0, False))
        lines = max((c.body_row + c.m.text_lines for c in band), default=0)
        cells += [replace(c, row=top) for c in band]
        bands.append((lines, tuple(band)))
        top += lines
    return GridView(cols=lefts[-1] + widths[-1], rows=top, cells=tuple(cells), bands=tuple(bands),
                    scale=scale)


# --- panels: a grid drawn as one picture and a few text lines ---------------------------------


@dataclass(frozen=True)
class Tone:
    """One colour family: its brackets, and the tint behind its bodies."""

    ink: str
    """Brackets (and the colour the family is known by)."""
    tint: str
    """Behind the values or the writing boxes."""


TONES = {
    # Tints differ in lightness too, so that a grey-scale print still tells them apart.
    "input": Tone("#a07800", "#fff1bf"),
    "weight": Tone("#4f5d75", "#e4e9f1"),
    "q": Tone("#23703f", "#eef8f1"),
    "k": Tone("#b5561f", "#fdf1e7"),
    "v": Tone("#5b3fa8", "#f2effa"),
    "score": Tone("#a3324f", "#fcf0f3"),
    "attn": Tone("#9c1c1c", "#fbe9e9"),
    "out": Tone("#1c5c96", "#eaf3fb"),
}
"""Colour families, in the spirit of the by-hand sheets."""
BOX_LINE = "#8a8a8a"
"""Lines of the writing boxes."""
MASK_FILL, MASK_LINE = "#d9d9d9", "#7a7a7a"
"""A struck-out cell: grey, crossed by one diagonal."""
GIVEN_PAD_PT = 2.5
"""Space between given values and their brackets (writing boxes touch theirs)."""
SERIF_PT = 2.6
"""Length of a bracket's top and bottom strokes."""
CAPTION_DROP_PT = 2.5
"""Captions sit this much below the middle of their line, close to the body they name."""


FONT_PT = 10.0
"""A panel's matrix font, at scale 1 (one character is CHAR_PT wide, one line LINE_PT high)."""


@dataclass(frozen=True)
class Ink:
    """How some of our own text is printed, in the panel font ("Sheet Mono")."""

    size: float
    """In points (for a panel's layers: at scale 1)."""
    weight: int
    """400 regular, 700 bold."""
    colour: str
    spacing: float = 0.0
    """Letter spacing, in points."""

    def css(self) -> Markup:
        """The same as CSS declarations, for HTML."""
        spacing = f"; letter-spacing: {_n(self.spacing)}pt" if self.spacing else ""
        return Markup(f"font: {self.weight} {_n(self.size)}pt 'Sheet Mono'; color: {self.colour}{spacing}")


STYLES = {
    "given": Ink(FONT_PT, 400, "#1b1b1b"),
    "answers": Ink(FONT_PT, 700, "#0b4fa8"),
    "captions": Ink(FONT_PT * CAPTION_CHAR, 400, "#5a5a5a"),
}
"""The text styles of a panel's layers, in drawing order; the one place they are defined (the
HTML layers take theirs from here, and PDF pages are painted from here, see `generator.paint`)."""
CODE_LABEL, CODE = Ink(7.0, 400, "#6b6b6b"), Ink(11.0, 700, "#1b1b1b", 0.5)
"""The header's top right: the words "Sheet code", then the code, left of its QR code."""
CODE_TOPS_PT = (8.0, 18.0)
"""Tops of their lines, from the header's top."""
CODE_RIGHT_PT = 48.0
"""Their right edge, from the header's right (the QR code is QR_PT wide)."""
FOOT = Ink(7.5, 400, "#555555")
"""The footer: the sheet code bottom left, the page number bottom right."""
FOOT_PREFIX = "attnsheet · "
"""Before the sheet code, bottom left."""
MARGINS_MM = (12, 13, 14, 13)
"""The page's margins, top, right, bottom and left; the footer is centred in the bottom one."""


@dataclass(frozen=True)
class Layer:
    """Lines of text laid over a panel, all in one style (a style per layer: no inline boxes)."""

    kind: str
    """given, answers or captions (see STYLES)."""
    left_pt: float
    """Its raster's left, from the panel's left."""
    top_pt: float
    """Its first line's top, from the panel's top."""
    text: str
    """Its lines, joined by newlines; spaces place each value in its column."""

    @property
    def style(self) -> Ink:
        """How it is printed."""
        return STYLES[self.kind]


Point = tuple[float, float]


@dataclass(frozen=True)
class Shapes:
    """Everything on a panel that is not text, grouped by colour; in raster points (scale 1),
    x from the raster's left (the outer brackets reach EDGE_PT further out), y from its top."""

    width: float
    """The canvas, outer brackets' room included."""
    height: float
    """The canvas's height."""
    fills: tuple[tuple[str, tuple[tuple[float, float, float, float], ...]], ...]
    """(colour, rectangles as x, y, width, height), drawn first, in order."""
    strokes: tuple[tuple[str, float, tuple[tuple[Point, ...], ...]], ...]
    """(colour, line width, polylines), drawn over the fills, in order."""

    def svg(self, scale: float) -> Markup:
        """The shapes as one inline SVG, drawn at `scale`."""
        width, height = self.width, self.height
        paths = [f'<path fill="{fill}" d="{"".join(_svg_rect(r) for r in rects)}"/>' for fill, rects in self.fills]
        paths += [f'<path fill="none" stroke="{colour}" stroke-width="{_n(w)}" d="{"".join(map(_svg_line, lines))}"/>'
                  for colour, w, lines in self.strokes]
        return Markup(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width * scale)}pt" height="{_n(height * scale)}pt"'
            f' viewBox="{_n(-EDGE_PT)} 0 {_n(width)} {_n(height)}">{"".join(paths)}</svg>'
        )


def _svg_rect(r: tuple[float, float, float, float]) -> str:
    x, y, w, h = r
    return f"M{_n(x)} {_n(y)}h{_n(w)}v{_n(h)}h{_n(-w)}z"


def _svg_line(points: tuple[Point, ...]) -> str:
    """A polyline, with the short H and V forms where it runs straight across or down."""
    (x, y), rest = points[0], points[1:]
    d = f"M{_n(x)} {_n(y)}"
    for nx, ny in rest:
        d += f"H{_n(nx)}" if ny == y else f"V{_n(ny)}" if nx == x else f"L{_n(nx)} {_n(ny)}"
        x, y = nx, ny
    return d


@dataclass(frozen=True)
class PanelView:
    """A grid as one drawing (brackets, tints, writing boxes) under a few layers of text lines."""

    width_pt: float
    """Width of the panel."""
    height_pt: float
    """Height of the panel."""
    scale: float
    """Size relative to the standard 10 pt matrices."""
    shapes: Shapes
    """Everything that is not text (our own numbers only, never user text)."""
    layers: tuple[Layer, ...]
    """Text, one layer per style."""

    @property
    def drawing(self) -> Markup:
        """The shapes as inline SVG, for HTML."""
        return self.shapes.svg(self.scale)


class _Raster:
    """Text on a raster of characters and lines; overlapping spaces never erase a neighbour."""

    def __init__(self) -> None:
        self.rows: dict[int, list[str]] = {}

    def put(self, row: int, col: int, text: str) -> None:
        line = self.rows.setdefault(row, [])
        col = max(0, col)
        if len(line) < col + len(text):
            line.extend(" " * (col + len(text) - len(line)))
        for k, ch in enumerate(text):
            if ch != " ":
                line[col + k] = ch

    def layer(self, kind: str, left_pt: float, char_pt: float, line_pt: float, drop_pt: float = 0.0) -> Layer:
        """The raster's lines from its first used line and its first used column.

        Spaces are glyphs to WeasyPrint: the indent all lines share becomes the layer's offset.
        """
        first, last = min(self.rows), max(self.rows)
        lines = ["".join(self.rows.get(r, ())).rstrip() for r in range(first, last + 1)]
        indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line)
        text = "\n".join(line[indent:] for line in lines)
        return Layer(kind, round(left_pt + indent * char_pt, 2), round(first * line_pt + drop_pt, 2), text)


class _Drawing:
    """Shapes grouped by style: one path per colour, however many matrices share it."""

    def __init__(self) -> None:
        self.fills: dict[str, list[tuple[float, float, float, float]]] = {}
        self.strokes: dict[tuple[str, float], list[tuple[Point, ...]]] = {}

    def rect(self, fill: str, x: float, y: float, w: float, h: float) -> None:
        self.fills.setdefault(fill, []).append((x, y, w, h))

    def line(self, stroke: str, width: float, *points: Point) -> None:
        self.strokes.setdefault((stroke, width), []).append(points)

    def matrix(self, m: MatrixView, x: float, y: float) -> None:
        """A body whose text starts at (x, y): tint, writing boxes, struck-out cells, brackets."""
        tone = TONES[m.tone]
        w, h = m.text_chars * CHAR_PT, m.text_lines * LINE_PT
        cw, ch = m.cell_w * CHAR_PT, m.cell_h * LINE_PT
        pad = 0.6 if m.boxes else GIVEN_PAD_PT  # half a bracket's width, or room to breathe
        self.rect(tone.tint, x - pad, y, w + 2 * pad, h)
        if m.boxes:
            for j in range(1, m.cols):
                self.line(BOX_LINE, 0.5, (x + j * cw, y), (x + j * cw, y + h))
            for i in range(m.rows + 1):
                self.line(BOX_LINE, 0.5, (x, y + i * ch), (x + w, y + i * ch))
        for i, j in m.masked:
            cx, cy = x + j * cw, y + i * ch
            self.rect(MASK_FILL, cx, cy, cw, ch)
            self.line(MASK_LINE, 0.6, (cx, cy + ch), (cx + cw, cy))
        left, right = x - pad, x + w + pad
        self.line(tone.ink, 1.2, (left + SERIF_PT, y), (left, y), (left, y + h), (left + SERIF_PT, y + h))
        self.line(tone.ink, 1.2, (right - SERIF_PT, y), (right, y), (right, y + h), (right - SERIF_PT, y + h))

    def shapes(self, width: float, height: float) -> Shapes:
        # Writing boxes first: brackets and strokes of struck-out cells go over their ends.
        strokes = sorted(self.strokes.items(), key=lambda s: s[0][0] != BOX_LINE)
        return Shapes(
            width=width, height=height,
            fills=tuple((fill, tuple(rects)) for fill, rects in self.fills.items()),
            strokes=tuple((colour, w, tuple(lines)) for (colour, w), lines in strokes),
        )


def _n(x: float) -> str:
    """A coordinate, short: SVG text is parsed again for every page."""
    return f"{round(x, 2):g}"


def panel(cells: Sequence[Placed], cols: int, rows: int, scale: float = 1.0) -> PanelView:
    """Matrices placed on one raster, drawn as one SVG under one text layer per style.

    WeasyPrint's cost grows with boxes and text lines, not with characters: a grid of a dozen
    matrices is here three blocks of text and one picture, the same on every machine.
    """
    rasters: dict[str, _Raster] = {}  # by style
    drawing = _Drawing()
    for c in cells:
        m = c.m
        text = m.caption_text
        # Captions are 7.5 pt: their raster is 3/4 of a matrix character.
        start = (round((c.col + m.text_chars) / CAPTION_CHAR) - len(text) if c.end
                 else round(c.col / CAPTION_CHAR))
        captions = rasters.setdefault("captions", _Raster())
        captions.put(c.row, start, text)
        for j, token in enumerate(m.tokens):
            middle = c.col + (j + 0.5) * m.cell_w
            captions.put(c.row + 1, round(middle / CAPTION_CHAR - len(token) / 2), token)
        if m.lines:
            layer = rasters.setdefault("answers" if m.answers else "given", _Raster())
            for k, line in enumerate(m.lines):
                layer.put(c.body_row + k, c.col, line)
        drawing.matrix(m, c.col * CHAR_PT, c.body_row * LINE_PT)
    line_pt, left_pt = LINE_PT * scale, EDGE_PT * scale
    order = list(STYLES)
    layers = tuple(
        raster.layer(kind, left_pt, CHAR_PT * scale * STYLES[kind].size / FONT_PT, line_pt,
                     CAPTION_DROP_PT * scale if kind == "captions" else 0.0)
        for kind, raster in sorted(rasters.items(), key=lambda item: order.index(item[0]))
    )
    width, height = _raster_width(cols), rows * LINE_PT + 1  # the bottom brackets' half width
    return PanelView(
        width_pt=round(width * scale, 2), height_pt=round(height * scale, 2), scale=scale,
        shapes=drawing.shapes(width, height), layers=layers,
    )


def grid_panel(g: GridView) -> PanelView:
    """A whole grid as one panel."""
    return panel(g.cells, g.cols, g.rows, g.scale)


def band_panels(g: GridView) -> list[PanelView]:
    """A grid as one panel per band, so that a page can end between two bands."""
    return [panel(cells, g.cols, lines, g.scale) for lines, cells in g.bands]


def side_by_side(left: GridView, right: GridView) -> PanelView:
    """Two grids of the same scale as one panel, side by side, as far apart as two columns."""
    cells = list(left.cells) + [replace(c, col=c.col + left.cols + GAP) for c in right.cells]
    return panel(cells, _side_by_side_cols(left, right), max(left.rows, right.rows), left.scale)


def _side_by_side_cols(left: GridView, right: GridView) -> int:
    return left.cols + GAP + right.cols


def _center(text: str, width: int) -> str:
    left = (width - len(text) + 1) // 2  # an odd spare space goes left: never flush to the bracket
    return " " * left + text + " " * (width - len(text) - left)


# Cached: a page writes a few dozen distinct values, each measured and then written, and
# Fraction arithmetic is slow. typed: 1, 1.0 and Fraction(1) are written differently.
@functools.lru_cache(maxsize=4096, typed=True)
def _text(x: Cell) -> str:
    """A value as written on the sheet: integers, p/q fractions, a true minus sign."""
    if x is None:
        return ""
    if isinstance(x, float):
        return decimal_str(x, 2).replace("-", "−")
    x = normalize(x)
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}".replace("-", "−")
    return str(x).replace("-", "−")


@functools.lru_cache(maxsize=4096, typed=True)
def _decimal(x: Cell) -> str:
    if x is None:
        return ""
    return decimal_str(x, 2).replace("-", "−")


def _width(values: Sequence[Sequence[Cell]], minimum: int, two_line: bool = False) -> int:
    """Characters per cell: room for the longest value plus a space each side."""
    longest = max((len(_text(x)) for row in values for x in row), default=1)
    if two_line:
        longest = max(longest, max((len(_decimal(x)) for row in values for x in row), default=1))
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
        cells = ["" if (i, j) in masked else _text(x) for j, x in enumerate(row)]
        out.append("".join(_center(c, cell_w) for c in cells).rstrip())  # trailing spaces cost glyphs
        if cell_h == 2:
            # Floats (exact rules) are already decimals on the first line: no need to repeat them.
            second = ["" if (i, j) in masked or not decimals or isinstance(x, float) else _decimal(x)
                      for j, x in enumerate(row)]
            out.append("".join(_center(c, cell_w) for c in second).rstrip())
    return tuple(out)


def matrix(label: str, caption: str, values: Sequence[Sequence[Cell]], *, tone: str, given: bool = False,
           key: bool = False, cell_w: int = 0, two_line: bool = False, tall: bool = False,
           masked: Sequence[tuple[int, int]] = (), tokens: Sequence[str] = ()) -> MatrixView:
    """The view of one matrix: given values, or writing boxes (filled on the key).

    `two_line` cells hold a value and its decimals; `tall` cells are two lines high with the
    value alone, to line up with a two-line neighbour.
    """
    rows, cols = len(values), len(values[0])
    width = cell_w or _width(values, 3, two_line)
    hidden = frozenset(masked)
    shown = values if (given or key) else None
    cell_h = 2 if two_line or tall else 1
    return MatrixView(
        label=label, caption=caption, lines=_lines(shown, rows, cols, width, cell_h, two_line, hidden), rows=rows,
        cols=cols, cell_w=width, cell_h=cell_h, tone=tone, boxes=not given, answers=key and not given,
        masked=tuple(sorted(hidden)), tokens=tuple(tokens),
    )


# --- the environment --------------------------------------------------------------------------


def _css_string(value: str) -> str:
    """A value as a CSS string literal: only our own catalog text ever goes through this."""
    escaped = "".join(ch if ch.isalnum() or ch in " .,:/-()" else f"\\{ord(ch):x} " for ch in str(value))
    return Markup(f'"{escaped}"')


@functools.lru_cache(maxsize=None)
def environment(lang: str) -> jinja2.Environment:
    """The one Jinja environment per language: autoescaped, strict, with gettext installed."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,  # every value is escaped unless marked safe
        undefined=jinja2.StrictUndefined,  # a typo in a template is an error, not a blank
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.filters["css_string"] = _css_string
    return env


QR_PT = 42.52
"""A QR code's side (15 mm)."""


@functools.lru_cache(maxsize=256)  # a sheet's worksheet and key often meet in one process
def qr_shapes(code: str) -> Shapes:
    """A sheet code's QR code: its dark modules, a run of them per rectangle, in modules."""
    rows = segno.make(code, error="m", micro=False).matrix
    runs = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                end = x
                while end < len(row) and row[end]:
                    end += 1
                runs.append((float(x), float(y), float(end - x), 1.0))
                x = end
            else:
                x += 1
    return Shapes(width=float(len(rows)), height=float(len(rows)), fills=(("#000000", tuple(runs)),), strokes=())


def qr_svg(code: str) -> Markup:
    """A sheet code's QR code as one inline SVG path (HTML output; PDF pages paint it)."""
    shapes = qr_shapes(code)
    d = "".join(_svg_rect(r) for _, rects in shapes.fills for r in rects)
    return Markup(f'<svg class="qr" xmlns="http://www.w3.org/2000/svg" width="{_n(QR_PT)}pt" height="{_n(QR_PT)}pt"'
                  f' viewBox="0 0 {_n(shapes.width)} {_n(shapes.height)}" shape-rendering="crispEdges">'
                  f'<path d="{d}"/></svg>')


# --- sheets -----------------------------------------------------------------------------------


def _masked(problem: Problem, n: int, row: bool) -> tuple[tuple[int, int], ...]:
    """Struck-out cells of an n×n score-shaped matrix: keys after their query."""
    if not problem.causal:
        return ()
    # Column layout: rows are keys i, columns queries j, masked when i > j; row layout transposes.
    return tuple((j, i) if row else (i, j) for i in range(n) for j in range(n) if i > j)


CONTENT_WIDTH_PT = 520.0
"""Width inside the page margins (A4 is the narrower paper): wider grids are scaled down."""
MIN_SIDE_BY_SIDE_SCALE = 0.8
"""Below this, a head is stacked rather than shrunk further beside itself."""
RULES_GAP_PT = 10.0
"""Space between a grid and the rules box beside or below it."""
RULES_MIN_PT = 125.0
"""The narrowest the rules box may be, beside a grid."""
FIRST_PAGE_PT = 640.0
"""Height left under the header on a page: a taller head is laid out one grid row at a time."""


def _head_grids(problem: Problem, solution: Solution, h: int, key: bool, _) -> dict:
    """One head's matrices placed in grids: proj (projections), att (attention), out (row layout).

    `stacked` is set when the side-by-side layout would not fit a page: the grids then follow
    one another, row by row, scaled down as much as the widest needs.
    """
    m = _head_views(problem, solution, h, key, _)
    if problem.convention == "row":
        layout = {
            "proj": [[None, m["W_Q"], m["W_K"], m["W_V"]], [m["X"], m["Q"], m["K"], m["V"]]],
            "att": [[None, m["KT"]], [m["Qc"], m["S"], m["S2"], m["E"], m["sums"]]],
            "out": [[None, m["Vc"]], [m["A"], m["Z"]]],
        }
    else:
        layout = {
            "proj": [[None, m["X"]], [m["W_Q"], m["Q"]], [m["W_K"], m["K"]], [m["W_V"], m["V"]]],
            "att": [[None, m["Qc"]], [m["KT"], m["S"]], [None, m["S2"]], [None, m["E"]], [None, m["sums"]],
                    [None, m["A"]], [m["Vc"], m["Z"]]],
        }
    grids = {name: grid(rows) for name, rows in layout.items()}
    if problem.convention == "row":
        tall = grids["proj"].height_pt + grids["att"].height_pt + grids["out"].height_pt + 30 > FIRST_PAGE_PT
        side_by_side = max(g.width_pt for g in grids.values())
    else:
        tall = max(grids["att"].height_pt, grids["proj"].height_pt + 120) > FIRST_PAGE_PT
        side_by_side = side_by_side_width(grids["proj"], grids["att"])
    # A little too wide: shrink a little and keep the one-page layout; much too wide, or too
    # tall: grids one after the other, scaled to the widest.
    scale = min(1.0, CONTENT_WIDTH_PT / side_by_side)
    stacked = tall or scale < MIN_SIDE_BY_SIDE_SCALE
    if stacked:
        scale = min(1.0, CONTENT_WIDTH_PT / max(g.width_pt for g in grids.values()))
    if scale < 1.0:
        scale = max(0.5, math.floor(scale * 100) / 100)  # never below 5 pt text
        grids = {name: replace(g, scale=scale) for name, g in grids.items()}
    beside = problem.convention == "row" and grids["proj"].width_pt + RULES_GAP_PT + RULES_MIN_PT <= CONTENT_WIDTH_PT
    return {**grids, "stacked": stacked, "beside": beside}


def side_by_side_width(left: GridView, right: GridView) -> float:
    """Width of `side_by_side(left, right)`."""
    return round(_raster_width(_side_by_side_cols(left, right)) * left.scale, 2)


def _head_panels(grids: dict) -> dict:
    """One head's grids as the panels its layout draws."""
    if grids["stacked"]:
        return {name: band_panels(grids[name]) for name in ("proj", "att", "out") if name in grids}
    if "out" in grids:
        return {name: grid_panel(grids[name]) for name in ("proj", "att", "out")}
    return {"both": side_by_side(grids["proj"], grids["att"])}


def _head_view(problem: Problem, solution: Solution, h: int, key: bool, _) -> dict:
    """One head as the template draws it: its panels, and where the rules box goes."""
    grids = _head_grids(problem, solution, h, key, _)
    panels = _head_panels(grids)
    view = {**panels, "stacked": grids["stacked"], "beside": grids["beside"], "proj_width_pt": grids["proj"].width_pt,
            "rules_left_pt": grids["proj"].width_pt + RULES_GAP_PT}
    if not grids["stacked"]:
        # The rules box follows its panel in the flow, pulled up beside or below the projections
        # (placing the panel absolutely instead costs WeasyPrint a few milliseconds a page).
        height = panels["both" if "both" in panels else "proj"].height_pt
        top = 0.0 if grids["beside"] else grids["proj"].height_pt + RULES_GAP_PT
        view["rules_margin_pt"] = round(top - height, 2)
    return view


def _head_views(problem: Problem, solution: Solution, h: int, key: bool, _) -> dict:
    """Every matrix of one head, sized for the problem's convention."""
    head, sol = problem.heads[h], solution.heads[h]
    row = problem.convention == "row"
    n = problem.n_tokens
    tokens = [f"x{j + 1}" for j in range(n)]
    masked = _masked(problem, n, row)
    sums = [list(sol.sums)] if not row else [[s] for s in sol.sums]
    att_values = [sol.scores, sol.scaled, sol.powers, sums, sol.A, sol.Z]
    if row:
        # Tokens are rows: the attention block shares the query rows; Kᵀ and V sit on top.
        att_w = max(_width(m, 4) for m in (sol.scores, sol.scaled, sol.powers))
        frac_w = max(_width(m, 6, True) for m in (sol.A, sol.Z))
        w_w = max(_width(m, 4) for m in (head.W_Q, head.W_K, head.W_V, sol.Q, sol.K, sol.V))
        return {
            "X": matrix("X", _("inputs"), problem.X, tone="input", given=True, cell_w=3),
            "W_Q": matrix("W_Q", _("query weights"), head.W_Q, tone="weight", given=True, cell_w=w_w),
            "W_K": matrix("W_K", _("key weights"), head.W_K, tone="weight", given=True, cell_w=w_w),
            "W_V": matrix("W_V", _("value weights"), head.W_V, tone="weight", given=True, cell_w=w_w),
            "Q": matrix("Q = X·W_Q", _("queries"), sol.Q, tone="q", key=key, cell_w=w_w),
            "K": matrix("K = X·W_K", _("keys"), sol.K, tone="k", key=key, cell_w=w_w),
            "V": matrix("V = X·W_V", _("values"), sol.V, tone="v", key=key, cell_w=w_w),
            "Qc": matrix("Q", _("queries, copied"), sol.Q, tone="q", key=key, cell_w=w_w),
            "KT": matrix("Kᵀ", _("keys, transposed"), transpose(sol.K), tone="k", key=key, cell_w=att_w),
            "S": matrix("Q·Kᵀ", _("scores"), sol.scores, tone="score", key=key, cell_w=att_w, masked=masked),
            "S2": matrix("S'", _("scaled"), sol.scaled, tone="score", key=key, cell_w=att_w, masked=masked),
            "E": matrix("E", _("powers"), sol.powers, tone="score", key=key, cell_w=att_w, masked=masked),
            "sums": matrix("Σ", _("row sums"), sums, tone="score", key=key, cell_w=max(att_w, _width(sums, 4))),
            "A": matrix("A", _("attention"), sol.A, tone="attn", key=key, cell_w=frac_w, two_line=True,
                        masked=masked),
            "Vc": matrix("V", _("values, copied"), sol.V, tone="v", key=key, cell_w=frac_w),
            "Z": matrix("Z = A·V", _("output"), sol.Z, tone="out", key=key, cell_w=frac_w, two_line=True),
        }
    tok_w = max(_width(m, 4) for m in (problem.X, sol.Q, sol.K, sol.V))
    att_w = max(_width(m, 6, True) for m in att_values)
    return {
        "X": matrix("X", _("inputs"), problem.X, tone="input", given=True, cell_w=tok_w, tokens=tokens),
        "W_Q": matrix("W_Q", _("query weights"), head.W_Q, tone="weight", given=True, cell_w=3),
        "W_K": matrix("W_K", _("key weights"), head.W_K, tone="weight", given=True, cell_w=3),
        "W_V": matrix("W_V", _("value weights"), head.W_V, tone="weight", given=True, cell_w=3),
        "Q": matrix("Q = W_Q·X", _("queries"), sol.Q, tone="q", key=key, cell_w=tok_w),
        "K": matrix("K = W_K·X", _("keys"), sol.K, tone="k", key=key, cell_w=tok_w),
        "V": matrix("V = W_V·X", _("values"), sol.V, tone="v", key=key, cell_w=tok_w),
        "Qc": matrix("Q", _("queries, copied"), sol.Q, tone="q", key=key, cell_w=att_w),
        "KT": matrix("Kᵀ", _("keys, transposed"), transpose(sol.K), tone="k", key=key, cell_w=4),
        "S": matrix("Kᵀ·Q", _("scores"), sol.scores, tone="score", key=key, cell_w=att_w, masked=masked),
        "S2": matrix("S'", _("scaled"), sol.scaled, tone="score", key=key, cell_w=att_w, masked=masked),
        "E": matrix("E", _("powers"), sol.powers, tone="score", key=key, cell_w=att_w, masked=masked),
        "sums": matrix("Σ", _("column sums"), sums, tone="score", key=key, cell_w=att_w),
        "A": matrix("A", _("attention"), sol.A, tone="attn", key=key, cell_w=att_w, two_line=True, masked=masked),
        "Vc": matrix("V", _("values, copied"), sol.V, tone="v", key=key, cell_w=tok_w, tall=True),
        "Z": matrix("Z = V·A", _("output"), sol.Z, tone="out", key=key, cell_w=att_w, two_line=True),
    }


def _final_grid(problem: Problem, solution: Solution, key: bool, _) -> Optional[GridView]:
    """The concatenation (and W_O with the output) placed in a grid, when there is one."""
    v = _final_views(problem, solution, key, _)
    if v is None:
        return None
    if problem.convention == "row":
        rows = [[None, v["W_O"]], [v["Zc"], v["out"]]] if "W_O" in v else [[v["Zc"]]]
    else:
        rows = [[None, v["Zc"]], [v["W_O"], v["out"]]] if "W_O" in v else [[None, v["Zc"]]]
    return grid(rows)


def _final_views(problem: Problem, solution: Solution, key: bool, _) -> Optional[dict]:
    """Concatenation and output projection, when there are several heads or a W_O."""
    if len(problem.heads) == 1 and problem.W_O is None:
        return None
    row = problem.convention == "row"
    values = [solution.Z] + ([solution.output] if solution.output is not None else [])
    w = max(_width(m, 6, True) for m in values)
    views = {"Zc": matrix("Z_concat", _("heads' outputs, concatenated"), solution.Z, tone="out", key=key,
                          cell_w=w, two_line=True)}
    if problem.W_O is not None:
        product = "Z_concat·W_O" if row else "W_O·Z_concat"
        # Column layout: W_O's rows meet the output's two-line rows, so its rows are two lines tall.
        views["W_O"] = matrix("W_O", _("output weights"), problem.W_O, tone="weight", given=True,
                              cell_w=w if row else 4, tall=not row)
        views["out"] = matrix(product, _("output"), solution.output, tone="out", key=key, cell_w=w, two_line=True)
    return views


def _worked(problem: Problem, solution: Solution, _) -> dict:
    """One dot product and one column's softmax, written out in full for the key."""
    sol = solution.heads[0]
    n = problem.n_tokens
    # The query with the most keys to weigh (the last one when masked), and its first key.
    j = n - 1 if problem.causal else 0
    i = 0
    row = problem.convention == "row"
    k = [sol.K[c][i] for c in range(len(sol.K))] if not row else list(sol.K[i])
    q = [sol.Q[c][j] for c in range(len(sol.Q))] if not row else list(sol.Q[j])
    terms = " + ".join(f"{_text(a)}·{_text(b)}" for a, b in zip(k, q))
    score = sol.scores[i][j] if not row else sol.scores[j][i]
    dot = f"k{i + 1} · q{j + 1} = {terms} = {_text(score)}"
    column = [(r, sol.scaled[r][j], sol.powers[r][j], sol.A[r][j]) for r in range(n)] if not row else [
        (r, sol.scaled[j][r], sol.powers[j][r], sol.A[j][r]) for r in range(n)]
    shown = [c for c in column if c[1] is not None]
    base = "3" if problem.rules.softmax == "base3" else "e"
    powers = " + ".join(f"{base}^{_text(s)}" for _, s, _p, _a in shown)
    values = " + ".join(_text(p) for _, _s, p, _a in shown)
    total = sol.sums[j]
    weights = ", ".join(f"{_text(p)}/{_text(total)} = {_text(a)}" for _, _s, p, a in shown)
    return {
        "dot": dot,
        "softmax": f"Σ = {powers} = {values} = {_text(total)}",
        "weights": weights,
        "query": j + 1,
    }


def sheet_view(problem: Problem, solution: Solution, student: Student, settings: Settings, key: bool) -> dict:
    """Everything the template needs for one worksheet (key=False) or answer key (key=True)."""
    _ = translations(settings.lang).gettext
    final = _final_grid(problem, solution, key, _)
    return {
        "problem": problem,
        "row": problem.convention == "row",
        "heads": [_head_view(problem, solution, h, key, _) for h in range(len(problem.heads))],
        "final": final and grid_panel(final),
        "projected": problem.W_O is not None,
        "key": key,
        "student": student,
        "code": problem.code or "",
        "worked": _worked(problem, solution, _) if key and settings.worked else None,
        "rules": _rules(problem, key, _),
    }


def _rules(problem: Problem, key: bool, _) -> list[str]:
    """The rules box's lines, in the sheet's language."""
    rules = problem.rules
    d_k = problem.d_k
    if rules.scale == "floor":
        lines = [_("Scale: floor(x/%(divisor)s) stands for x/√%(d_k)s; round down, so floor(−1/2) = −1.")
                 % {"divisor": hand_divisor(d_k), "d_k": d_k}]
    elif rules.scale == "exact":
        lines = [_("Scale: divide each score by √%(d_k)s.") % {"d_k": d_k}]
    else:
        lines = [_("No scaling: use the scores as they are.")]
    lines.append(_("Softmax: 3^x stands for e^x; 3^0 = 1 and 3^−1 = 1/3.") if rules.softmax == "base3"
                 else _("Softmax: use e^x."))
    lines.append(_("Divide each power by its row sum Σ: each row of A sums to 1.") if problem.convention == "row"
                 else _("Divide each power by its column sum Σ: each column of A sums to 1."))
    lines.append(_("Each product sits where its factors' rows and columns cross."))
    if problem.causal:
        lines.append(_("Causal mask: struck-out cells are hidden keys; their weight is 0."))
    if not key:
        lines.append(_("Write A and Z as fractions, with two decimals below."))
    return ["• " + line for line in lines]


def document_html(sheets: Sequence[dict], settings: Settings, embed_css: str = "", page_css: bool = True,
                  paint: Optional[Callable[[PanelView], object]] = None) -> str:
    """Sheets (from `sheet_view`) as one HTML document, each starting on a new page.

    `embed_css` puts the stylesheet inside the page, for HTML output read without attnsheet;
    PDF output passes the stylesheet and the page style (`page_css=False`, see `page_css_text`)
    separately, each parsed once per process. `paint` takes panels over for PDF output (see
    `generator.paint.Painter`): it returns each one's slot, an anchor and the layers left to HTML.
    """
    return "".join(document_chunks(sheets, settings, embed_css, page_css, paint))


def document_chunks(sheets: Iterable[dict], settings: Settings, embed_css: str = "", page_css: bool = True,
                    paint: Optional[Callable[[PanelView], object]] = None) -> Iterator[str]:
    """`document_html` piece by piece, taking the sheets as they come: a big batch's HTML is
    written as it is made, never held whole."""
    template = environment(settings.lang).get_template("sheet.html")
    return template.generate(
        sheets=sheets,
        settings=settings,
        page_size=PAPERS[settings.paper],
        version=__version__,
        embed_css=Markup(embed_css),  # our own stylesheet file, never user text
        page_css=page_css,
        paint=paint,
        code_label=CODE_LABEL, code=CODE, code_tops=CODE_TOPS_PT, code_right=CODE_RIGHT_PT, qr_svg=qr_svg,
        margins=MARGINS_MM, foot=FOOT, foot_prefix=FOOT_PREFIX, footer=True,  # for page.css
    )


def page_css_text(settings: Settings, footer: bool = True) -> str:
    """The page style (paper size, margins, footer) that `document_html` embeds unless told not to.

    `footer=False` leaves the footer out, for a painter that paints it (see `generator.paint`).
    """
    return environment(settings.lang).get_template("page.css").render(
        page_size=PAPERS[settings.paper], margins=MARGINS_MM, foot=FOOT, foot_prefix=FOOT_PREFIX, footer=footer)


def sheet_html(problem: Problem, solution: Solution, student: Student, settings: Settings, key: bool) -> str:
    """One student's worksheet (key=False) or answer key (key=True) as a standalone HTML page."""
    return document_html([sheet_view(problem, solution, student, settings, key)], settings)


def stylesheet_text(asset_prefix: str = "") -> str:
    """The sheets' stylesheet, with font URLs under `asset_prefix` (for HTML output)."""
    css = (templates_dir() / "sheet.css").read_text(encoding="utf-8")
    return css.replace('url("fonts/', f'url("{asset_prefix}fonts/')
