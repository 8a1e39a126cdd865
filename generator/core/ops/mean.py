"""A mean: each cell the mean of a line of the input — of each row (one column out) or of each column (one row out)."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from generator.core.numbers import Number, divide
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def means(along: str) -> Callable[[Sequence[Sequence[Optional[Number]]]], Values]:
    """The mean of each row (`along` "row": a column out) or of each column ("column": a row out)."""

    def compute(a: Sequence[Sequence[Optional[Number]]]) -> Values:
        lines = [list(r) for r in a] if along == "row" else [list(c) for c in zip(*a)]
        found = [None if None in line else guarded(lambda line=line: divide(sum(line), len(line))) for line in lines]
        return [[x] for x in found] if along == "row" else [found]

    return compute


def _line(op, a: Sequence[Sequence], i: int, j: int) -> tuple[list, int]:
    """The line a cell is the mean of, and its place in the input (a row's number, or a column's)."""
    if op.params["along"] == "row":
        return list(a[i]), i
    return [r[j] for r in a], j


class Mean(Operation):
    """Each cell: the mean of its row of the input (its column, along columns)."""

    name = "mean"
    words = (N_("the mean of row %(i)s of %(a)s"), N_("the mean of column %(j)s of %(a)s"))

    def formula(self, op, symbols, row, i, j, flat, _):
        # Along rows in the column convention is along columns in the row one (every grid transposed).
        by_row = (op.params["along"] == "row") != row
        return _(self.words[0 if by_row else 1]) % {"i": i + 1, "j": j + 1, "a": symbols[0]}

    def title(self, op, face, label, symbols):
        return label if "=" in label else f"{label} = the mean of each line of {symbols[0]}"

    def work(self, op, step, values, i, j, symbols, _):
        a = values[step.inputs[0]]
        line, place = _line(op, a, i, j)
        lit = [(step.inputs[0], place, None)] if op.params["along"] == "row" else [(step.inputs[0], None, place)]
        return lit, f"{step.face.symbol} = ({' + '.join(factor(x, True) for x in line)}) ÷ {len(line)}"


MEAN = Mean()
