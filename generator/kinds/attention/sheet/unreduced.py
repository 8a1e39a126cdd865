"""The unreduced fractions a key shows beside A's and Z's reduced ones: what a student who did not reduce wrote."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

from generator.core.numbers import Matrix
from generator.kinds.attention.problem import HeadSolution
from generator.core.problem import transpose

Texts = tuple[tuple[str, ...], ...]


def unreduced_forms(sol: HeadSolution, row: bool) -> tuple[Texts, Texts]:
    """A's and Z's cells as "=p/s" (power over its query's sum; V·powers over the same sum)
    where that fraction reduces, else empty: a whole value, a zero, or one already reduced.
    Only under the hand rules with whole powers (a 3^-1 or an e^x has no such single form)."""
    powers, V = (transpose(sol.powers), transpose(sol.V)) if row else (sol.powers, sol.V)
    if not all(type(p) is int for line in powers for p in line):
        return _empty(sol.A), _empty(sol.Z)
    dots = [[sum(v * p for v, p in zip(v_row, column)) for column in zip(*powers)] for v_row in V]
    a, z = _forms(powers, sol.sums), _forms(dots, sol.sums)
    return (transpose(a), transpose(z)) if row else (a, z)


def _forms(numerators: Matrix, sums: Sequence[int]) -> Texts:
    """Each numerator over its column's sum, where gcd > 1 and the quotient is not whole."""
    return tuple(tuple(_form(p, s) for p, s in zip(line, sums)) for line in numerators)


def _form(p: int, s: int) -> str:
    if s == 0 or p == 0 or math.gcd(p, s) == 1 or Fraction(p, s).denominator == 1:
        return ""
    return f"={p}/{s}".replace("-", "\u2212")  # no space: it fits the cell more often


def _empty(m: Matrix) -> Texts:
    return tuple(tuple("" for _ in line) for line in m)
