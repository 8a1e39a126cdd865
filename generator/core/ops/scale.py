"""A scaling: each cell the first input's cell × the second's for its column (a weight per column)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.ops.product import constant_factor
from generator.core.words import N_
from generator.core.written import factor


def scaled_columns(a: Sequence[Sequence[Optional[Number]]], s: Sequence[Sequence[Optional[Number]]]) -> Values:
    """Each column of a times its weight in s's one row; None where either is missing."""
    return [
        [None if x is None or s[0][j] is None else guarded(lambda: normalize(x * s[0][j])) for j, x in enumerate(r)]
        for r in a
    ]


class Scale(Operation):
    """Each cell: its input's cell × its column's weight."""

    name = "scale"
    words = (N_("%(a)s's cell × its column's %(b)s"), N_("%(a)s's cell × its row's %(b)s"))
    rules = (constant_factor,)

    def work(self, op, step, values, i, j, symbols, _):
        a, s = (values[k] for k in step.inputs)
        return [(step.inputs[0], i, j), (step.inputs[1], 0, j)], f"{factor(a[i][j], True)}·{factor(s[0][j])}"


SCALE = Scale()
