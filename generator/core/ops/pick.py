"""A pick: one row, each column's cell of the input in the row its route chooses (inputs: the route, the input)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_


def route_of(route: Sequence[Sequence[Optional[Number]]], j: int, choices: int) -> Optional[int]:
    """Column j's choice in a route's one row, 0-based; None where it names none of `choices`."""
    r = route[0][j] if route and j < len(route[0]) else None
    return int(r) - 1 if r is not None and r == int(r) and 1 <= r <= choices else None


def picked(route: Sequence[Sequence[Optional[Number]]], a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """One row: for each column, its cell in the row its route names (None for no such row)."""
    out = []
    for j in range(len(a[0])):
        r = route_of(route, j, len(a))
        out.append(None if r is None else a[r][j])
    return [out]


class Pick(Operation):
    """Each cell: its column's cell of the input, in the row the route names."""

    name = "pick"
    words = (
        N_("%(b)s's cell in column %(j)s, in the row its %(a)s names"),
        N_("%(b)s's cell in row %(i)s, in the column its %(a)s names"),
    )

    def work(self, op, step, values, i, j, symbols, _):
        route, a = (values[k] for k in step.inputs)
        r = route_of(route, j, len(a))
        return (
            [(step.inputs[0], 0, j), (step.inputs[1], r, j)],
            f"{step.face.symbol}: "
            + _("row %(r)s of %(a)s") % {"r": r + 1, "a": symbols.get(step.inputs[1], step.inputs[1][1])},
        )


PICK = Pick()
