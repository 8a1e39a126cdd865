"""Large print onto its paper: each page laid out on a large-print page, printed larger on larger paper.

A large-print sheet is laid out on a page of its own (sheet/model.LARGE_PAPERS: as wide inside its
margins as an A4 page, as tall as a Letter one), so everything that fits a sheet fits it, and the
scanner reads it as it was laid out. Here its pages are printed on their paper (A3, or tabloid),
every mark scaled by the same factor: words, numbers, boxes and lines half as large again.
"""

from __future__ import annotations

import io
from typing import Sequence

import pikepdf

from generator.core.errors import LayoutError
from generator.core.student import DOUBLE_PRINT, LARGE_PRINT, PRINT_SIZES
from generator.sheet.model import Settings, for_student
from generator.sheet.style import LARGE_PRINT_ON
from generator.sheet.sheetview import SheetView

AS_LARGE = {LARGE_PRINT: "1.5 times as large", DOUBLE_PRINT: "twice as large"}
"""Each print size in words, for a sheet refused at it."""

BOXES = ("/MediaBox", "/CropBox", "/BleedBox", "/TrimBox", "/ArtBox")
"""A page's boxes, each scaled with it."""


def enlarged(data: bytes, views: Sequence[SheetView], counts: Sequence[int], settings: Settings) -> bytes:
    """`data` (the PDF of `views`, `counts` pages each) with every large-print sheet's pages on their
    paper; `data` itself when none prints large."""
    printed = [LARGE_PRINT_ON.get(for_student(settings, view.student).paper) for view in views]
    if not any(printed):
        return data
    with pikepdf.open(io.BytesIO(data)) as pdf:
        first = 0
        for paper, count in zip(printed, counts):
            if paper is not None:
                for page in pdf.pages[first : first + count]:
                    _scaled(pdf, page, paper[3])
            first += count
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True, compress_streams=True)
    return out.getvalue()


def _scaled(pdf: pikepdf.Pdf, page: pikepdf.Page, scale: float) -> None:
    """One page and all it holds `scale` times as large (its boxes, its drawing, its links)."""
    factor = f"{scale:.4f}".rstrip("0").rstrip(".")
    page.contents_add(pdf.make_stream(f"q {factor} 0 0 {factor} 0 0 cm\n".encode()), prepend=True)
    page.contents_add(pdf.make_stream(b"\nQ\n"), prepend=False)
    for name in BOXES:
        if name in page.obj:
            page.obj[name] = pikepdf.Array([float(v) * scale for v in page.obj[name]])
    for annotation in page.obj.get("/Annots", []):
        if "/Rect" in annotation:
            annotation.Rect = pikepdf.Array([float(v) * scale for v in annotation.Rect])


def check_large(problem, solution, student, settings: Settings) -> None:
    """LayoutError where a large-print sheet (its worksheet or key) would pass its page's margins:
    its page is less tall turned than an A4 page, so a concatenation that needs a landscape page of
    its own may not fit it. Nothing to check for a sheet that does not print large."""
    from generator.output.prose import shaper
    from generator.sheet.layout import laid_out
    from generator.sheet.sheets import sheet_view
    from generator.sheet.style import margins_of

    own = for_student(settings, student)
    if own.paper not in LARGE_PRINT_ON:
        return
    top, right, bottom, left = (m * 72 / 25.4 for m in margins_of(own.paper))
    sizes = ("", *PRINT_SIZES)
    smaller = AS_LARGE.get(sizes[sizes.index(student.print_size) - 1], "at the class's size")
    for key in (False, True):
        layouts, tall = laid_out(sheet_view(problem, solution, student, settings, key), settings, shaper())
        if tall:  # what may not be split over pages is taller than its page
            raise LayoutError(
                f"too large to print {AS_LARGE[student.print_size]} (a part of it, {tall}): "
                f"print this student's sheet {smaller}"
            )
        for page in layouts or ():
            extents = [(f.x, f.y, f.x + f.width, f.y + f.height) for f in page.frames]
            extents += [(p.x, p.y, p.x + p.panel.width_pt, p.y + p.panel.height_pt) for p in page.panels]
            if any(
                x0 < left - 0.5 or y0 < top - 0.5 or x1 > page.width - right + 0.5 or y1 > page.height - bottom + 0.5
                for x0, y0, x1, y1 in extents
            ):
                raise LayoutError(
                    "too large to print in large print (a part of it would pass its page's edge): "
                    f"print this student's sheet {smaller}"
                )
