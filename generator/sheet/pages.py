"""A laid-out page's parts, in points from its top left: text runs, rules, frames and panels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from generator.sheet.panel import PanelView
from generator.sheet.style import Ink


@dataclass(frozen=True)
class TextRun:
    """One line of prose: its text, how it is set, and its baseline's left end."""

    text: str
    prose: Ink
    x: float
    baseline: float


@dataclass(frozen=True)
class Rect:
    """A filled rectangle (a rule is a thin one): left, top, width, height, colour."""

    x: float
    y: float
    width: float
    height: float
    colour: str


@dataclass(frozen=True)
class Frame:
    """A rounded box with a border: its border box, in points."""

    x: float
    y: float
    width: float
    height: float
    fill: Optional[str]
    """None: no background (a head's frame)."""
    stroke: str
    border: float
    radius: float
    open_top: bool = False
    """A frame's part on a page after the first: no border at its top (CSS's slice)."""
    open_bottom: bool = False
    """A frame's part before a page break: no border at its foot."""


@dataclass(frozen=True)
class PanelPlace:
    """A panel (a grid's drawing and its layers) with its top left corner on the page."""

    panel: PanelView
    x: float
    y: float


@dataclass(frozen=True)
class PageLayout:
    """A sheet's one page, everything placed, in points from the page's top left."""

    width: float
    height: float
    runs: tuple[TextRun, ...]
    rects: tuple[Rect, ...]
    frames: tuple[Frame, ...]
    panels: tuple[PanelPlace, ...]
    badge: Optional[tuple[float, float, float, float]]
    """The code's box (left, top, right, bottom), or None: the sheet has no code."""
    foot: tuple[float, float, float, float]
    """The footer's box, over the bottom margin."""
    words: tuple[str, str]
    """"Sheet code" and "page", in the sheet's language."""
    title: str
    """The sheet's title, for the document's outline and metadata."""
    title_top: float
    """Where the title's block starts (the outline's destination)."""
    marks: tuple = ()
    """A worksheet's registration marks (sheet/marks.Mark), in every page's corners."""
    qr: str = ""
    """What this page's QR code holds (sheet/marks.page_qr_text): the badge's on page 1, the one atop pages 2+."""
    qr_box: Optional[tuple[float, float, float, float]] = None
    """Pages 2+ of a worksheet: the QR code's box atop the page (left, top, right, bottom)."""
