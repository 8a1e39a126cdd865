"""Worksheets and answer keys as HTML strings, in the classic by-hand layout.

One strict Jinja environment (autoescape, StrictUndefined, gettext from the catalogs), and the
view model it renders: every matrix becomes one block of monospaced text lines over a drawn
grid, so a sheet is a few dozen layout boxes rather than hundreds of table cells (WeasyPrint's
cost grows with boxes). Nothing here writes files.
"""

from __future__ import annotations

import base64
import functools
import io
import struct
import zlib
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Optional, Sequence

import jinja2
import segno
from markupsafe import Markup

from generator import __version__
from generator.engine import hand_divisor
from generator.i18n import translations
from generator.numbers import Cell, decimal_str, normalize
from generator.problem import Problem, Solution, transpose

PAPERS = {"a4": "A4", "letter": "letter"}
"""Paper names and their CSS page sizes."""

CHAR_PT = 6.0
"""Width of one character of the 10 pt monospaced matrix font (0.6 em)."""
LINE_PT = 16.0
"""Height of one line of a matrix: a writing box is this tall."""
PNG_DATA = "data:image/png;base64,"
"""Prefix of the only data URLs a sheet holds: its QR code and the writing-box tiles."""


def templates_dir() -> Path:
    """Where the templates live: inside the installed package, or at the repository's top."""
    packaged = Path(__file__).resolve().parent / "templates"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "templates"


@dataclass(frozen=True)
class Student:
    """Who a sheet is for; empty fields leave blank lines to fill by hand."""

    name: str = ""
    """Printed on the Name line."""
    id: str = ""
    """Student id from the roster, if any."""
    group: str = ""
    """Printed on the Group line."""


@dataclass(frozen=True)
class Settings:
    """What every sheet of a batch shares."""

    paper: str = "a4"
    """a4 or letter."""
    lang: str = "en"
    """Language of every word on the sheet."""
    title: str = ""
    """Title printed at the top; empty for the default."""
    worked: bool = False
    """Keys also write out one dot product and one column's softmax."""
    timestamp: str = ""
    """W3C date-time written into the files, or empty for none (reproducible by default)."""


@dataclass(frozen=True)
class MatrixView:
    """One matrix as it is drawn: lines of text over an optional grid of writing boxes."""

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
    tone: str = "given"
    """Colour family: input, weight, q, k, v, score, attn, out."""
    boxes: bool = True
    """Draw writing boxes (a value to compute) rather than a plain bracketed matrix."""
    answers: bool = False
    """The text is an answer (printed in the key's colour)."""
    masked: tuple[tuple[int, int], ...] = ()
    """Cells struck out by the causal mask."""
    header: str = ""
    """A line above the body (token labels), aligned with the columns."""
    scale: float = 1.0
    """Size relative to the standard 10 pt matrices: below 1 for shapes too wide for the page."""

    @property
    def width_pt(self) -> float:
        """Width of the body."""
        return round(self.cols * self.cell_w * CHAR_PT * self.scale, 2)

    @property
    def height_pt(self) -> float:
        """Height of the body."""
        return round(self.rows * self.cell_h * LINE_PT * self.scale, 2)

    @property
    def cell_w_pt(self) -> float:
        """Width of one cell."""
        return round(self.cell_w * CHAR_PT * self.scale, 2)

    @property
    def cell_h_pt(self) -> float:
        """Height of one cell."""
        return round(self.cell_h * LINE_PT * self.scale, 2)

    @property
    def font_pt(self) -> float:
        """Size of the matrix text."""
        return round(10 * self.scale, 2)

    @property
    def line_pt(self) -> float:
        """Height of one line of matrix text."""
        return round(LINE_PT * self.scale, 2)

    @property
    def tile(self) -> str:
        """The writing-box tile for this cell size, as a PNG data URL."""
        return grid_tile(self.cell_w_pt, self.cell_h_pt)


TILE_PX_PER_PT = 4
"""Tile resolution: 288 dpi, so the half-point box lines print crisp."""


