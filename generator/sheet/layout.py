"""A sheet laid out in points: every text run, rule, box and panel placed on its pages.

The pages the stylesheet describes (templates/sheet.css, rendered from the same numbers in
sheet/look.py), computed here without a text engine but a `Measure` of the prose font, so
that `generator.output.direct` can write the PDF itself (no HTML, no WeasyPrint): one head on
one page (worksheet, key or graded sheet, with its worked example, a row key's output and
example on a second page where they miss the first); several heads, each in a frame kept on a
page, and the concatenation (over two pages when too tall for one); heads too big for a page,
a band at a time over pages (a frame sliced open where a page ends); pages 2+ with the name
line in their top margin. Text our fonts cannot print or that would wrap (and a block taller
than a page, which the views avoid) is `Unsettable`: WeasyPrint lays those out from the HTML.
Where the two paths place the same text, they agree to a fraction of a point (tests/sheets/test_direct.py).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, Optional

from generator.sheet.i18n import translations
from generator.sheet.look import (
    ASIDE_GAP_PT, FIELD, FIELD_VALUE, FRAME, FRAME_GAP_PT, FRAME_PAD_PT, HEAD_TITLE, HEAD_TITLE_GAP_PT,
    HEADER_GAP_PT, HEADER_MIN_PT, HEADER_PAD_PT, HEADER_RULE, KIND, KIND_KEY, LINE_PAD_PT, LINE_WIDTHS_PT, MM,
    NAME_DROP_MM, RULES_BOX, RULES_TEXT, RULES_TITLE, RULES_TITLE_GAP_PT, SCORE_GAP_PT, SPACED_PT, TITLE,
    TITLE_GAP_PT, TITLE_MAX_PT, UNDERLINE
)
from generator.sheet.marks import INSET_MM, PAGE_QR_MM, PAGE_TOP_EXTRA_MM, is_scanned, page_qr_text, registration_marks
from generator.sheet.measure import Measure, TooTall, Unsettable, rules_lines
from generator.sheet.model import Settings, for_student
from generator.sheet.pages import Frame, PageLayout, PanelPlace, Rect, TextRun
from generator.sheet.panel import PanelView
from generator.sheet.sheetview import HeadView, SheetView
from generator.sheet.style import (
    LARGE_PAGES_PT,
    foot_inset_mm,
    margins_of,
    QR_PT,
    RULES_BORDER_PT,
    RULES_CHROME_W_PT,
    RULES_LINE_PT,
    RULES_MAX_PT,
    RULES_PAD_PT,
    Ink,
)

PAPERS_PT = {"a4": (210 * MM, 297 * MM), "letter": (612.0, 792.0), **LARGE_PAGES_PT}
"""Each paper's width and height, exactly (style.PAPER_*_PT are rounded); a large-print page's as laid out."""


def page_layout(view: SheetView, settings: Settings, measure: Measure) -> Optional[tuple[PageLayout, ...]]:
    """`view`'s pages as the stylesheet lays them out, or None: something on it needs a text
    engine or a break the layout does not reproduce (`Unsettable`), and WeasyPrint must."""
    return laid_out(view, settings, measure)[0]


def laid_out(view: SheetView, settings: Settings, measure: Measure) -> tuple[Optional[tuple[PageLayout, ...]], str]:
    """page_layout's pages, or None and why: "" (a text engine's work) or a TooTall's reason."""
    try:
        return _Page(view, for_student(settings, view.student), measure).layout(), ""
    except TooTall as why:
        return None, str(why)
    except Unsettable:
        return None, ""


