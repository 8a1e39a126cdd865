"""The prose font (Inter, "Sheet Sans"), shaped by HarfBuzz: widths for the layout, glyphs and
subsets for the PDF that `generator.output.direct` writes.

HarfBuzz is the shaper Pango (so WeasyPrint) uses, with the same font file and its default
features (kerning among them): a word set here has the advances it has on the HTML path.
"""

from __future__ import annotations

import functools
import hashlib
import zlib
from dataclasses import dataclass

import uharfbuzz as hb

from generator.output.monofont import to_unicode
from generator.sheet.assets import templates_dir
from generator.sheet.style import Ink

PROSE_FILES = {400: "fonts/Inter-Regular.subset.otf", 600: "fonts/Inter-SemiBold.subset.otf"}
"""The prose font by weight, under templates/ (the @font-faces of sheet.css)."""


@dataclass(frozen=True)
class Glyph:
    """One shaped glyph: its id, its advance in font units, and the text it stands for."""

    gid: int
    advance: int
    text: str


class ProseFace:
    """One weight of the prose font: its metrics, and `text` shaped into glyphs."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.face = hb.Face(hb.Blob(data))
        self.font = hb.Font(self.face)
        self.upem = self.face.upem
        self.chars = frozenset(chr(c) for c in self.face.unicodes)
        extents = self.font.get_font_extents("ltr")
        self.ascent = extents.ascender / self.upem
        self.descent = -extents.descender / self.upem

    @functools.lru_cache(maxsize=4096)  # noqa: B019 -- the faces live as long as the process
    def shape(self, text: str) -> tuple[Glyph, ...]:
        """`text` shaped left to right, as Pango would (default features)."""
        buffer = hb.Buffer()
        buffer.add_str(text)
        buffer.guess_segment_properties()
        hb.shape(self.font, buffer, {})
        if buffer.direction != "ltr" or any(p.x_offset or p.y_offset for p in buffer.glyph_positions):
            raise ValueError(f"not simple left-to-right text: {text!r}")
        infos = buffer.glyph_infos
        clusters = [info.cluster for info in infos] + [len(text)]
        return tuple(
            Glyph(info.codepoint, pos.x_advance, text[clusters[i] : max(clusters[i + 1], clusters[i] + 1)])
            for i, (info, pos) in enumerate(zip(infos, buffer.glyph_positions))
        )

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def advance(self, gid: int) -> int:
        """A glyph's own advance (what a PDF viewer moves by without adjustment), in font units."""
        return self.font.get_glyph_h_advance(gid)

    def subset(self, gids: frozenset[int], texts: dict[int, str]) -> EmbeddedProse:
        """The face cut down to `gids`, keeping their ids (the content streams use them)."""
        plan = hb.SubsetInput()
        plan.sets(hb.SubsetInputSets.GLYPH_INDEX).update(gids | {0})
        plan.flags = hb.SubsetFlags.RETAIN_GIDS | hb.SubsetFlags.NO_HINTING
        program = hb.subset(self.face, plan).blob.data
        tag = "".join(chr(65 + b % 26) for b in hashlib.sha256(program).digest()[:6])
        scale = 1000 / self.upem
        return EmbeddedProse(
            program=zlib.compress(program, 6),
            tag=tag,
            widths=tuple((gid, round(self.advance(gid) * scale, 3)) for gid in sorted(gids)),
            to_unicode=zlib.compress(to_unicode(texts.items()), 6),
            ascent=round(self.ascent * 1000),
            descent=round(-self.descent * 1000),
        )


@dataclass(frozen=True)
class EmbeddedProse:
    """A subset of one prose face, ready to embed."""

    program: bytes
    """The OpenType (CFF) file, deflated."""
    tag: str
    """Six capitals naming the subset."""
    widths: tuple[tuple[int, float], ...]
    """Each glyph's advance, in thousandths of the size."""
    to_unicode: bytes
    """The ToUnicode CMap, deflated."""
    ascent: int
    descent: int


class Shaper:
    """The `Measure` the layout asks (both weights of the prose font), and the glyphs it set."""

    def __init__(self) -> None:
        self.faces = {weight: ProseFace((templates_dir() / name).read_bytes()) for weight, name in PROSE_FILES.items()}
        regular = self.faces[400]
        self.ascent, self.descent = regular.ascent, regular.descent
        self.chars = frozenset.intersection(*(face.chars for face in self.faces.values()))

    def prints(self, text: str) -> bool:
        """Whether every character is in the prose font, and the text shapes simply (left to right)."""
        if not set(text) <= self.chars:
            return False
        try:
            self.faces[400].shape(text)
        except ValueError:
            return False
        return True

    def width(self, text: str, prose: Ink) -> float:
        """The advance of `text` in `prose`: kerned, a letter spacing after every glyph."""
        glyphs = self.faces[prose.weight].shape(text)
        units = sum(g.advance for g in glyphs)
        return units * prose.size / self.faces[prose.weight].upem + len(glyphs) * prose.spacing


@functools.lru_cache(maxsize=1)
def shaper() -> Shaper:
    """The process's shaper."""
    return Shaper()
