"""A class's handout: each student's card with their own link, its QR code and their PIN, to cut out and give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from generator import __version__
from generator.output.html import environment
from generator.output.svg import qr_svg
from generator.sheet.model import PAPERS, Settings


@dataclass(frozen=True)
class Card:
    """One student's card on the handout."""

    index: int
    """The sheet's 1-based index in its batch."""
    name: str
    """The student's name ('' without a roster)."""
    code: str
    """The sheet's code, printed on the worksheet too."""
    link: str
    """The student's own link, whole."""
    pin: str
    """The PIN that opens the sheet with its code at the code-and-PIN page."""


ROWS, COLUMNS = 5, 2
"""Cards on a page: ten, each as wide as half the page, so a paper cutter makes them in six cuts."""

MARGINS_MM = (10, 12)
"""The page's margins, top and bottom, left and right: narrower than a worksheet's, for bigger cards."""

CARD_HEIGHTS_MM = {"a4": 53.0, "letter": 48.5}
"""A card's height on each paper: five rows fill the page inside its margins and footer."""


QR_MM = 30.0
"""A card's QR code, quiet zone included: its modules near 0.7 mm, which any phone reads from a copy."""

QUIET = 4
"""The quiet zone around the code, in modules (the standard's)."""


def handout_html(cards: Sequence[Card], desk: str, settings: Settings, title: str) -> str:
    """The handout as one HTML page set: ten cards a page, in `settings`' paper and language.

    `desk` is the page where a student types the code and the PIN; `title` is the batch's name.
    """
    shown = [
        dict(
            index=c.index, name=c.name, code=c.code, link=c.link, pin=c.pin, qr=qr_svg(c.link, QR_MM * 72 / 25.4, QUIET)
        )
        for c in cards
    ]
    rows = [
        shown[i : i + COLUMNS] + [None] * (COLUMNS - len(shown[i : i + COLUMNS])) for i in range(0, len(shown), COLUMNS)
    ]
    pages = [rows[i : i + ROWS] for i in range(0, len(rows), ROWS)]
    return (
        environment(settings.lang)
        .get_template("handout.html")
        .render(
            pages=pages,
            desk=desk,
            settings=settings,
            page_size=PAPERS[settings.paper],
            version=__version__,
            card_height=CARD_HEIGHTS_MM[settings.paper],
            title=title,
            margins=MARGINS_MM,
        )
    )


def handout_pdf(cards: Sequence[Card], desk: str, settings: Settings, title: str) -> bytes:
    """The handout as a PDF (WeasyPrint loads only when one is asked for)."""
    from generator.output.pdf import renderer

    r = renderer()
    return r.pdf([r.render(handout_html(cards, desk, settings, title))])
