"""Seeded draws of the FFN and the transformer block: X, the attention (given or computed), then the layers.

Problem `index` of a batch drawn with `seed` reads its own streams, as attention's do: X and A
(or, computed, the whole attention part, drawn by the attention draw itself) from
PCG64(SeedSequence(seed, spawn_key=(index,))), the layers from spawn_key (index, 1); entries
come from `random_raw` words through the presets' tables, so a printed code rebuilds its sheet.
Each stage tries CANDIDATES at a time and keeps the first that meets every guarantee.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Callable

import numpy as np

from generator.core.kinds import solve
from generator.core.kinds.ffn.steps import FFNProblem
from generator.core.kinds.transformer.steps import BlockProblem
from generator.core.kinds.attention.problem import Head
from generator.core.problem import Rules, transpose
from generator.draw.kindopts import KindOptions, LayerPreset, attention_options
from generator.draw.options import GUARANTEES as ATTENTION_GUARANTEES
from generator.draw.options import DrawError, Infeasible, Table, lanes, words_for
from generator.draw.sheetcodes import coder

CANDIDATES = 64
"""Candidates drawn and checked at once (numpy's per-call cost shared)."""
ROUNDS = 64
"""Rounds of candidates per stage before a fresh X is drawn."""
RETRIES = 16
"""Fresh X (and A) before the draw gives up on a problem."""

GUARANTEES = {
    "x": "X's tokens all differ, none all zero, no feature zero for every token",
    "a": "A's columns are one 1 or two halves, with at least the preset's halves",
    "layer1": "H_pre has a negative and a positive entry (ReLU matters), every hidden unit fires for some token, "
              "and |H_pre| stays within the preset's bound",
    "layer2": "Y and out stay within the preset's bound",
}


def _stream(seed: int, index: int, part: int = 0) -> np.random.PCG64:
    key = (index,) if part == 0 else (index, part)
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key))


def _sample(bits: np.random.PCG64, table: Table, shape: tuple[int, ...]) -> np.ndarray:
    count = math.prod(shape)
    return table.sample(bits.random_raw(words_for(count)), count).astype(np.int64).reshape(shape)


def _x(bits: np.random.PCG64, o: KindOptions, lim: LayerPreset) -> np.ndarray:
    """X (d_model × n): tokens all different, none all zero, no feature zero throughout."""
    for _ in range(ROUNDS):
        xs = _sample(bits, lim.x, (CANDIDATES, o.d_model, o.tokens))
        for X in xs:
            cols = {tuple(c) for c in X.T.tolist()}
            if len(cols) == o.tokens and X.any(axis=0).all() and X.any(axis=1).all():
                return X
    raise DrawError(f"cannot draw X: {GUARANTEES['x']}; use a larger --d-model or fewer --tokens")


def _weights(bits: np.random.PCG64, o: KindOptions, lim: LayerPreset) -> list[list]:
    """A (n × n): each column one 1 or two halves; at least `lim.halves` columns of halves."""
    n = o.tokens
    halves_wanted = min(lim.halves, n)
    for _ in range(ROUNDS):
        drawn = lanes(bits.random_raw(words_for(3 * n)), 3 * n).tolist()
        A: list[list] = [[0] * n for _ in range(n)]
        halves = 0
        for j in range(n):
            kind, first, second = drawn[3 * j: 3 * j + 3]
            i1 = first % n
            if kind % 2 and n > 1:
                i2 = (i1 + 1 + second % (n - 1)) % n
                A[i1][j] = A[i2][j] = Fraction(1, 2)
                halves += 1
            else:
                A[i1][j] = 1
        if halves >= halves_wanted:
            return A
    raise DrawError(f"cannot draw A: {GUARANTEES['a']}")


def _scaled_source(source) -> tuple[np.ndarray, np.ndarray]:
    """A matrix of ints and Fractions as integers over one denominator per column: (S·L, L)."""
    cols = list(zip(*source))
    L = np.array([math.lcm(*(Fraction(x).denominator for x in col)) for col in cols], dtype=np.int64)
    S = np.array([[int(Fraction(x) * L[j]) for j, x in enumerate(row)] for row in source], dtype=np.int64)
    return S, L


