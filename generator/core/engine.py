"""Exact by-hand self-attention: every step a student writes, under every rule variant.

Pure: no I/O, no randomness. Under the hand rules (floor + base3) every value is an int or
a Fraction; floats appear only where the rules make a value irrational.
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul
from typing import Sequence

from generator.core.errors import ProblemError
from generator.core.numbers import Matrix, Number, divide, normalize
from generator.core.problem import (
    Head,
    HeadSolution,
    Problem,
    Rules,
    Solution,
    transpose,
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


def solve_head(X: Matrix, head: Head, rules: Rules, causal: bool) -> HeadSolution:
    """Every step of one head, in the column convention."""
    Q = matmul(head.W_Q, X)
    K = matmul(head.W_K, X)
    V = matmul(head.W_V, X)
    scores = matmul(transpose(K), Q)
    d_k = len(head.W_Q)
    if rules.hand and not causal:
        divisor = hand_divisor(d_k)  # the common case, kept free of per-cell dispatch
        scaled: Matrix = tuple(tuple([s // divisor for s in row]) for row in scores)
    else:
        scaled = tuple(
            tuple([None if causal and i > j else scale(s, d_k, rules) for j, s in enumerate(row)])
            for i, row in enumerate(scores)
        )
    powers = tuple(tuple([0 if x is None else power(x, rules) for x in row]) for row in scaled)
    by_column = tuple(zip(*powers))
    sums = tuple([normalize(sum(col)) for col in by_column])
    # Z = V·A; each column of A shares one denominator, so sum V·powers first and divide once:
    # the same exact value with one Fraction per entry instead of one per product.
    dots = [[sum(map(mul, v_row, col)) for col in by_column] for v_row in V]
    if all(type(x) is int for row in powers for x in row):
        # Every power an int (no 3^-1): divide inline, the hot path of every drawn sheet.
        A = tuple(tuple([p // s if p % s == 0 else Fraction(p, s) for p, s in zip(row, sums)]) for row in powers)
        Z = tuple(tuple([t // s if t % s == 0 else Fraction(t, s) for t, s in zip(row, sums)]) for row in dots)
    else:
        A = tuple(tuple([divide(p, s) for p, s in zip(row, sums)]) for row in powers)
        Z = tuple(tuple([divide(t, s) for t, s in zip(row, sums)]) for row in dots)
    return HeadSolution(Q=Q, K=K, V=V, scores=scores, scaled=scaled, powers=powers, sums=sums, A=A, Z=Z)


def _column_twin(problem: Problem) -> Problem:
    """A row-convention problem rewritten in the column convention (every matrix transposed)."""
    return Problem(
        X=transpose(problem.X),
        heads=tuple(Head(transpose(h.W_Q), transpose(h.W_K), transpose(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else transpose(problem.W_O),
        convention="column",
        rules=problem.rules,
        causal=problem.causal,
    )


def _row_twin(head: HeadSolution) -> HeadSolution:
    """A column-convention head solution in row layout (scores: rows are queries)."""
    t = transpose
    return HeadSolution(
        Q=t(head.Q), K=t(head.K), V=t(head.V), scores=t(head.scores), scaled=t(head.scaled),
        powers=t(head.powers), sums=head.sums, A=t(head.A), Z=t(head.Z),
    )


def solve(problem: Problem) -> Solution:
    """Solve a problem exactly: every head's steps, the concatenated Z and the output projection."""
    row = problem.convention == "row"
    work = _column_twin(problem) if row else problem
    heads = []
    for h, head in enumerate(work.heads):
        try:
            heads.append(solve_head(work.X, head, work.rules, work.causal))
        except ProblemError as error:
            raise ProblemError(f"heads[{h}]: {error}") from None
    Z: Matrix = tuple(r for head in heads for r in head.Z)  # stack the heads' feature rows
    output = None if work.W_O is None else tuple(tuple(normalize(x) for x in r) for r in matmul(work.W_O, Z))
    if row:
        return Solution(
            problem=problem,
            heads=tuple(_row_twin(head) for head in heads),
            Z=transpose(Z),
            output=None if output is None else transpose(output),
        )
    return Solution(problem=problem, heads=tuple(heads), Z=Z, output=output)
