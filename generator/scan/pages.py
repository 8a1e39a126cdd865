"""Scanned pages in: every page of PDFs (rasterised at 200 dpi) and pictures (PNG, JPEG, TIFF), one at a time.

A page is read, used and let go before the next is made: a copier's file of 300 pages never
sits in memory whole. A file that cannot be read is one page's report (file, why), never the
end of the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import cv2
import numpy as np

DPI = 200
"""PDF pages are rasterised at this resolution (the scan's own pictures are used as they are)."""
PICTURES = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}
REOPEN = 16
"""A PDF is opened again every so many pages: PDFium's memory of the pages read stays bounded."""
MAX_PIXELS = 80_000_000
"""A larger picture is refused (a 600 dpi A3 is 70 million): a hostile file must not take the memory."""


@dataclass(frozen=True)
class ScanPage:
    """One page of the input, as grey pixels, or why it has none."""

    file: str
    number: int
    """1-based, within its file."""
    grey: Optional[np.ndarray]
    problem: str = ""
    """Why there is no picture (the file cannot be read)."""


def scan_pages(paths: list[Path]) -> Iterator[ScanPage]:
    """Every page of every file, in order."""
    for path in paths:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            yield from _pdf_pages(path)
        elif suffix in PICTURES:
            yield from _picture_pages(path)
        else:
            yield ScanPage(str(path), 1, None, "not a PDF, PNG, JPEG or TIFF file")


def page_count(paths: list[Path]) -> int:
    """How many pages `scan_pages` will give, from the files' headers alone (for a progress bar)."""
    total = 0
    for path in paths:
        suffix = path.suffix.lower()
        if suffix == ".pdf":
            import pypdfium2 as pdfium

            try:
                pdf = pdfium.PdfDocument(str(path))
            except (pdfium.PdfiumError, OSError):
                total += 1  # one page: why it cannot be read
                continue
            total += len(pdf)
            pdf.close()
        elif suffix in (".tif", ".tiff"):
            sizes = declared_pixels(path)
            total += len(sizes) if sizes and len(sizes) <= MAX_FRAMES else 1
        else:
            total += 1
    return total


def _pdf_pages(path: Path) -> Iterator[ScanPage]:
    import pypdfium2 as pdfium  # only for PDFs: a scan of pictures never loads it

    try:
        pdf = pdfium.PdfDocument(str(path))
        count = len(pdf)
    except (pdfium.PdfiumError, OSError) as error:
        yield ScanPage(str(path), 1, None, f"cannot read it as a PDF ({str(error).splitlines()[0][:80]})")
        return
    try:
        for i in range(count):
            if i and i % REOPEN == 0:  # PDFium keeps what it parsed of every page until the file is closed
                pdf.close()
                pdf = pdfium.PdfDocument(str(path))
            yield _pdf_page(pdf, pdfium, path, i)
    finally:
        pdf.close()


def _pdf_page(pdf, pdfium, path: Path, i: int) -> ScanPage:
    """Page `i` of an open PDF, grey."""
    page = pdf[i]
    try:
        width, height = page.get_size()
        if width * height * (DPI / 72) ** 2 > MAX_PIXELS:
            return ScanPage(str(path), i + 1, None, "the page is too big to be a sheet")
        grey = _scanned_picture(page, pdfium)
        if grey is None:
            bitmap = page.render(scale=DPI / 72, grayscale=True)
            grey = np.array(bitmap.to_numpy(), copy=True)
            bitmap.close()
    except pdfium.PdfiumError as error:
        return ScanPage(str(path), i + 1, None, f"cannot render the page ({error})")
    finally:
        page.close()
    return ScanPage(str(path), i + 1, grey if grey.ndim == 2 else cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY))


def _scanned_picture(page, pdfium) -> Optional[np.ndarray]:
    """A copier's page is one picture over the whole page: that picture as it is, grey (a
    seventh of the time rendering takes, and no detail lost); None for any other page."""
    pictures = list(page.get_objects(filter=(pdfium.raw.FPDF_PAGEOBJ_IMAGE,), max_depth=1))
    if len(pictures) != 1 or sum(1 for _ in page.get_objects(max_depth=1)) != 1:
        return None
    try:
        bitmap = pictures[0].get_bitmap(render=False)
        pixels = np.array(bitmap.to_numpy(), copy=True)
    except pdfium.PdfiumError:
        return None
    if min(pixels.shape[:2]) < 300 or pixels.size > MAX_PIXELS * 4:
        return None
    if pixels.ndim == 3:
        pixels = cv2.cvtColor(pixels[:, :, :3], cv2.COLOR_BGR2GRAY)
    return pixels


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


MAX_FRAMES = 1000
"""Pages one TIFF may hold (a copier's multi-page TIFF of a class is a few hundred)."""


def _picture_pages(path: Path) -> Iterator[ScanPage]:
    sizes = declared_pixels(path)
    if sizes is not None and (max(sizes, default=0) > MAX_PIXELS or len(sizes) > MAX_FRAMES):
        yield ScanPage(str(path), 1, None, "the picture is too big to be a sheet" if len(sizes) <= MAX_FRAMES
                       else f"more than {MAX_FRAMES} pictures in one file")
        return
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as error:
        yield ScanPage(str(path), 1, None, f"cannot read it ({error.strerror or error})")
        return
    if path.suffix.lower() in (".tif", ".tiff"):  # a TIFF may hold several pages
        try:
            ok, pictures = cv2.imdecodemulti(data, cv2.IMREAD_GRAYSCALE)
        except cv2.error:  # a header OpenCV refuses (its own size limit, a broken directory)
            ok, pictures = False, None
        if not ok or not pictures:
            yield ScanPage(str(path), 1, None, "cannot read it as a TIFF picture")
            return
        for i, grey in enumerate(pictures, start=1):
            yield _checked(ScanPage(str(path), i, grey))
        return
    try:
        grey = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)  # a phone's EXIF turn applied
    except cv2.error:
        grey = None
    yield _checked(ScanPage(str(path), 1, grey) if grey is not None else
                   ScanPage(str(path), 1, None, "cannot read it as a picture"))


def _checked(page: ScanPage) -> ScanPage:
    if page.grey is not None and page.grey.size > MAX_PIXELS:
        return ScanPage(page.file, page.number, None, "the picture is too big to be a sheet")
    if page.grey is not None and min(page.grey.shape) < 300:
        return ScanPage(page.file, page.number, None, "the picture is too small to read a sheet from")
    return page
