"""A mean over neighbours: each cell the row of the first input · the column of an adjacency (a node's neighbours, itself too), ÷ that node's degree."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number, divide
from generator.core.ops.base import Operation, Values, guarded, terms
from generator.core.ops.product import constant_factor, product
from generator.core.words import N_
from generator.core.written import dot as written_dot


def degrees(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """Each node's degree: the 1s of its column (its self-loop counted)."""
    return [sum(column) for column in zip(*adjacency)]


def averaged(h: Sequence[Sequence[Optional[Number]]], adjacency: Sequence[Sequence[int]]) -> Values:
    """H·A with column j divided by node j's degree; None where a factor is missing."""
    summed, degree = product(h, adjacency), degrees(adjacency)
    return [
        [None if x is None or not degree[j] else guarded(divide, x, degree[j]) for j, x in enumerate(row)]
        for row in summed
    ]


class Neighbours(Operation):
    """Each cell: row i of the features · column j of the adjacency, ÷ node j's degree."""

    name = "neighbours"
    words = (
        N_("(row %(i)s of %(a)s · column %(j)s of %(b)s) ÷ node %(j)s's degree"),
        N_("(row %(i)s of %(b)s · column %(j)s of %(a)s) ÷ node %(i)s's degree"),
    )
    rules = (constant_factor,)

    def multiplications(self, step, values, masks):
        return terms(step, values, masks, [(step.inputs[0], step.inputs[1])])

    def work(self, op, step, values, i, j, symbols, _):
        h, a = (values[k] for k in step.inputs)
        column = [r[j] for r in a]
        return (
            [(step.inputs[0], i, None), (step.inputs[1], None, j)],
            f"{step.face.symbol}: ({written_dot(list(h[i]), column)}) ÷ {sum(column)}",
        )

    def title(self, op, face, label, symbols):
        return f"{label}, each column ÷ its node's degree"


NEIGHBOURS = Neighbours()