@functools.lru_cache(maxsize=None)
def grid_tile(width_pt: float, height_pt: float) -> str:
    """A transparent cell-sized PNG with a grey line on its right and bottom edges.

    Repeated as a background it draws a whole grid of writing boxes: one image, where two
    gradients per matrix cost WeasyPrint a shading each to write.
    """
    w, h = round(width_pt * TILE_PX_PER_PT), round(height_pt * TILE_PX_PER_PT)
    line = 2  # pixels: 0.5 pt
    grey, clear = b"\x8a\x8a\x8a\xff", b"\x00\x00\x00\x00"
    rows = []
    for y in range(h):
        if y >= h - line:
            pixels = grey * w
        else:
            pixels = clear * (w - line) + grey * line
        rows.append(b"\x00" + pixels)  # filter byte: none
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
    return PNG_DATA + base64.b64encode(png).decode("ascii")


@dataclass(frozen=True)
class Placed:
    """A matrix block at its place in a grid."""

    m: MatrixView
    """The matrix."""
    x: float
    """Left edge of the block, in pt from the grid's left."""
    y: float
    """Top edge of the block, in pt from the grid's top."""
    width: float
    """Width of the block."""
    end: bool
    """Right-aligned: its body ends where the next column starts."""


@dataclass(frozen=True)
class GridView:
    """Matrices placed in rows and columns, so that each product sits where its factors cross.

    Every position is computed here and drawn absolutely: the sheet's geometry is known to the
    point, and WeasyPrint lays out a few blocks instead of a grid (much faster, and the same
    result on every machine).
    """

    width_pt: float
    """The grid's width."""
    height_pt: float
    """The grid's height."""
    cells: tuple[Placed, ...]
    """The matrices, in reading order, placed from the grid's top."""
    bands: tuple[tuple[float, tuple[Placed, ...]], ...] = ()
    """The same matrices row by row: (height, matrices placed from the row's top). Drawn one
    after the other, rows can go to the next page; no matrix is ever split."""


GAP_PT = 7.0
"""Space between the columns of a grid."""
ROW_GAP_PT = 6.0
"""Space between the rows of a grid."""
LABEL_PT = 13.0
"""Height of a matrix's caption line (see .mat-label)."""
HEADER_PT = 12.0
"""Height of the token labels above X (see .mat-head)."""


def _body_width(m: MatrixView) -> float:
    """Outer width of a matrix body: its text plus borders (and padding for given values)."""
    return m.width_pt + (2.4 if m.boxes else 4.4)


def _block_width(m: MatrixView) -> float:
    """Width a matrix block needs: its body, or its caption if that is wider (an estimate)."""
    label = (len(m.label) + 2 + len(m.caption)) * 0.6 * 7.5 * m.scale  # one monospaced run at 7.5 pt
    return round(max(_body_width(m), label), 1)


def _block_height(m: MatrixView) -> float:
    """Height of a matrix block: caption, token labels, body and its top and bottom rules."""
    return (LABEL_PT + (HEADER_PT if m.header else 0)) * m.scale + m.height_pt + (1.0 if m.boxes else 0)


def grid(rows: Sequence[Sequence[Optional[MatrixView]]]) -> GridView:
    """Matrices in rows and columns; the first column is right-aligned so its rows meet the next."""
    ncols = max(len(r) for r in rows)
    widths = [0.0] * ncols
    for r in rows:
        for j, m in enumerate(r):
            if m is not None:
                widths[j] = max(widths[j], _block_width(m) if j else _body_width(m))
    lefts = [sum(widths[:j]) + GAP_PT * j for j in range(ncols)]
    cells: list[Placed] = []
    bands = []
    y = 0.0
    for r in rows:
        height = round(max((_block_height(m) for m in r if m is not None), default=0.0), 1)
        band = []
        for j, m in enumerate(r):
            if m is None:
                continue
            if j == 0 and ncols > 1:
                # The body ends at the column's end; a wider caption reaches out to the left.
                width = _block_width(m)
                band.append(Placed(m, round(lefts[0] + widths[0] - width, 1), 0.0, width, True))
            else:
                band.append(Placed(m, round(lefts[j], 1), 0.0, _block_width(m), False))
        cells += [replace(c, y=round(y, 1)) for c in band]
        bands.append((height, tuple(band)))
        y += height + ROW_GAP_PT
    return GridView(
        width_pt=round(lefts[-1] + widths[-1], 1), height_pt=round(y - ROW_GAP_PT, 1), cells=tuple(cells),
        bands=tuple(bands),
    )


