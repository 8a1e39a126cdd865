"""A difference: each cell the first input's cell minus the second's same cell (a loss's gradient, Y − T)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number, normalize
from generator.core.ops.add import constant_addend
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def subtracted(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a − b, cell by cell; None where either is missing."""
    return [
        [None if x is None or y is None else guarded(lambda x=x, y=y: normalize(x - y)) for x, y in zip(r, s)]
        for r, s in zip(a, b)
    ]


class Difference(Operation):
    """Each cell: the first input's cell minus the second's."""

    name = "difference"
    words = (N_("%(a)s − %(b)s, cell by cell"),) * 2
    rules = (constant_addend,)

    def work(self, op, step, values, i, j, symbols, _):
        a, b = (values[k] for k in step.inputs)
        return [(step.inputs[0], i, j), (step.inputs[1], i, j)], f"{factor(a[i][j], True)} − {factor(b[i][j])}"


DIFFERENCE = Difference()
