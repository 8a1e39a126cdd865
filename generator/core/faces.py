"""What a grid is on a sheet and what a student does for it: the facts a kind declares once, beside its steps.

A `Face` is how a grid shows (its symbol, its label in each convention, its caption, its tone,
whether it is a fraction written with its decimals); an `Op` is the arithmetic of each of its
cells (core/ops: a product, an affine map, a rule cell by cell, a copy, a sum, a division...). The sheet's
captions, the explanations of the entry page, the projector's walk and the solve text are all
derived from these: no second vocabulary beside the graph.

Words are message ids (N_), translated where they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.core.ops import (  # noqa: F401  (the operations a kind declares its steps with)
    ADD,
    AFFINE,
    ARGMAX,
    BROADCAST,
    COPY,
    DIFFERENCE,
    DIVIDE,
    GAIN,
    GATE,
    MEAN,
    NEIGHBOURS,
    OPERATIONS,
    PICK,
    POOL,
    PRODUCT,
    ROUTED,
    RULE,
    SCALE,
    STACK,
    SUM,
    TOTAL,
    TRANSPOSE,
    UPDATE,
    WINDOW,
    Operation,
)
from generator.core.words import N_  # noqa: F401  (a kind's words are marked where it declares them)


@dataclass(frozen=True)
class Face:
    """How one grid shows on a sheet."""

    symbol: str
    """Its short name: Q, Kᵀ, S', E, Σ, H_pre (what explanations and the projector call it)."""
    label: tuple[str, str]
    """Its label above the grid, in the column and in the row convention (Q = W_Q·X, Q = X·W_Q)."""
    caption: str
    """What it is, in a few words (a message id): "queries"."""
    tone: str
    """Its colour family (sheet/style.TONES)."""
    fraction: bool = False
    """Its cells are fractions a key writes with their decimals below (two lines)."""
    note: tuple[str, str] = ("", "")
    """A few words after its label in the solve text, per convention: "(rows: keys, columns: queries)"."""
    row_caption: str = ""
    """Its caption in the row convention, where it differs ("row sums" for "column sums")."""
    title: str = ""
    """Its name in a score line where its symbol would not tell it from another grid (a message
    id: "Q, copied"); the symbol where none."""
    within: str = ""
    """A given that is part of another (a recurrent layer's x1 of its X): shown there, not again."""

    def caption_in(self, row: bool) -> str:
        """Its caption in a convention (a message id)."""
        return self.row_caption if row and self.row_caption else self.caption


def given_faces(captions: dict[str, str], tone: str = "weight") -> dict[str, Face]:
    """Faces of givens shown by their names, each with its caption (a message id), in one tone."""
    return {name: Face(name, (name, name), caption, tone) for name, caption in captions.items()}


@dataclass(frozen=True)
class Op:
    """The arithmetic of each cell of a step, as a student works it."""

    operation: Operation
    """How each cell is made (core/ops: PRODUCT, AFFINE, RULE, …, or a plug-in's own)."""
    words: str = ""
    """A rule's formula, a message id with %(x)s for its input (its symbol, or a cell's value):
    "floor(%(x)s / 2)", "3^%(x)s", "ReLU(%(x)s)"; for a pick, what chooses."""
    params: dict = field(default_factory=dict, compare=False, hash=False)
    """Numbers the words name besides x ({"d": 2})."""

    def __post_init__(self) -> None:
        if not isinstance(self.operation, Operation):
            raise ValueError(f"op: an operation (core/ops), got {self.operation!r}")

    @property
    def name(self) -> str:
        """Its operation's name."""
        return self.operation.name

    def formula(self, x: str) -> str:
        """A rule's formula on `x` (untranslated words filled in)."""
        return self.words % {"x": x, **self.params}
