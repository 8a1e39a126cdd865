"""Attention's seeded, hand-friendly draw: the staged, bounded search that meets every guarantee.

Randomness lives in the kinds' draws alone. Problem `index` of a batch drawn with `seed` comes from its
own stream, PCG64(SeedSequence(seed, spawn_key=(index,))), read only through `random_raw`
(whose words numpy promises to keep stable) and turned into matrix entries by this module's
own arithmetic, so a code printed on a sheet rebuilds that sheet after library upgrades.

The search draws the problem in stages (`stages`) — X; then for each head W_V, then W_Q with
W_K; then W_O — each stage trying CHUNK candidates at a time, in stream order, and keeping the
first that meets every guarantee of that stage. A stage gives up after MAX_ROUNDS rounds;
the problem is then drawn again from X, from where its stream stopped, up to RETRIES times
(a first X can leave no weights that work: some tokens too alike, or too large). Only a problem
that no try draws fails, naming the guarantee that failed most often in its first try.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Optional

import numpy as np

from generator.kinds.attention.draw.presets import GUARANTEES, DrawOptions, Preset, advice
from generator.kinds.attention.draw.stages import CHUNK, Check, o_stage, qk_stage, v_stage, x_stage
from generator.kinds.attention.problem import Head, Problem, to_row
from generator.core.problem import Rules
from generator.draw.options import Infeasible
from generator.draw.sheetcodes import coder

MAX_ROUNDS = 256
"""Rounds per stage before the search gives up: 4,096 candidates."""

RETRIES = 24
"""Fresh draws from X after a problem's first try fails. A problem its first try draws is
drawn as before: retrying changes only problems that would have failed."""

RETRY_ROUNDS = 16
"""Rounds per stage in a retry: a sixteenth of the first try (a fresh X matters more than rounds)."""

BLOCK = 256
"""Problems drawn in lockstep, so numpy's per-call cost is shared (does not change results)."""


def _run_stage(
    gens: list,
    stage: tuple[int, Check],
    ctx: dict,
    keys: list[tuple[int, int]],
    o: DrawOptions,
    lim: Preset,
    rounds: int = MAX_ROUNDS,
) -> dict:
    """For each stream, the first candidate in stream order that fails no guarantee.

    A stage is the number of words one round reads from each stream, and a check that turns
    those words (P, words) into CHUNK candidates per stream and their failed guarantees.
    """
    n_words, check = stage
    pending = np.arange(len(gens))
    chosen: dict[str, np.ndarray] = {}
    failures: Counter = Counter()
    tried = 0  # candidates checked, over every stream
    for _ in range(rounds):
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
        f"cannot draw problem {key[1]} of seed {key[0]} in {rounds * CHUNK} tries; the guarantee failed most "
        f"often ({100 * count // tried}% of tries) was: {GUARANTEES[name][0]}; {advice(name, o, lim)}",
        name,
        key,
    )


def _stream(seed: int, index: int) -> np.random.PCG64:
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,)))


def _matrix(a: np.ndarray) -> tuple[tuple[int, ...], ...]:
    return tuple(map(tuple, a.tolist()))


def draw_keys(options: DrawOptions, keys: list[tuple[int, int]], retries: int = RETRIES) -> list[Problem]:
    """The problems for (seed, index) pairs, possibly from many seeds, in order; `retries`
    fresh draws from X for a problem whose first try fails."""
    lim = options.limits()
    problems = []
    for block in range(0, len(keys), BLOCK):
        problems.extend(_draw_block(options, lim, keys[block : block + BLOCK], retries))
    return problems


def _heads(
    gens: list, X: np.ndarray, keys: list[tuple[int, int]], o: DrawOptions, lim: Preset, rounds: int, cap: int = 1
) -> tuple[list[dict[str, np.ndarray]], np.ndarray]:
    """Every head of each stream's problem, and per query the lcm of the heads' column sums, or
    `cap` where it is more (so that it never overflows)."""
    P = len(gens)
    heads: list[dict[str, np.ndarray]] = []
    empty_q = np.zeros((P, 0, o.d_k, o.d_model), dtype=np.int64)
    empty_v = np.zeros((P, 0, o.d_v, o.d_model), dtype=np.int64)
    denominators = np.ones((P, o.tokens), dtype=np.int64)
    for h in range(o.heads):
        W_V = _run_stage(gens, v_stage(o, lim), {"X": X}, keys, o, lim, rounds)["W_V"]
        ctx = {
            "X": X,
            "W_V": W_V,
            "prev_Q": np.stack([x["W_Q"] for x in heads], axis=1) if heads else empty_q,
            "prev_K": np.stack([x["W_K"] for x in heads], axis=1) if heads else empty_q,
            "prev_V": np.stack([x["W_V"] for x in heads], axis=1) if heads else empty_v,
        }
        qk = _run_stage(gens, qk_stage(o, lim), ctx, keys, o, lim, rounds)
        denominators = np.minimum(np.lcm(denominators, qk["sums"]), cap)
        heads.append({"W_Q": qk["W_Q"], "W_K": qk["W_K"], "W_V": W_V})
    return heads, denominators


