"""Registration marks: four solid squares near a worksheet's page corners, for a scanner to find the page.

They sit in the page margins, clear of everything printed (the margins are 12–14 mm; a mark spans
5–10 mm from the edges, inside what a printer reaches), so no other part of the sheet moves. A
scan maps the page by the homography from the marks' centres. Keys and graded sheets have none:
only a worksheet comes back to be read.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.sheet.look import MM

MARK_MM = 5.0
"""A mark's side: at least 5 mm, found at 150 dpi as a 30-pixel square."""
INSET_MM = 5.0
"""From the page's edges to a mark's outer edges: inside the printable area of any printer."""
MARK_COLOUR = "#000000"


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
