"""Prose broken into lines at spaces by a `Measure` of its font: the rules box's lines, for both paths."""

from __future__ import annotations

from typing import Protocol

from generator.sheet.look import RULES_TEXT
from generator.sheet.sheetview import SheetView
from generator.sheet.style import Ink


class Measure(Protocol):
    """The prose font's metrics: what the layout needs of a text engine."""

    def width(self, text: str, prose: Ink) -> float:
        """The advance of `text` set in `prose` (kerned, letter spacing included)."""

    def prints(self, text: str) -> bool:
        """Whether the prose font has every character of `text`."""

    ascent: float
    """Above the baseline, as a share of the size (the font's hhea metrics, as Pango takes them)."""
    descent: float
    """Below the baseline, positive, as a share of the size."""


class Unsettable(Exception):
    """Something on the sheet the layout does not reproduce (a text engine's wrapping, a block
    split across pages): WeasyPrint lays it out."""


class TooTall(Unsettable):
    """A part of the sheet taller than its page, which it may not be split over (a large print's page is short)."""


BREAK_SLACK_PT = 0.3
"""A broken line is this much narrower than its box: a text engine that measures a hair wider
still keeps it whole."""


def rules_lines(view: SheetView, measure: Measure) -> tuple[str, ...]:
    """The rules box's text broken into lines, at spaces only: both paths print these lines
    (the HTML's box keeps each whole), so a line never breaks in one and not the other."""
    width = view.rules_width_pt - BREAK_SLACK_PT
    return tuple(piece for line in view.rules for piece in wrap(line, RULES_TEXT, width, measure))


def wrap(text: str, prose: Ink, width: float, measure: Measure) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` (a word wider than a line is
    left to WeasyPrint, which may break inside it)."""
    if not measure.prints(text):
        raise Unsettable(f"the prose font cannot print {text!r}")
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if measure.width(candidate, prose) <= width + 0.01 or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
        if measure.width(line, prose) > width + 0.01:
            raise Unsettable(f"a word wider than its line: {word!r}")
    return [*lines, line] if line or not lines else lines
