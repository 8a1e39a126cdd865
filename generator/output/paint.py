"""Panels, the sheet code and the footer painted straight into PDF pages.

`sheet.panel` has already placed every value of a grid on a raster of monospaced characters,
over a few rectangles and lines: nothing is left to lay out. WeasyPrint would still spend
~0.3 ms on each of a page's ~100 text lines and parse the grid's SVG again for every page;
written here as PDF operators, a whole grid costs about a millisecond. The sheet code, its
QR code and the footer are our own text and shapes too. WeasyPrint lays out the page and
draws the rest (title, the student's lines), leaving an empty box with an id where each of
ours goes (see templates/macros.html and sheet_body.html, and `generator.output.pdf`); the
rules box's text is laid out once per batch and stamped (`generator.output.blocks`).

Pure: neither WeasyPrint nor PDF objects, only operator bytes and font data. Text is in the
panel font, embedded as a subset with a ToUnicode map, so the values can still be searched,
copied and read aloud; what that font cannot print stays in the HTML for WeasyPrint.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence, Union

from generator.draw.codes import ALPHABET
from generator.output.blocks import Block, BlockMark, Stamp
from generator.output.monofont import EmbeddedFont, mono
from generator.sheet.look import MM
from generator.sheet.marks import INSET_MM, MARK_COLOUR, PAGE_QR_MM, page_qr_text, registration_marks
from generator.sheet.panel import Layer, PanelView, Shapes
from generator.sheet.qr import qr_shapes
from generator.sheet.sheetview import HeadView
from generator.sheet.style import (
    CODE,
    CODE_LABEL,
    CODE_RIGHT_PT,
    CODE_TOPS_PT,
    EDGE_PT,
    FOOT,
    FOOT_PREFIX,
    QR_PT,
    Ink,
)

BASE_CHARS = frozenset("0123456789 −-/." + FOOT_PREFIX + ALPHABET)
"""Always in a file's subset, whatever its numbers and sheet code: a batch's files then share
a subset or two per weight, each made once per process (captions change only with the
language); making one takes ~20 ms."""
ANCHOR = "attnsheet-"
"""Prefix of the ids of the boxes we paint in."""


@dataclass(frozen=True)
class Slot:
    """A panel taken over by a painter: the id of its box, and the layers left to HTML."""

    anchor: str
    layers: tuple[Layer, ...]


@dataclass(frozen=True)
class PanelMark:
    """A panel to paint, with the layers we paint (the others are in the HTML)."""

    panel: PanelView
    layers: tuple[Layer, ...]


@dataclass(frozen=True)
class BadgeMark:
    """The header's top right: the words "Sheet code", the code and its QR code."""

    code: str
    label: str
    qr: str = ""
    """What the QR code holds ('' for the code): a student's link on a server's sheet."""
    paged: bool = False
    """A worksheet's: without a link, its QR code holds the code and "1/pages" (sheet/marks.page_qr_text)."""

    def text(self, page: int, pages: int) -> str:
        """What the QR code holds on a document of `pages` pages."""
        return self.qr or (page_qr_text(self.code, page, pages) if self.paged else self.code)


@dataclass(frozen=True)
class FootMark:
    """The footer of every page: the code at the left, "page n / m" at the right (and, on a
    worksheet, the registration marks in the page's corners, which every page has too)."""

    code: str
    word: str
    """"page", in the sheet's language."""
    marks: tuple = ()
    """A worksheet's registration marks (sheet/marks.Mark), in points from the page's top left;
    with them, pages 2+ carry a QR code of the code and the page atop their right."""

    @property
    def left(self) -> str:
        """The code after the tool's name; the name alone on a blank template (it has none)."""
        return FOOT_PREFIX + self.code if self.code else FOOT_PREFIX.rstrip(" ·")

    def right(self, page: int, pages: int) -> str:
        return f"{self.word} {page} / {pages}"


Mark = Union[PanelMark, BadgeMark, FootMark, BlockMark]


@dataclass(frozen=True)
class HeadSlots:
    """The slots of one head's panels, in the shape of its view (see `HeadView`)."""

    both: Optional[Slot] = None
    proj: Optional[Slot] = None
    att: Optional[Slot] = None
    out: Optional[Slot] = None
    bands: tuple[tuple[Slot, ...], ...] = ()
    """Stacked: each grid's bands' slots, in the order of the view's bands."""


