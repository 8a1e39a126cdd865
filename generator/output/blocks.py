"""Blocks: parts the same on every sheet of a batch, laid out once and stamped on each page.

The rules box's text costs WeasyPrint a few milliseconds a page to lay out, though every sheet
of a batch has the same. It is laid out once, on a page of its own, and each sheet leaves its
box empty, at the block's height; the PDF pass stamps the block there as a form XObject (the
same drawing, the same fonts, still text to search and copy).
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass

import pikepdf


@dataclass(frozen=True)
class Block:
    """A part that is the same on every sheet of a batch (the rules box's text), laid out once
    by WeasyPrint on a page of its own, and stamped where each sheet leaves its box empty."""

    key: str
    """Names it in a page's resources: a hash of what it holds and how wide."""
    pdf: bytes
    """A one-page PDF holding it."""
    box: tuple[float, float, float, float]
    """Where it is on that page: left, top, right, bottom, in points from the top left."""
    page_height: float
    """That page's height."""

    @property
    def height(self) -> float:
        """How tall the empty box left for it is."""
        return round(self.box[3] - self.box[1], 3)


@dataclass(frozen=True)
class BlockMark:
    """A block to stamp."""

    block: Block


@dataclass(frozen=True)
class Stamp:
    """A box left empty for a block: its id and its height."""

    anchor: str
    height: float


INK_MARGIN_PT = 3.0
"""Room around a block's box that its form keeps: a glyph's ink may reach past its line box."""


@functools.lru_cache(maxsize=32)
def _form(block: Block) -> tuple[pikepdf.Pdf, pikepdf.Object]:
    """The block's page as a form XObject, cut to its box, with the file that holds it (kept
    open, once per process: the form lives in it)."""
    source = pikepdf.open(io.BytesIO(block.pdf))
    form = source.pages[0].as_form_xobject()
    left, top, right, bottom = block.box
    m = INK_MARGIN_PT
    form.BBox = pikepdf.Array([left - m, block.page_height - bottom - m, right + m, block.page_height - top + m])
    return source, form


def stamp(
    pdf: pikepdf.Pdf,
    page: pikepdf.Page,
    block: Block,
    box: tuple[float, float, float, float],
    page_height: float,
    forms: dict[str, pikepdf.Object],
) -> bytes:
    """PDF operators that stamp `block` with its top left at `box`'s on `page`; its form is
    copied into `pdf` once (`forms`, by key) and named in the page's resources."""
    if block.key not in forms:
        forms[block.key] = pdf.copy_foreign(_form(block)[1])
    name = page.add_resource(forms[block.key], pikepdf.Name.XObject, pikepdf.Name(f"/AttnBlock{block.key}"))
    dx = box[0] - block.box[0]
    dy = (page_height - box[1]) - (block.page_height - block.box[1])
    return f"q 1 0 0 1 {dx:.3f} {dy:.3f} cm {name} Do Q".encode("ascii")
