"""A division: each cell the first input's cell ÷ the second's for its column (a softmax's weights)."""

from __future__ import annotations

from generator.core.degenerate import NONE, Degenerate
from generator.core.ops.base import Operation
from generator.core.words import N_
from generator.core.written import factor


def uniform_column(op, inputs, output, masked: frozenset) -> Degenerate:
    """A division by column sums whose column is one value throughout: every weight 1/n."""
    top = inputs[0]
    found = set()
    for j in range(len(output[0]) if output else 0):
        column = [(i, j) for i in range(len(output)) if (i, j) not in masked]
        column_values = [top[i][j] for i, _ in column]
        if len(column_values) >= 2 and None not in column_values and all(x == column_values[0] for x in column_values):
            found.update(column)
    return Degenerate(frozenset(found), N_("a column of equal values, each weight 1/n")) if found else NONE


class Divide(Operation):
    """Each cell: its input's cell ÷ its column's cell of the second input's one row."""

    name = "divide"
    words = (N_("%(a)s's cell ÷ its column's %(b)s"), N_("%(a)s's cell ÷ its row's %(b)s"))
    rules = (uniform_column,)

    def work(self, op, step, values, i, j, symbols, _):
        top, bottom = (values[k] for k in step.inputs)
        return (
            [(step.inputs[0], i, j), (step.inputs[1], 0, j)],
            f"{factor(top[i][j], True)} ÷ {factor(bottom[0][j], True)}",
        )

    def title(self, op, face, label, symbols):
        return f"{label} = {symbols[0]} / {symbols[1]}"


DIVIDE = Divide()
