"""A routed product: each cell the row of the weights · the column of the input, over the block of
the input's rows its column's route chooses (inputs: the route, the weights, the input; params: blocks)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values, dot
from generator.core.ops.pick import route_of
from generator.core.ops.product import constant_factor
from generator.core.words import N_
from generator.core.written import dot as written_dot


def routed(
    route: Sequence[Sequence[Optional[Number]]],
    w: Sequence[Sequence[Optional[Number]]],
    x: Sequence[Sequence[Optional[Number]]],
    blocks: int,
) -> Values:
    """w·x with each column's sum over the block of x's rows its route names (and w's matching
    columns): x's rows are `blocks` equal blocks, one per choice; None where the route names none."""
    size = len(x) // blocks
    out = [[None] * len(x[0]) for _ in w]
    for j in range(len(x[0])):
        r = route_of(route, j, blocks)
        if r is None:
            continue
        col = [x[k][j] for k in range(r * size, (r + 1) * size)]
        for i, row in enumerate(w):
            out[i][j] = dot(list(row[r * size : (r + 1) * size]), col)
    return out


def routed_cells(
    route: Sequence[Sequence[Optional[Number]]], true: Sequence[Sequence[Optional[Number]]], rows: int, blocks: int
) -> frozenset:
    """The cells (row, col) of a grid of `blocks` blocks of rows (`rows` in all) that a route leaves
    empty: in each column every block but the one it names (the true route's where it names none)."""
    size = rows // blocks
    out = set()
    for j in range(len(true[0])):
        r = route_of(route, j, blocks)
        r = route_of(true, j, blocks) if r is None else r
        out |= {(i, j) for i in range(rows) if not r * size <= i < (r + 1) * size}
    return frozenset(out)


class Routed(Operation):
    """Each cell: a product over the block of rows its column's route names."""

    name = "routed"
    words = (
        N_("row %(i)s of %(b)s · column %(j)s of %(c)s, over the block of rows its %(a)s names"),
        N_("row %(i)s of %(c)s · column %(j)s of %(b)s, over the block of columns its %(a)s names"),
    )
    rules = (constant_factor,)

    def factors(self, inputs):
        return inputs[1:]  # not the route

    def multiplications(self, step, values, masks):
        # A block's terms per cell written (None: left empty by the route).
        size = len(values[step.inputs[2]]) // step.op.params["blocks"]
        return size * sum(x is not None for r in values[step.key] for x in r)

    def work(self, op, step, values, i, j, symbols, _):
        route, w, x = (values[k] for k in step.inputs)
        blocks = op.params["blocks"]
        r, size = route_of(route, j, blocks), len(x) // blocks
        rows = range(r * size, (r + 1) * size)
        return (
            [(step.inputs[0], 0, j), (step.inputs[1], i, None), (step.inputs[2], None, j)],
            f"{step.face.symbol}: {written_dot([w[i][k] for k in rows], [x[k][j] for k in rows])}",
        )


ROUTED = Routed()
