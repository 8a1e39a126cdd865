"""A total: each cell the sum of a line of the input — of each row (one column out: a bias's gradient) or of each column (one row out)."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from generator.core.numbers import Number, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def totals(along: str) -> Callable[[Sequence[Sequence[Optional[Number]]]], Values]:
    """The sum of each row (`along` "row": a column out) or of each column ("column": a row out)."""

    def compute(a: Sequence[Sequence[Optional[Number]]]) -> Values:
        lines = [list(r) for r in a] if along == "row" else [list(c) for c in zip(*a)]
        found = [None if None in line else guarded(lambda line=line: normalize(sum(line))) for line in lines]
        return [[x] for x in found] if along == "row" else [found]

    return compute


class Total(Operation):
    """Each cell: the sum of its row of the input (its column, along columns)."""

    name = "total"
    words = (N_("the sum of row %(i)s of %(a)s"), N_("the sum of column %(j)s of %(a)s"))

    def formula(self, op, symbols, row, i, j, flat, _):
        by_row = (op.params["along"] == "row") != row  # a row in the column convention is a column in the row one
        return _(self.words[0 if by_row else 1]) % {"i": i + 1, "j": j + 1, "a": symbols[0]}

    def work(self, op, step, values, i, j, symbols, _):
        a = values[step.inputs[0]]
        by_row = op.params["along"] == "row"
        line = list(a[i]) if by_row else [r[j] for r in a]
        lit = [(step.inputs[0], i, None)] if by_row else [(step.inputs[0], None, j)]
        return lit, f"{step.face.symbol} = " + " + ".join(factor(x, True) for x in line)

    def title(self, op, face, label, symbols):
        return label if "=" in label else f"{label} = the sums of {symbols[0]}'s lines"


TOTAL = Total()
