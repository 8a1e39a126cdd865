"""The box geometry of a worksheet: where each answer box is printed, for a scanner (ours or another's).

Every page's registration marks' centres and QR code, and every writing box of a computed matrix
as `{"head", "step", "row", "col", "page", "x", "y", "w", "h"}` in points from the page's top
left; rows and columns are 1-based in the sheet's own layout, as in the answers CSV (a row
convention's column of sums is the one-row grid `sums`). A fraction's box (A, Z) has two parts:
the fraction above its guide, the decimals below. The layout is the PDF writer's own
(sheet/layout.py), so these are the printed places to a fraction of a point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from generator.core.registry import flat_steps
from generator.sheet.pages import PageLayout


@dataclass(frozen=True)
class AnswerBox:
    """One answer box on the printed page."""

    head: Optional[int]
    step: str
    row: int
    """1-based, as in the answers CSV."""
    col: int
    page: int
    """1-based page of the sheet."""
    x: float
    y: float
    w: float
    h: float
    split: Optional[float] = None
    """A fraction's box: the guide's height from the box's top (fraction above, decimals below)."""

    @property
    def parts(self) -> dict[str, tuple[float, float, float, float]]:
        """A fraction's box as its fraction part and its decimal part (x, y, w, h); empty otherwise."""
        if self.split is None:
            return {}
        return {
            "fraction": (self.x, self.y, self.w, self.split),
            "decimal": (self.x, self.y + self.split, self.w, self.h - self.split),
        }


@dataclass(frozen=True)
class PageBoxes:
    """One page of a worksheet as a scanner sees it."""

    page: int
    width: float
    height: float
    marks: tuple[tuple[float, float], ...]
    """The registration marks' centres: top left, top right, bottom left, bottom right."""
    qr: str
    """What the page's QR code holds."""
    boxes: tuple[AnswerBox, ...]


def page_boxes(layouts: Sequence[PageLayout]) -> tuple[PageBoxes, ...]:
    """Each page's marks and answer boxes, from the sheet's layout; a box printed twice counts once."""
    seen, out = set(), []
    for number, layout in enumerate(layouts, start=1):
        boxes = []
        for place in layout.panels:
            for b in place.panel.boxes:
                row, col = (
                    (0, b.row) if b.step in flat_steps() and _column_sums(place.panel.boxes, b) else (b.row, b.col)
                )
                key = (b.head, b.step, row, col)
                if key in seen:
                    continue
                seen.add(key)
                boxes.append(
                    AnswerBox(
                        b.head,
                        b.step,
                        row + 1,
                        col + 1,
                        number,
                        round(place.x + b.x, 2),
                        round(place.y + b.y, 2),
                        round(b.w, 2),
                        round(b.h, 2),
                        None if b.split is None else round(b.split, 2),
                    )
                )
        out.append(
            PageBoxes(
                number, layout.width, layout.height, tuple(m.centre for m in layout.marks), layout.qr, tuple(boxes)
            )
        )
    return tuple(out)


def _column_sums(boxes, b) -> bool:
    """Whether `b`'s flat grid is drawn as a column (the row convention's sums): answers@1 has it as a row."""
    return any(o.step == b.step and o.head == b.head and o.row > 0 for o in boxes)


def boxes_json(pages: Sequence[PageBoxes]) -> dict:
    """The contract as JSON: attnsheet/boxes@1."""
    return {
        "format": "attnsheet/boxes@1",
        "unit": "pt",
        "origin": "top-left",
        "pages": [
            {
                "page": p.page,
                "width": round(p.width, 2),
                "height": round(p.height, 2),
                "marks": [[round(x, 2), round(y, 2)] for x, y in p.marks],
                "qr": p.qr,
                "boxes": [
                    {
                        "head": b.head,
                        "step": b.step,
                        "row": b.row,
                        "col": b.col,
                        "page": b.page,
                        "x": b.x,
                        "y": b.y,
                        "w": b.w,
                        "h": b.h,
                        **({"parts": {k: list(v) for k, v in b.parts.items()}} if b.split is not None else {}),
                    }
                    for b in p.boxes
                ],
            }
            for p in pages
        ],
    }


COLUMNS = ("head", "step", "row", "col", "x", "y", "w", "h", "split")
"""A box as a row of the manifest's `boxes` entry: the same fields, `split` the guide's height from the box's top (or null)."""


def boxes_rows(pages: Sequence[PageBoxes]) -> list[dict]:
    """The geometry as a manifest keeps it: each page with its boxes as rows under COLUMNS (a
    class's manifest stays a few times its size without them, not ten)."""
    return [
        {
            "page": p.page,
            "width": round(p.width, 2),
            "height": round(p.height, 2),
            "marks": [[round(x, 2), round(y, 2)] for x, y in p.marks],
            "qr": p.qr,
            "columns": list(COLUMNS),
            "boxes": [[b.head, b.step, b.row, b.col, b.x, b.y, b.w, b.h, b.split] for b in p.boxes],
        }
        for p in pages
    ]
