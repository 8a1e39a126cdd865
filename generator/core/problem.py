"""What every kind's problem shares: its tokens and convention, the by-hand rules, shapes and transposes."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Optional, Protocol

from generator.core.errors import ProblemError
from generator.core.numbers import Matrix

CONVENTIONS = ("column", "row")
SCALES = ("floor", "exact", "none")
SOFTMAXES = ("base3", "e")

MAX_DIM = 64
"""Largest number of rows or columns in any matrix: far beyond a sheet, small enough to stay fast."""

MAX_ENTRY = 1_000_000
"""Largest magnitude of an input entry."""

IntMatrix = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Rules:
    """How scores are scaled and exponentiated."""

    scale: str = "floor"
    """floor: divide by round(√d_k), round down; exact: divide by √d_k; none: skip."""
    softmax: str = "base3"
    """base3: 3^x in place of e^x; e: the real e^x."""

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ProblemError(f"rules.scale: expected one of {', '.join(SCALES)}, got {self.scale!r}")
        if self.softmax not in SOFTMAXES:
            raise ProblemError(f"rules.softmax: expected one of {', '.join(SOFTMAXES)}, got {self.softmax!r}")

    @property
    def hand(self) -> bool:
        """True for the by-hand rules (floor + base3), under which every value is exact."""
        return self.scale == "floor" and self.softmax == "base3"


def shape(m: Matrix) -> tuple[int, int]:
    """(rows, columns) of a non-empty rectangular matrix."""
    return len(m), len(m[0])


def transpose(m: Matrix) -> Matrix:
    """The transpose of a matrix."""
    return tuple(zip(*m))


def check_convention(convention: str, prefix: str = "") -> None:
    """ProblemError unless `convention` is one of CONVENTIONS."""
    if convention not in CONVENTIONS:
        raise ProblemError(f"{prefix}convention: expected one of {', '.join(CONVENTIONS)}, got {convention!r}")


def check_shaped(name: str, column: Matrix, want: tuple[int, int], words: tuple[str, str], row: bool) -> None:
    """ProblemError unless a matrix (`column`: in the column convention) is `want` (rows, columns,
    named by `words`), said in the problem's own convention (`row`: every matrix transposed)."""
    got = shape(column)
    if got != want:
        r, c = (want[1], want[0]) if row else want
        g = (got[1], got[0]) if row else got
        a, z = (words[1], words[0]) if row else words
        raise ProblemError(f"{name}: expected {r}×{c} ({a} × {z}), got {g[0]}×{g[1]}")


class Exercise(Protocol):
    """Any kind's problem, as the code that serves every kind sees it."""

    kind: str
    """problem@1's `kind`."""
    convention: str
    """column or row."""
    code: Optional[str]
    """The sheet code it was drawn from, if any."""
    metrics: Optional[dict]
    """Difficulty metrics recorded when it was drawn, if any."""

    @property
    def n_tokens(self) -> int:
        """Number of tokens n."""


class Tokens:
    """The tokens and features of a problem's X, whichever convention it is written in."""

    X: IntMatrix
    convention: str

    @property
    def n_tokens(self) -> int:
        """Number of tokens n."""
        return len(self.X) if self.convention == "row" else len(self.X[0])

    @property
    def d_model(self) -> int:
        """Features per token."""
        return len(self.X[0]) if self.convention == "row" else len(self.X)


@dataclass(frozen=True)
class Drawn(Tokens):
    """A kind's problem, its numbers declared by the kind after what every problem carries: its
    convention, the code it was drawn from and its metrics (keywords only, so the numbers come
    first when the problem is written out in full)."""

    _: KW_ONLY
    convention: str = "column"
    """column: a token (a time step) is a column; row: it is a row (every matrix transposed)."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""


def same_numbers(a: "Exercise", b: "Exercise") -> bool:
    """Whether two problems ask for the same work (their codes and metrics aside)."""
    return replace(a, code=None, metrics=None) == replace(b, code=None, metrics=None)
