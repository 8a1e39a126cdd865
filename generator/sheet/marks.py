"""Registration marks: four solid squares near a worksheet's page corners, for a scanner to find the page.

They sit in the page margins, clear of everything printed (the margins are 12–14 mm; a mark spans
5–10 mm from the edges, inside what a printer reaches), so no other part of the sheet moves. A
scan maps the page by the homography from the marks' centres. Keys and graded sheets have none:
only a worksheet comes back to be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from generator.sheet.look import MM
from generator.sheet.style import MARGINS_MM

MARK_MM = 5.0
"""A mark's side: at least 5 mm, found at 150 dpi as a 30-pixel square."""
INSET_MM = 5.0
"""From the page's edges to a mark's outer edges: inside the printable area of any printer."""
MARK_COLOUR = "#000000"
PAGE_QR_MM = 12.0
"""The QR code atop pages 2+ of a worksheet: 21 modules of 0.57 mm, 3.4 pixels at 150 dpi."""
PAGE_QR_GAP_MM = 1.0
"""Between that QR code and the page's content."""
PAGE_TOP_EXTRA_MM = INSET_MM + PAGE_QR_MM + PAGE_QR_GAP_MM - MARGINS_MM[0]
"""How much lower pages 2+ of a worksheet start: the QR code sits where a printer reaches, above them."""

_QR = re.compile(r"(?P<id>\S+)(?: (?P<page>[1-9]\d{0,2})/(?P<pages>[1-9]\d{0,2}))?")


@dataclass(frozen=True)
class Mark:
    """One registration mark, in points from the page's top left."""

    x: float
    """Its left."""
    y: float
    """Its top."""
    size: float
    """Its side."""

    @property
    def centre(self) -> tuple[float, float]:
        """Its centre (what a scanner maps)."""
        return (self.x + self.size / 2, self.y + self.size / 2)


def registration_marks(width: float, height: float) -> tuple[Mark, ...]:
    """The four marks of a page `width` × `height` points: top left, top right, bottom left, bottom right."""
    size, inset = MARK_MM * MM, INSET_MM * MM
    far_x, far_y = width - inset - size, height - inset - size
    return (Mark(inset, inset, size), Mark(far_x, inset, size), Mark(inset, far_y, size), Mark(far_x, far_y, size))


def is_scanned(view) -> bool:
    """Whether a sheet comes back to be read: a worksheet with a code (not a key, a graded sheet or a blank template)."""
    return bool(view.code) and not view.key and view.graded is None


def page_qr_text(identity: str, page: int, pages: int) -> str:
    """What a worksheet page's QR code holds: the sheet's code (or a student's link), a space, `page/pages`."""
    return f"{identity} {page}/{pages}"


@dataclass(frozen=True)
class QrIdentity:
    """What a page's QR code says: the sheet (a code or a student's link) and, when it says so, the page."""

    identity: str
    page: Optional[int] = None
    """1-based; None on a QR code printed before pages were numbered (it was on page 1 only)."""
    pages: Optional[int] = None


def read_qr_text(text: str) -> Optional[QrIdentity]:
    """A QR code's text as a page's identity, or None: not one of ours."""
    m = _QR.fullmatch(text.strip())
    if not m:
        return None
    page, pages = m.group("page"), m.group("pages")
    if page is not None and int(page) > int(pages):
        return None
    return QrIdentity(m.group("id"), int(page) if page else None, int(pages) if pages else None)
