"""A sheet code's QR code as shapes: its dark modules, a run of them per rectangle."""

from __future__ import annotations

import functools

import segno

from generator.sheet.panel import Shapes


@functools.lru_cache(maxsize=256)  # a sheet's worksheet and key often meet in one process
def qr_shapes(code: str) -> Shapes:
    """A sheet code's QR code: its dark modules, a run of them per rectangle, in modules."""
    rows = segno.make(code, error="m", micro=False).matrix
    runs = []
    for y, row in enumerate(rows):
        x = 0
        while x < len(row):
            if row[x]:
                end = x
                while end < len(row) and row[end]:
                    end += 1
                runs.append((float(x), float(y), float(end - x), 1.0))
                x = end
            else:
                x += 1
    return Shapes(width=float(len(rows)), height=float(len(rows)), fills=(("#000000", tuple(runs)),), strokes=())
