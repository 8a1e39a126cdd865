"""The panel font: what it can print, and subsets of it ready to embed in a PDF.

Noto Sans Mono, regular and bold, as bundled in templates/fonts; subset with fontTools to the
characters a file prints, with a ToUnicode map so that painted text can be searched and copied.
"""

from __future__ import annotations

import functools
import hashlib
import io
import zlib
from dataclasses import dataclass
from pathlib import Path

from fontTools import subset as ft_subset
from fontTools.ttLib import TTFont

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
            hex_ids={ch: f"{gid:04x}" for ch, gid in gids.items()},
            to_unicode=zlib.compress(_to_unicode(gids), 9), advance=round(self.advance * 1000, 3),
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
