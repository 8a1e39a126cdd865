"""A gain and a shift per row: each cell its row's gain × the cell + its row's shift (a normalisation's γ·N + β).

Inputs: the grid, the gains (one column), the shifts (one column).
"""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def gained(
    a: Sequence[Sequence[Optional[Number]]],
    g: Sequence[Sequence[Optional[Number]]],
    s: Sequence[Sequence[Optional[Number]]],
) -> Values:
    """g_i·a[i][j] + s_i, cell by cell; None where any is missing."""
    return [
        [
            None
            if x is None or g[i][0] is None or s[i][0] is None
            else guarded(lambda x=x, i=i: normalize(g[i][0] * x + s[i][0]))
            for x in r
        ]
        for i, r in enumerate(a)
    ]


class Gain(Operation):
    """Each cell: its row's gain × the cell + its row's shift."""

    name = "gain"
    words = (
        N_("%(b)s of row %(i)s × %(a)s's cell + %(c)s of row %(i)s"),
        N_("%(b)s of column %(j)s × %(a)s's cell + %(c)s of column %(j)s"),
    )

    def work(self, op, step, values, i, j, symbols, _):
        a, g, s = (values[k] for k in step.inputs)
        return (
            [(step.inputs[0], i, j), (step.inputs[1], i, 0), (step.inputs[2], i, 0)],
            f"{factor(g[i][0], True)}·{factor(a[i][j])} + {factor(s[i][0])}",
        )


GAIN = Gain()
