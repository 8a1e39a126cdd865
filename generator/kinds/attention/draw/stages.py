"""The stages of a draw: each turns a round of stream words into candidates and the guarantees they fail."""

from __future__ import annotations

from typing import Callable

import numpy as np

from generator.core.engine import hand_divisor
from generator.kinds.attention.draw.presets import DrawOptions, Preset
from generator.draw.options import Table, words_for

CHUNK = 16
"""Candidates tried per round of a stage; part of the algorithm (it decides what is drawn)."""


def _zero_lines(m: np.ndarray) -> np.ndarray:
    """For a stack of matrices (..., r, c): True where some row or some column is all zero."""
    return (~m.any(axis=-1)).any(axis=-1) | (~m.any(axis=-2)).any(axis=-1)


def _same_columns(x: np.ndarray) -> np.ndarray:
    """For a stack of matrices (..., r, n): True where two columns are equal."""
    n = x.shape[-1]
    same = np.zeros(x.shape[:-2], dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            same |= (x[..., :, i] == x[..., :, j]).all(axis=-1)
    return same


Check = Callable[[np.ndarray, dict], tuple[dict, dict]]


def x_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, n = o.d_model, o.tokens

    per = words_for(d * n)

    def check(words, ctx):
        X = lim.x.sample(words.reshape(-1, CHUNK, per), d * n).reshape(-1, CHUNK, d, n)
        fails = {"x_zero": _zero_lines(X), "x_same": _same_columns(X)}
        return {"X": X}, fails

    return CHUNK * per, check


def _row_pool(words: np.ndarray, table: Table, X: np.ndarray, window: tuple[int, int], rows: int, varied: bool = False):
    """Up to CHUNK weight matrices of `rows` rows, from a pool of CHUNK·rows drawn rows.

    A drawn row is kept when its projection (row·X) is not all zero, fits `window` and, with
    `varied`, holds two different values; kept
    rows fill the matrices in the order drawn. Returns the weights (P, C, rows, d), their
    projections W·X (P, C, rows, n), and which matrices got all their rows (P, C), where
    C ≤ CHUNK leaves out matrices that no stream completed (they could not pass anyway).
    """
    P = words.shape[0]
    d = X.shape[-2]
    pool = CHUNK * rows
    W = table.sample(words, pool * d).reshape(P, pool, d)
    proj = W @ X
    high, low = proj.max(axis=-1), proj.min(axis=-1)
    fits = (low >= window[0]) & (high <= window[1]) & ((high != 0) | (low != 0))
    if varied:
        fits &= high != low
    counts = fits.sum(axis=-1)
    C = max(1, min(CHUNK, int(counts.max()) // rows))
    # Kept rows first, in the order drawn; then gather them with one flat index.
    order = np.argsort(~fits, axis=-1, kind="stable")[:, : C * rows]
    flat = (order + (np.arange(P) * pool)[:, None]).ravel()
    W = W.reshape(P * pool, d)[flat].reshape(P, C, rows, d)
    proj = proj.reshape(P * pool, -1)[flat].reshape(P, C, rows, -1)
    complete = np.arange(1, C + 1) * rows <= counts[:, None]
    return W, proj, complete


def _zero_columns(m: np.ndarray) -> np.ndarray:
    """For a stack of matrices (..., r, c): True where some column is all zero."""
    return (~m.any(axis=-2)).any(axis=-1)


def v_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, dv = o.d_model, o.d_v

    def check(words, ctx):
        # A constant row of V would make its row of Z trivially that constant.
        W_V, V, complete = _row_pool(words, lim.w, ctx["X"], lim.v, dv, varied=o.tokens > 1)
        zero = np.zeros(complete.shape, dtype=bool) if lim.zero_v else _zero_columns(V)
        return {"W_V": W_V}, {"v_window": ~complete, "v_zero": zero}

    return words_for(CHUNK * dv * d), check


def qk_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, dk, n = o.d_model, o.d_k, o.tokens
    divisor = hand_divisor(dk)
    valid = np.tril(np.ones((n, n), dtype=bool)).T if o.causal else np.ones((n, n), dtype=bool)
    eligible = valid.sum(axis=0) >= 2  # queries with a real choice between keys
    lift = max(0, -lim.min_scaled)  # powers times 3^lift are integers
    half = words_for(CHUNK * dk * d)
    pow3 = np.array([3**e for e in range(lim.max_scaled + lift + 1)] + [0], dtype=np.int64)

    def check(words, ctx):
        W_Q, Q, q_complete = _row_pool(words[:, :half], lim.w, ctx["X"], lim.qk, dk)
        W_K, K, k_complete = _row_pool(words[:, half:], lim.w, ctx["X"], lim.qk, dk)
        C = min(Q.shape[1], K.shape[1])
        W_Q, Q, W_K, K = W_Q[:, :C], Q[:, :C], W_K[:, :C], K[:, :C]
        complete = q_complete[:, :C] & k_complete[:, :C]
        scaled = np.floor_divide(np.swapaxes(K, -1, -2) @ Q, divisor)  # rows keys, columns queries
        if o.causal:
            col_max = np.where(valid, scaled, lim.min_scaled - 1).max(axis=-2)
            col_min = np.where(valid, scaled, lim.max_scaled + 1).min(axis=-2)
            exponents = np.where(valid, np.clip(scaled, lim.min_scaled, lim.max_scaled) + lift, -1)
        else:
            col_max, col_min = scaled.max(axis=-2), scaled.min(axis=-2)
            exponents = np.clip(scaled, lim.min_scaled, lim.max_scaled) + lift
        high, low = col_max.max(axis=-1), col_min.min(axis=-1)
        powers = pow3[exponents]  # exponent -1 marks a masked cell: power 0
        sums = powers.sum(axis=-2)  # each query's column sum, times 3^lift
        varied = ((col_max != col_min) & eligible).sum(axis=-1)
        fails = {
            "qk_window": ~complete,
            "qk_zero": np.zeros(high.shape, dtype=bool) if lim.zero_qk else _zero_columns(Q) | _zero_columns(K),
            "high": high > lim.max_scaled,
            "low": low < lim.min_scaled,
            "top": high < lim.min_top,
            "sum": (sums > lim.max_sum * 3**lift).any(axis=-1),
            "uniform": 2 * varied < eligible.sum(),
        }
        if ctx["prev_Q"].shape[1]:
            # Same as an earlier head in all three weight matrices: a copy teaches nothing.
            same_q = (W_Q[:, :, None] == ctx["prev_Q"][:, None]).all(axis=(-2, -1))
            same_k = (W_K[:, :, None] == ctx["prev_K"][:, None]).all(axis=(-2, -1))
            same_v = (ctx["W_V"][:, None] == ctx["prev_V"]).all(axis=(-2, -1))[:, None]
            fails["heads_same"] = (same_q & same_k & same_v).any(axis=-1)
        return {"W_Q": W_Q, "W_K": W_K, "sums": sums}, fails

    return 2 * half, check


def o_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, width = o.d_model, o.heads * o.d_v

    per = words_for(d * width)

    def check(words, ctx):
        W_O = (lim.o_w or lim.w).sample(words.reshape(-1, CHUNK, per), d * width).reshape(-1, CHUNK, d, width)
        return {"W_O": W_O}, {"o_zero": _zero_lines(W_O)}

    return CHUNK * per, check
