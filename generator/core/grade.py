"""Grades and how a written cell is judged: verdicts, points per step and in total, the carried chain.

Pure: no I/O. What each step computes is its kind's (generator/kinds); `graph.evaluate` runs the
steps and, cell by cell, asks the `Chain` here for a verdict and the value later steps use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence, Union

from generator.core.numbers import Number, normalize
from generator.core.student import Student

CREDITED = frozenset(("correct", "carried"))
"""The verdicts that earn a point; masked cells are not graded at all."""
TRIVIAL_CREDIT = {"none": Fraction(0), "half": Fraction(1, 2), "full": Fraction(1)}
"""What a "trivial" cell earns (carried from the student's own inputs where those make the step
trivial: all zeros, one value throughout, the same column repeated, the identity), as the teacher sets it."""

REL_TOL = 1e-9
"""Relative tolerance for exact-rules (real-valued) answers."""


@dataclass(frozen=True)
class Entry:
    """One cell as a student wrote it, once read."""

    kind: str
    """blank, unreadable or value."""
    exact: Optional[Number] = None
    """The integer or fraction written, if any."""
    decimal: Optional[tuple[Fraction, int]] = None
    """The decimal written, if any: its value and its number of places."""
    raw: str = ""
    """The text as written (trimmed)."""


BLANK = Entry("blank")
"""A cell with nothing in it."""

Grid = tuple[tuple[Entry, ...], ...]
"""A grid of written cells, rows first; `sums` is a grid of one row."""


@dataclass(frozen=True)
class Answers:
    """What a student wrote on one sheet, in the sheet's own layout (row convention: transposed)."""

    heads: tuple[dict[str, Grid], ...]
    """Per head, the grids written (a missing grid is blank); `sums` as a one-row grid."""
    final: dict[str, Grid]
    """The concatenation ("Z") and the output ("output"), where the sheet has them."""
    code: Optional[str] = None
    """The sheet's code, if known."""
    student: Student = Student()
    """Who wrote it."""


@dataclass(frozen=True)
class StepGrade:
    """One grid's verdicts, with what was expected, in the sheet's layout."""

    head: Optional[int]
    """1-based head, or None for the concatenation and the output."""
    step: str
    """The grid's name, as in answers@1."""
    verdicts: tuple[tuple[str, ...], ...]
    """One verdict per cell."""
    expected: tuple[tuple[Optional[Number], ...], ...]
    """The true value of each cell (None where masked)."""
    carried: tuple[tuple[Optional[Number], ...], ...]
    """The value the student's own earlier cells give each cell (None where none can be had)."""
    written: Grid = ()
    """What the student wrote in each cell, as read."""
    trivial: str = "none"
    """What a trivial cell earns (TRIVIAL_CREDIT's keys)."""
    why: str = ""
    """Why its trivial cells are (a message id: "a column of equal values, each weight 1/n"); empty when none is."""

    @property
    def points(self) -> Union[int, float]:
        """Cells correct or carried, and trivial ones at their credit (a half point is 0.5)."""
        whole = sum(v in CREDITED for row in self.verdicts for v in row)
        trivial = sum(v == "trivial" for row in self.verdicts for v in row)
        return as_points(whole + trivial * TRIVIAL_CREDIT[self.trivial])

    @property
    def total(self) -> int:
        """Cells graded (every cell but the masked ones)."""
        return sum(v != "masked" for row in self.verdicts for v in row)


@dataclass(frozen=True)
class Grade:
    """A graded sheet."""

    steps: tuple[StepGrade, ...]
    """Every grid, heads first in working order, then the concatenation and the output."""
    carry: bool
    """Whether carried cells earned their point (error carried forward)."""
    code: Optional[str] = None
    """The sheet's code, if known."""
    student: Student = Student()
    """Who wrote it."""
    trivial: str = "none"
    """What a cell carried from inputs that make its step trivial earned (TRIVIAL_CREDIT's keys)."""

    @property
    def points(self) -> Union[int, float]:
        """Points earned."""
        return as_points(sum(Fraction(s.points) for s in self.steps))

    @property
    def total(self) -> int:
        """Points available."""
        return sum(s.total for s in self.steps)

    @property
    def percent(self) -> float:
        """Points as a share of the total, in percent."""
        return 100.0 * self.points / self.total if self.total else 0.0

    def step(self, head: Optional[int], step: str) -> StepGrade:
        """The grade of one grid."""
        for s in self.steps:
            if s.head == head and s.step == step:
                return s
        raise KeyError((head, step))


