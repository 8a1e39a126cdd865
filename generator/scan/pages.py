"""Scanned pages in: every page of PDFs (rasterised at 200 dpi) and pictures (PNG, JPEG, TIFF), one at a time.

A page is read, used and let go before the next is made: a copier's file of 300 pages never
sits in memory whole. Nothing is decoded before its declared size is checked (each TIFF frame,
each picture inside a PDF page), so a file of a few kilobytes that declares billions of pixels
costs nothing; a pile is checked whole (`survey`) before its first page is read. A file that
cannot be read is one page's report (file, why), never the end of the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import cv2
import numpy as np

from generator.scan.limits import DPI, MAX_FRAMES, MAX_OBJECTS, MAX_PIXELS, PICTURES, declared_pixels

REOPEN = 16
"""A PDF is opened again every so many pages: PDFium's memory of the pages read stays bounded."""


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
    width, height = pdf.get_page_size(i)
    if width * height * (DPI / 72) ** 2 > MAX_PIXELS:
        return ScanPage(str(path), i + 1, None, "the page is too big to be a sheet")
    page = pdf[i]
    try:
        why = _too_much(page, pdfium)
        if why:
            return ScanPage(str(path), i + 1, None, why)
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


def _too_much(page, pdfium) -> str:
    """Why a page must not be drawn, from what it declares (PDFium decodes each picture whole to
    draw it, at its own size, whatever the page's): its pictures hold more than MAX_PIXELS in all,
    or it holds more than MAX_OBJECTS objects; empty when it may be."""
    pixels = objects = 0
    for thing in page.get_objects():  # into forms too, as deep as PDFium draws them
        objects += 1
        if objects > MAX_OBJECTS:
            return "the page holds too much to be a sheet"
        if thing.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE:
            width, height = thing.get_px_size()
            pixels += width * height
            if pixels > MAX_PIXELS:
                return "the page holds a picture too big to be a sheet"
    return ""


def _scanned_picture(page, pdfium) -> Optional[np.ndarray]:
    """A copier's page is one picture over the whole page: that picture as it is, grey (a
    seventh of the time rendering takes, and no detail lost); None for any other page."""
    pictures = list(page.get_objects(filter=(pdfium.raw.FPDF_PAGEOBJ_IMAGE,), max_depth=1))
    if len(pictures) != 1 or sum(1 for _ in page.get_objects(max_depth=1)) != 1:
        return None
    if min(pictures[0].get_px_size()) < 300:  # declared, so nothing is decoded to say no
        return None
    try:
        bitmap = pictures[0].get_bitmap(render=False)
        pixels = np.array(bitmap.to_numpy(), copy=True)
    except pdfium.PdfiumError:
        return None
    if pixels.ndim == 3:
        pixels = cv2.cvtColor(pixels[:, :, :3], cv2.COLOR_BGR2GRAY)
    return pixels


def _picture_pages(path: Path) -> Iterator[ScanPage]:
    sizes = declared_pixels(path)
    if sizes is None:  # its size unknown, nothing of it is decoded
        yield ScanPage(str(path), 1, None, "cannot read it as a picture")
        return
    if len(sizes) > MAX_FRAMES:
        yield ScanPage(str(path), 1, None, f"more than {MAX_FRAMES} pictures in one file")
        return
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as error:
        yield ScanPage(str(path), 1, None, f"cannot read it ({error.strerror or error})")
        return
    if path.suffix.lower() in (".tif", ".tiff"):  # a TIFF may hold several pages: decoded one at a time
        for i, size in enumerate(sizes):
            if size > MAX_PIXELS:
                yield ScanPage(str(path), i + 1, None, "the picture is too big to be a sheet")
                continue
            try:
                ok, pictures = cv2.imdecodemulti(data, cv2.IMREAD_GRAYSCALE, None, (i, i + 1))
            except cv2.error:  # a header OpenCV refuses (its own size limit, a broken directory)
                ok, pictures = False, None
            if not ok or not pictures:
                yield ScanPage(str(path), i + 1, None, "cannot read it as a TIFF picture")
                continue
            grey = pictures[0]
            del pictures  # the page is let go as soon as it has been used
            yield _checked(ScanPage(str(path), i + 1, grey))
        return
    if max(sizes, default=0) > MAX_PIXELS:
        yield ScanPage(str(path), 1, None, "the picture is too big to be a sheet")
        return
    try:
        grey = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)  # a phone's EXIF turn applied
    except cv2.error:
        grey = None
    yield _checked(
        ScanPage(str(path), 1, grey)
        if grey is not None
        else ScanPage(str(path), 1, None, "cannot read it as a picture")
    )


def _checked(page: ScanPage) -> ScanPage:
    if page.grey is not None and page.grey.size > MAX_PIXELS:
        return ScanPage(page.file, page.number, None, "the picture is too big to be a sheet")
    if page.grey is not None and min(page.grey.shape) < 300:
        return ScanPage(page.file, page.number, None, "the picture is too small to read a sheet from")
    return page
