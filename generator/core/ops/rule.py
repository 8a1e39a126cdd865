"""A rule cell by cell: each cell a rule applied to the same cell of the one input (ReLU, floor(x/2), 3^x).

The step's `Op.words` is the rule's formula, with %(x)s for its input (its symbol, or a cell's
value), and `Op.params` the numbers it names besides.
"""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, cells, values, whole
from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_
from generator.core.written import factor


def relu(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """max(0, x), cell by cell."""
    return [[None if x is None else (x if x > 0 else 0) for x in r] for r in a]


def zeroed(op, inputs, output, masked: frozenset) -> Degenerate:
    """A rule cell by cell that gives zero everywhere (a ReLU that zeroes everything)."""
    found = values(output, masked)
    if found and all(x == 0 for x in found):
        return whole(output, masked, N_("every value zeroed"))
    return NONE


def unchanged(op, inputs, output, masked: frozenset) -> Degenerate:
    """A rule cell by cell that gives its input back unchanged (a ReLU that zeroes nothing)."""
    for grid in inputs:
        if (
            len(grid) == len(output)
            and all(len(a) == len(b) for a, b in zip(grid, output))
            and all(grid[i][j] == output[i][j] for i, j in cells(output, masked))
            and cells(output, masked)
        ):
            return whole(output, masked, N_("its input given back unchanged"))
    return NONE


class Rule(Operation):
    """Each cell: the step's rule on the same cell of its input."""

    name = "rule"
    rules = (zeroed, unchanged)

    def formula(self, op, symbols, row, i, j, flat, _):
        return _(op.words) % {"x": symbols[0], **op.params}

    def work(self, op, step, values, i, j, symbols, _):
        x = values[step.inputs[0]][i][j]
        return [(step.inputs[0], i, j)], _(op.words) % {"x": factor(x, True), **op.params}

    def title(self, op, face, label, symbols):
        if "=" not in label:
            return f"{label} = {op.words % {'x': symbols[0], **op.params}}"
        return label


RULE = Rule()
