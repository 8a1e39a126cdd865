"""How a batch is printed: the paper and the settings every sheet of it shares."""

from __future__ import annotations

from dataclasses import dataclass

PAPERS = {"a4": "A4", "letter": "letter"}
"""Paper names and their CSS page sizes."""


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
