"""HTML to PDF with WeasyPrint: only the project's own assets are ever read, nothing is fetched.

The output edge of the tool: it turns the HTML strings of `render` into PDF bytes, and is the
only module that imports WeasyPrint.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import logging
import mimetypes
import os
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence
from urllib.parse import unquote, urlsplit

import pikepdf
from weasyprint import CSS, HTML
from weasyprint.document import Document
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from generator.output.blocks import Block, BlockMark, stamp
from generator.output.embed import embed_mono
from generator.output.html import document_html, page_css_text, paint_plan, stylesheet_text
from generator.output.jobs import scratch_folder
from generator.output.paint import (
    ANCHOR,
    Painter,
    PanelMark,
    Placement,
    font_key,
    fonts_for,
    page_operators,
)
from generator.sheet.assets import templates_dir
from generator.sheet.marks import is_scanned
from generator.sheet.model import Settings, for_student
from generator.sheet.sheetview import SheetView

PX_PT = 0.75
"""A CSS pixel (WeasyPrint's unit for positions) in points."""

SUPPORTED = {"weasyprint": (68, 71), "pikepdf": (9, 11)}
"""Versions the painter was tested against, [from, to): the same bounds as pyproject.toml's.
WeasyPrint's anchors give the painted boxes' places; pikepdf's page API paints into them. With
any other version, sheets are drawn by WeasyPrint alone (slower, same look)."""


def _version(name: str) -> float:
    from importlib.metadata import version

    return float(version(name).partition(".")[0])


BLOCK_PAGE_CSS = "@page { size: 1000pt 1000pt; margin: 0 }"
"""The page a block is laid out on: wider and taller than any block (its form is cut to its box)."""

PAINTS = all(lo <= _version(name) < hi for name, (lo, hi) in SUPPORTED.items())
"""Whether this process paints panels into WeasyPrint's PDF (see SUPPORTED)."""

# WeasyPrint reports what it could not load through logging; the CLI speaks for itself.
logging.getLogger("weasyprint").addHandler(logging.NullHandler())
logging.getLogger("weasyprint").propagate = False


class AssetFetcher(URLFetcher):
    """Serves files from the templates folder; refuses every other URL."""

    def __init__(self, root: Path) -> None:
        super().__init__(allowed_protocols=("file",), allow_redirects=False, fail_on_errors=False)
        self.root = root.resolve()
        self.refused: list[str] = []

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        parts = urlsplit(url)
        path = Path(unquote(parts.path)).resolve() if parts.scheme == "file" and not parts.netloc else None
        if path is None or not path.is_relative_to(self.root) or not path.is_file():
            self.refused.append(url)
            raise ValueError(f"attnsheet only loads its own assets, not {url[:80]!r}")
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(path.as_uri(), path.read_bytes(), headers={"Content-Type": kind})


class Renderer:
    """One font configuration, one parsed stylesheet and one fetcher, reused for every page."""

    def __init__(self) -> None:
        root = templates_dir()
        self.base_url = root.as_uri() + "/"
        self.fetcher = AssetFetcher(root)
        self.fonts = FontConfiguration()
        # WeasyPrint copies the @font-face fonts into a temporary folder as it parses the
        # stylesheet: the process's scratch folder, which a later run removes if this one is killed.
        saved, tempfile.tempdir = tempfile.tempdir, str(scratch_folder())
        try:
            self.stylesheet = CSS(
                string=stylesheet_text(), base_url=self.base_url, url_fetcher=self.fetcher, font_config=self.fonts
            )
        finally:
            tempfile.tempdir = saved

    def render(self, html: str, page_css: str = "", painter: Optional[Painter] = None) -> Rendered:
        """Lay out one HTML page set, with the page style `page_css` (parsed once per text).

        `painter` is the one `html` was made with, if any: its panels are found on the pages.
        """
        stylesheets = [self.stylesheet, self._page_stylesheet(page_css)] if page_css else [self.stylesheet]
        document = HTML(string=html, base_url=self.base_url, url_fetcher=self.fetcher).render(
            stylesheets=stylesheets, font_config=self.fonts
        )
        placements = _placements(document, painter) if painter else ((),) * len(document.pages)
        if placements is None:
            raise Unpaintable("a painted box was cut by a page break")
        return Rendered(document, placements)

    @functools.lru_cache(maxsize=64)  # the few a batch needs (worksheet and key), kept by a server  # noqa: B019
    def block(self, html: str, width_pt: float, lang: str, box_class: str = "") -> Optional[Block]:
        """`html` laid out once, `width_pt` wide, inside a box of `box_class` (its font and size,
        none of its own border or spacing): a block to stamp on every sheet that shows the same
        (None where it would not fit one page). Its box contains its children's margins."""
        anchor = f"{ANCHOR}block"
        page = (
            f'<!DOCTYPE html><html lang="{lang}"><body><div class="{box_class}" id="{anchor}" style="width: '
            f'{width_pt}pt; padding: 0; border: 0; margin: 0; background: none; display: flow-root">{html}</div>'
            "</body></html>"
        )
        document = HTML(string=page, base_url=self.base_url, url_fetcher=self.fetcher).render(
            stylesheets=[self.stylesheet, self._page_stylesheet(BLOCK_PAGE_CSS)],  # one page style for every width
            font_config=self.fonts,
        )
        if len(document.pages) != 1 or anchor not in document.pages[0].anchors:
            return None
        box = tuple(v * PX_PT for v in document.pages[0].anchors.pop(anchor))
        with _font_dates_fixed():
            data = document.write_pdf()
        key = hashlib.sha256(f"{width_pt}|{lang}|{box_class}|{html}".encode()).hexdigest()[:12]
        return Block(key, data, box, document.pages[0].height * PX_PT)

    @functools.lru_cache(maxsize=8)  # one per paper and language a batch uses  # noqa: B019
    def _page_stylesheet(self, text: str) -> CSS:
        return CSS(string=text, base_url=self.base_url, url_fetcher=self.fetcher, font_config=self.fonts)

    def sheet(self, view: SheetView, settings: Settings, paint: bool = True) -> Rendered:
        """One sheet (from `sheet_view`) laid out, its panels to be painted (unless `paint` is off)."""
        settings = for_student(settings, view.student)  # a large-print sheet's own page
        if paint and PAINTS:
            try:
                return self.render(*painted_html(view, settings, self.block))
            except Unpaintable:
                pass  # a panel taller than what is left of a page: WeasyPrint draws the whole sheet
        return self.render(document_html([view], settings, page_css=False), page_css_text(settings))

    def document(self, views: Sequence[SheetView], settings: Settings) -> tuple[bytes, list[int]]:
        """Sheets as one PDF, and each one's page count; painted where we can, WeasyPrint's own
        drawing wherever the painted PDF would hold anything we did not expect."""
        rendered = [self.sheet(view, settings) for view in views]
        try:
            data = self.pdf(rendered)
        except Unpaintable:
            rendered = [self.sheet(view, settings, paint=False) for view in views]
            data = self.pdf(rendered)
        return data, [len(r.document.pages) for r in rendered]

    def pdf(self, rendered: Sequence[Rendered]) -> bytes:
        """The pages of `rendered`, in order, as one PDF with shared fonts, panels painted."""
        pages = [page for r in rendered for page in r.document.pages]
        placements = [pls for r in rendered for pls in r.placements]
        document = rendered[0].document.copy(pages)
        with _font_dates_fixed():
            data = document.write_pdf()
        if not any(placements):
            return data
        try:
            return painted(data, placements)
        except (pikepdf.PdfError, KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
            # Not a PDF as we expect one (another WeasyPrint?): WeasyPrint draws the panels itself.
            raise Unpaintable(f"cannot paint into this PDF: {error!r}") from error


@contextlib.contextmanager
def _font_dates_fixed() -> Iterator[None]:
    """Subset fonts carry no date of today: without HarfBuzz's subsetter (a `pip install`
    without Debian's libharfbuzz-subset0), WeasyPrint subsets with fontTools, which stamps the
    current time into each font's `head` table unless SOURCE_DATE_EPOCH is set."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        yield  # the user's own fixed time: fontTools uses it as it is
        return
    os.environ["SOURCE_DATE_EPOCH"] = "0"
    try:
        yield
    finally:
        os.environ.pop("SOURCE_DATE_EPOCH", None)


def painted_html(view: SheetView, settings: Settings, blocks=None) -> tuple[str, str, Painter]:
    """A sheet's HTML with the boxes to paint in, its page style, and the painter that will
    (stamping the blocks that `blocks` lays out: the process's renderer's by default)."""
    painter = Painter(blocks=blocks or renderer().block)
    html = document_html([view], settings, page_css=False, plans=[paint_plan(view, settings, painter)])
    return html, page_css_text(settings, footer=not painter.paints_footer, scanned=is_scanned(view)), painter


@dataclass(frozen=True)
class Rendered:
    """A laid-out document, and the panels to paint on each of its pages."""

    document: Document
    placements: tuple[tuple[Placement, ...], ...]
    """By page."""


class Unpaintable(Exception):
    """A box to paint in did not land whole on one page."""


def _placements(document: Document, painter: Painter) -> Optional[tuple[tuple[Placement, ...], ...]]:
    """Where WeasyPrint placed the boxes of the painter's marks, page by page; None when one of
    them was cut by a page break, runs past the page's foot, or is missing.

    The boxes' ids come back as the pages' anchors; they are taken out again, so that they do
    not become named destinations in the PDF.
    """
    placed, found = [], set()
    pages = len(document.pages)
    for number, page in enumerate(document.pages, 1):
        here = []
        for name in [name for name in page.anchors if name.startswith(ANCHOR)]:
            box = tuple(v * PX_PT for v in page.anchors.pop(name))
            pl = painter.place(name, box, number, pages)
            if isinstance(pl.mark, PanelMark) and abs(box[3] - box[1] - pl.mark.panel.height_pt) > 0.5:
                return None
            if isinstance(pl.mark, BlockMark) and abs(box[3] - box[1] - pl.mark.block.height) > 0.5:
                return None
            if box[3] > page.height * PX_PT + 0.5:  # taller than the page: it would run off its foot
                return None
            here.append(pl)
            found.add(name)
        placed.append(tuple(here))
    return tuple(placed) if found == set(painter.marks) else None


def painted(data: bytes, placements: Sequence[tuple[Placement, ...]]) -> bytes:
    """WeasyPrint's finished PDF with the panels painted on its pages, through pikepdf's public
    page API (content streams added, fonts added to each page's resources)."""
    pdf = pikepdf.open(io.BytesIO(data))
    if len(pdf.pages) != len(placements):
        raise Unpaintable(f"the PDF has {len(pdf.pages)} pages where the layout has {len(placements)}")
    fonts = fonts_for(pl for pls in placements for pl in pls)
    refs = {font_key(weight): embed_mono(pdf, font) for weight, font in fonts.items()}
    # A content stream may leave its graphics state changed: WeasyPrint's is wrapped in q/Q,
    # so that ours starts from PDF's initial state.
    save = pdf.make_stream(b"q")
    forms: dict[str, pikepdf.Object] = {}
    for page, pls in zip(pdf.pages, placements):
        if not pls:
            continue
        box = [float(v) for v in page.mediabox]
        height = box[3] - box[1]
        page.contents_add(save, prepend=True)
        stamps = [
            stamp(pdf, page, pl.mark.block, pl.box, height, forms) for pl in pls if isinstance(pl.mark, BlockMark)
        ]
        # zlib's default level: level 9 takes 2.5x as long for 1.5% less.
        ops = zlib.compress(b"\n".join([b"Q", *stamps, page_operators(pls, height, fonts, box[2] - box[0])]), 6)
        page.contents_add(pikepdf.Stream(pdf, ops, Filter=pikepdf.Name.FlateDecode))
        for key, ref in refs.items():
            page.add_resource(ref, pikepdf.Name.Font, pikepdf.Name(f"/{key}"))
    buffer = io.BytesIO()
    # A content-based /ID and no timestamps of qpdf's own: the same pages give the same bytes.
    pdf.save(buffer, deterministic_id=True, compress_streams=True)
    return buffer.getvalue()


@functools.lru_cache(maxsize=1)
def renderer() -> Renderer:
    """The process's renderer."""
    return Renderer()
