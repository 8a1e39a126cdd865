"""An update: each cell the first input's cell minus the learning rate times the second's (a step of gradient descent, W − lr·dW).

Params: `lr`, the learning rate (a fraction).
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from generator.core.numbers import Number, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor


def stepped_by(lr: Number) -> Callable[..., Values]:
    """w − lr·g, cell by cell; None where either is missing."""

    def compute(w: Sequence[Sequence[Optional[Number]]], g: Sequence[Sequence[Optional[Number]]]) -> Values:
        return [
            [None if x is None or y is None else guarded(lambda x=x, y=y: normalize(x - lr * y)) for x, y in zip(r, s)]
            for r, s in zip(w, g)
        ]

    return compute


class Update(Operation):
    """Each cell: its weight minus the learning rate times its gradient."""

    name = "update"
    words = (N_("%(a)s − lr · %(b)s, cell by cell"),) * 2

    def multiplications(self, step, values, masks):
        return sum(x is not None for r in values[step.key] for x in r)

    def work(self, op, step, values, i, j, symbols, _):
        w, g = (values[k] for k in step.inputs)
        return (
            [(step.inputs[0], i, j), (step.inputs[1], i, j)],
            f"{factor(w[i][j], True)} − {factor(op.params['lr'], True)}·{factor(g[i][j])}",
        )


UPDATE = Update()
