"""The by-hand rules' arithmetic: products, the hand divisor, scaling and powers, exact where they can be.

Pure: no I/O, no randomness. Under the hand rules (floor + base3) every value is an int or
a Fraction; floats appear only where the rules make a value irrational. The steps that use
them are declared by each kind (generator/kinds).
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul
from typing import Sequence

from generator.core.errors import ProblemError
from generator.core.numbers import Matrix, Number, normalize
from generator.core.problem import (
    Rules,
)

MAX_EXPONENT = 600
"""Largest |scaled score| that is exponentiated: e^600 still fits a float, 3^600 is exact."""


def matmul(a: Sequence[Sequence[Number]], b: Sequence[Sequence[Number]]) -> Matrix:
    """The matrix product a·b."""
    columns = tuple(zip(*b))
    return tuple(tuple([sum(map(mul, row, col)) for col in columns]) for row in a)


def hand_divisor(d_k: int) -> int:
    """round(√d_k), computed exactly: 2 for d_k = 3..6, 3 for 7..12."""
    root = math.isqrt(d_k)
    # √d_k rounds up exactly when d_k > (root + 1/2)² = root² + root + 1/4.
    return root + 1 if d_k - root * root > root else root


def scale(score: int, d_k: int, rules: Rules) -> Number:
    """One score after the scaling step of `rules`."""
    if rules.scale == "none":
        return score
    if rules.scale == "floor":
        return score // hand_divisor(d_k)  # // rounds toward minus infinity, as the rule says
    root = math.isqrt(d_k)
    if root * root == d_k:
        return normalize(Fraction(score, root))  # √d_k is rational: stay exact
    return score / math.sqrt(d_k) if score else 0


def power(x: Number, rules: Rules) -> Number:
    """3^x or e^x, exact whenever the result is rational."""
    if type(x) is int and rules.softmax == "base3" and 0 <= x <= MAX_EXPONENT:
        return 3**x  # the by-hand case, first
    if abs(x) > MAX_EXPONENT:
        raise ProblemError(
            f"a scaled score of {float(x):.6g} is too large to exponentiate "
            f"(at most {MAX_EXPONENT}); use smaller entries or scaling"
        )
    if rules.softmax == "e":
        return math.exp(x) if x else 1
    if isinstance(x, int):
        return 3**x if x >= 0 else Fraction(1, 3**-x)
    return 3.0 ** float(x)  # 3 to a non-integer power is irrational
