"""Panels painted straight into PDF pages: WeasyPrint lays each page out, we draw its grids.

`render.panel` has already placed every value of a grid on a raster of monospaced characters,
over a few rectangles and lines: nothing is left to lay out. WeasyPrint would still spend ~0.4
ms on each of a page's ~100 text lines and parse the grid's SVG again on every page; written
here as PDF operators, a whole grid costs a fraction of a millisecond. WeasyPrint keeps the
rest of the page (header, rules, footer) and leaves each panel's box empty, with an id that
tells us where it landed (see templates/macros.html and `generator.pdf`).

Pure: neither WeasyPrint nor the PDF objects, only operator bytes and font data. Text is in
the panel's own monospaced font, embedded as a subset with a ToUnicode map, so the values
can still be searched, copied and read aloud.
"""

from __future__ import annotations

import functools
import hashlib
import io
import zlib
from dataclasses import dataclass
from typing import Iterable, Sequence

from fontTools import subset as ft_subset
from fontTools.ttLib import TTFont

from generator.render import EDGE_PT, FONT_PT, LINE_PT, STYLES, Layer, PanelView, Shapes, templates_dir

MONO_FILES = {400: "fonts/NotoSansMono-Regular.subset.ttf", 700: "fonts/NotoSansMono-Bold.subset.ttf"}
"""The panel font ("Sheet Mono" in sheet.css), by weight, under templates/."""
BASE_CHARS = frozenset("0123456789 −-/.")
"""Always in a file's subset, whatever its numbers: a batch's files then share a few subsets,
each made once per process (captions differ little from sheet to sheet)."""
ANCHOR = "attnsheet-panel-"
"""Prefix of the ids that mark the panels' boxes."""


@dataclass(frozen=True)
class Slot:
    """A panel taken over by a painter: the id of its box, and the layers left to HTML."""

    anchor: str
    layers: tuple[Layer, ...]


@dataclass(frozen=True)
class Placement:
    """A panel to paint, its top left corner where WeasyPrint placed its box (points, from the
    page's top left), and the layers we paint."""

    panel: PanelView
    layers: tuple[Layer, ...]
    x: float
    y: float


class Painter:
    """Takes over the panels of one HTML document (the `paint` of `render.document_html`)."""

    def __init__(self) -> None:
        self.slots: dict[str, tuple[PanelView, tuple[Layer, ...]]] = {}
        """Anchor: the panel, and the layers to paint."""

    def __call__(self, p: PanelView) -> Slot:
        anchor = f"{ANCHOR}{len(self.slots) + 1}"
        ours = tuple(layer for layer in p.layers if mono(layer.style.weight).prints(layer.text))
        self.slots[anchor] = (p, ours)
        return Slot(anchor, tuple(layer for layer in p.layers if layer not in ours))

    def place(self, anchor: str, x: float, y: float) -> Placement:
        """The panel of `anchor`, placed."""
        p, layers = self.slots[anchor]
        return Placement(p, layers, x, y)


@dataclass(frozen=True)
class EmbeddedFont:
    """A subset of a panel font, ready to embed: its program, glyph ids and metrics."""

    name: str
    """PostScript name with the subset's tag, e.g. ABCDEF+NotoSansMono-Regular."""
    program: bytes
    """The TrueType file, deflated."""
    length: int
    """The TrueType file's length, before deflating."""
    gids: dict[str, int]
    """Glyph id of each character."""
    to_unicode: bytes
    """The ToUnicode CMap: glyph ids back to text, for search, copy and screen readers."""
    advance: float
    """Every glyph's advance, in thousandths of the size."""
    ascent: float
    """Above the baseline, in thousandths of the size (hhea, as Pango takes it)."""
    descent: float
    """Below the baseline, negative, in thousandths of the size."""
    cap_height: float
    bbox: tuple[int, int, int, int]
    """In thousandths of the size."""


class MonoFont:
    """One weight of the panel font: what it can print, and its subsets."""

    def __init__(self, path) -> None:
        self.data = path.read_bytes()
        font = TTFont(io.BytesIO(self.data))
        self.upem = font["head"].unitsPerEm
        self.chars = frozenset(chr(c) for c in font.getBestCmap())
        self.advance = font["hmtx"][font.getBestCmap()[ord(" ")]][0] / self.upem
        self.cap_height = font["OS/2"].sCapHeight / self.upem
        # Pango places a line's text with these (the hhea metrics), so we do too.
        self.ascent = font["hhea"].ascent / self.upem
        self.descent = -font["hhea"].descent / self.upem
        self.postscript = font["name"].getDebugName(6)

    def prints(self, text: str) -> bool:
        """Whether every character of `text` is in this font (line breaks aside)."""
        return set(text) - {"\n"} <= self.chars

    @functools.lru_cache(maxsize=8)  # noqa: B019 -- one per font, kept for the process
    def subset(self, chars: frozenset[str]) -> EmbeddedFont:
        """The font cut down to `chars` (made once per set of characters)."""
        options = ft_subset.Options()
        options.layout_features = []  # we place glyphs ourselves: no shaping tables
        options.drop_tables += ["GSUB", "GPOS", "GDEF"]
        options.name_IDs = [0, 1, 2, 3, 4, 5, 6]
        options.notdef_outline = True
        options.hinting = False  # print and screens at any zoom: outlines are enough
        font = TTFont(io.BytesIO(self.data), recalcTimestamp=False)  # same bytes on every run
        subsetter = ft_subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(ord(c) for c in chars))
        subsetter.subset(font)
        buffer = io.BytesIO()
        font.save(buffer)
        program = buffer.getvalue()
        cmap = font.getBestCmap()
        gids = {chr(c): font.getGlyphID(name) for c, name in cmap.items()}
        tag = "".join(chr(65 + b % 26) for b in hashlib.sha256(program).digest()[:6])
        head = font["head"]
        scale = 1000 / self.upem
        return EmbeddedFont(
            name=f"{tag}+{self.postscript}", program=zlib.compress(program, 9), length=len(program), gids=gids,
            to_unicode=_to_unicode(gids), advance=round(self.advance * 1000, 3),
            ascent=round(self.ascent * 1000), descent=round(-self.descent * 1000),
            cap_height=round(self.cap_height * 1000),
            bbox=tuple(round(v * scale) for v in (head.xMin, head.yMin, head.xMax, head.yMax)),
        )