def as_points(value: Union[int, Fraction]) -> Union[int, float]:
    """Points as grade@1 writes them: whole, or with a half (exact in binary)."""
    value = normalize(Fraction(value))
    return value if isinstance(value, int) else float(value)


def step_label(head: Optional[int], step: str, heads: int) -> str:
    """A step's column name in the gradebook: 'Q', or 'h2 Q' on several heads; 'Z concat', 'output'."""
    if head is None:  # after the heads, Z is their concatenation (a given block's Z = X·A has no heads)
        return "Z concat" if step == "Z" and heads > 0 else step
    return f"h{head} {step}" if heads > 1 else step


# --- matching ---------------------------------------------------------------------------------


def _close(a: Number, b: Number) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=1e-12)
        except OverflowError:  # a number written beyond any float is no real-valued answer
            return False
    return a == b


def _decimal_matches(d: Fraction, places: int, v: Number) -> bool:
    """A decimal with `places` places stands for v: v rounds to it, with two places at least
    unless v is exactly that decimal (3/8: 0.38, 0.37 and 0.375 match, 0.4 does not); or it is
    the nearest double of v as a program prints it (9/28: 0.32142857142857145, 0.3214285714285715)."""
    if not isinstance(v, float) and places > 2:
        # A spreadsheet or a script computes in doubles: its 16 or 17 digits are the double's, not v's.
        try:
            double = Fraction(float(v))
        except OverflowError:
            double = None
        if double is not None and double != v and _decimal_matches(d, places, double):
            return True
    if isinstance(v, float):
        slack = 1e-12 * max(1.0, abs(v))
        try:
            off = abs(float(d) - v)
        except OverflowError:
            return False
        return off <= 0.5 * 10.0**-places + slack and (places >= 2 or off <= slack)
    off = abs(d - v)
    return off <= Fraction(1, 2 * 10**places) and (places >= 2 or off == 0)


def matches(entry: Entry, v: Optional[Number]) -> bool:
    """Whether every part a written cell holds stands for the value v."""
    if v is None or entry.kind != "value":
        return False
    if entry.exact is not None and not _close(entry.exact, v):
        return False
    return entry.decimal is None or _decimal_matches(*entry.decimal, v)


# --- the chain --------------------------------------------------------------------------------

Values = list[list[Optional[Number]]]


class Chain:
    """Grades grids one step at a time, keeping the values later steps use."""

    def __init__(self, carry: bool) -> None:
        self.carry = carry

    def step(
        self,
        entries: Grid,
        true: Sequence[Sequence[Optional[Number]]],
        carried: Optional[Sequence[Sequence[Optional[Number]]]],
        masked: frozenset = frozenset(),
        trivial: frozenset = frozenset(),
    ) -> tuple[list[list[str]], Values]:
        """Verdicts of a grid, and the values later steps use: what the student wrote where it
        can be read (the fraction when a cell holds both), else the carried value. A carried cell
        among `trivial` (the student's own inputs leave it degenerate) is "trivial"."""
        verdicts, used = [], []
        for i, row in enumerate(true):
            vrow, urow = [], []
            for j, t in enumerate(row):
                c = carried[i][j] if carried is not None else t
                e = entries[i][j]
                if (i, j) in masked:
                    # Later steps skip masked cells; the true value keeps a right sheet's inputs true.
                    vrow.append("masked")
                    urow.append(t)
                    continue
                if e.kind != "value":
                    vrow.append(e.kind)
                    urow.append(c)
                    continue
                right = matches(e, t)
                follows = not right and c is not None and matches(e, c)
                follows_as = "trivial" if (i, j) in trivial else "carried"
                vrow.append("correct" if right else follows_as if follows and self.carry else "wrong")
                if e.exact is not None:
                    urow.append(e.exact)
                else:
                    # A decimal alone stands for the value it matches: later steps stay exact.
                    urow.append(t if right else c if follows else normalize(e.decimal[0]))
            verdicts.append(vrow)
            used.append(urow)
        return verdicts, used
