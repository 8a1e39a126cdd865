"""HTML to PDF with WeasyPrint: only the project's own assets are ever read, nothing is fetched.

The output edge of the tool: it turns the HTML strings of `render` into PDF bytes, and is the
only module that imports WeasyPrint.
"""

from __future__ import annotations

import base64
import functools
import logging
import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint import CSS, HTML
from weasyprint.document import Document
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from generator.render import PNG_DATA, templates_dir

# WeasyPrint reports what it could not load through logging; the CLI speaks for itself.
logging.getLogger("weasyprint").addHandler(logging.NullHandler())
logging.getLogger("weasyprint").propagate = False


class AssetFetcher(URLFetcher):
    """Serves files from the templates folder and our own inline PNGs; refuses every other URL."""

    def __init__(self, root: Path) -> None:
        super().__init__(allowed_protocols=("file", "data"), allow_redirects=False, fail_on_errors=False)
        self.root = root.resolve()
        self.refused: list[str] = []

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        if url.startswith(PNG_DATA):
            # The QR codes render makes: data in the URL itself, no file and no network.
            return URLFetcherResponse(url[:64], base64.b64decode(url[len(PNG_DATA):], validate=True),
                                      headers={"Content-Type": "image/png"})
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
        self.stylesheet = CSS(filename=str(root / "sheet.css"), url_fetcher=self.fetcher, font_config=self.fonts)

    def render(self, html: str, page_css: str = "") -> Document:
        """Lay out one HTML page set, with the page style `page_css` (parsed once per text)."""
        stylesheets = [self.stylesheet, self._page_stylesheet(page_css)] if page_css else [self.stylesheet]
        return HTML(string=html, base_url=self.base_url, url_fetcher=self.fetcher).render(
            stylesheets=stylesheets, font_config=self.fonts
        )

    @functools.lru_cache(maxsize=8)  # one per paper and language a batch uses  # noqa: B019
    def _page_stylesheet(self, text: str) -> CSS:
        return CSS(string=text, base_url=self.base_url, url_fetcher=self.fetcher, font_config=self.fonts)

    def pdf(self, documents: list[Document]) -> bytes:
        """The pages of `documents`, in order, as one PDF with shared fonts."""
        pages = [page for doc in documents for page in doc.pages]
        return documents[0].copy(pages).write_pdf()


@functools.lru_cache(maxsize=1)
def renderer() -> Renderer:
    """The process's renderer."""
    return Renderer()
