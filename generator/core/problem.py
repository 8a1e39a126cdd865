"""Problem and Solution: the exercise and every step of its answer, with their shapes checked."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.numbers import Matrix

CONVENTIONS = ("column", "row")
SCALES = ("floor", "exact", "none")
SOFTMAXES = ("base3", "e")

MAX_DIM = 64
"""Largest number of rows or columns in any matrix: far beyond a sheet, small enough to stay fast."""

MAX_ENTRY = 1_000_000
"""Largest magnitude of an input entry."""

MAX_HEADS = 16
"""Largest number of heads."""

MAX_SCORE_CELLS = 4096
"""Largest heads × tokens² (score cells) of one problem: 16 heads of 16 tokens, or one of 64.
The work and the size of a solution grow with it (a maximal 16 × 64² one took 5 s and 130 MB)."""


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
            raise ProblemError(
                f"rules.softmax: expected one of {', '.join(SOFTMAXES)}, got {self.softmax!r}"
            )

    @property
    def hand(self) -> bool:
        """True for the by-hand rules (floor + base3), under which every value is exact."""
        return self.scale == "floor" and self.softmax == "base3"


@dataclass(frozen=True)
class Head:
    """One attention head's weights, in the problem's convention."""

    W_Q: IntMatrix
    """Query weights: d_k × d_model (column convention)."""
    W_K: IntMatrix
    """Key weights: d_k × d_model (column convention)."""
    W_V: IntMatrix
    """Value weights: d_v × d_model (column convention)."""


def shape(m: Matrix) -> tuple[int, int]:
    """(rows, columns) of a non-empty rectangular matrix."""
    return len(m), len(m[0])


def transpose(m: Matrix) -> Matrix:
    """The transpose of a matrix."""
    return tuple(zip(*m))


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
class Problem(Tokens):
    """A self-attention exercise: the inputs, the weights and the rules. Shapes are checked."""

    kind: ClassVar[str] = "attention"
    """The exercise's kind (problem@1's `kind`; a file without one is attention)."""
    X: IntMatrix
    """Token features: d_model × n (column convention) or n × d_model (row)."""
    heads: tuple[Head, ...]
    """One or more heads, all with the same d_k and d_v."""
    W_O: Optional[IntMatrix] = None
    """Optional output projection: d_model × h·d_v (column convention)."""
    convention: str = "column"
    """column: tokens are columns (the by-hand sheets); row: tokens are rows (PyTorch)."""
    rules: Rules = field(default_factory=Rules)
    """Scaling and softmax rules."""
    causal: bool = False
    """When true, query j only attends to keys i ≤ j."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ProblemError(
                f"convention: expected one of {', '.join(CONVENTIONS)}, got {self.convention!r}"
            )
        if not self.heads:
            raise ProblemError("heads: expected at least one head")
        if len(self.heads) > MAX_HEADS:
            raise ProblemError(f"heads: at most {MAX_HEADS} heads, got {len(self.heads)}")
        cells = len(self.heads) * self.n_tokens**2
        if cells > MAX_SCORE_CELLS:
            raise ProblemError(
                f"too much work: {len(self.heads)} head(s) × {self.n_tokens}² tokens is {cells} score cells; "
                f"at most {MAX_SCORE_CELLS}"
            )
        row = self.convention == "row"
        # Check every shape in the column convention; in the row one, look at the transposes.
        t = transpose if row else (lambda m: m)
        d_model, n = shape(t(self.X))
        d_k, _ = shape(t(self.heads[0].W_Q))
        d_v, _ = shape(t(self.heads[0].W_V))
        expect = {"W_Q": (d_k, "d_k"), "W_K": (d_k, "d_k"), "W_V": (d_v, "d_v")}
        for h, head in enumerate(self.heads):
            for name, (rows, rows_name) in expect.items():
                got = shape(t(getattr(head, name)))
                if got != (rows, d_model):
                    want = _shape_words(row, (rows, rows_name), (d_model, "d_model"))
                    raise ProblemError(
                        f"heads[{h}].{name}: expected {want}, got {_dims(row, got)}"
                    )
        if self.W_O is not None:
            width = len(self.heads) * d_v
            got = shape(t(self.W_O))
            if got != (d_model, width):
                want = _shape_words(row, (d_model, "d_model"), (width, "h·d_v"))
                raise ProblemError(f"W_O: expected {want}, got {_dims(row, got)}")

    @property
    def d_k(self) -> int:
        """Query and key size."""
        q = self.heads[0].W_Q
        return len(q[0]) if self.convention == "row" else len(q)

    @property
    def d_v(self) -> int:
        """Value size."""
        v = self.heads[0].W_V
        return len(v[0]) if self.convention == "row" else len(v)


def _dims(row: bool, rc: tuple[int, int]) -> str:
    """A column-convention (rows, cols) pair written in the problem's own convention."""
    r, c = (rc[1], rc[0]) if row else rc
    return f"{r}×{c}"


def _shape_words(row: bool, rows: tuple[int, str], cols: tuple[int, str]) -> str:
    """An expected shape such as '3×6 (d_k × d_model)', transposed for the row convention."""
    if row:
        rows, cols = cols, rows
    return f"{rows[0]}×{cols[0]} ({rows[1]} × {cols[1]})"


@dataclass(frozen=True)
class HeadSolution:
    """Every matrix a student writes for one head, in the problem's convention."""

    Q: Matrix
    """Queries: W_Q·X."""
    K: Matrix
    """Keys: W_K·X."""
    V: Matrix
    """Values: W_V·X."""
    scores: Matrix
    """Kᵀ·Q: rows are keys, columns are queries (transposed in the row convention)."""
    scaled: Matrix
    """Scores after scaling; None where the causal mask hides a key."""
    powers: Matrix
    """3^x (or e^x) of each scaled score; 0 where masked."""
    sums: tuple
    """One sum of powers per query."""
    A: Matrix
    """Attention weights: powers divided by their query's sum."""
    Z: Matrix
    """Weighted values: V·A."""


@dataclass(frozen=True)
class Solution:
    """A problem with every step of its answer."""

    problem: Problem
    """The problem solved."""
    heads: tuple[HeadSolution, ...]
    """One solution per head."""
    Z: Matrix
    """The heads' Z concatenated along the feature axis."""
    output: Optional[Matrix] = None
    """W_O applied to Z, when the problem has W_O."""


def to_row(problem: Problem) -> Problem:
    """The row-convention twin of a column-convention problem: every matrix transposed."""
    t = transpose
    return replace(
        problem,
        X=t(problem.X),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else t(problem.W_O),
        convention="row",
    )


def same_numbers(a: Problem, b: Problem) -> bool:
    """Whether two problems ask for the same work (their codes and metrics aside)."""
    return replace(a, code=None, metrics=None) == replace(b, code=None, metrics=None)