def _layers(bits: np.random.PCG64, o: KindOptions, lim: LayerPreset, source) -> tuple | None:
    """W1, b1, W2, b2 that meet the guarantees on `source` (X, or a block's R); None if no round does."""
    S, L = _scaled_source(source)
    d, f = o.d_model, o.d_ff
    first = None
    for _ in range(ROUNDS):
        W1 = _sample(bits, lim.w, (CANDIDATES, f, d))
        b1 = _sample(bits, lim.b, (CANDIDATES, f))
        H = np.einsum("kfd,dn->kfn", W1, S) + b1[:, :, None] * L[None, None, :]  # H_pre·L, per column
        ok = ((H < 0).any(axis=(1, 2)) & (H > 0).any(axis=(1, 2)) & (H > 0).any(axis=2).all(axis=1)
              & (np.abs(H) <= lim.hidden * L).all(axis=(1, 2)) & W1.any(axis=2).all(axis=1))
        hits = np.flatnonzero(ok)
        if hits.size:
            first = (W1[hits[0]], b1[hits[0]], np.maximum(H[hits[0]], 0))
            break
    if first is None:
        return None
    W1, b1, relu = first
    for _ in range(ROUNDS):
        W2 = _sample(bits, lim.w, (CANDIDATES, d, f))
        b2 = _sample(bits, lim.b, (CANDIDATES, d))
        Y = np.einsum("kdf,fn->kdn", W2, relu) + b2[:, :, None] * L[None, None, :]
        out = Y + S[None]
        ok = ((np.abs(Y) <= lim.out * L).all(axis=(1, 2)) & (np.abs(out) <= lim.out * L).all(axis=(1, 2))
              & W2.any(axis=2).all(axis=1) & W2.any(axis=1).all(axis=1))
        hits = np.flatnonzero(ok)
        if hits.size:
            k = hits[0]
            return W1, b1, W2[k], b2[k]
    return None


def _matrix(a: np.ndarray) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(x) for x in r) for r in a.tolist())


def draw_one(o: KindOptions, seed: int, index: int, code: str, attention_draw: Callable):
    """Problem `index` of the batch drawn with `seed`, with its code; `attention_draw` draws a
    computed block's attention part (the attention search's `draw_keys`)."""
    lim = o.limits()
    bits, layer_bits = _stream(seed, index), _stream(seed, index, 1)
    attention = None
    if o.computed:
        try:
            attention = replace(attention_draw(attention_options(o), [(seed, index)])[0], code=None)
        except Infeasible as error:
            raise DrawError(f"cannot draw the block's attention for problem {index} of seed {seed} on {o.preset}: "
                            f"{ATTENTION_GUARANTEES[error.guarantee][0]}; try another --preset, fewer --tokens "
                            "or another --d-model") from None
    for _ in range(RETRIES):
        if attention is not None:
            X = np.array(attention.X, dtype=np.int64)
            A = None
            attended = solve(attention)
            Z = attended.output if attended.output is not None else attended.Z
            source = [[x + z for x, z in zip(r, q)] for r, q in zip(attention.X, Z)]
        else:
            X = _x(bits, o, lim)
            A = _weights(bits, o, lim) if o.kind == "transformer" else None
            xs = X.tolist()
            source = xs if A is None else [[x + sum(row[m] * A[m][j] for m in range(o.tokens)) for j, x in
                                            enumerate(row)] for row in xs]
        layers = _layers(layer_bits, o, lim, source)
        if layers is not None:
            return _problem(o, X, A, attention, layers, code)
        if attention is not None:
            break  # the attention part is the attention draw's: only the layers can be drawn again
    raise DrawError(f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['layer1']}; "
                    "try another preset, fewer --tokens or a smaller --d-model")


def _problem(o: KindOptions, X, A, attention, layers, code: str):
    W1, b1, W2, b2 = (_matrix(layers[0]), tuple(int(x) for x in layers[1]), _matrix(layers[2]),
                      tuple(int(x) for x in layers[3]))
    if o.kind == "ffn":
        p = FFNProblem(X=_matrix(X), W1=W1, b1=b1, W2=W2, b2=b2, residual=o.residual, code=code)
    elif attention is None:
        p = BlockProblem(X=_matrix(X), W1=W1, b1=b1, W2=W2, b2=b2, attention="given",
                         A=tuple(map(tuple, A)), code=code)
    else:
        p = BlockProblem(X=attention.X, W1=W1, b1=b1, W2=W2, b2=b2, attention="computed", heads=attention.heads,
                         W_O=attention.W_O, rules=Rules(), causal=attention.causal, code=code)
    return to_row(p) if o.convention == "row" else p


def to_row(p):
    """The row-convention twin of a drawn column-convention FFN or block."""
    t = transpose
    if isinstance(p, FFNProblem):
        return replace(p, X=t(p.X), W1=t(p.W1), W2=t(p.W2), convention="row")
    return replace(p, X=t(p.X), W1=t(p.W1), W2=t(p.W2), A=None if p.A is None else t(p.A),
                   heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in p.heads),
                   W_O=None if p.W_O is None else t(p.W_O), convention="row")


def draw_kind_keys(o: KindOptions, keys: list[tuple[int, int]], attention_draw: Callable) -> list:
    """The problems for (seed, index) pairs, in order, each with its sheet code."""
    coders: dict[int, Callable] = {}
    out = []
    for seed, index in keys:
        code = coders.setdefault(seed, coder(o, seed))(index)
        out.append(draw_one(o, seed, index, code, attention_draw))
    return out

