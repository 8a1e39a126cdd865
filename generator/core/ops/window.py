"""A window: each cell the kernel laid on the input's window at its place, product by product, plus a bias (a convolution, stride 1, no padding).

Inputs: the image, the kernel (k × k), the bias (1 × 1). Deep learning's convolution: the kernel
is not flipped.
"""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values, dot
from generator.core.ops.product import constant_factor
from generator.core.words import N_
from generator.core.written import dot as written_dot


def windowed(
    x: Sequence[Sequence[Optional[Number]]],
    k: Sequence[Sequence[Optional[Number]]],
    b: Sequence[Sequence[Optional[Number]]],
) -> Values:
    """Each cell (i, j): Σ_u Σ_v k[u][v]·x[i+u][j+v] + b, the map (rows − k + 1) × (columns − k + 1)."""
    size = len(k)
    kernel = [v for row in k for v in row] + [b[0][0]]
    return [
        [
            dot(kernel, [x[i + u][j + v] for u in range(size) for v in range(size)] + [1])
            for j in range(len(x[0]) - size + 1)
        ]
        for i in range(len(x) - size + 1)
    ]


class Window(Operation):
    """Each cell: the kernel over the window of the input at its place, plus the bias."""

    name = "window"
    words = (N_("%(b)s over the window of %(a)s from row %(i)s, column %(j)s, plus %(c)s"),) * 2
    rules = (constant_factor,)

    def factors(self, inputs):
        return inputs[:2]  # the image and the kernel, not the bias

    def multiplications(self, step, values, masks):
        size = len(values[step.inputs[1]])
        return size * size * sum(x is not None for r in values[step.key] for x in r)

    def work(self, op, step, values, i, j, symbols, _):
        x, k, b = (values[key] for key in step.inputs)
        size = len(k)
        lit = [(step.inputs[0], i + u, j + v) for u in range(size) for v in range(size)]
        lit += [(step.inputs[1], None, None), (step.inputs[2], None, None)]
        window = [x[i + u][j + v] for u in range(size) for v in range(size)]
        return lit, f"{step.face.symbol}: {written_dot([v for row in k for v in row] + [b[0][0]], window + [1])}"


WINDOW = Window()
