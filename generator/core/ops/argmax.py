"""An argmax: one row, each column's choice, the row (1-based) of the input's largest cell in it (a tie: the first)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.degenerate import NONE, Degenerate
from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_
from generator.core.written import factor


def argmax_rows(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """One row: for each column, the row (1-based) of its largest cell, a tie going to the first;
    None where the column has a missing cell."""
    out = []
    for col in zip(*a):
        out.append(None if None in col else 1 + max(range(len(col)), key=lambda i: (col[i], -i)))
    return [out]


def tie(op, inputs, output, masked: frozenset) -> Degenerate:
    """A choice by the largest value where two are largest: decided by the tie, not the numbers."""
    found = set()
    for j, column in enumerate(zip(*inputs[0])):
        if None not in column and sum(x == max(column) for x in column) > 1:
            found.add((0, j))
    return Degenerate(frozenset(found), N_("a choice decided by a tie")) if found else NONE


class Argmax(Operation):
    """Each cell: the row of its column's largest value, a choice."""

    name = "argmax"
    # A choice per token is one row (one column, in the row convention): its place is j (i).
    words = (
        N_("the row of %(a)s's largest cell in column %(j)s (a tie: the upper one)"),
        N_("the column of %(a)s's largest cell in row %(i)s (a tie: the left one)"),
    )
    rules = (tie,)
    choice = True

    def work(self, op, step, values, i, j, symbols, _):
        column = [q[j] for q in values[step.inputs[0]]]
        return (
            [(step.inputs[0], None, j)],
            f"{step.face.symbol}: "
            + _("the row of the largest of %(xs)s") % {"xs": ", ".join(factor(t, True) for t in column)},
        )


ARGMAX = Argmax()
