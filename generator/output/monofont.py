"""The panel font: what it can print, and subsets of it ready to embed in a PDF.

Noto Sans Mono, regular and bold, as bundled in templates/fonts; subset with HarfBuzz to the
characters a file prints, with a ToUnicode map so that painted text can be searched and copied.
"""

from __future__ import annotations

import functools
import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import uharfbuzz as hb

from generator.sheet.assets import templates_dir

MONO_FILES = {400: "fonts/NotoSansMono-Regular.subset.ttf", 700: "fonts/NotoSansMono-Bold.subset.ttf"}
"""The panel font ("Sheet Mono" in sheet.css), by weight, under templates/."""


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
    hex_ids: dict[str, str]
    """The same, as four hexadecimal digits."""
    to_unicode: bytes
    """The ToUnicode CMap, deflated: glyph ids back to text, for search, copy and screen readers."""
    advance: float
    """Every glyph's advance, in thousandths of the size."""
    ascent: float
    """Above the baseline, in thousandths of the size (hhea, as Pango takes it)."""
    descent: float
    """Below the baseline, negative, in thousandths of the size."""
    cap_height: float
    """Height of capitals, in thousandths of the size."""
    bbox: tuple[int, int, int, int]
    """In thousandths of the size."""


class MonoFont:
    """One weight of the panel font: what it can print, and its subsets."""

    def __init__(self, path: Path) -> None:
        self.data = path.read_bytes()
        self.face = hb.Face(hb.Blob(self.data))
        font = hb.Font(self.face)
        self.font = font
        self.upem = self.face.upem
        self.cmap = {chr(c): font.get_nominal_glyph(c) for c in self.face.unicodes}
        self.chars = frozenset(self.cmap)
        self.advance = font.get_glyph_h_advance(self.cmap[" "]) / self.upem
        self.cap_height = font.get_metric_position(hb.OTMetricsTag.CAP_HEIGHT) / self.upem
        # Pango places a line's text with these (the hhea metrics), so we do too.
        extents = font.get_font_extents("ltr")
        self.ascent = extents.ascender / self.upem
        self.descent = -extents.descender / self.upem
        self.postscript = self.face.get_name(hb.OTNameIdPredefined.POSTSCRIPT_NAME)

    def prints(self, text: str) -> bool:
        """Whether every character of `text` is in this font (line breaks aside)."""
        return set(text) - {"\n"} <= self.chars

    @functools.lru_cache(maxsize=8)  # noqa: B019 -- one per font, kept for the process
    def subset(self, chars: frozenset[str]) -> EmbeddedFont:
        """The font cut down to `chars` (made once per set of characters), glyph ids kept."""
        gids = {ch: self.cmap[ch] for ch in sorted(chars) if ch in self.cmap}
        plan = hb.SubsetInput()
        plan.sets(hb.SubsetInputSets.GLYPH_INDEX).update(set(gids.values()) | {0})
        # We place glyphs ourselves (no shaping tables kept); outlines are enough at any zoom.
        plan.flags = hb.SubsetFlags.RETAIN_GIDS | hb.SubsetFlags.NO_HINTING | hb.SubsetFlags.NO_LAYOUT_CLOSURE
        for tag in ("GSUB", "GPOS", "GDEF"):
            plan.sets(hb.SubsetInputSets.DROP_TABLE_TAG).add(_tag(tag))
        program = hb.subset(self.face, plan).blob.data
        tag = "".join(chr(65 + b % 26) for b in hashlib.sha256(program).digest()[:6])
        scale = 1000 / self.upem
        boxes = [self.font.get_glyph_extents(gid) for gid in gids.values()]
        boxes = [(e.x_bearing, e.y_bearing + e.height, e.x_bearing + e.width, e.y_bearing) for e in boxes if e]
        bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        return EmbeddedFont(
            name=f"{tag}+{self.postscript}",
            program=zlib.compress(program, 9),
            length=len(program),
            gids=gids,
            hex_ids={ch: f"{gid:04x}" for ch, gid in gids.items()},
            to_unicode=zlib.compress(to_unicode((gid, ch) for ch, gid in gids.items()), 9),
            advance=round(self.advance * 1000, 3),
            ascent=round(self.ascent * 1000),
            descent=round(-self.descent * 1000),
            cap_height=round(self.cap_height * 1000),
            bbox=tuple(round(v * scale) for v in bbox),
        )


def _tag(name: str) -> int:
    """An OpenType table tag as the number HarfBuzz takes."""
    return int.from_bytes(name.encode("ascii"), "big")


@functools.lru_cache(maxsize=None)
def mono(weight: int) -> MonoFont:
    """The process's panel font of `weight`."""
    return MonoFont(templates_dir() / MONO_FILES[weight])


def to_unicode(glyphs: Iterable[tuple[int, str]]) -> bytes:
    """A ToUnicode CMap for glyph ids (two bytes each) to the text they print."""
    pairs = sorted(set(glyphs))
    lines = [
        b"/CIDInit /ProcSet findresource begin",
        b"12 dict begin",
        b"begincmap",
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        b"/CMapName /Adobe-Identity-UCS def",
        b"/CMapType 2 def",
        b"1 begincodespacerange",
        b"<0000> <ffff>",
        b"endcodespacerange",
    ]
    for start in range(0, len(pairs), 100):  # at most 100 entries per block
        block = pairs[start : start + 100]
        lines.append(f"{len(block)} beginbfchar".encode())
        lines += [f"<{gid:04x}> <{ch.encode('utf-16-be').hex()}>".encode() for gid, ch in block]
        lines.append(b"endbfchar")
    lines += [b"endcmap", b"CMapName currentdict /CMap defineresource pop", b"end", b"end"]
    return b"\n".join(lines)
