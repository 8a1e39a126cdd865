"""A product: each cell the row of the first input (left on the sheet) · the column of the second (above it)."""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul
from typing import Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, constant, whole
from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values, dot, terms
from generator.core.words import N_
from generator.core.written import dot as written_dot


def product(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a·b, None wherever a factor is missing."""
    columns = list(zip(*b))
    if all(type(x) is int for r in a for x in r) and all(type(x) is int for c in columns for x in c):
        # Whole numbers throughout (the key's projections and scores): the hot path of every sheet.
        return [[sum(map(mul, row, col)) for col in columns] for row in a]
    if all(type(x) is int for r in a for x in r) and all(type(x) in (int, Fraction) for c in columns for x in c):
        # Whole numbers times exact fractions (V·A): each column over one denominator, so a cell is
        # an integer dot product and one division, not a Fraction per term (the same exact value).
        out = [[0] * len(columns) for _ in a]
        for j, col in enumerate(columns):
            den = (
                math.lcm(*(x.denominator for x in col if type(x) is Fraction))
                if any(type(x) is Fraction for x in col)
                else 1
            )
            scaled = [x * den if type(x) is int else x.numerator * (den // x.denominator) for x in col]
            for i, row in enumerate(a):
                t = sum(map(mul, row, scaled))
                out[i][j] = t // den if t % den == 0 else Fraction(t, den)
        return out
    return [[dot(row, col) for col in columns] for row in a]


def constant_factor(op, inputs, output, masked: frozenset) -> Degenerate:
    """A product whose factor is one value throughout (zeros, ones): every cell is a row's or a
    column's sum scaled, or nothing."""
    if any(constant(f) for f in op.operation.factors(inputs)):
        return whole(output, masked, N_("a factor of one value throughout"))
    return NONE


class Product(Operation):
    """Each cell: the row of the first input · the column of the second."""

    name = "product"
    words = (N_("row %(i)s of %(a)s · column %(j)s of %(b)s"), N_("row %(i)s of %(b)s · column %(j)s of %(a)s"))
    rules = (constant_factor,)

    def multiplications(self, step, values, masks):
        return terms(step, values, masks, [(step.inputs[0], step.inputs[1])])

    def work(self, op, step, values, i, j, symbols, _):
        a, b = (values[k] for k in step.inputs)
        return (
            [(step.inputs[0], i, None), (step.inputs[1], None, j)],
            f"{step.face.symbol}: {written_dot(list(a[i]), [q[j] for q in b])}",
        )


PRODUCT = Product()
