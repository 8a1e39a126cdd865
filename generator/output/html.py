"""Worksheets and answer keys as HTML: one strict Jinja environment per language."""

from __future__ import annotations

import functools
from typing import Any as Solution
from typing import Iterable, Iterator, Optional, Sequence

import jinja2
from markupsafe import Markup

from generator import __version__
from generator.core.problem import Exercise as Problem
from generator.core.student import Student
from generator.output.paint import FootMark, Painter, Plan
from generator.output.prose import shaper
from generator.output.svg import ink_css, panel_svg, qr_svg
from generator.sheet import look, style
from generator.sheet.assets import templates_dir
from generator.sheet.i18n import translations
from generator.sheet.layout import PAPERS_PT, page_layout
from generator.sheet.marks import PAGE_TOP_EXTRA_MM, is_scanned, registration_marks
from generator.sheet.measure import Unsettable, rules_lines
from generator.sheet.model import PAGE_SIZES, Settings
from generator.sheet.sheets import sheet_view
from generator.sheet.sheetview import SheetView, badge_label
from generator.sheet.style import (
    CODE,
    CODE_LABEL,
    CODE_RIGHT_PT,
    CODE_TOPS_PT,
    FOOT,
    FOOT_PREFIX,
    foot_inset_mm,
    margins_of,
    RULES_BORDER_PT,
    RULES_PAD_PT,
    Ink,
    content_width,
)


def _pt(x: float) -> str:
    """A length in points, for the stylesheet."""
    return f"{x:g}pt"


def _prose_css(ink: Ink) -> str:
    """A prose style as CSS declarations (the font family is the page's)."""
    spacing = f"; letter-spacing: {ink.spacing:g}pt" if ink.spacing else ""
    return f"font-size: {ink.size:g}pt; font-weight: {ink.weight}; color: {ink.colour}{spacing}"


def _date(seconds: float) -> str:
    """A moment as its day, the same in every language (2026-12-03)."""
    import time

    return time.strftime("%Y-%m-%d", time.localtime(seconds)) if seconds else ""


def _css_string(value: str) -> str:
    """A value as a CSS string literal: only our own catalog text ever goes through this."""
    escaped = "".join(ch if ch.isalnum() or ch in " .,:/-()" else f"\\{ord(ch):x} " for ch in str(value))
    return Markup(f'"{escaped}"')


@functools.lru_cache(maxsize=None)
def environment(lang: str) -> jinja2.Environment:
    """The one Jinja environment per language: autoescaped, strict, with gettext installed."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,  # every value is escaped unless marked safe
        undefined=jinja2.StrictUndefined,  # a typo in a template is an error, not a blank
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.filters["css_string"] = _css_string
    env.filters["ink_css"] = ink_css
    env.filters["pt"] = _pt
    env.filters["date"] = _date
    env.filters["prose"] = _prose_css
    env.globals["panel_svg"] = panel_svg
    env.globals["L"], env.globals["S"] = look, style  # the look in numbers, for the stylesheets
    env.globals["rules_lines"] = broken_rules
    return env


def broken_rules(view: SheetView) -> tuple[str, ...]:
    """The rules box's lines as the layout breaks them (as given, where it cannot measure them)."""
    try:
        return rules_lines(view, shaper())
    except Unsettable:
        return view.rules


def document_html(
    sheets: Sequence[SheetView],
    settings: Settings,
    embed_css: str = "",
    page_css: bool = True,
    plans: Optional[Sequence[Plan]] = None,
    laid_out: bool = False,
) -> str:
    """Sheets (from `sheet_view`) as one HTML document, each starting on a new page.

    `embed_css` puts the stylesheet inside the page, for HTML output read without attnsheet;
    PDF output passes the stylesheet and the page style (`page_css=False`, see `page_css_text`)
    separately, each parsed once per process. `plans`, one per sheet (see `paint_plan`), leave
    the boxes a painter takes over empty, for PDF output. `laid_out` (a browser's HTML) prints
    each sheet the layout covers from its layout, as the PDF writer does; the others, and all
    of them for WeasyPrint, flow as the stylesheet places them.
    """
    return "".join(document_chunks(sheets, settings, embed_css, page_css, plans, laid_out))


