"""A stack: the inputs' rows, one after another (heads concatenated)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_


def stacked(*grids: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grids' rows, one grid after another (heads concatenated along the features)."""
    return [list(r) for g in grids for r in g]


class Stack(Operation):
    """The heads' grids one below another: no new number, one frame (shown in the solve text)."""

    name = "stack"
    words = (N_("the heads' %(a)s, stacked"),) * 2
    new_numbers = False
    whole = True


STACK = Stack()
