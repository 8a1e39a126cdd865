"""An affine map: each cell the row of [weights | bias] · the column of [input ; 1], as by hand.

Its inputs: weights, input, bias; or several weights and inputs before the bias, w1, x1, w2,
x2, …: [w1 | w2 | b]·[x1 ; x2 ; 1].
"""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values, terms
from generator.core.ops.product import constant_factor, product
from generator.core.words import N_
from generator.core.written import dot as written_dot


def affine(
    w: Sequence[Sequence[Optional[Number]]], x: Sequence[Sequence[Optional[Number]]], bias: Sequence[Optional[Number]]
) -> Values:
    """w·x + bias, the bias added to every column: [w | b]·[x ; 1], as by hand."""
    ones = [1] * len(x[0]) if x else []
    return product([list(r) + [b] for r, b in zip(w, bias)], [list(r) for r in x] + [ones])


def affine_pairs(*grids: Sequence[Sequence[Optional[Number]]]) -> Values:
    """w1·x1 + w2·x2 + … + bias (`grids`: w1, x1, w2, x2, …, the bias as a column): by hand one
    row · column, [w1 | w2 | … | b]·[x1 ; x2 ; … ; 1]."""
    *pairs, bias = grids
    weights = [sum((list(pairs[k][i]) for k in range(0, len(pairs), 2)), []) + [bias[i][0]] for i in range(len(bias))]
    inputs = [list(r) for k in range(1, len(pairs), 2) for r in pairs[k]]
    return product(weights, inputs + [[1] * len(pairs[1][0])])


class Affine(Operation):
    """Each cell: the row of [w1 | w2 | … | b] · the column of [x1 ; x2 ; … ; 1]."""

    name = "affine"
    words = (
        N_("row %(i)s of [%(a)s | %(c)s] · column %(j)s of [%(b)s ; 1]"),
        N_("row %(i)s of [%(b)s | 1] · column %(j)s of [%(a)s ; %(c)s]"),
    )
    rules = (constant_factor,)

    def factors(self, inputs):
        return inputs[:-1]  # not the bias

    def multiplications(self, step, values, masks):
        # Its pairs before the bias (w1, x1, w2, x2, …): a 1 times the bias is no work.
        return terms(step, values, masks, zip(step.inputs[0:-1:2], step.inputs[1:-1:2]))

    def formula(self, op, symbols, row, i, j, flat, _):
        if len(symbols) > 3:  # several weights and inputs: [w1 | w2 | b]·[x1 ; x2 ; 1]
            weights, inputs = symbols[:-1:2], symbols[1:-1:2]
            symbols = [(" ; " if row else " | ").join(weights), (" | " if row else " ; ").join(inputs), symbols[-1]]
        return super().formula(op, symbols, row, i, j, flat, _)

    def work(self, op, step, values, i, j, symbols, _):
        pairs, bias = list(zip(step.inputs[:-1:2], step.inputs[1:-1:2])), step.inputs[-1]
        ws = [x for w, _k in pairs for x in values[w][i]]
        xs = [q[j] for _w, k in pairs for q in values[k]]
        lit = [(w, i, None) for w, _k in pairs] + [(bias, i, None)] + [(k, None, j) for _w, k in pairs]
        return lit, f"{step.face.symbol}: {written_dot(ws + [values[bias][i][0]], xs + [1])}"

    def beside(self, step, values, first, givens, symbols, row):
        # [w1 | w2 | … | b]: the bias as one more column (row, in the row convention)
        parts = [k for k in step.inputs[:-1:2] if k in givens or k == first] + [step.inputs[-1]]
        weights = [
            sum((list(values[k][i]) for k in parts[:-1]), []) + [values[parts[-1]][i][0]]
            for i in range(len(values[first]))
        ]
        names = [symbols[step.inputs.index(k)] for k in parts]
        return weights, "[" + (" ; " if row else " | ").join(names) + "]", tuple(parts)


AFFINE = Affine()
