"""A copy: the input written out again (a state copied into the next step, a grid carried over)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_


def copy(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grid as it is (a copy a student writes out again)."""
    return [list(r) for r in a]


class Copy(Operation):
    """The input written out again: no new number, one frame."""

    name = "copy"
    words = (N_("the same cell of %(a)s"),) * 2
    new_numbers = False
    written_again = True
    whole = True


COPY = Copy()
