"""Seeded, hand-friendly problem drawing: presets, guarantees, bounded search, sheet codes.

The one module with randomness. Problem `index` of a batch drawn with `seed` comes from its
own stream, PCG64(SeedSequence(seed, spawn_key=(index,))), read only through `random_raw`
(whose words numpy promises to keep stable) and turned into matrix entries by this module's
own arithmetic, so a code printed on a sheet rebuilds that sheet after library upgrades.

The search draws the problem in stages — X; then for each head W_V, then W_Q with W_K;
then W_O — each stage trying CHUNK candidates at a time, in stream order, and keeping the
first that meets every guarantee of that stage. A stage gives up after MAX_ROUNDS rounds and
names the guarantee that failed most often, with the option that relaxes it.
"""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Callable, Optional

import numpy as np

from generator.core.engine import hand_divisor
from generator.core.problem import Head, Problem, Rules, to_row
from generator.draw.options import (
    GUARANTEES,
    MAX_COUNT,
    MAX_SEED,
    DrawError,
    DrawOptions,
    Infeasible,
    Preset,
    Table,
    advice,
    words_for,
)
from generator.draw.sheetcodes import coder, decode_code

CHUNK = 16
"""Candidates tried per round of a stage; part of the algorithm (it decides what is drawn)."""

MAX_ROUNDS = 256
"""Rounds per stage before the search gives up: 4,096 candidates."""

ROW_TRIES = 16
"""Draws per row of W_Q, W_K, W_V; a row keeps the first whose projection fits its window."""

BLOCK = 256
"""Problems drawn in lockstep, so numpy's per-call cost is shared (does not change results)."""


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


def _x_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, n = o.d_model, o.tokens

    per = words_for(d * n)

    def check(words, ctx):
        X = lim.x.sample(words.reshape(-1, CHUNK, per), d * n).reshape(-1, CHUNK, d, n)
        fails = {"x_zero": _zero_lines(X), "x_same": _same_columns(X)}
        return {"X": X}, fails

    return CHUNK * per, check


def _row_pool(
    words: np.ndarray, table: Table, X: np.ndarray, window: tuple[int, int], rows: int, varied: bool = False
):
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


def _v_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, dv = o.d_model, o.d_v

    def check(words, ctx):
        # A constant row of V would make its row of Z trivially that constant.
        W_V, V, complete = _row_pool(words, lim.w, ctx["X"], lim.v, dv, varied=o.tokens > 1)
        zero = np.zeros(complete.shape, dtype=bool) if lim.zero_v else _zero_columns(V)
        return {"W_V": W_V}, {"v_window": ~complete, "v_zero": zero}

    return words_for(CHUNK * dv * d), check


def _qk_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
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


def _o_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, width = o.d_model, o.heads * o.d_v

    per = words_for(d * width)

    def check(words, ctx):
        W_O = (lim.o_w or lim.w).sample(words.reshape(-1, CHUNK, per), d * width).reshape(-1, CHUNK, d, width)
        return {"W_O": W_O}, {"o_zero": _zero_lines(W_O)}

    return CHUNK * per, check


