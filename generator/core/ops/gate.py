"""A gate: each cell the first input's cell where the second's same cell is positive, else 0 (ReLU's gradient: dZ = dH where Z > 0)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, cells, whole
from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_
from generator.core.written import factor


def gated(a: Sequence[Sequence[Optional[Number]]], z: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a's cell where z's is positive, else 0 (0 counts as not positive); None where either is missing."""
    return [[None if x is None or g is None else (x if g > 0 else 0) for x, g in zip(r, s)] for r, s in zip(a, z)]


def all_open(op, inputs, output, masked: frozenset) -> Degenerate:
    """A gate open everywhere (every z positive): its input given back, nothing to decide."""
    z = inputs[1]
    if cells(output, masked) and all(z[i][j] is not None and z[i][j] > 0 for i, j in cells(output, masked)):
        return whole(output, masked, N_("its input given back unchanged"))
    return NONE


class Gate(Operation):
    """Each cell: its input's cell where the gate's is positive, else 0."""

    name = "gate"
    words = (N_("%(a)s's cell if %(b)s's cell is positive, else 0"),) * 2
    rules = (all_open,)

    def work(self, op, step, values, i, j, symbols, _):
        a, z = (values[k] for k in step.inputs)
        sign = ">" if z[i][j] is not None and z[i][j] > 0 else "≤"
        name = symbols.get(step.inputs[1], step.inputs[1][1])
        return (
            [(step.inputs[0], i, j), (step.inputs[1], i, j)],
            f"{name} = {factor(z[i][j], True)} {sign} 0: {factor(a[i][j], True) if sign == '>' else '0'}",
        )

    def title(self, op, face, label, symbols):
        return label if "=" in label else f"{label} = {symbols[0]} where {symbols[1]} > 0, else 0"


GATE = Gate()
