"""A transpose: the input with rows and columns swapped (Kᵀ)."""

from __future__ import annotations

from typing import Optional, Sequence

from generator.core.numbers import Number
from generator.core.ops.base import Operation, Values
from generator.core.words import N_


def transposed(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grid's transpose."""
    return [list(r) for r in zip(*a)]


class Transpose(Operation):
    """The input written out again, rows for columns: no new number, one frame."""

    name = "transpose"
    words = (N_("%(a)s's cell with row and column swapped"),) * 2
    new_numbers = False
    written_again = True
    whole = True
    transposes = True


TRANSPOSE = Transpose()
