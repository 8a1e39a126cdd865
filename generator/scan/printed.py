"""A page's printed footer read where its QR code cannot be: its code and page, by their glyphs.

Every page's footer prints `attnsheet · CODE` at the left margin and `page n / m` at the right,
in the panel font (Noto Sans Mono, regular) at a size the style fixes: on a page mapped
upright at PX_PT, every character's place and shape are known before it is read. The footer's
fixed prefix is found first (it places the line to the pixel, whatever the scan's slack), then
each character after it is read as the glyphs of the code's alphabet it correlates with nearly
best (5 and S are close in any copy), and the page's numbers the same way from the right
margin. Which code it is, the caller decides: the one sheet of the manifest that fits, or
without one the one reading whose check character agrees (draw/codes.py); a smudge or a
misread is refused, never guessed, and the page is still held to its blank print.
"""

from __future__ import annotations

import functools
import re
from itertools import product
from dataclasses import dataclass
from typing import Optional

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from generator.draw.codes import ALPHABET, checks
from generator.output.monofont import MONO_FILES, mono
from generator.sheet.assets import templates_dir
from generator.sheet.look import MM
from generator.sheet.style import FOOT, FOOT_PREFIX, MARGINS_MM, foot_inset_mm

PX_PT = 200 / 72
"""Pixels a point on the page as it is read (scan/locate.py's)."""

SLACK_PX = 14
"""How far from its printed place the footer's line is looked for: a page mapped by three
marks, or by four found a little off, lands a millimetre or so from where it was printed."""

LEAST_MATCH = 0.5
"""The least correlation of a character read with its glyph (a hyphen, the smallest, blurred at
150 dpi, correlates about 0.55)."""

LEAST_PREFIX = 0.65
"""The least correlation of the footer's fixed prefix: 0.85 or more on a copy, far less on a
page the wrong way up or none of ours."""

LEAST_LEAD = 0.1
"""How close to the best glyph's correlation another glyph may be and still be what is printed:
5 and S, 8 and B, 6 and G correlate within a few hundredths of each other at 150 dpi."""


@dataclass(frozen=True)
class Glyphs:
    """The footer's glyphs as a page upright at PX_PT shows them, and where its line sits."""

    advance: float
    """A character's advance, in pixels."""
    ascent: int
    """Pixels above the baseline in each glyph's picture."""
    pictures: dict[str, np.ndarray]
    """Each character's picture (white paper, black ink), one advance wide and a line tall."""
    prefix: np.ndarray
    """The footer's fixed prefix, as one picture."""


@functools.lru_cache(maxsize=1)
def glyphs() -> Glyphs:
    """The footer font's glyphs at the size the page prints them, drawn once a process."""
    size = FOOT.size * PX_PT
    font = ImageFont.truetype(str(templates_dir() / MONO_FILES[FOOT.weight]), size=size)
    advance = mono(FOOT.weight).advance * size + FOOT.spacing * PX_PT
    ascent, descent = font.getmetrics()

    def picture(text: str) -> np.ndarray:
        canvas = Image.new("L", (int(np.ceil(advance * len(text))) + 2, ascent + descent + 2), 255)
        ImageDraw.Draw(canvas).text((1, 1 + ascent), text, font=font, fill=0, anchor="ls")
        # As soft as a copy's print: a scan at 150 or 200 dpi, turned upright, blurs every edge.
        return cv2.GaussianBlur(np.asarray(canvas, dtype=np.uint8), (3, 3), 0)

    chars = set(ALPHABET) | set("0123456789/-")
    return Glyphs(advance, ascent + 1, {ch: picture(ch) for ch in sorted(chars)}, picture(FOOT_PREFIX))


def _baseline_px(height_pt: float, margins: tuple[float, ...] = MARGINS_MM) -> float:
    """Where the footer's baseline is printed, in pixels from the page's top: a margin box
    centres its line in the bottom margin (output/paint.py paints it there)."""
    font = mono(FOOT.weight)
    margin = margins[2] * MM
    ascent, descent = font.ascent * FOOT.size, font.descent * FOOT.size
    return (height_pt - margin + (margin - ascent - descent) / 2 + ascent) * PX_PT


