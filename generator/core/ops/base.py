"""What every operation is: the arithmetic of each cell of a step, and everything said of it.

An operation is one object in one module of this package (product.py, rule.py, …): its
evaluation (the compute a step declares with it), its multiplications (metrics), its words
for the entry page's explanations, its projector frames, its solve text, and its rules for
carried credit (core/degenerate). Nothing outside its module asks which operation a step has:
the sheet, the metrics and the grader ask the operation itself. A kind of a teacher's own
package may declare an operation of its own the same way (a subclass of `Operation`).

Pure: no I/O.
"""

from __future__ import annotations

from operator import mul
from typing import Any, Callable, Optional, Sequence

from generator.core.degenerate import Grid, Rule
from generator.core.numbers import Number, cell_str, normalize

Values = list[list[Optional[Number]]]
"""A grid of values, None where a value cannot be had (a factor missing, or out of range)."""

Lit = tuple[Any, Optional[int], Optional[int]]
"""What a cell comes from, lit up on the projector: (an input's key, its row or None for every
row, its column or None for every column), in the column convention."""


class Operation:
    """The arithmetic of each cell of a step: the defaults are those of a cell computed anew."""

    name: str = ""
    """Its name, unique among the operations (what a reader of the code calls it)."""
    words: tuple[str, str] = ("", "")
    """How a cell is made, in words, in the column and in the row convention (message ids): its
    inputs by their symbols %(a)s, %(b)s, %(c)s, its place %(i)s, %(j)s, 1-based on the sheet."""
    rules: tuple[Rule, ...] = ()
    """Its own rules for carried credit (core/degenerate), beside the rule every step has."""
    choice: bool = False
    """Its cells are choices, not computations: a choice repeated is no computation repeated."""
    new_numbers: bool = True
    """It writes numbers not on the sheet already (a copy, a transpose, a stack do not)."""
    written_again: bool = False
    """A grid the student writes out again: the solve text leaves it out."""
    whole: bool = False
    """Worked at once, the whole grid, in front of a class (a copy): one frame, no cells."""
    transposes: bool = False
    """Its one frame shows its source with rows and columns swapped."""

    def factors(self, inputs: Sequence[Grid]) -> Sequence[Grid]:
        """The grids it multiplies (not a bias, not a route)."""
        return inputs

    def multiplications(self, step, values: dict, masks: dict) -> int:
        """Scalar multiplications a student works out for the step (`masks`: each step's, by key)."""
        return 0

    def formula(self, op, symbols: list[str], row: bool, i: int, j: int, flat: bool, _: Callable) -> str:
        """How cell (i, j) of the sheet's layout is made, in words, its inputs named by `symbols`
        (`flat`: the step is written as one row in either convention)."""
        names = {"i": i + 1, "j": j + 1, **{k: v for k, v in zip("abc", symbols)}}
        return _(self.words[row]) % names

    def work(self, op, step, values: dict, i: int, j: int, symbols: dict, _: Callable) -> tuple[list[Lit], str]:
        """Cell (i, j) of the column convention worked in front of a class: what lights up, and the
        arithmetic written out in the sheet's language (`symbols`: the steps' symbols, by key)."""
        raise NotImplementedError(f"{self.name}: how is a cell worked in front of a class?")

    def title(self, op, face, label: str, symbols: list[str]) -> str:
        """Its grid's title in the solve text, from its label on the sheet."""
        if "=" not in label and label != face.symbol:
            return f"{face.symbol} = {label}"  # a product named by its factors alone on the sheet (S = Kᵀ·Q)
        return label

    def line(self, face, row: bool, symbols: list[str], result: Values, places: int) -> Optional[str]:
        """The step in the solve text as one line, or None for a grid."""
        return None

    def beside(self, step, values: dict, first, givens: list, symbols: list[str], row: bool):
        """The given weights shown beside the grid in the solve text: (their grid, its name, the
        givens it takes in besides `first`)."""
        return values[first], symbols[0], ()

    def __repr__(self) -> str:
        return f"<operation {self.name}>"


# --- the arithmetic of a cell: None wherever a value is missing ---------------------------------


def guarded(compute: Callable, *args) -> Optional[Number]:
    """compute(*args), or None where a student's numbers leave the range of floats."""
    try:
        return compute(*args)
    except (OverflowError, ZeroDivisionError):
        return None


def dot(row: Sequence[Optional[Number]], col: Sequence[Optional[Number]]) -> Optional[Number]:
    """row · col, normalized; None when a factor is missing."""
    if None in row or None in col:
        return None
    return guarded(lambda: normalize(sum(map(mul, row, col))))


def terms(step, values: dict, masks: dict, pairs) -> int:
    """The terms of the products of `pairs` (left, top) a student works for a step's written
    cells, a masked factor's left out (a masked weight is 0)."""
    total = 0
    for left, top in pairs:
        lm, tm = masks.get(left, frozenset()), masks.get(top, frozenset())
        rows, inner, cols = len(values[left]), len(values[top]), len(values[top][0])
        total += sum(
            1
            for i in range(rows)
            for j in range(cols)
            if (i, j) not in step.masked and values[step.key][i][j] is not None
            for k in range(inner)
            if (i, k) not in lm and (k, j) not in tm
        )
    return total


def listed(xs: Sequence, places: int) -> str:
    """Values written one after another, as the solve text writes them."""
    return ", ".join(cell_str(x, places) for x in xs)