def document_chunks(
    sheets: Iterable[SheetView],
    settings: Settings,
    embed_css: str = "",
    page_css: bool = True,
    plans: Optional[Sequence[Plan]] = None,
    laid_out: bool = False,
) -> Iterator[str]:
    """`document_html` piece by piece, taking the sheets as they come: a big batch's HTML is
    written as it is made, never held whole."""
    template = environment(settings.lang).get_template("sheet.html")
    measure = shaper() if laid_out else None
    items = ((view, measure and page_layout(view, settings, measure)) for view in sheets)
    return template.generate(
        sheets=items,
        laid_out=laid_out,
        ascent=measure.ascent if measure else 0.0,
        foot_left=lambda code: FootMark(code, "").left,
        settings=settings,
        page_size=PAGE_SIZES[settings.paper],
        version=__version__,
        embed_css=Markup(embed_css),  # our own stylesheet file, never user text
        page_css=page_css,
        plans=plans,
        code_label=CODE_LABEL,
        code=CODE,
        code_tops=CODE_TOPS_PT,
        code_right=CODE_RIGHT_PT,
        qr_svg=qr_svg,
        rules_pad=RULES_PAD_PT,
        rules_border=RULES_BORDER_PT,
        margins=margins_of(settings.paper),
        foot_inset=foot_inset_mm(margins_of(settings.paper)),
        foot=FOOT,
        foot_prefix=FOOT_PREFIX,
        footer=True,  # for page.css
    )


def paint_plan(view: SheetView, settings: Settings, painter: Painter) -> Plan:
    """What `painter` takes over on one sheet, decided before its template renders, in the
    order the page shows it: the code, the footer, the blocks (laid out once per batch from
    the same macros the HTML prints) and every panel."""
    lang = settings.lang
    _ = translations(lang).gettext
    blocks = environment(lang).get_template("blocks.html").make_module({"settings": settings})
    badge = (
        painter.badge(view.code, badge_label(_("Sheet code"), view), view.link, is_scanned(view)) if view.code else None
    )
    marks = registration_marks(*PAPERS_PT[settings.paper]) if is_scanned(view) else ()
    foot = painter.foot(view.code, _("page"), marks)
    title = painter.block(str(blocks.titles(view, settings)), round(content_width(settings.paper), 2), lang)
    score = painter(view.score) if view.score else None
    rules = painter.block(str(blocks.rules_text(view)), view.rules_width_pt, lang, "rules")
    heads = tuple(painter.head(head) for head in view.heads)
    worked = painter(view.worked) if view.worked else None
    final = painter(view.final) if view.final else None
    final_more = painter(view.final_more) if view.final_more else None
    return Plan(
        heads=heads,
        final=final,
        score=score,
        badge=badge,
        foot=foot,
        title=title,
        rules=rules,
        worked=worked,
        final_more=final_more,
    )


def page_css_text(settings: Settings, footer: bool = True, scanned: bool = False) -> str:
    """The page style (paper size, margins, footer) that `document_html` embeds unless told not to.

    `footer=False` leaves the footer out, for a painter that paints it (see `generator.paint`);
    `scanned`: a worksheet's pages 2+ start lower, below their QR code (sheet/marks.py).
    """
    return (
        environment(settings.lang)
        .get_template("page.css")
        .render(
            page_size=PAGE_SIZES[settings.paper],
            margins=margins_of(settings.paper),
            foot=FOOT,
            foot_prefix=FOOT_PREFIX,
            footer=footer,
            later_top=margins_of(settings.paper)[0] + PAGE_TOP_EXTRA_MM if scanned else None,
            foot_inset=foot_inset_mm(margins_of(settings.paper)),
        )
    )


def sheet_html(problem: Problem, solution: Solution, student: Student, settings: Settings, key: bool) -> str:
    """One student's worksheet (key=False) or answer key (key=True) as a standalone HTML page."""
    return document_html([sheet_view(problem, solution, student, settings, key)], settings)


@functools.lru_cache(maxsize=8)
def stylesheet_text(asset_prefix: str = "") -> str:
    """The sheets' stylesheet, its sizes and colours from sheet/look.py and sheet/style.py (the
    layout's own), its font URLs under `asset_prefix` (HTML output; PDF reads them beside it)."""
    return environment("en").get_template("sheet.css").render(asset_prefix=asset_prefix)


def report_html(report: dict, settings: Settings, asset_prefix: str = "") -> str:
    """A class report (from `output.gradebook.class_report`) as one HTML page; its fonts under
    `asset_prefix` (for a browser; WeasyPrint reads them beside the template)."""
    return (
        environment(settings.lang)
        .get_template("report.html")
        .render(
            asset_prefix=asset_prefix,
            report=report,
            settings=settings,
            page_size=PAGE_SIZES[settings.paper],
            version=__version__,
            margins=margins_of(settings.paper),
            foot=FOOT,
            foot_prefix="attnsheet",
            footer=True,
            page_css=True,  # no sheet code
        )
    )