def _best(zone: np.ndarray, picture: np.ndarray) -> tuple[float, tuple[int, int]]:
    """How well `picture` matches somewhere in `zone` (a correlation), and where (x, y)."""
    if zone.shape[0] < picture.shape[0] or zone.shape[1] < picture.shape[1] or float(zone.std()) < 1.0:
        return 0.0, (0, 0)
    scores = cv2.matchTemplate(zone, picture, cv2.TM_CCOEFF_NORMED)
    _, top, _, at = cv2.minMaxLoc(scores)
    return float(top), at


CLEAR = ((" ", 1.0),)
"""A cell read as clear paper."""


def _read_char(
    page: np.ndarray, x: float, top: int, g: Glyphs, chars: str, ink: float
) -> tuple[tuple[str, float], ...]:
    """What the character printed from `x` on the line whose glyph pictures start at `top` may
    be: the glyphs of `chars` that correlate within LEAST_LEAD of the best, each with its
    correlation, best first; CLEAR where the paper is (nothing darker than `ink`, the level
    halfway to the line's ink); () where nothing is read clearly."""
    pad, picture = 3, g.pictures[chars[0]]
    x0, y0 = max(0, round(x) - pad), max(0, top - pad)
    zone = page[y0 : top + picture.shape[0] + pad, x0 : round(x) + picture.shape[1] + pad]
    # The middle of its own cell: a neighbour's stroke, blurred by the copy, reaches a few pixels in.
    cell = page[top : top + picture.shape[0], round(x) + 4 : round(x + g.advance) - 2]
    if zone.size == 0 or cell.size == 0:
        return ()
    if float(cell.min()) > ink:  # no ink: a space, or the line's end
        return CLEAR
    scores = sorted(((_best(zone, g.pictures[ch])[0], ch) for ch in chars), reverse=True)
    if scores[0][0] < LEAST_MATCH:
        return ()
    return tuple((ch, score) for score, ch in scores if score >= scores[0][0] - LEAST_LEAD)


_CODE = re.compile(r"[0-9A-Z]{4}(?:-[0-9A-Z]{4})*(?:-[0-9A-Z]{1,4})?|[0-9A-Z]{1,4}")
"""A code as printed: blocks of four, the last shorter or not, joined by hyphens."""

_PAGES = re.compile(r" d{1,3} / d{1,3}")
"""The right of the footer, from the space after the word "page", as its cells read: spaces,
the slash, and digits."""

LEAST_AHEAD = 0.03
"""How much more a code's glyphs must correlate, added up, than another code's the footer fits
(two codes of a batch may differ only where 5 and S are, a hundredth apart)."""

MOST_READINGS = 64
"""The most readings of a code tried without a manifest, when characters are alike (5 and S,
8 and B): only one may agree with its check character, or none is taken."""


@dataclass(frozen=True)
class Footer:
    """A page's footer as read: each character of its code as the glyphs it may be, best first,
    and its page of how many."""

    options: tuple[tuple[str, ...], ...]
    pages: frozenset[tuple[int, int]]
    """Which page of how many it may be (3 and 8 are close too)."""
    scores: tuple[tuple[float, ...], ...] = ()
    """Each option's correlation with its glyph, as `options` has them."""

    def best(self, codes: list[str]) -> Optional[str]:
        """Of `codes` the footer fits, the one its glyphs correlate with most, when ahead of the
        next by LEAST_AHEAD; None when none fits, or two are as likely."""
        ranked = sorted(((self.score(c), c) for c in codes if self.fits(c)), reverse=True)
        if not ranked or (len(ranked) > 1 and ranked[0][0] - ranked[1][0] < LEAST_AHEAD):
            return None
        return ranked[0][1]

    def score(self, code: str) -> float:
        """How well `code`'s glyphs correlate with the footer's, added up over its characters."""
        scores = self.scores or tuple((1.0,) * len(o) for o in self.options)
        return sum(s[o.index(ch)] for ch, o, s in zip(code, self.options, scores))

    def page_of(self, count: int) -> Optional[int]:
        """Which page it is of a sheet of `count` pages; None when it may be none, or more than one."""
        found = [n for n, m in self.pages if m == count]
        return found[0] if len(found) == 1 else None

    def fits(self, code: str) -> bool:
        """Whether `code`, as printed, may be what the footer holds: each character one it may be."""
        return len(code) == len(self.options) and all(ch in found for ch, found in zip(code, self.options))

    def readings(self) -> list[str]:
        """The codes the footer may hold whose check character agrees (none when there would be
        more than MOST_READINGS to try)."""
        readings = [""]
        for found in self.options:
            readings = [r + ch for r in readings for ch in found]
            if len(readings) > MOST_READINGS:
                return []
        return [r for r in readings if _CODE.fullmatch(r) and checks(r)]