@dataclass(frozen=True)
class Plan:
    """What one sheet leaves to the painter, decided before its template renders: the
    template only prints these anchors and heights (no callback, no state)."""

    heads: tuple[HeadSlots, ...]
    """Each head's panels."""
    final: Optional[Slot] = None
    """The concatenation's panel."""
    score: Optional[Slot] = None
    """A graded sheet's score panel."""
    badge: Optional[str] = None
    """The anchor of the code's box, or None: the header draws it."""
    foot: Optional[str] = None
    """The anchor of the footer's box, or None: the page style draws it."""
    title: Optional[Stamp] = None
    """The kind and title, laid out once per batch."""
    rules: Optional[Stamp] = None
    """The rules box's text, laid out once per batch."""
    worked: Optional[Slot] = None
    """A key's worked example's panel."""
    final_more: Optional[Slot] = None
    """The projection's panel, on a page after the concatenation's."""


@dataclass(frozen=True)
class Placement:
    """A mark where WeasyPrint placed its box: points from the page's top left, and the page's
    number among its document's pages."""

    mark: Mark
    box: tuple[float, float, float, float]
    """Left, top, right, bottom."""
    page: int
    pages: int


class Painter:
    """Takes over the panels, the code and the footer of one HTML document (see the `paint` of
    `render.document_html`): what the panel font can print, it paints; the rest stays HTML."""

    def __init__(self, blocks: Optional[Callable[[str, float, str, str], Optional[Block]]] = None) -> None:
        self.marks: dict[str, Mark] = {}
        """By anchor, the id of the box each is painted in."""
        self.blocks = blocks
        """Lays out a block once (what it holds, its width, its language), or says it cannot."""

    def head(self, head: HeadView) -> HeadSlots:
        """Takes over every panel of a head, in the order the page shows them."""
        if head.stacked:
            return HeadSlots(bands=tuple(tuple(self(p) for p in band) for _, band in head.bands))
        return HeadSlots(
            **{name: self(p) for name in ("both", "proj", "att", "out") if (p := getattr(head, name)) is not None}
        )

    def __call__(self, p: PanelView) -> Slot:
        anchor = f"{ANCHOR}panel-{sum(isinstance(m, PanelMark) for m in self.marks.values()) + 1}"
        ours = tuple(layer for layer in p.layers if mono(layer.style.weight).prints(layer.text))
        self.marks[anchor] = PanelMark(p, ours)
        return Slot(anchor, tuple(layer for layer in p.layers if layer not in ours))

    def badge(self, code: str, label: str, qr: str = "", paged: bool = False) -> Optional[str]:
        """The anchor of the code's box (its QR holding `qr`, or the code, with the page when
        `paged`), or None: the label is not in the panel font."""
        if not (mono(CODE_LABEL.weight).prints(label) and mono(CODE.weight).prints(code)):
            return None
        return self._add("badge", BadgeMark(code, label, qr, paged))

    def foot(self, code: str, word: str, marks: tuple = ()) -> Optional[str]:
        """The anchor of the footer's box (fixed, so on every page; with a worksheet's
        registration `marks`), or None: `word` is not in the panel font."""
        mark = FootMark(code, word, marks)
        if not mono(FOOT.weight).prints(mark.left + mark.right(1234567890, 0)):
            return None
        return self._add("foot", mark)

    def block(self, html: str, width_pt: float, lang: str, box_class: str = "") -> Optional[Stamp]:
        """The empty box to leave for `html` laid out `width_pt` wide in a box of `box_class`, or
        None: lay it out here."""
        block = self.blocks(str(html), width_pt, lang, box_class) if self.blocks else None
        if block is None:
            return None
        anchor = f"{ANCHOR}block-{sum(isinstance(m, BlockMark) for m in self.marks.values()) + 1}"
        self.marks[anchor] = BlockMark(block)
        return Stamp(anchor, block.height)

    @property
    def paints_footer(self) -> bool:
        """Whether the page style must leave the footer out."""
        return any(isinstance(mark, FootMark) for mark in self.marks.values())

    def _add(self, name: str, mark: Mark) -> str:
        anchor = ANCHOR + name
        if anchor in self.marks:
            raise ValueError(f"one {name} per painted document")  # a painter paints one sheet
        self.marks[anchor] = mark
        return anchor

    def place(self, anchor: str, box: tuple[float, float, float, float], page: int = 1, pages: int = 1) -> Placement:
        """The mark of `anchor`, placed."""
        return Placement(self.marks[anchor], box, page, pages)


