"""What every kind's seeded draw shares: a problem's streams, arrays sampled from them through a preset's tables, the shape a kind takes, codes packed once a seed."""

from __future__ import annotations

import math
from typing import Callable, Collection, Optional

import numpy as np

from generator.draw.options import Table, words_for


def stream(seed: int, index: int, part: int = 0) -> np.random.PCG64:
    """Problem `index`'s stream `part` of the batch drawn with `seed`."""
    key = (index,) if part == 0 else (index, part)
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key))


def sample(bits: np.random.PCG64, table: Table, shape: tuple[int, ...]) -> np.ndarray:
    """An array of `shape` of the table's values, from the stream's next words."""
    count = math.prod(shape)
    return table.sample(bits.random_raw(words_for(count)), count).astype(np.int64).reshape(shape)


def draw_inputs(
    bits: np.random.PCG64,
    table: Table,
    d: int,
    n: int,
    distinct: bool,
    refusal: str,
    candidates: int = 64,
    rounds: int = 64,
) -> np.ndarray:
    """X (d × n), a round of `candidates` at a time: no token all zero, no feature zero for every
    token, and, where `distinct`, no two tokens alike; DrawError (`refusal`) if no round gives one."""
    from generator.draw.options import DrawError

    for _ in range(rounds):
        for X in sample(bits, table, (candidates, d, n)):
            if (
                X.any(axis=0).all()
                and X.any(axis=1).all()
                and (not distinct or len({tuple(c) for c in X.T.tolist()}) == n)
            ):
                return X
    raise DrawError(refusal)


def inputs_then(o, seed: int, index: int, table: Table, rest: Callable, refusal: str, retries: int = 16) -> tuple:
    """Fresh inputs X (o.d_model × o.tokens: no token all zero, no feature zero for every token)
    from problem `index`'s stream until `rest(bits, X)` (reading the stream (index, 1)) finds what
    the guarantees ask: (X, what it found); DrawError (`refusal`) after `retries` fresh X."""
    from generator.draw.options import DrawError

    bits, rest_bits = stream(seed, index), stream(seed, index, 1)
    for _ in range(retries):
        X = draw_inputs(bits, table, o.d_model, o.tokens, False, refusal)
        found = rest(rest_bits, X)
        if found is not None:
            return X, found
    raise DrawError(refusal)


def first_hit(ok: np.ndarray) -> Optional[int]:
    """The first of a round's candidates that meets every guarantee (`ok`: one flag each), or None."""
    hits = np.flatnonzero(ok)
    return int(hits[0]) if hits.size else None


def as_matrix(a: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """An array as a problem's matrix of ints."""
    return tuple(tuple(int(x) for x in r) for r in a.tolist())


def shape_of(values: dict, given: Collection[str], defaults: dict) -> dict:
    """The shape settings a kind takes: those given, else the kind's own defaults."""
    return {
        name: values[name] if name in given and values.get(name) is not None else default
        for name, default in defaults.items()
    }


def keyed(o, keys: list[tuple[int, int]], one: Callable) -> list:
    """`one(seed, index, code)` for each (seed, index), its code packed once per seed."""
    from generator.draw.sheetcodes import coder

    coders: dict[int, Callable] = {}
    return [one(seed, index, coders.setdefault(seed, coder(o, seed))(index)) for seed, index in keys]