class _Page:
    """Lays one sheet out, top to bottom, as CSS's block formatting would."""

    def __init__(self, view: SheetView, settings: Settings, measure: Measure) -> None:
        self.view, self.settings, self.measure = view, settings, measure
        self.turn(False)
        self.sizes: list[tuple[float, float]] = []
        """The pages before this one: their width and height (a landscape page's are turned)."""
        self.x = self.left
        """Where the current block's content starts: the page's left, or inside a frame."""
        self.scanned = is_scanned(view)
        self.page_top = self.top
        """Where this page's content starts: pages 2+ of a worksheet start below their QR code."""
        self.pages: list[tuple[list, list, list, list]] = []
        """The pages before this one: their runs, rects, frames and panels."""
        self.runs: list[TextRun] = []
        self.rects: list[Rect] = []
        self.frames: list[Frame] = []
        self.panels: list[PanelPlace] = []
        self._ = translations(settings.lang).gettext

    def turn(self, wide: bool) -> None:
        """The page's size and margins, portrait or (`wide`) landscape."""
        width, height = PAPERS_PT[self.settings.paper]
        self.width, self.height = (height, width) if wide else (width, height)
        top, right, bottom, left = (m * MM for m in margins_of(self.settings.paper))
        self.left, self.top, self.right, self.bottom = left, top, self.width - right, self.height - bottom

    def new_page(self, wide: Optional[bool] = None) -> float:
        """Ends this page and starts the next (turned to landscape or back, when `wide` says), with
        the name line in its top margin (loose pages find their owner); returns where its content starts."""
        self.pages.append((self.runs, self.rects, self.frames, self.panels))
        self.sizes.append((self.width, self.height))
        self.runs, self.rects, self.frames, self.panels = [], [], [], []
        if wide is not None:
            self.turn(wide)
        self.page_top = self.top + (PAGE_TOP_EXTRA_MM * MM if self.scanned else 0.0)
        # The margin box puts the line at its foot, NAME_DROP_MM above the page's top margin.
        line = self.line_height(FIELD) + UNDERLINE[0]
        self.fields(self.page_top - NAME_DROP_MM * MM - line, name_only=True)
        return self.page_top

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

    def layout(self) -> tuple[PageLayout, ...]:
        view, _ = self.view, self._
        title = self.settings.title or view.default_title
        y = self.header(title)
        if view.heads[0].stacked and len(view.heads) == 1:
            y = self.flowing(view.heads[0], y)
        elif len(view.heads) == 1:
            y = self.head(view.heads[0], y)
            if y > self.bottom + 0.01:  # a lone head is never moved whole to the next page
                raise Unsettable("the head runs onto a second page")
        else:
            for n, head in enumerate(view.heads, start=1):
                name = view.titles[n - 1] if view.titles else _("Head %(n)s") % {"n": n}
                y = (self.flowing(head, y, name) if head.stacked
                     else self.framed(name, y, lambda top, h=head: self.head(h, top)))
        if view.final:
            if view.final_wide:  # too wide for a portrait page: a landscape one of its own
                y = self.new_page(wide=True)
            y = self.framed(_(view.final_title), y, lambda top: self.place(view.final, top))
        if view.final_more:  # the projection, on the page after the concatenation's
            y = self.framed(_("Then project: the concatenation is on the page before"),
                            self.new_page(wide=view.final_more_wide), lambda top: self.place(view.final_more, top))
        self.pages.append((self.runs, self.rects, self.frames, self.panels))
        self.sizes.append((self.width, self.height))
        margins = margins_of(self.settings.paper)
        right_margin, bottom_margin, inset = margins[1] * MM, margins[2] * MM, foot_inset_mm(margins) * MM
        first_right = self.sizes[0][0] - right_margin
        badge = (self.left + (first_right - self.left) / 2, self.top, first_right, self.top + QR_PT) if view.code else None
        pages, side = len(self.pages), PAGE_QR_MM * MM

        def page_qr(width: float) -> tuple[float, float, float, float]:
            return (width - right_margin - side, INSET_MM * MM, width - right_margin, INSET_MM * MM + side)

        def qr(number: int) -> str:
            if number == 1 and (view.link or not self.scanned):  # a student's link, or a key's code
                return view.link or view.code
            return page_qr_text(view.code, number, pages) if self.scanned else ""

        return tuple(PageLayout(
            width=width, height=height, runs=tuple(runs), rects=tuple(rects), frames=tuple(frames),
            panels=tuple(panels), badge=badge if number == 0 else None,
            marks=registration_marks(width, height) if self.scanned else (),
            foot=(self.left + inset, height - bottom_margin, width - right_margin - inset, height), words=(_("Sheet code"), _("page")),
            title=title, title_top=self.top, qr=qr(number + 1) if view.code else "",
            qr_box=page_qr(width) if number > 0 and self.scanned else None)
            for number, ((runs, rects, frames, panels), (width, height)) in enumerate(zip(self.pages, self.sizes)))

    def head(self, head: HeadView, top: float) -> float:
        """One head's grids (and, with the first, the rules box and the worked example)."""
        return self.row_head(head, top) if self.view.row else self.column_head(head, top)

    def flowing(self, head: HeadView, top: float, title: Optional[str] = None) -> float:
        """A head too big for a page (`title`: in a frame, one of several): with the first
        head the rules box (and worked example) across the page, then its grids a band at a
        time, a band never split and never parted from the next when it holds a factor of it
        (`keep`: CSS's break-after: avoid); a frame is sliced where a page ends. Returns where
        the next block starts."""
        border, stroke, radius = FRAME
        pad_top, _, pad_bottom, pad_left = FRAME_PAD_PT
        marks = self.marks()
        if title is None:  # after the header, whose bottom margin collapses with the next one
            base, pending = top - HEADER_GAP_PT, HEADER_GAP_PT
        else:
            self.x = self.left + border + pad_left
            self.text(title, HEAD_TITLE, self.x, top + border + pad_top)
            base, pending = top + border + pad_top + self.line_height(HEAD_TITLE), HEAD_TITLE_GAP_PT
        if head is self.view.heads[0]:
            box = base + max(pending, SPACED_PT)
            box += self.rules_box(self.x, box)
            base, pending = self.worked_box(self.x, box, self.right - self.left - 2 * (self.x - self.left)), ASIDE_GAP_PT
        bands = [(panel, SPACED_PT if k == 0 and name != "proj" else 0.0)
                 for name, panels in head.bands for k, panel in enumerate(panels)]
        starts = [sum(len(p) for _, p in head.bands[:g]) for g in range(len(head.bands))]
        # A band whose columns its grid's first band heads (head.again): that band printed again atop a page.
        header = {s + k: s for s, (name, panels) in zip(starts, head.bands) if name in head.again
                  for k in range(1, len(panels))}
        y, first, i = base + pending, 0, 0  # y: where band i goes (its margin aside)
        fragment, continued = top, False  # where the frame's part on this page starts
        while i < len(bands):
            panel, margin = bands[i]
            at = y + (margin if i > first or not self.pages or y != self.page_top else 0.0)  # none atop a page
            if at + panel.height_pt <= self.bottom + 0.01:
                y, i = self.place(panel, at), i + 1
                continue
            start = i
            while start > first and bands[start - 1][0].keep:  # a factor's band goes along
                start -= 1
            if start == first and not continued and title is not None and head is not self.view.heads[0]:
                # Its title would stand alone at the page's foot (break-after: avoid): the
                # whole frame starts the next page (atop one, its bands go on over the next).
                if top == self.page_top and (i == first or (header.get(i) is None and self.settings.paper not in LARGE_PAGES_PT)):
                    raise TooTall("a head's first band fits no page")
                if top != self.page_top:
                    self.rollback(marks)
                    self.x = self.left
                    return self.flowing(head, self.new_page(), title)
            repeat = None
            if start == first and (continued or (title is None and self.pages) or top == self.page_top):
                repeat = header.get(i)  # its columns' band goes again atop the next page, this band below it
                # A large print's short page breaks a chain too tall for it, as CSS would (the factor a page back).
                if i == first or (repeat is None and self.settings.paper not in LARGE_PAGES_PT):
                    raise TooTall("a band (with those it keeps) taller than a page")
                start = i
            del self.panels[len(self.panels) - (i - start):]
            if title is not None:  # the frame's part on this page, open at the page's foot
                self.frames.append(Frame(self.left, fragment, self.right - self.left, self.bottom - fragment, None,
                                         stroke, border, radius, open_top=continued, open_bottom=True))
                continued = True
            first = i = start
            y = fragment = self.new_page()
            if repeat is not None:
                y = self.place(bands[repeat][0], y)
        if title is None:
            return y
        foot = y + pad_bottom + border
        if foot > self.bottom + 0.01:
            raise TooTall("a frame's foot past the page's")
        self.frames.append(Frame(self.left, fragment, self.right - self.left, foot - fragment, None, stroke, border,
                                 radius, open_top=continued))
        self.x = self.left
        return foot + FRAME_GAP_PT

    def place(self, panel: PanelView, top: float) -> float:
        """A panel at the current left; returns its foot."""
        self.panels.append(PanelPlace(panel, self.x, top))
        return top + panel.height_pt

    def fitted(self, block: Callable[[float], float], top: float) -> float:
        """`block(top)`, which places what it holds and returns its foot, on this page, or on
        the next when it would run past this one's foot (CSS's break-inside: avoid)."""
        marks = self.marks()
        foot = block(top)
        if foot <= self.bottom + 0.01:
            return foot
        if top == self.page_top:
            raise TooTall("a block taller than a page")
        self.rollback(marks)
        return self.fitted(block, self.new_page())

    def marks(self) -> tuple[int, int, int, int]:
        """How much this page holds so far, to take back what follows (`rollback`)."""
        return len(self.runs), len(self.rects), len(self.frames), len(self.panels)

    def rollback(self, marks: tuple[int, int, int, int]) -> None:
        """Takes back what this page took since `marks`: it goes to the next page."""
        for parts, mark in zip((self.runs, self.rects, self.frames, self.panels), marks):
            del parts[mark:]

    def framed(self, title: str, top: float, body: Callable[[float], float]) -> float:
        """A framed section (a head of several, or the concatenation) kept on one page, its
        title over `body(top)`; returns where the next block starts, below its margin."""
        border, stroke, radius = FRAME
        pad_top, pad_right, pad_bottom, pad_left = FRAME_PAD_PT

        def section(y: float) -> float:
            self.x = self.left + border + pad_left
            inner = y + border + pad_top
            self.text(title, HEAD_TITLE, self.x, inner)
            foot = body(inner + self.line_height(HEAD_TITLE) + HEAD_TITLE_GAP_PT) + pad_bottom + border
            self.x = self.left
            self.frames.append(Frame(self.left, y, self.right - self.left, foot - y, None, stroke, border, radius))
            return foot

        return self.fitted(section, top) + FRAME_GAP_PT

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

    def fields(self, top: float, name_only: bool = False) -> float:
        """"Name ___  Date ___  Group ___" on one line at `top` (the name's alone on pages 2+);
        returns the line's foot."""
        _, student = self._, self.view.student
        text_line = self.line_height(FIELD)
        x = self.left
        fields = ((_("Name") + " ", student.name, LINE_WIDTHS_PT[0]),
                  ("  " + _("Date") + " ", "", LINE_WIDTHS_PT[1]),
                  ("  " + _("Group") + " ", student.group, LINE_WIDTHS_PT[1]))
        for label, value, width in fields[:1] if name_only else fields:
            x += self.text(label, FIELD, x, top)
            # A long name is set smaller to fit its line, whole (down to half the size), on its baseline.
            ink = replace(FIELD_VALUE, size=min(FIELD_VALUE.size, math.floor(FIELD_VALUE.size * width / max(
                self.advance(value, FIELD_VALUE), 1e-6) * 20) / 20)) if value else FIELD_VALUE
            if value and (ink.size < FIELD_VALUE.size / 2 or self.advance(value, ink) > width):
                raise Unsettable("a name longer than two of its lines")  # CSS cuts it with an ellipsis
            if value:
                self.text(value, ink, x + LINE_PAD_PT, top + self.measure.ascent * (FIELD_VALUE.size - ink.size))
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
        below = self.place(head.both, top)
        if head is not self.view.heads[0]:
            return below
        rules = below + head.rules_margin_pt + self.rules_box(self.x, below + head.rules_margin_pt)
        return max(below, self.worked_box(self.x, rules, head.proj_width_pt))

    def row_head(self, head: HeadView, top: float) -> float:
        """The row convention: projections, attention and output, one band below another, the
        rules box beside the projections, below them, or beside the output."""
        first = head is self.view.heads[0]  # the rules box and the worked example go with it
        y = self.band(head.proj, top, None if head.beside_out or not first else head)
        y = self.band(head.att, y + SPACED_PT, None)
        if head.out_apart:  # a key's output with its worked example, on the next page
            y = self.new_page()
        y = self.band(head.out, y + SPACED_PT, head if head.beside_out and first else None)
        return self.worked_box(self.x, y, RULES_MAX_PT + RULES_CHROME_W_PT) if first else y

    def band(self, panel: PanelView, top: float, rules: Optional[HeadView]) -> float:
        """A panel, and the rules box beside or below it (`rules`: the head it belongs to); returns the band's foot."""
        foot = self.place(panel, top)
        if rules is None:
            return foot
        beside = rules.beside or rules.beside_out
        box_top = foot + rules.rules_margin_pt
        height = self.rules_box(self.x + (rules.rules_left_pt if beside else 0.0), box_top)
        return max(foot, box_top + height)
