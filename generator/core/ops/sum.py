"""A sum: each cell the sum of a column of the input (its unmasked cells), one row in all."""

from __future__ import annotations

from generator.core.ops.base import Operation, listed
from generator.core.words import N_
from generator.core.written import factor


class Sum(Operation):
    """Each cell: the sum of its column of the input, the mask's cells left out."""

    name = "sum"
    # A sum's grade is one row, one cell per query, in either convention: j is its query.
    words = (N_("the sum of column %(j)s of %(a)s"), N_("the sum of row %(j)s of %(a)s"))

    def formula(self, op, symbols, row, i, j, flat, _):
        # A sum per row, written as a column in the row convention: its place is i.
        return super().formula(op, symbols, row, i, i if row and not flat else j, flat, _)

    def work(self, op, step, values, i, j, symbols, _):
        column = [q[j] for k, q in enumerate(values[step.inputs[0]]) if (k, j) not in step.masked and q[j] is not None]
        return ([(step.inputs[0], None, j)], f"{step.face.symbol} = " + " + ".join(factor(t, True) for t in column))

    def line(self, face, row, symbols, result, places):
        return f"{face.caption_in(row)} of {symbols[0]}: " + listed(result[0], places)


SUM = Sum()
