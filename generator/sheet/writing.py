"""Where a panel's computed matrices have their writing boxes: what a scanner reads where."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from generator.sheet.grid import Placed
from generator.sheet.style import CHAR_PT, EDGE_PT


@dataclass(frozen=True)
class PanelBox:
    """One writing box of a computed matrix, in points from its panel's top left."""

    head: Optional[int]
    step: str
    row: int
    """0-based, in the matrix as the sheet draws it."""
    col: int
    x: float
    y: float
    w: float
    h: float
    split: Optional[float] = None
    """A fraction's box (A, Z): the guide's height from the box's top, the fraction above, its decimals below."""


def writing_boxes(cells: Sequence[Placed], tops: Sequence[float], scale: float) -> list[PanelBox]:
    """The writing boxes of the computed matrices among `cells`, in points at `scale`."""
    out = []
    for c in cells:
        m = c.m
        if not (m.step and m.boxes):
            continue
        masked = set(m.masked)
        for i in range(m.rows):
            top, foot = tops[c.body_row + i * m.cell_h], tops[c.body_row + (i + 1) * m.cell_h]
            split = (tops[c.body_row + i * m.cell_h + 1] - top) * scale if m.guided and m.cell_h > 1 else None
            for j in range(m.cols):
                if (i, j) not in masked:
                    x = EDGE_PT + (c.col + j * m.cell_w) * CHAR_PT
                    out.append(
                        PanelBox(
                            m.head,
                            m.step,
                            i,
                            j,
                            round(x * scale, 3),
                            round(top * scale, 3),
                            round(m.cell_w * CHAR_PT * scale, 3),
                            round((foot - top) * scale, 3),
                            None if split is None else round(split, 3),
                        )
                    )
    return out
