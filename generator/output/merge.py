"""Several PDF files, page after page, as one: how combined files are built from parts.

A combined file is rendered in parts (a few sheets each) so that every job process can work
on it and no process holds the layout of hundreds of pages; qpdf (through pikepdf) then joins
the parts in a few milliseconds, where a pure-Python merge took seconds.
"""

from __future__ import annotations

import io
from typing import Sequence

import pikepdf

from generator.output.paint import FONT_KEY


def merge(parts: Sequence[bytes]) -> bytes:
    """The pages of `parts` (two or more), in order, with the first part's metadata and every
    part's bookmarks."""
    sources = [pikepdf.open(io.BytesIO(part)) for part in parts]
    out = pikepdf.new()
    first = sources[0]
    for key, value in first.docinfo.items():
        out.docinfo[key] = value
    if "/Lang" in first.Root:
        out.Root.Lang = first.Root.Lang
    marks: list[tuple[str, int]] = []
    for source in sources:
        offset = len(out.pages)
        marks += [(title, offset + index) for title, index in _bookmarks(source)]
        out.pages.extend(source.pages)
    _share_painted_fonts(out)
    if marks:
        with out.open_outline() as outline:
            outline.root.extend(pikepdf.OutlineItem(title, index) for title, index in marks)
    buffer = io.BytesIO()
    # A content-based /ID and no timestamps of qpdf's own: the same parts give the same bytes.
    out.save(buffer, deterministic_id=True)
    return buffer.getvalue()


def _share_painted_fonts(pdf: pikepdf.Pdf) -> None:
    """One copy of each panel font subset, where every part brought its own.

    Their names are tagged from a hash of the font program (see generator.output.paint), so the same
    name is the same font; WeasyPrint's own subsets differ from part to part and stay.
    """
    first: dict[str, pikepdf.Object] = {}
    for page in pdf.pages:
        fonts = page.obj.get("/Resources", {}).get("/Font", {})
        for key in [key for key in fonts.keys() if key.startswith(f"/{FONT_KEY}")]:
            font = fonts[key]
            fonts[key] = first.setdefault(str(font.BaseFont), font)


def _bookmarks(source: pikepdf.Pdf) -> list[tuple[str, int]]:
    """A file's top-level bookmarks (one per sheet title) as (title, page index)."""
    pages = {page.objgen: index for index, page in enumerate(source.pages)}
    found = []
    with source.open_outline() as outline:
        for item in outline.root:
            target = item.destination
            if isinstance(target, pikepdf.Array) and len(target) and target[0].objgen in pages:
                found.append((str(item.title), pages[target[0].objgen]))
    return found
