"""What one pile of scans may hold: checked from its files' headers before a pixel is decoded.

Apart from the readers (no OpenCV; PDFium and Pillow only when a pile is counted), so that the
command line and the web app can name and check the limits without loading them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.core.errors import InputError

DPI = 200
"""PDF pages are rasterised at this resolution (the scan's own pictures are used as they are)."""
PICTURES = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}

MAX_PIXELS = 36_000_000
"""A larger page is refused (an A4 sheet at 600 dpi is 35 million, a Letter one 34): reading a page of
this size peaks near 250 MB for a sheet, and under 450 MB for one all random ink, the worst a page
can ask of the reader (bench/bombs.py); so no file may declare more."""
MAX_FRAMES = 1000
"""Pictures one file may hold (a copier's multi-page TIFF of a class is a few hundred)."""
MAX_OBJECTS = 100_000
"""Drawing objects one PDF page may hold (a scanned page has one, a printed sheet a few thousand)."""
MAX_PAGES = 2000
"""Pages one pile may hold by default (a school's largest exam): beyond, nothing is read."""
PAGE_PIXELS = 9_000_000
"""A pile's pixel budget per page: an A4 page at 300 dpi, a copier's finest usual setting."""


@dataclass(frozen=True)
class Limits:
    """What one pile may hold, checked from its files' headers before any page is read."""

    pages: int = MAX_PAGES
    """Pages in all."""

    @property
    def pixels(self) -> int:
        """Pixels in all (each page at most MAX_PIXELS besides)."""
        return self.pages * PAGE_PIXELS


def page_count(paths: list[Path]) -> int:
    """How many pages `scan_pages` will give, from the files' headers alone (for a progress bar)."""
    return sum(len(_declared(path)) for path in paths)


def survey(paths: list[Path], limits: Limits = Limits()) -> int:
    """How many pages the pile holds, from its files' headers alone; InputError, in one line, when
    it holds more pages than `limits` allow or declares more pixels in all (nothing is read then)."""
    pages = pixels = 0
    for path in paths:
        sizes = _declared(path)
        pages += len(sizes)
        pixels += sum(size for size in sizes if size <= MAX_PIXELS)  # a page over the limit is refused alone, unread
        if pages > limits.pages:
            raise InputError(
                f"the scans hold more than {limits.pages:,} pages (at {path.name}): split them into smaller piles"
            )
        if pixels > limits.pixels:
            raise InputError(
                f"the scans hold more than {limits.pixels // 1_000_000:,} million pixels (at "
                f"{path.name}): scan at 300 dpi or less, or split them into smaller piles"
            )
    return pages


def _declared(path: Path) -> list[int]:
    """The pixels each page of a file will have, from its header alone (0 for a page that will be
    a report: a file that cannot be read is one such page)."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        import pypdfium2 as pdfium

        try:
            pdf = pdfium.PdfDocument(str(path))
        except (pdfium.PdfiumError, OSError):
            return [0]  # one page: why it cannot be read
        try:
            sizes = []
            for i in range(len(pdf)):
                width, height = pdf.get_page_size(i)  # from the page tree: no page is loaded
                sizes.append(int(width * height * (DPI / 72) ** 2))
            return sizes
        finally:
            pdf.close()
    if suffix in PICTURES:
        sizes = declared_pixels(path)
        return sizes if sizes and len(sizes) <= MAX_FRAMES else [0]
    return [0]


def declared_pixels(path: Path) -> Optional[list[int]]:
    """The pixels each picture of a file says it has, read from its header alone (nothing is
    decoded: a 200-byte TIFF may declare ten billion); None when the header cannot be read."""
    from PIL import Image  # Pillow reads every picture format's header without decoding it

    try:
        with Image.open(path) as picture:
            sizes = []
            for frame in range(min(getattr(picture, "n_frames", 1), MAX_FRAMES + 1)):
                picture.seek(frame)
                sizes.append(picture.size[0] * picture.size[1])
            return sizes
    except Image.DecompressionBombError:
        return [MAX_PIXELS + 1]
    except (OSError, ValueError, EOFError, SyntaxError):  # what Pillow raises for a file it cannot parse
        return None