def read_footer(
    page: np.ndarray, width_pt: float, height_pt: float, margins: tuple[float, ...] = MARGINS_MM
) -> Optional[Footer]:
    """A page's footer (its code, and its page of how many), read from the page upright at
    PX_PT, its margins `margins` (mm); None when it is not read clearly (a page upside down, or a smudge)."""
    g = glyphs()
    base = _baseline_px(height_pt, margins)
    inset = foot_inset_mm(margins)  # clear of the marks, where the side margins are narrow
    left = (margins[3] + inset) * MM * PX_PT
    y0, x0 = max(0, round(base - g.ascent) - SLACK_PX), max(0, round(left) - SLACK_PX)
    zone = page[
        y0 : round(base - g.ascent) + g.prefix.shape[0] + SLACK_PX, x0 : round(left) + g.prefix.shape[1] + SLACK_PX
    ]
    score, (dx, dy) = _best(zone, g.prefix)
    if score < LEAST_PREFIX:
        return None
    top, start = y0 + dy, x0 + dx + len(FOOT_PREFIX) * g.advance
    # The line's own ink and paper, from its prefix: a cell with nothing halfway as dark is clear.
    line = zone[dy : dy + g.prefix.shape[0], dx : dx + g.prefix.shape[1]]
    paper, dark = float(np.percentile(line, 60)), float(np.percentile(line, 2))
    ink = paper - 0.4 * (paper - dark)
    options: list[tuple[tuple[str, float], ...]] = []
    for k in range(24):  # a code is a few blocks of four; never more than this
        found = _read_char(page, start + k * g.advance, top, g, ALPHABET + "-", ink)
        if found == CLEAR:
            break
        if not found:
            return None
        options.append(found)
    # The code ends where the line does: clear paper after it, never a character missed.
    after = start + (len(options) + 1) * g.advance
    if any(_read_char(page, after + k * g.advance, top, g, ALPHABET, ink) != CLEAR for k in range(3)):
        return None
    # "page n / m" ends at the right margin, on the same line: read from its right end, as far
    # as the space after the word.
    right = page.shape[1] - (margins[1] + inset) * MM * PX_PT + (x0 + dx - left)
    cells: list[tuple[str, ...]] = []
    for k in range(1, 10):
        found = _read_char(page, right - k * g.advance, top, g, "0123456789/", ink)
        if not found:
            return None
        cells.insert(0, tuple(ch for ch, _ in found))
        shape = "".join(" " if c == (" ",) else "/" if c == ("/",) else "d" if "/" not in c else "?" for c in cells)
        if _PAGES.fullmatch(shape):
            numbers = [[int("".join(n)) for n in product(*part)] for part in _numbers(cells)]
            pairs = frozenset((n, m) for n in numbers[0] for m in numbers[1] if 0 < n <= m)
            chars, scores = (tuple(tuple(c[i] for c in o) for o in options) for i in (0, 1))
            return Footer(chars, pairs, scores) if pairs else None
    return None


def _numbers(cells: list[tuple[str, ...]]) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The cells of " n / m" as the digits of n and those of m."""
    slash = next(k for k, c in enumerate(cells) if c == ("/",))
    return [c for c in cells[1 : slash - 1]], [c for c in cells[slash + 2 :]]
