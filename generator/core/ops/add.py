"""An addition: each cell the sum of the two inputs' same cells (a residual)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, constant, whole
from generator.core.numbers import Number, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def add(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a + b, cell by cell; None where either is missing."""
    return [
        [None if x is None or y is None else guarded(lambda: normalize(x + y)) for x, y in zip(r, s)]
        for r, s in zip(a, b)
    ]


def constant_addend(op, inputs, output, masked: frozenset) -> Degenerate:
    """A sum of grids one of which is one value throughout (zeros, ones): one number added to every cell."""
    if any(constant(grid) for grid in inputs):
        return whole(output, masked, N_("one value added throughout"))
    return NONE


class Add(Operation):
    """Each cell: the two inputs' same cells added."""

    name = "add"
    words = (N_("%(a)s + %(b)s, cell by cell"),) * 2
    rules = (constant_addend,)

    def work(self, op, step, values, i, j, symbols, _):
        a, b = (values[k] for k in step.inputs)
        return [(step.inputs[0], i, j), (step.inputs[1], i, j)], f"{factor(a[i][j], True)} + {factor(b[i][j])}"


ADD = Add()
