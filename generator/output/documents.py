"""Sheets to PDF bytes: written straight from their layout where it covers them, by WeasyPrint otherwise."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.output.direct import document as direct_document
from generator.output.enlarge import enlarged
from generator.sheet.model import Settings
from generator.sheet.sheetview import SheetView


def document(views: Sequence[SheetView], settings: Settings, boxes: Optional[list] = None) -> tuple[bytes, list[int]]:
    """Sheets as one PDF, and each one's page count. One path per file: its pages look alike
    either way (the two agree to a tenth of a point), but a file's fonts are then shared.
    `boxes`: a list to put each worksheet's box geometry in, where the layout gives it (None where not)."""
    written = direct_document(views, settings, boxes)
    if written is None:
        if boxes is not None:
            boxes[:] = [None] * len(views)
        from generator.output.pdf import renderer  # WeasyPrint loads only for sheets the layout does not cover

        written = renderer().document(views, settings)
    data, counts = written
    return enlarged(data, views, counts, settings), counts  # large print onto its larger paper
