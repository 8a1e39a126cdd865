"""The engine against examples worked on paper, one step at a time."""

from fractions import Fraction as F

import pytest

from generator.core.engine import hand_divisor, matmul, power, scale
from generator.core.errors import ProblemError
from generator.core.registry import solve
from generator.kinds.attention.problem import Head, Problem
from generator.core.problem import Rules


def problem(X, W_Q, W_K, W_V, **kw):
    return Problem(X=X, heads=(Head(W_Q, W_K, W_V),), **kw)


# The worked example of docs/exercise.md.
WORKED = problem(
    X=((1, 0, 1), (0, 1, 1), (1, 1, 0), (0, 1, 0)),
    W_Q=((1, 0, 1, 0), (0, 1, 0, 1), (1, 0, 0, 0)),
    W_K=((1, 1, 0, 0), (0, 0, 1, 1), (0, 1, 0, 0)),
    W_V=((1, 0, 0, 0), (0, 2, 0, 0)),
)


def test_worked_example_every_step():
    h = solve(WORKED).heads[0]
    assert h.Q == ((2, 1, 1), (0, 2, 1), (1, 0, 1))
    assert h.K == ((1, 1, 2), (1, 2, 0), (0, 1, 1))
    assert h.V == ((1, 0, 1), (0, 2, 2))
    assert h.scores == ((2, 3, 2), (3, 5, 4), (5, 2, 3))
    assert h.scaled == ((1, 1, 1), (1, 2, 2), (2, 1, 1))
    assert h.powers == ((3, 3, 3), (3, 9, 9), (9, 3, 3))
    assert h.sums == (15, 15, 15)
    fifth = F(1, 5)
    assert h.A == ((fifth, fifth, fifth), (fifth, 3 * fifth, 3 * fifth), (3 * fifth, fifth, fifth))
    assert h.Z == ((F(4, 5), F(2, 5), F(2, 5)), (F(8, 5), F(8, 5), F(8, 5)))


def test_negative_score_gives_a_third():
    # Worked on paper: k1 = (-1,0,0), k2 = (0,2,1); q1 = (1,0,1), q2 = (0,1,1).
    # S = [[-1,0],[1,3]], floor(S/2) = [[-1,0],[0,1]], E = [[1/3,1],[1,3]], sums 4/3 and 4.
    p = problem(
        X=((1, 0), (0, 1)),
        W_Q=((1, 0), (0, 1), (1, 1)),
        W_K=((-1, 0), (0, 2), (0, 1)),
        W_V=((2, 0), (0, 4)),
    )
    h = solve(p).heads[0]
    assert h.scores == ((-1, 0), (1, 3))
    assert h.scaled == ((-1, 0), (0, 1))
    assert h.powers == ((F(1, 3), 1), (1, 3))
    assert h.sums == (F(4, 3), 4)
    assert h.A == ((F(1, 4), F(1, 4)), (F(3, 4), F(3, 4)))
    assert h.Z == ((F(1, 2), F(1, 2)), (3, 3))


def test_causal_worked_example():
    # Same numbers as the worked example; query j sees keys 1..j only.
    h = solve(Problem(X=WORKED.X, heads=WORKED.heads, causal=True)).heads[0]
    assert h.scores == ((2, 3, 2), (3, 5, 4), (5, 2, 3))  # scores are not masked, weights are
    assert h.scaled == ((1, 1, 1), (None, 2, 2), (None, None, 1))
    assert h.powers == ((3, 3, 3), (0, 9, 9), (0, 0, 3))
    assert h.sums == (3, 12, 15)
    assert h.A == ((1, F(1, 4), F(1, 5)), (0, F(3, 4), F(3, 5)), (0, 0, F(1, 5)))
    assert h.Z == ((1, F(1, 4), F(2, 5)), (0, F(3, 2), F(8, 5)))


def test_multi_head_with_output_projection():
    # Two copies of the worked head: Z_concat stacks the same 2×3 Z twice;
    # W_O = [[1,0,-1,0],[0,1,0,1]] gives Z1 - Z1 = 0 on row 1 and 2·Z1[1] on row 2.
    p = Problem(X=WORKED.X, heads=WORKED.heads * 2, W_O=((1, 0, -1, 0), (0, 1, 0, 1), (1, 1, 1, 1), (0, 0, 0, 0)))
    s = solve(p)
    z = s.heads[0].Z
    assert s.Z == z + z
    assert s.output[0] == (0, 0, 0)
    assert s.output[1] == tuple(2 * x for x in z[1])
    assert s.output[2] == (F(24, 5), F(4), F(4))


def test_row_convention_is_the_transposed_twin():
    t = lambda m: tuple(zip(*m))  # noqa: E731
    head = WORKED.heads[0]
    row = Problem(X=t(WORKED.X), heads=(Head(t(head.W_Q), t(head.W_K), t(head.W_V)),), convention="row")
    col_h, row_h = solve(WORKED).heads[0], solve(row).heads[0]
    assert row_h.scores == t(col_h.scores)  # rows are queries
    assert row_h.A == t(col_h.A)
    assert row_h.Z == t(col_h.Z)
    assert all(sum(r) == 1 for r in row_h.A)


@pytest.mark.parametrize(
    "d_k, divisor", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 2), (7, 3), (12, 3), (13, 4), (64, 8)]
)
def test_hand_divisor_is_rounded_root(d_k, divisor):
    assert hand_divisor(d_k) == divisor


@pytest.mark.parametrize("score, scaled", [(3, 1), (1, 0), (-1, -1), (-2, -1), (-3, -2), (0, 0)])
def test_floor_rounds_toward_minus_infinity(score, scaled):
    assert scale(score, 3, Rules()) == scaled


def test_exact_scale_stays_exact_for_square_d_k():
    assert scale(3, 4, Rules(scale="exact")) == F(3, 2)
    assert isinstance(scale(3, 3, Rules(scale="exact")), float)
    assert scale(0, 3, Rules(scale="exact")) == 0


def test_powers():
    assert power(-2, Rules()) == F(1, 9)
    assert power(3, Rules()) == 27
    assert power(0, Rules(softmax="e")) == 1
    assert power(1, Rules(softmax="e")) == pytest.approx(2.718281828459045)


def test_huge_exponent_is_a_clear_error():
    p = problem(X=((1000,),), W_Q=((1000,),), W_K=((1000,),), W_V=((1,),))
    with pytest.raises(ProblemError, match="too large"):
        solve(p)


def test_matmul():
    assert matmul(((1, 2), (3, 4)), ((5,), (6,))) == ((17,), (39,))
