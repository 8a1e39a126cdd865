"""What a template prints for one sheet and each of its heads: typed, every size decided."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from generator.core.faces import N_
from generator.core.problem import Exercise as Problem
from generator.core.student import Student
from generator.sheet.graded import GradedSheet
from generator.sheet.panel import PanelView


@dataclass(frozen=True)
class HeadView:
    """One head as a sheet draws it: its panels, in one of three layouts, and where the rules
    box goes (with the first head)."""

    stacked: bool
    """Too big for one page side by side: its grids follow one another, a band at a time (`bands`)."""
    beside: bool
    """Row convention: the rules box sits beside the projections."""
    beside_out: bool
    """Row convention: the rules box sits beside the output grid instead."""
    out_apart: bool
    """Row convention: the output starts a new page, with the worked example below it (a key
    whose example fits on the first page neither below the output nor in shorter lines)."""
    proj_width_pt: float
    """The projections' width (the column convention's rules box is as wide)."""
    rules_left_pt: float
    """Where the rules box starts, from the left, when it sits beside a grid."""
    rules_margin_pt: float = 0.0
    """How far the rules box is pulled up, to sit beside or below the panel before it."""
    both: Optional[PanelView] = None
    """Column convention on one page: the projections and the attention block, side by side."""
    proj: Optional[PanelView] = None
    """Row convention on one page: the projections..."""
    att: Optional[PanelView] = None
    """... the attention block..."""
    out: Optional[PanelView] = None
    """... and the output, one below the other."""
    bands: tuple[tuple[str, tuple[PanelView, ...]], ...] = ()
    """Stacked: each grid's name (proj, att, out) and its bands, in order."""
    again: frozenset[str] = frozenset()
    """Stacked: the grids whose first band heads the columns of every band after it (a factor above
    each of several products): where those are together taller than a page (twice as large print),
    the page ends between two of them and the next starts with that band printed again."""

    @property
    def panels(self) -> tuple[PanelView, ...]:
        """Every panel of the head, in reading order."""
        if self.stacked:
            return tuple(p for _, band in self.bands for p in band)
        return tuple(p for p in (self.both, self.proj, self.att, self.out) if p is not None)


@dataclass(frozen=True)
class SheetView:
    """Everything one worksheet, answer key or graded sheet shows."""

    problem: Problem
    """The problem (its code, convention, mask)."""
    heads: tuple[HeadView, ...]
    """Each head, in order."""
    final: Optional[PanelView]
    """The concatenation (and W_O with the output), when there are several heads or a W_O."""
    key: bool
    """An answer key (the values filled in)."""
    student: Student
    """Whose sheet it is."""
    rules: tuple[str, ...]
    """The rules box's lines, true for this sheet."""
    rules_width_pt: float
    """The width of the rules box's text (the same on every sheet of a batch of one shape)."""
    worked: Optional[PanelView] = None
    """A key's worked example: its lines, broken only between expressions, as a text panel."""
    graded: Optional[GradedSheet] = None
    """A graded sheet's grade: the student's values fill the worksheet's boxes."""
    score: Optional[PanelView] = None
    """A graded sheet's score, in its header."""
    titles: tuple[str, ...] = ()
    """Each head's title where it is not "Head n" (a block: its attention, then its layers)."""
    link: str = ""
    """What the worksheet's QR code opens ('' for its code): the student's link on a server's batch."""
    pin: str = ""
    """The PIN printed beside the code on a server's batch, for a student without a phone."""
    default_title: str = ""
    """The sheet's title when the batch gives none, in its language (its kind's)."""
    final_wide: bool = False
    """The concatenation goes on a landscape page of its own: too wide for a portrait one."""
    final_more: Optional[PanelView] = None
    """The concatenation's projection (W_O beside the output), on a page of its own after the
    concatenation, when the two together are too tall for any page."""
    final_more_wide: bool = False
    """`final_more` goes on a landscape page: too wide for a portrait one."""

    @property
    def row(self) -> bool:
        """Row (PyTorch) convention."""
        return self.problem.convention == "row"

    @property
    def projected(self) -> bool:
        """The heads meet in a W_O."""
        return getattr(self.problem, "W_O", None) is not None

    @property
    def final_title(self) -> str:
        """The concatenation's title (a message): it says the projection unless that is on the next page."""
        if self.projected and not self.final_more:
            return N_("Concatenate the heads, then project")
        return N_("Concatenate the heads")

    @property
    def code(self) -> str:
        """The sheet code ('' for none)."""
        return self.problem.code or ""

    @property
    def panels(self) -> tuple[PanelView, ...]:
        """Every grid panel of the sheet, in reading order (the score is text, not a grid)."""
        finals = tuple(p for p in (self.final, self.final_more) if p is not None)
        return tuple(p for head in self.heads for p in head.panels) + finals


def badge_label(label: str, view: SheetView) -> str:
    """The words above the code: "Sheet code", and the PIN on a server's worksheet."""
    return f"{label} · PIN {view.pin}" if view.pin else label


def with_link(view: SheetView, link: str, pin: str) -> SheetView:
    """A worksheet whose QR opens a student's `link`, with its `pin` (a key keeps its code alone)."""
    return view if view.key or not link else replace(view, link=link, pin=pin)
