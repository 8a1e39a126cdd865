"""A line's value applied to each cell: each cell of the first input with its row's (or column's) value of the second taken away, or divided out.

Params: `along` ("row": the second input is one column, a value per row; "column": one row, a
value per column) and `sign` ("−" or "÷").
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, constant, whole
from generator.core.numbers import Number, divide, normalize
from generator.core.ops.base import Operation, Values, guarded
from generator.core.words import N_
from generator.core.written import factor

SIGNS: dict[str, Callable[[Number, Number], Number]] = {"−": lambda x, y: normalize(x - y), "÷": divide}
"""What a cell and its line's value make."""


def along(sign: str, line: str) -> Callable[..., Values]:
    """Each cell of a with its row's value of b (`line` "row"; b one column) or its column's (b one row) `sign`ed."""

    def compute(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
        def value(i: int, j: int) -> Optional[Number]:
            return b[i][0] if line == "row" else b[0][j]

        return [
            [
                None if x is None or value(i, j) is None else guarded(SIGNS[sign], x, value(i, j))
                for j, x in enumerate(r)
            ]
            for i, r in enumerate(a)
        ]

    return compute


def one_value(op, inputs, output, masked: frozenset) -> Degenerate:
    """Every line's value the same (a mean of 0 throughout, a σ of 1): one number taken away, or
    divided out, everywhere — the input given back, shifted or scaled."""
    if constant(inputs[1]):
        return whole(output, masked, N_("one value taken away or divided out throughout"))
    return NONE


class Broadcast(Operation):
    """Each cell: its input's cell − (or ÷) its line's value of the second input."""

    name = "broadcast"
    rules = (one_value,)
    words = (N_("%(a)s's cell %(s)s its row's %(b)s"), N_("%(a)s's cell %(s)s its column's %(b)s"))

    def formula(self, op, symbols, row, i, j, flat, _):
        by_row = (op.params["along"] == "row") != row
        return _(self.words[0 if by_row else 1]) % {"a": symbols[0], "b": symbols[1], "s": op.params["sign"]}

    def work(self, op, step, values, i, j, symbols, _):
        a, b = (values[k] for k in step.inputs)
        place = (i, 0) if op.params["along"] == "row" else (0, j)
        value = b[place[0]][place[1]]
        return (
            [(step.inputs[0], i, j), (step.inputs[1], *place)],
            f"{factor(a[i][j], True)} {op.params['sign']} {factor(value, False)}",
        )

    def title(self, op, face, label, symbols):
        return label if "=" in label else f"{label} = {symbols[0]} {op.params['sign']} {symbols[1]}"


BROADCAST = Broadcast()
