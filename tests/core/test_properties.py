"""Properties every answer key must satisfy, over random problems of every variant."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import problems, solved, t, to_row

from generator.core.numbers import is_exact
from generator.core.problem import Rules

HAND = Rules()
EXACT_E = Rules("exact", "e")


def close(a, b, tol=1e-9):
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


@given(problems())
def test_attention_columns_sum_to_one_and_masked_weights_are_zero(p):
    for head in solved(p).heads:
        n = len(head.A)
        for j in range(n):
            column = [head.A[i][j] for i in range(n)]
            if all(is_exact(x) for x in column):
                assert sum(column) == 1
            else:
                assert close(sum(column), 1)
            if p.causal:
                assert all(column[i] == 0 for i in range(j + 1, n))
                assert all(head.scaled[i][j] is None for i in range(j + 1, n))
                assert all(head.powers[i][j] == 0 for i in range(j + 1, n))


@given(problems(rules=HAND))
def test_hand_rules_give_no_floats(p):
    s = solved(p)
    cells = [x for x in s.Z for x in x] + [x for x in (s.output or ()) for x in x]
    for head in s.heads:
        for m in (head.Q, head.K, head.V, head.scores, head.scaled, head.powers, head.A, head.Z, (head.sums,)):
            cells.extend(x for row in m for x in row)
    assert all(is_exact(x) for x in cells)
    assert not any(isinstance(x, Fraction) and x.denominator == 1 for x in cells)  # normalised to int


@given(problems())
def test_each_z_is_a_weighted_mean_of_its_value_row(p):
    for head in solved(p).heads:
        for v_row, z_row in zip(head.V, head.Z):
            lo, hi = min(v_row), max(v_row)
            for z in z_row:
                if is_exact(z):
                    assert lo <= z <= hi
                else:
                    assert lo - 1e-9 <= z <= hi + 1e-9


@given(problems())
def test_row_and_column_conventions_are_transposed_twins(p):
    col, row = solved(p), solved(to_row(p))
    for c, r in zip(col.heads, row.heads):
        for name in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z"):
            assert getattr(r, name) == t(getattr(c, name)), name
        assert r.sums == c.sums
    assert row.Z == t(col.Z)
    assert (row.output is None) == (col.output is None)
    if col.output is not None:
        assert row.output == t(col.output)


def reference_attention(X_rows, W_Q, W_K, W_V, causal):
    """An independent float implementation, PyTorch style: softmax(QKᵀ/√d_k + mask)·V."""
    X = np.array(X_rows, dtype=float)
    Q, K, V = X @ np.array(W_Q, float), X @ np.array(W_K, float), X @ np.array(W_V, float)
    logits = Q @ K.T / math.sqrt(Q.shape[1])
    if causal:
        logits = np.where(np.triu(np.ones(logits.shape, bool), k=1), -np.inf, logits)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights, weights @ V


@settings(max_examples=300)
@given(problems(rules=EXACT_E, convention="row"))
def test_exact_rules_match_an_independent_float_implementation(p):
    s = solved(p)
    outs = []
    for head, sol in zip(p.heads, s.heads):
        weights, Z = reference_attention(p.X, head.W_Q, head.W_K, head.W_V, p.causal)
        assert np.allclose(np.array(sol.A, dtype=float), weights, rtol=1e-9, atol=1e-9)
        assert np.allclose(np.array(sol.Z, dtype=float), Z, rtol=1e-9, atol=1e-9)
        outs.append(Z)
    concat = np.hstack(outs)
    assert np.allclose(np.array(s.Z, dtype=float), concat, rtol=1e-9, atol=1e-9)
    if p.W_O is not None:
        assert np.allclose(np.array(s.output, dtype=float), concat @ np.array(p.W_O, float), rtol=1e-9, atol=1e-9)


@given(st.integers(-40, 40), st.integers(1, 12))
def test_floor_scale_matches_math_floor(score, d_k):
    from generator.core.engine import hand_divisor, scale

    assert scale(score, d_k, HAND) == math.floor(Fraction(score, hand_divisor(d_k)))
