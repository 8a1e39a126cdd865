"""A one-page sheet laid out in points: every text run, rule, box and panel placed on its page.

The page the stylesheet describes (templates/sheet.css, rendered from the same numbers in
sheet/look.py), computed here without a text engine but a `Measure` of the prose font, so
that `generator.output.direct` can write the PDF itself (no HTML, no WeasyPrint). It covers
the sheets most batches print: one head on one page, in either convention, worksheet or key,
with or without its worked example, and a graded sheet (its score in the header). Everything
else (several heads, flowing grids, text our fonts cannot print or that would wrap) is `None`
here and is laid out by WeasyPrint from the HTML. Where the two paths place the same text, they agree to a
fraction of a point: `tests/test_direct.py` reads both back from their PDFs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from generator.sheet.i18n import translations
from generator.sheet.look import (
    FIELD,
    FIELD_VALUE,
    HEADER_GAP_PT,
    HEADER_MIN_PT,
    HEADER_PAD_PT,
    HEADER_RULE,
    KIND,
    KIND_KEY,
    LINE_PAD_PT,
    LINE_WIDTHS_PT,
    MM,
    RULES_BOX,
    RULES_TEXT,
    RULES_TITLE,
    RULES_TITLE_GAP_PT,
    SCORE_GAP_PT,
    SPACED_PT,
    TITLE,
    TITLE_GAP_PT,
    TITLE_MAX_PT,
    UNDERLINE,
)
from generator.sheet.model import Settings
from generator.sheet.panel import PanelView
from generator.sheet.sheetview import HeadView, SheetView
from generator.sheet.style import (
    MARGINS_MM,
    QR_PT,
    RULES_BORDER_PT,
    RULES_CHROME_W_PT,
    RULES_LINE_PT,
    RULES_MAX_PT,
    RULES_PAD_PT,
    Ink,
)

PAPERS_PT = {"a4": (210 * MM, 297 * MM), "letter": (612.0, 792.0)}
"""Each paper's width and height, exactly (style.PAPER_*_PT are rounded for estimates)."""


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
    fill: str
    stroke: str
    border: float
    radius: float


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


class Unsettable(Exception):
    """Something on the sheet needs a text engine or a second page: WeasyPrint lays it out."""


def lays_out(view: SheetView) -> bool:
    """Whether this module lays out sheets like `view` (before measuring any text)."""
    head = view.heads[0]
    return len(view.heads) == 1 and not head.stacked and view.final is None and not (view.worked and head.out_apart)


def page_layout(view: SheetView, settings: Settings, measure: Measure) -> Optional[PageLayout]:
    """`view` on one page as the stylesheet lays it out, or None: WeasyPrint must (see `lays_out`)."""
    if not lays_out(view):
        return None
    try:
        return _Page(view, settings, measure).layout()
    except Unsettable:
        return None