def _texts(mark: Mark, pages: int = 1) -> Iterable[tuple[int, str]]:
    """The text a mark prints, by weight (`pages`: the most pages a footer numbers)."""
    if isinstance(mark, PanelMark):
        return ((layer.style.weight, layer.text) for layer in mark.layers)
    if isinstance(mark, BadgeMark):
        return ((CODE_LABEL.weight, mark.label), (CODE.weight, mark.code))
    if isinstance(mark, FootMark):
        return ((FOOT.weight, mark.left + mark.right(pages, pages)),)
    return ()  # a block brings its own fonts


def fonts_for(placements: Iterable[Placement]) -> dict[int, EmbeddedFont]:
    """The subsets a file's placements need, by weight."""
    chars: dict[int, set[str]] = {}
    for pl in placements:
        for weight, text in _texts(pl.mark, pl.pages):
            chars.setdefault(weight, set()).update(text)
    return {weight: mono(weight).subset(BASE_CHARS | (used - {"\n"})) for weight, used in sorted(chars.items())}


FONT_KEY = "AttnMono"
"""What the names of the panel fonts in a page's resources start with."""


def font_key(weight: int) -> str:
    """The name a page's resources give the panel font of `weight`."""
    return f"{FONT_KEY}{weight}"


def num(x: float, places: int = 3) -> str:
    """A number in a content stream: short, never in exponent form. A grid line's text takes
    four places: its baseline sums a pitch many times, and a rasteriser may snap a glyph to the
    other pixel for a thousandth of a point (the HTML's lines are placed to the float)."""
    if x == int(x):  # most: the raster is in whole points
        return str(int(x))
    text = f"{x:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


@functools.lru_cache(maxsize=64)
def rgb(colour: str) -> str:
    return " ".join(num(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))


def page_operators(
    placements: Sequence[Placement],
    page_height: float,
    fonts: dict[int, EmbeddedFont],
    page_width: Optional[float] = None,
) -> bytes:
    """PDF operators that paint `placements` on a page `page_height` points high (and `page_width`
    wide: a landscape page's marks are in its own corners, not the first page's).

    They expect PDF's initial graphics state (the caller wraps the page's other content in q/Q).
    """
    ops: list[str] = []
    for pl in placements:  # shapes first: no text is ever under a tint
        left, top = pl.box[:2]
        if isinstance(pl.mark, PanelMark):
            scale = pl.mark.panel.scale
            _shapes(ops, pl.mark.panel.shapes, scale, left + EDGE_PT * scale, page_height - top)
        elif isinstance(pl.mark, BadgeMark):
            shapes = qr_shapes(pl.mark.text(pl.page, pl.pages))
            _shapes(ops, shapes, QR_PT / shapes.width, pl.box[2] - QR_PT, page_height - top)
        elif isinstance(pl.mark, FootMark) and pl.mark.marks:
            marks = registration_marks(page_width, page_height) if page_width else pl.mark.marks
            ops.append(
                f"q {rgb(MARK_COLOUR)} rg "
                + " ".join(
                    f"{num(m.x)} {num(page_height - m.y - m.size)} {num(m.size)} {num(m.size)} re" for m in marks
                )
                + " f Q"
            )
            if pl.page > 1 and pl.mark.code:
                shapes, side = qr_shapes(page_qr_text(pl.mark.code, pl.page, pl.pages)), PAGE_QR_MM * MM
                _shapes(ops, shapes, side / shapes.width, pl.box[2] - side, page_height - INSET_MM * MM)
    for pl in placements:
        mark = pl.mark
        if isinstance(mark, PanelMark):
            for layer in mark.layers:
                _layer(ops, layer, pl, page_height, fonts[layer.style.weight])
        elif isinstance(mark, BadgeMark):
            right, top = pl.box[2] - CODE_RIGHT_PT, pl.box[1]
            for ink, text, line_top in zip((CODE_LABEL, CODE), (mark.label, mark.code), CODE_TOPS_PT):
                font = fonts[ink.weight]
                baseline = top + line_top + _baseline(font, ink.size)  # line-height: normal
                _line(ops, font, ink, right - cell_width(font, ink, text), page_height - baseline, text)
        elif isinstance(mark, FootMark):
            font, (left, top, right, bottom) = fonts[FOOT.weight], pl.box
            # A margin box centres its line in the margin: as a line as tall as the margin.
            baseline = page_height - (top + _baseline(font, FOOT.size, bottom - top))
            _line(ops, font, FOOT, left, baseline, mark.left)
            text = mark.right(pl.page, pl.pages)
            _line(ops, font, FOOT, right - cell_width(font, FOOT, text), baseline, text)
    return "\n".join(ops).encode("ascii")


