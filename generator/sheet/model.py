"""How a batch is printed: the paper and the settings every sheet of it shares."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass, replace
from typing import Optional

from generator.core.errors import AttnsheetError, InputError
from generator.core.student import DOUBLE_PRINT, LARGE_PRINT
from generator.core.usertext import MAX_TITLE, clean_text
from generator.sheet.style import LARGE_PAGES_PT

PAPERS = {"a4": "A4", "letter": "letter"}
"""Paper names and their CSS page sizes."""

LARGE_PAPERS = {
    LARGE_PRINT: {"a4": "a4-large", "letter": "letter-large"},
    DOUBLE_PRINT: {"a4": "a4-double", "letter": "letter-double"},
}
"""Each print size's page for each paper: a page laid out as narrow as this paper's content allows,
then printed larger on larger paper (style.LARGE_PRINT_ON); the layout, the scanner and the boxes see
its own size."""

PAGE_SIZES = {**PAPERS, **{page: f"{w:.2f}pt {h:.2f}pt" for page, (w, h) in LARGE_PAGES_PT.items()}}
"""Every page's CSS size: the papers, and the large-print pages as they are laid out."""


COMMA_LANGUAGES = frozenset({"es"})
"""Languages whose classrooms write 0,38 (most Spanish-speaking ones)."""


@dataclass(frozen=True)
class Settings:
    """What every sheet of a batch shares."""

    paper: str = "a4"
    """a4 or letter."""
    lang: str = "en"
    """Language of every word on the sheet."""
    title: str = ""
    """Title printed at the top; empty for the default."""
    worked: bool = False
    """Keys also write out one dot product and one column's softmax."""
    timestamp: str = ""
    """W3C date-time written into the files, or empty for none (reproducible by default)."""
    blank: bool = False
    """Blank templates: every matrix empty, X and the weights too, for a student's own numbers."""
    decimal_comma: Optional[bool] = None
    """Decimals written with a comma (0,38) rather than a point (0.38); None: as the language's
    classrooms write them (a comma in Spanish, a point in English)."""

    @property
    def comma(self) -> bool:
        """Whether this batch writes its decimals with a comma."""
        return self.lang in COMMA_LANGUAGES if self.decimal_comma is None else self.decimal_comma

    def __post_init__(self) -> None:
        # The CLI checks these first (exit 2); this is the guard for callers from Python.
        if self.paper not in PAGE_SIZES:
            raise AttnsheetError(f"paper: expected one of {', '.join(PAPERS)}, got {self.paper!r}")
        if len(self.title) > MAX_TITLE:
            raise AttnsheetError(f"title: at most {MAX_TITLE} characters, got {len(self.title)}")
        if self.blank and self.worked:
            raise AttnsheetError("a blank template has no key, so no worked example")
        object.__setattr__(self, "title", clean_text(self.title, MAX_TITLE))


def for_student(settings: Settings, student) -> Settings:
    """The settings a student's sheets print with: their paper's large print where their print size is large."""
    large = LARGE_PAPERS.get(student.print_size, {}).get(settings.paper)
    return replace(settings, paper=large) if large else settings


def timestamp(asked: bool) -> str:
    """The time to stamp files with: none unless asked, SOURCE_DATE_EPOCH when it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not asked and epoch is None:
        return ""
    if epoch is None:
        moment = datetime.datetime.now(datetime.timezone.utc)
    else:
        try:
            moment = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH must be a whole number of seconds, not {epoch[:40]!r}") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
