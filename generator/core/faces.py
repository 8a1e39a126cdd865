"""What a grid is on a sheet and what a student does for it: the facts a kind declares once, beside its steps.

A `Face` is how a grid shows (its symbol, its label in each convention, its caption, its tone,
whether it is a fraction written with its decimals); an `Op` is the arithmetic of each of its
cells (a product, an affine map, a rule cell by cell, a copy, a sum, a division...). The sheet's
captions, the explanations of the entry page, the projector's walk and the solve text are all
derived from these: no second vocabulary beside the graph.

Words are message ids (N_), translated where they are shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def N_(text: str) -> str:
    """Mark `text` for the catalog (`make messages`); it is translated where it is shown."""
    return text


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


PRODUCT = "product"
"""Each cell: the row of the first input (left on the sheet) · the column of the second (above it)."""
AFFINE = "affine"
"""Each cell: the row of [weights | bias] · the column of [input ; 1] (inputs: weights, input, bias;
or several weights and inputs before the bias, w1, x1, w2, x2, …: [w1 | w2 | b]·[x1 ; x2 ; 1])."""
RULE = "rule"
"""Each cell: a rule applied to the same cell of the one input (`Op.words`, with %(x)s for it)."""
COPY = "copy"
"""The input written out again."""
TRANSPOSE = "transpose"
"""The input with rows and columns swapped."""
SUM = "sum"
"""Each cell: the sum of a column of the input (its unmasked cells)."""
DIVIDE = "divide"
"""Each cell: the first input's cell ÷ the second's for its column."""
ADD = "add"
"""Each cell: the sum of the two inputs' same cells."""
STACK = "stack"
"""The inputs' rows, one after another (heads concatenated)."""
ARGMAX = "argmax"
"""One row: each column's choice, the row (1-based) of the input's largest cell in it (a tie: the first)."""
PICK = "pick"
"""One row: each column's cell of the input in the row its route chooses (inputs: the route, the input)."""
ROUTED = "routed"
"""Each cell: the row of the weights · the column of the input, over the block of the input's rows
its column's route chooses (inputs: the route, the weights, the input; params: blocks)."""
SCALE = "scale"
"""Each cell: the first input's cell × the second's for its column (a weight per column)."""

OPS = (PRODUCT, AFFINE, RULE, COPY, TRANSPOSE, SUM, DIVIDE, ADD, STACK, ARGMAX, PICK, ROUTED, SCALE)


@dataclass(frozen=True)
class Op:
    """The arithmetic of each cell of a step, as a student works it."""

    name: str
    """One of OPS."""
    words: str = ""
    """A rule's formula, a message id with %(x)s for its input (its symbol, or a cell's value):
    "floor(%(x)s / 2)", "3^%(x)s", "ReLU(%(x)s)"; for a pick, what chooses."""
    params: dict = field(default_factory=dict, compare=False, hash=False)
    """Numbers the words name besides x ({"d": 2})."""

    def __post_init__(self) -> None:
        if self.name not in OPS:
            raise ValueError(f"op: one of {', '.join(OPS)}, got {self.name!r}")

    def formula(self, x: str) -> str:
        """A rule's formula on `x` (untranslated words filled in)."""
        return self.words % {"x": x, **self.params}