def _baseline(font: EmbeddedFont, size: float, line: float = 0.0) -> float:
    """A line box's baseline from its top, as CSS places it: half the leading above the
    font's ascent (no leading when `line` is 0, line-height: normal)."""
    ascent, descent = font.ascent * size / 1000, -font.descent * size / 1000
    return ((line - ascent - descent) / 2 if line else 0.0) + ascent


def cell_width(font: EmbeddedFont, ink: Ink, text: str) -> float:
    """Advance of a line of `text`; CSS letter spacing follows every letter, the last one too."""
    return len(text) * (font.advance * ink.size / 1000 + ink.spacing)


def _line(ops: list[str], font: EmbeddedFont, ink: Ink, x: float, y: float, text: str) -> None:
    """One line of text, its baseline's left at (x, y) in PDF's coordinates."""
    # Character spacing outlives ET (it is part of the graphics state): set every time.
    ops.append(
        f"BT /{font_key(ink.weight)} {num(ink.size)} Tf {rgb(ink.colour)} rg {num(ink.spacing)} Tc "
        f"1 0 0 1 {num(x)} {num(y)} Tm <{_glyphs(font, text)}> Tj ET"
    )


def _glyphs(font: EmbeddedFont, text: str) -> str:
    """Text as the hexadecimal string of its glyph ids (Identity-H: two bytes a glyph)."""
    return "".join(map(font.hex_ids.__getitem__, text))


def _shapes(ops: list[str], shapes: Shapes, scale: float, left: float, top: float) -> None:
    """Rectangles and lines at `scale`, their origin at (left, top) in PDF's coordinates, y down."""
    ops.append(f"q {num(scale)} 0 0 {num(-scale)} {num(left)} {num(top)} cm\n{_shape_operators(shapes)}\nQ")


@functools.lru_cache(maxsize=128)
def _shape_operators(shapes: Shapes) -> str:
    """The shapes in their own coordinates. Cached: a sheet's worksheet and key, and sheets of
    the same shape, share their drawings (and a sheet's two pages their QR code)."""
    ops = []
    for colour, rects in shapes.fills:
        ops.append(f"{rgb(colour)} rg")
        ops += [f"{num(x)} {num(y)} {num(w)} {num(h)} re" for x, y, w, h in rects]
        ops.append("f")
    for colour, width, lines in shapes.strokes:
        ops.append(f"{rgb(colour)} RG {num(width)} w 4 M")  # SVG's miter limit
        for points in lines:
            (x, y), rest = points[0], points[1:]
            ops.append(f"{num(x)} {num(y)} m " + " ".join(f"{num(px)} {num(py)} l" for px, py in rest))
        ops.append("S")
    return "\n".join(ops)


def _layer(ops: list[str], layer: Layer, pl: Placement, page_height: float, font: EmbeddedFont) -> None:
    """A layer's lines, each at its baseline; leading spaces become an offset, not glyphs."""
    style, scale = layer.style, pl.mark.panel.scale
    size = style.size * scale
    line = layer.pitch_pt  # a layer's lines keep their grid's pitch, whatever its font size
    char = size * font.advance / 1000
    baseline = _baseline(font, size, line)
    left, top = pl.box[:2]
    ops.append(f"BT /{font_key(style.weight)} {num(size)} Tf {rgb(style.colour)} rg 0 Tc")
    for k, text in enumerate(layer.text.split("\n")):
        body = text.lstrip(" ")
        if not body:
            continue
        x = left + layer.left_pt + (len(text) - len(body)) * char
        y = page_height - (top + layer.top_pt + k * line + baseline)
        ops.append(f"1 0 0 1 {num(x, 4)} {num(y, 4)} Tm <{_glyphs(font, body)}> Tj")
    ops.append("ET")