class _Page:
    """Lays one sheet out, top to bottom, as CSS's block formatting would."""

    def __init__(self, view: SheetView, settings: Settings, measure: Measure) -> None:
        self.view, self.settings, self.measure = view, settings, measure
        self.width, self.height = PAPERS_PT[settings.paper]
        top, right, bottom, left = (m * MM for m in MARGINS_MM)
        self.left, self.top, self.right, self.bottom = left, top, self.width - right, self.height - bottom
        self.runs: list[TextRun] = []
        self.rects: list[Rect] = []
        self.frames: list[Frame] = []
        self.panels: list[PanelPlace] = []
        self._ = translations(settings.lang).gettext

    def line_height(self, prose: Ink) -> float:
        """A line box's height at line-height: normal."""
        return (self.measure.ascent + self.measure.descent) * prose.size

    def advance(self, text: str, prose: Ink) -> float:
        """The advance of `text`, which the prose font must print."""
        if not self.measure.prints(text):
            raise Unsettable(f"the prose font cannot print {text!r}")
        return self.measure.width(text, prose)

    def text(self, text: str, prose: Ink, x: float, top: float, line: float = 0.0) -> float:
        """One line of `text` in a line box at `top` (`line` high; 0: line-height normal); its advance."""
        advance = self.advance(text, prose)
        half = (line - self.line_height(prose)) / 2 if line else 0.0
        if text.strip():
            self.runs.append(TextRun(text, prose, x, top + half + self.measure.ascent * prose.size))
        return advance

    def layout(self) -> PageLayout:
        view, _ = self.view, self._
        title = self.settings.title or _("Self-attention by hand")
        section = self.header(title)
        head = view.heads[0]
        end = self.row_head(head, section) if view.row else self.column_head(head, section)
        if end > self.bottom + 0.01:
            raise Unsettable("the sheet runs onto a second page")
        badge = (self.left + (self.right - self.left) / 2, self.top, self.right, self.top + QR_PT) if view.code else None
        return PageLayout(
            width=self.width, height=self.height, runs=tuple(self.runs), rects=tuple(self.rects),
            frames=tuple(self.frames), panels=tuple(self.panels), badge=badge,
            foot=(self.left, self.bottom, self.right, self.height), words=(_("Sheet code"), _("page")),
            title=title, title_top=self.top)

    def header(self, title: str) -> float:
        """The kind, the title, the name lines and the rule; returns where the head starts."""
        view, _, y = self.view, self._, self.top
        kind = _("Graded sheet") if view.graded else _("Answer key") if view.key else _("Worksheet")
        self.text(kind.upper(), KIND_KEY if view.key else KIND, self.left, y)
        y += self.line_height(KIND) + TITLE_GAP_PT[0]
        if self.advance(title, TITLE) > TITLE_MAX_PT:
            raise Unsettable("the title wraps")
        self.text(title, TITLE, self.left, y)
        y += self.line_height(TITLE) + TITLE_GAP_PT[1]
        fields = self.fields(y)
        if view.score:  # a graded sheet's score, under the name lines
            self.panels.append(PanelPlace(view.score, self.left, fields + SCORE_GAP_PT))
            fields += SCORE_GAP_PT + view.score.height_pt
        rule_top = self.top + max(HEADER_MIN_PT, fields - self.top) + HEADER_PAD_PT
        self.rects.append(Rect(self.left, rule_top, self.right - self.left, HEADER_RULE[0], HEADER_RULE[1]))
        return rule_top + HEADER_RULE[0] + HEADER_GAP_PT

    def fields(self, top: float) -> float:
        """"Name ___  Date ___  Group ___" on one line at `top`; returns the line's foot."""
        _, student = self._, self.view.student
        text_line = self.line_height(FIELD)
        x = self.left
        for label, value, width in ((_("Name") + " ", student.name, LINE_WIDTHS_PT[0]),
                                    ("  " + _("Date") + " ", "", LINE_WIDTHS_PT[1]),
                                    ("  " + _("Group") + " ", student.group, LINE_WIDTHS_PT[1])):
            x += self.text(label, FIELD, x, top)
            if value and self.advance(value, FIELD_VALUE) > width:
                raise Unsettable("a name longer than its line")  # CSS cuts it with an ellipsis
            if value:
                self.text(value, FIELD_VALUE, x + LINE_PAD_PT, top)
            self.rects.append(Rect(x, top + text_line, width + 2 * LINE_PAD_PT, UNDERLINE[0], UNDERLINE[1]))
            x += width + 2 * LINE_PAD_PT
        return top + text_line + UNDERLINE[0]

    def boxed(self, x: float, top: float, width: float, title: str, body: Callable[[float, float], float]) -> float:
        """A rounded box `width` wide (its border's) with its top left at (x, top): its title,
        then `body(x, y)`, which places the rest and returns its height; returns the box's."""
        pad_y, pad_x = RULES_PAD_PT
        text_x, y = x + RULES_BORDER_PT + pad_x, top + RULES_BORDER_PT + pad_y
        self.text(title, RULES_TITLE, text_x, y)
        y += self.line_height(RULES_TITLE) + RULES_TITLE_GAP_PT
        y += body(text_x, y)
        height = y + pad_y + RULES_BORDER_PT - top
        fill, stroke, radius = RULES_BOX
        self.frames.append(Frame(x, top, width, height, fill, stroke, RULES_BORDER_PT, radius))
        return height

    def rules_box(self, x: float, top: float) -> float:
        """The rules box with its top left at (x, top); returns its height."""
        def lines(text_x: float, y: float) -> float:
            pieces = rules_lines(self.view, self.measure)
            for k, piece in enumerate(pieces):
                self.text(piece, RULES_TEXT, text_x, y + k * RULES_LINE_PT, RULES_LINE_PT)
            return len(pieces) * RULES_LINE_PT

        return self.boxed(x, top, self.view.rules_width_pt + RULES_CHROME_W_PT, self._("Rules"), lines)

    def worked_box(self, x: float, top: float, width: float) -> float:
        """A key's worked example below a grid or the rules box, `SPACED_PT` under `top` and
        `width` wide; returns where it ends (`top` when the sheet has none)."""
        panel = self.view.worked
        if panel is None:
            return top

        def lines(text_x: float, y: float) -> float:
            self.panels.append(PanelPlace(panel, text_x, y))
            return panel.height_pt

        return top + SPACED_PT + self.boxed(x, top + SPACED_PT, width, self._("Worked out"), lines)

    def column_head(self, head: HeadView, top: float) -> float:
        """The column convention: one panel, the rules box pulled up below the projections."""
        self.panels.append(PanelPlace(head.both, self.left, top))
        below = top + head.both.height_pt
        rules = below + head.rules_margin_pt + self.rules_box(self.left, below + head.rules_margin_pt)
        return max(below, self.worked_box(self.left, rules, head.proj_width_pt))

    def row_head(self, head: HeadView, top: float) -> float:
        """The row convention: projections, attention and output, one band below another, the
        rules box beside the projections, below them, or beside the output."""
        y = self.band(head.proj, top, None if head.beside_out else head)
        y = self.band(head.att, y + SPACED_PT, None)
        y = self.band(head.out, y + SPACED_PT, head if head.beside_out else None)
        return self.worked_box(self.left, y, RULES_MAX_PT + RULES_CHROME_W_PT)

    def band(self, panel: PanelView, top: float, rules: Optional[HeadView]) -> float:
        """A panel, and the rules box beside or below it (`rules`: the head it belongs to); returns the band's foot."""
        self.panels.append(PanelPlace(panel, self.left, top))
        foot = top + panel.height_pt
        if rules is None:
            return foot
        beside = rules.beside or rules.beside_out
        box_top = foot + rules.rules_margin_pt
        height = self.rules_box(self.left + (rules.rules_left_pt if beside else 0.0), box_top)
        return max(foot, box_top + height)


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