def _center(text: str, width: int) -> str:
    left = (width - len(text) + 1) // 2  # an odd spare space goes left: never flush to the bracket
    return " " * left + text + " " * (width - len(text) - left)


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
           masked: Sequence[tuple[int, int]] = (), header: Sequence[str] = ()) -> MatrixView:
    """The view of one matrix: given values, or writing boxes (filled on the key).

    `two_line` cells hold a value and its decimals; `tall` cells are two lines high with the
    value alone, to line up with a two-line neighbour.
    """
    rows, cols = len(values), len(values[0])
    width = cell_w or _width(values, 3, two_line)
    hidden = frozenset(masked)
    shown = values if (given or key) else None
    head = "".join(_center(h, width) for h in header) if header else ""
    cell_h = 2 if two_line or tall else 1
    return MatrixView(
        label=label, caption=caption, lines=_lines(shown, rows, cols, width, cell_h, two_line, hidden), rows=rows,
        cols=cols, cell_w=width, cell_h=cell_h, tone=tone, boxes=not given, answers=key and not given,
        masked=tuple(sorted(hidden)), header=head,
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


def qr_png(code: str) -> str:
    """A QR code of a sheet code as a PNG data URL: a tiny image is far cheaper to lay out than SVG."""
    buffer = io.BytesIO()
    segno.make(code, error="m", micro=False).save(buffer, kind="png", scale=4, border=0)
    return PNG_DATA + base64.b64encode(buffer.getvalue()).decode("ascii")


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
        side_by_side = grids["proj"].width_pt + 14 + grids["att"].width_pt
    # A little too wide: shrink a little and keep the one-page layout; much too wide, or too
    # tall: grids one after the other, scaled to the widest.
    scale = min(1.0, CONTENT_WIDTH_PT / side_by_side)
    stacked = tall or scale < MIN_SIDE_BY_SIDE_SCALE
    if stacked:
        scale = min(1.0, CONTENT_WIDTH_PT / max(g.width_pt for g in grids.values()))
    if scale < 1.0:
        scale = max(0.5, scale * 0.98)  # a margin for the caption estimate; never below 5 pt text
        grids = {
            name: grid([[None if v is None else replace(v, scale=scale) for v in row] for row in rows])
            for name, rows in layout.items()
        }
    beside = problem.convention == "row" and grids["proj"].width_pt + 14 + 130 <= CONTENT_WIDTH_PT
    return {**grids, "stacked": stacked, "beside": beside}


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
        "X": matrix("X", _("inputs"), problem.X, tone="input", given=True, cell_w=tok_w, header=tokens),
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
    return {
        "problem": problem,
        "row": problem.convention == "row",
        "heads": [_head_grids(problem, solution, h, key, _) for h in range(len(problem.heads))],
        "final": _final_grid(problem, solution, key, _),
        "projected": problem.W_O is not None,
        "key": key,
        "student": student,
        "code": problem.code or "",
        "qr": qr_png(problem.code) if problem.code else "",
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


def document_html(sheets: Sequence[dict], settings: Settings, embed_css: str = "") -> str:
    """Sheets (from `sheet_view`) as one HTML document, each starting on a new page.

    `embed_css` puts the stylesheet inside the page, for HTML output read without attnsheet;
    PDF output passes the stylesheet separately, parsed once per process.
    """
    template = environment(settings.lang).get_template("sheet.html")
    return template.render(
        sheets=sheets,
        settings=settings,
        page_size=PAPERS[settings.paper],
        version=__version__,
        embed_css=Markup(embed_css),  # our own stylesheet file, never user text
    )


def sheet_html(problem: Problem, solution: Solution, student: Student, settings: Settings, key: bool) -> str:
    """One student's worksheet (key=False) or answer key (key=True) as a standalone HTML page."""
    return document_html([sheet_view(problem, solution, student, settings, key)], settings)


def stylesheet_text(asset_prefix: str = "") -> str:
    """The sheets' stylesheet, with font URLs under `asset_prefix` (for HTML output)."""
    css = (templates_dir() / "sheet.css").read_text(encoding="utf-8")
    return css.replace('url("fonts/', f'url("{asset_prefix}fonts/')