def _run_stage(gens: list, stage: tuple[int, Check], ctx: dict, keys: list[tuple[int, int]],
               o: DrawOptions, lim: Preset) -> dict:
    """For each stream, the first candidate in stream order that fails no guarantee.

    A stage is the number of words one round reads from each stream, and a check that turns
    those words (P, words) into CHUNK candidates per stream and their failed guarantees.
    """
    n_words, check = stage
    pending = np.arange(len(gens))
    chosen: dict[str, np.ndarray] = {}
    failures: Counter = Counter()
    tried = 0  # candidates checked, over every stream
    for _ in range(MAX_ROUNDS):
        words = np.stack([gens[p].random_raw(n_words) for p in pending])
        candidates, fails = check(words, {k: v[pending] for k, v in ctx.items()})
        bad = np.zeros(next(iter(fails.values())).shape, dtype=bool)  # (pending, candidates)
        for name, mask in fails.items():
            bad |= mask
            failures[name] += int(mask.sum())
        tried += bad.size
        ok = ~bad
        found = ok.any(axis=1)
        first = ok.argmax(axis=1)
        for name, values in candidates.items():
            if name not in chosen:
                chosen[name] = np.zeros((len(gens), *values.shape[2:]), dtype=values.dtype)
            chosen[name][pending[found]] = values[found, first[found]]
        pending = pending[~found]
        if not len(pending):
            return chosen
    name, count = failures.most_common(1)[0]
    key = keys[int(pending[0])]
    raise Infeasible(
        f"cannot draw problem {key[1]} of seed {key[0]} in {MAX_ROUNDS * CHUNK} tries; the guarantee failed most "
        f"often ({100 * count // tried}% of tries) was: {GUARANTEES[name][0]}; {advice(name, o, lim)}", name, key)


def _stream(seed: int, index: int) -> np.random.PCG64:
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,)))


def _matrix(a: np.ndarray) -> tuple[tuple[int, ...], ...]:
    return tuple(map(tuple, a.tolist()))


def draw(options: DrawOptions, seed: int, count: int = 1, start: int = 0) -> list[Problem]:
    """Problems start..start+count-1 of the batch drawn with `seed`, each with its sheet code."""
    if not 0 <= seed <= MAX_SEED:
        raise DrawError(f"--seed: expected 0 to {MAX_SEED}, got {seed}")
    if not 1 <= count <= MAX_COUNT:
        raise DrawError(f"--count: expected 1 to {MAX_COUNT}, got {count}")
    if start < 0 or start + count > MAX_COUNT:
        raise DrawError(f"problem index out of range: at most {MAX_COUNT - 1}")
    try:
        return draw_keys(options, [(seed, i) for i in range(start, start + count)])
    except Infeasible as error:
        from generator.draw.remedy import remedy  # only when a draw fails

        raise DrawError(remedy(error, options, seed, start + count)) from None


def draw_keys(options: DrawOptions, keys: list[tuple[int, int]]) -> list[Problem]:
    """The problems for (seed, index) pairs, possibly from many seeds, in order."""
    lim = options.limits()
    problems = []
    for block in range(0, len(keys), BLOCK):
        problems.extend(_draw_block(options, lim, keys[block : block + BLOCK]))
    return problems


def _heads(gens: list, X: np.ndarray, keys: list[tuple[int, int]], o: DrawOptions, lim: Preset,
           cap: int = 1) -> tuple[list[dict[str, np.ndarray]], np.ndarray]:
    """Every head of each stream's problem, and per query the lcm of the heads' column sums, or
    `cap` where it is more (so that it never overflows)."""
    P = len(gens)
    heads: list[dict[str, np.ndarray]] = []
    empty_q = np.zeros((P, 0, o.d_k, o.d_model), dtype=np.int64)
    empty_v = np.zeros((P, 0, o.d_v, o.d_model), dtype=np.int64)
    denominators = np.ones((P, o.tokens), dtype=np.int64)
    for h in range(o.heads):
        W_V = _run_stage(gens, _v_stage(o, lim), {"X": X}, keys, o, lim)["W_V"]
        ctx = {
            "X": X,
            "W_V": W_V,
            "prev_Q": np.stack([x["W_Q"] for x in heads], axis=1) if heads else empty_q,
            "prev_K": np.stack([x["W_K"] for x in heads], axis=1) if heads else empty_q,
            "prev_V": np.stack([x["W_V"] for x in heads], axis=1) if heads else empty_v,
        }
        qk = _run_stage(gens, _qk_stage(o, lim), ctx, keys, o, lim)
        denominators = np.minimum(np.lcm(denominators, qk["sums"]), cap)
        heads.append({"W_Q": qk["W_Q"], "W_K": qk["W_K"], "W_V": W_V})
    return heads, denominators