OUTPUT_BOUND = 2
"""With several heads and W_O, the output's denominators are at most this many times --max-sum
per head (two heads: 4 × --max-sum); Z's are at most --max-sum."""

OUTPUT_ROUNDS = 256
"""Tries at a whole set of heads whose output stays within that bound, per problem."""


def _bounded_heads(
    gens: list, X: np.ndarray, keys: list[tuple[int, int]], o: DrawOptions, lim: Preset, rounds: int
) -> list[dict[str, np.ndarray]]:
    """Every head of every problem; with several heads meeting in W_O, drawn again (all of them,
    from the problem's own stream) until the output's denominators are hand-sized."""
    if not o.bounds_output:
        return _heads(gens, X, keys, o, lim, rounds)[0]
    # The output mixes every head's Z: its denominators divide the lcm of the heads' column sums
    # for each query (A = powers / sum). The heads are drawn one after another, so a bad first
    # head cannot be mended by the next: a failing set is drawn again whole.
    lift = max(0, -lim.min_scaled)
    bound = OUTPUT_BOUND * o.heads * lim.max_sum * 3**lift  # the sums are counted in units of 3^-lift
    pending = np.arange(len(gens))
    chosen: Optional[list[dict[str, np.ndarray]]] = None
    sets = OUTPUT_ROUNDS * rounds // MAX_ROUNDS
    for _ in range(sets):
        heads, denominators = _heads(
            [gens[p] for p in pending], X[pending], [keys[p] for p in pending], o, lim, rounds, cap=bound + 1
        )
        ok = (denominators <= bound).all(axis=-1)
        if chosen is None:
            chosen = [
                {name: np.zeros((len(gens), *a.shape[1:]), dtype=a.dtype) for name, a in h.items()} for h in heads
            ]
        for kept, h in zip(chosen, heads):
            for name, a in h.items():
                kept[name][pending[ok]] = a[ok]
        pending = pending[~ok]
        if not len(pending):
            return chosen
    seed, index = keys[int(pending[0])]
    raise Infeasible(
        f"cannot draw problem {index} of seed {seed} in {sets} sets of heads; the guarantee "
        f"that failed was: {GUARANTEES['o_denominators'][0]}; {advice('o_denominators', o, lim)}",
        "o_denominators",
        (seed, index),
    )


Drawn = tuple[np.ndarray, list[dict[str, np.ndarray]], Optional[np.ndarray]]
"""Each stream's X, heads (W_Q, W_K, W_V stacked) and W_O (or None)."""


def _try(gens: list, keys: list[tuple[int, int]], o: DrawOptions, lim: Preset, rounds: int) -> Drawn:
    """Every stream's problem, drawn in lockstep from where each stream stands."""
    X = _run_stage(gens, x_stage(o, lim), {}, keys, o, lim, rounds)["X"]
    heads = _bounded_heads(gens, X, keys, o, lim, rounds)
    W_O = _run_stage(gens, o_stage(o, lim), {}, keys, o, lim, rounds)["W_O"] if o.output_projection else None
    return X, heads, W_O


def _retried(key: tuple[int, int], o: DrawOptions, lim: Preset, retries: int) -> Drawn:
    """One problem, its first try and then up to `retries` more, each from where the stream
    stopped; the first try's failure if none draws it."""
    gens = [_stream(*key)]
    try:
        return _try(gens, [key], o, lim, MAX_ROUNDS)
    except Infeasible as first:
        # The output's bound fails for the heads, not for X, and a whole set of heads is dear.
        for _ in range(0 if first.guarantee == "o_denominators" else retries):
            try:
                return _try(gens, [key], o, lim, RETRY_ROUNDS)
            except Infeasible:
                pass
        raise first from None


def _drawn(o: DrawOptions, lim: Preset, keys: list[tuple[int, int]], retries: int) -> Drawn:
    """The block's problems: in lockstep, or, where that fails (and always for one problem),
    each alone with its retries."""
    if len(keys) > 1:
        try:
            return _try([_stream(seed, index) for seed, index in keys], keys, o, lim, MAX_ROUNDS)
        except Infeasible:
            if not retries:
                raise
    # Streams are independent, so a problem drawn alone is the one the block drew, and the one
    # that failed gets its retries.
    alone = [_retried(key, o, lim, retries) for key in keys]
    heads = [{name: np.concatenate([a[1][h][name] for a in alone]) for name in alone[0][1][h]} for h in range(o.heads)]
    return (
        np.concatenate([a[0] for a in alone]),
        heads,
        np.concatenate([a[2] for a in alone]) if o.output_projection else None,
    )


def _draw_block(o: DrawOptions, lim: Preset, keys: list[tuple[int, int]], retries: int) -> list[Problem]:
    X, heads, W_O = _drawn(o, lim, keys, retries)
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