@functools.lru_cache(maxsize=None)
def mono(weight: int) -> MonoFont:
    """The process's panel font of `weight`."""
    return MonoFont(templates_dir() / MONO_FILES[weight])


def _to_unicode(gids: dict[str, int]) -> bytes:
    """A ToUnicode CMap for glyph ids (two bytes each) to the characters they print."""
    pairs = sorted((gid, ch) for ch, gid in gids.items())
    lines = [b"/CIDInit /ProcSet findresource begin", b"12 dict begin", b"begincmap",
             b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             b"/CMapName /Adobe-Identity-UCS def", b"/CMapType 2 def",
             b"1 begincodespacerange", b"<0000> <ffff>", b"endcodespacerange"]
    for start in range(0, len(pairs), 100):  # at most 100 entries per block
        block = pairs[start:start + 100]
        lines.append(f"{len(block)} beginbfchar".encode())
        lines += [f"<{gid:04x}> <{ch.encode('utf-16-be').hex()}>".encode() for gid, ch in block]
        lines.append(b"endbfchar")
    lines += [b"endcmap", b"CMapName currentdict /CMap defineresource pop", b"end", b"end"]
    return b"\n".join(lines)


def fonts_for(placements: Iterable[Placement]) -> dict[int, EmbeddedFont]:
    """The subsets a file's placements need, by weight."""
    chars: dict[int, set[str]] = {}
    for pl in placements:
        for layer in pl.layers:
            chars.setdefault(layer.style.weight, set()).update(layer.text)
    return {weight: mono(weight).subset(BASE_CHARS | (used - {"\n"})) for weight, used in sorted(chars.items())}


def font_key(weight: int) -> str:
    """The name a page's resources give the panel font of `weight`."""
    return f"AttnMono{weight}"


def _n(x: float) -> str:
    """A number in a content stream: short, never in exponent form."""
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _rgb(colour: str) -> str:
    return " ".join(_n(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))


def page_operators(placements: Sequence[Placement], page_height: float, fonts: dict[int, EmbeddedFont]) -> bytes:
    """PDF operators that paint `placements` on a page `page_height` points high.

    They expect PDF's initial graphics state (the caller wraps the page's other content in q/Q).
    """
    ops: list[str] = []
    for pl in placements:
        _shapes(ops, pl.panel.shapes, pl.panel.scale, pl.x, page_height - pl.y)
    for pl in placements:
        for layer in pl.layers:
            _text(ops, layer, pl, page_height, fonts[layer.style.weight])
    return "\n".join(ops).encode("ascii")


def _shapes(ops: list[str], shapes: Shapes, scale: float, left: float, top: float) -> None:
    """Rectangles and lines in the panel's raster points, y down from the panel's top."""
    ops.append(f"q {_n(scale)} 0 0 {_n(-scale)} {_n(left + EDGE_PT * scale)} {_n(top)} cm")
    for colour, rects in shapes.fills:
        ops.append(f"{_rgb(colour)} rg")
        ops += [f"{_n(x)} {_n(y)} {_n(w)} {_n(h)} re" for x, y, w, h in rects]
        ops.append("f")
    for colour, width, lines in shapes.strokes:
        ops.append(f"{_rgb(colour)} RG {_n(width)} w 4 M")  # SVG's miter limit
        for points in lines:
            (x, y), rest = points[0], points[1:]
            ops.append(f"{_n(x)} {_n(y)} m " + " ".join(f"{_n(px)} {_n(py)} l" for px, py in rest))
        ops.append("S")
    ops.append("Q")


def _text(ops: list[str], layer: Layer, pl: Placement, page_height: float, font: EmbeddedFont) -> None:
    """A layer's lines, each at its baseline; leading spaces become an offset, not glyphs."""
    style, scale = layer.style, pl.panel.scale
    size = FONT_PT * scale * style.size
    line = LINE_PT * scale  # a layer's lines keep the panel's pitch, whatever its font size
    char = size * font.advance / 1000
    # The baseline of a line box, as CSS places it: half the leading above the font's ascent.
    ascent, descent = font.ascent * size / 1000, -font.descent * size / 1000
    baseline = (line - ascent - descent) / 2 + ascent
    ops.append(f"BT /{font_key(style.weight)} {_n(size)} Tf {_rgb(style.colour)} rg")
    gids = font.gids
    for k, text in enumerate(layer.text.split("\n")):
        body = text.lstrip(" ")
        if not body:
            continue
        x = pl.x + layer.left_pt + (len(text) - len(body)) * char
        y = page_height - (pl.y + layer.top_pt + k * line + baseline)
        glyphs = "".join(f"{gids[ch]:04x}" for ch in body)
        ops.append(f"1 0 0 1 {_n(x)} {_n(y)} Tm <{glyphs}> Tj")
    ops.append("ET")