OUTPUT_BOUND = 2
"""With several heads and W_O, the output's denominators are at most this many times --max-sum
per head (two heads: 4 × --max-sum); Z's are at most --max-sum."""

OUTPUT_ROUNDS = 256
"""Tries at a whole set of heads whose output stays within that bound, per problem."""


def _bounded_heads(gens: list, X: np.ndarray, keys: list[tuple[int, int]], o: DrawOptions,
                   lim: Preset) -> list[dict[str, np.ndarray]]:
    """Every head of every problem; with several heads meeting in W_O, drawn again (all of them,
    from the problem's own stream) until the output's denominators are hand-sized."""
    if not o.bounds_output:
        return _heads(gens, X, keys, o, lim)[0]
    # The output mixes every head's Z: its denominators divide the lcm of the heads' column sums
    # for each query (A = powers / sum). The heads are drawn one after another, so a bad first
    # head cannot be mended by the next: a failing set is drawn again whole.
    lift = max(0, -lim.min_scaled)
    bound = OUTPUT_BOUND * o.heads * lim.max_sum * 3**lift  # the sums are counted in units of 3^-lift
    pending = np.arange(len(gens))
    chosen: Optional[list[dict[str, np.ndarray]]] = None
    for _ in range(OUTPUT_ROUNDS):
        heads, denominators = _heads([gens[p] for p in pending], X[pending], [keys[p] for p in pending], o, lim,
                                     cap=bound + 1)
        ok = (denominators <= bound).all(axis=-1)
        if chosen is None:
            chosen = [{name: np.zeros((len(gens), *a.shape[1:]), dtype=a.dtype) for name, a in h.items()}
                      for h in heads]
        for kept, h in zip(chosen, heads):
            for name, a in h.items():
                kept[name][pending[ok]] = a[ok]
        pending = pending[~ok]
        if not len(pending):
            return chosen
    seed, index = keys[int(pending[0])]
    raise Infeasible(f"cannot draw problem {index} of seed {seed} in {OUTPUT_ROUNDS} sets of heads; the guarantee "
                     f"that failed was: {GUARANTEES['o_denominators'][0]}; {advice('o_denominators', o, lim)}",
                     "o_denominators", (seed, index))
def _draw_block(o: DrawOptions, lim: Preset, keys: list[tuple[int, int]]) -> list[Problem]:
    gens = [_stream(seed, index) for seed, index in keys]
    X = _run_stage(gens, _x_stage(o, lim), {}, keys, o, lim)["X"]
    heads = _bounded_heads(gens, X, keys, o, lim)
    W_O = _run_stage(gens, _o_stage(o, lim), {}, keys, o, lim)["W_O"] if o.output_projection else None
    rules = Rules() if o.rules == "hand" else Rules(scale="exact", softmax="e")
    coders: dict[int, Callable[[int], str]] = {}
    problems = []
    for p, (seed, index) in enumerate(keys):
        if seed not in coders:
            coders[seed] = coder(o, seed)
        problem = Problem(
            X=_matrix(X[p]),
            heads=tuple(Head(_matrix(x["W_Q"][p]), _matrix(x["W_K"][p]), _matrix(x["W_V"][p])) for x in heads),
            W_O=None if W_O is None else _matrix(W_O[p]),
            rules=rules,
            causal=o.causal,
            code=coders[seed](index),
        )
        problems.append(to_row(problem) if o.convention == "row" else problem)
    return problems


FRESH_SEED_BITS = 30
"""A fresh seed's size: a billion batches, and default codes of 12 symbols for up to 1,024 sheets."""


def fresh_seed() -> int:
    """A new random seed for a batch."""
    return secrets.randbits(FRESH_SEED_BITS)


def draw_code(code: str) -> Problem:
    """Rebuild exactly the problem a sheet code was printed for."""
    d = decode_code(code)
    return draw(d.options, d.seed, count=1, start=d.index)[0]
