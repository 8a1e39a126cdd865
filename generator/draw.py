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
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Optional

import numpy as np

from generator.codes import BitWriter, CodeError, pack, unpack
from generator.engine import hand_divisor
from generator.errors import AttnsheetError
from generator.problem import Head, Problem, Rules, transpose

CODE_VERSION = 1
"""Version of the draw algorithm and of the code layout; a code carries it."""

CHUNK = 16
"""Candidates tried per round of a stage; part of the algorithm (it decides what is drawn)."""

MAX_ROUNDS = 256
"""Rounds per stage before the search gives up: 4,096 candidates."""

ROW_TRIES = 16
"""Draws per row of W_Q, W_K, W_V; a row keeps the first whose projection fits its window."""

BLOCK = 256
"""Problems drawn in lockstep, so numpy's per-call cost is shared (does not change results)."""

MAX_COUNT = 100_000
"""Most problems in one batch."""

MAX_SEED = 2**63 - 1
"""Largest seed."""


class DrawError(AttnsheetError):
    """Options that are invalid, or guarantees that cannot be met."""


LANES = 4
"""Entries drawn from one 64-bit word: four 16-bit lanes, lowest bits first."""


def lanes(words: np.ndarray, count: int) -> np.ndarray:
    """The first `count` 16-bit lanes of the last axis of `words`, lowest lane of each word first."""
    # An explicit little-endian view, so the order is the same on every machine.
    as_lanes = np.ascontiguousarray(words).astype("<u8", copy=False).view("<u2")
    return as_lanes[..., :count]


def words_for(count: int) -> int:
    """Words holding `count` lanes."""
    return -(-count // LANES)


@dataclass(frozen=True)
class Table:
    """A discrete distribution over small integers, sampled from 16-bit lanes."""

    values: tuple[int, ...]
    """The values, in increasing order."""
    weights: tuple[int, ...]
    """Relative weight of each value."""

    @cached_property
    def lookup(self) -> np.ndarray:
        """Value for each lane u: value k when T[k-1] ≤ u < T[k], T[k] = floor(2^16·(w_0+…+w_k)/Σw)."""
        total = sum(self.weights)
        bounds = [(c << 16) // total for c in np.cumsum(self.weights).tolist()]
        out = np.empty(1 << 16, dtype=np.int16)
        lo = 0
        for value, hi in zip(self.values, bounds):
            out[lo:hi] = value
            lo = hi
        return out

    def sample(self, words: np.ndarray, count: int) -> np.ndarray:
        """`count` values from the lanes of the last axis of `words`."""
        return self.lookup[lanes(words, count)]

    @staticmethod
    def uniform(lo: int, hi: int) -> "Table":
        """Every integer of lo..hi equally likely."""
        return Table(tuple(range(lo, hi + 1)), (1,) * (hi - lo + 1))


@dataclass(frozen=True)
class Preset:
    """Value ranges and guarantees that make a problem workable by hand in a class period."""

    x: Table
    """Distribution of X's entries."""
    w: Table
    """Distribution of every weight matrix's entries."""
    qk: tuple[int, int]
    """Window for every entry of Q and K."""
    v: tuple[int, int]
    """Window for every entry of V."""
    min_scaled: int
    """Smallest scaled score allowed (negative: 3^-1 = 1/3 appears)."""
    max_scaled: int
    """Largest scaled score allowed."""
    min_top: int
    """Each head's largest scaled score is at least this, so every sheet is comparably hard."""
    max_sum: int
    """Largest column sum of the powers."""


# Tuned by drawing thousands and working samples by hand. Zeros are likelier than in a uniform
# draw, and the Q/K/V windows keep projections small: that is what keeps scores hand-sized, and
# it keeps the rejection search short (each row of a weight matrix is redrawn on its own).
PRESETS: dict[str, Preset] = {
    "easy": Preset(x=Table((0, 1), (1, 1)), w=Table((0, 1), (2, 1)), qk=(0, 2), v=(0, 3),
                   min_scaled=0, max_scaled=2, min_top=2, max_sum=30),
    "medium": Preset(x=Table((0, 1, 2), (2, 2, 1)), w=Table((-1, 0, 1), (1, 4, 2)), qk=(0, 2), v=(-2, 3),
                     min_scaled=0, max_scaled=3, min_top=2, max_sum=60),
    "hard": Preset(x=Table((-1, 0, 1, 2), (1, 3, 3, 1)), w=Table((-1, 0, 1, 2), (1, 5, 3, 1)), qk=(-1, 3),
                   v=(-3, 4), min_scaled=-1, max_scaled=4, min_top=3, max_sum=250),
}
PRESET_NAMES = tuple(PRESETS)

LIMITS = {"tokens": (1, 12), "d_model": (1, 16), "d_k": (1, 8), "d_v": (1, 8), "heads": (1, 4)}
"""Shape bounds: beyond them no sheet is workable by hand."""
VALUE_LIMIT = 9
"""--x-range and --w-range stay within -9..9."""
MAX_SCORE_LIMIT = 12
"""--max-score at most 3^12: already far past hand size."""
MAX_SUM_LIMIT = 100_000
"""--max-sum at most this."""


@dataclass(frozen=True)
class DrawOptions:
    """Everything that shapes a draw; a sheet code carries all of it."""

    preset: str = "medium"
    """easy, medium or hard."""
    tokens: int = 4
    """Number of tokens n."""
    d_model: int = 6
    """Features per token."""
    d_k: int = 3
    """Query/key size."""
    d_v: int = 3
    """Value size."""
    heads: int = 1
    """Number of heads."""
    output_projection: bool = False
    """Add a W_O."""
    causal: bool = False
    """Causal mask."""
    convention: str = "column"
    """column (by-hand sheets) or row (PyTorch)."""
    rules: str = "hand"
    """hand (floor + base3) or exact (√d_k + e^x)."""
    x_range: Optional[tuple[int, int]] = None
    """Override: X entries uniform in lo..hi."""
    w_range: Optional[tuple[int, int]] = None
    """Override: weight entries uniform in lo..hi."""
    max_score: Optional[int] = None
    """Override: largest scaled score."""
    max_sum: Optional[int] = None
    """Override: largest column sum of powers."""
    allow_negative_exponents: bool = False
    """Allow scaled scores down to -1 (3^-1 = 1/3)."""

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise DrawError(f"--preset: expected one of {', '.join(PRESETS)}, got {self.preset!r}")
        for name, (lo, hi) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise DrawError(f"--{name.replace('_', '-')}: expected {lo} to {hi}, got {value}")
        if self.convention not in ("column", "row"):
            raise DrawError(f"--convention: expected column or row, got {self.convention!r}")
        if self.rules not in ("hand", "exact"):
            raise DrawError(f"--rules: expected hand or exact, got {self.rules!r}")
        for name in ("x_range", "w_range"):
            r = getattr(self, name)
            if r is not None and not (-VALUE_LIMIT <= r[0] <= r[1] <= VALUE_LIMIT):
                raise DrawError(
                    f"--{name.replace('_', '-')}: expected LO..HI with -{VALUE_LIMIT} ≤ LO ≤ HI ≤ {VALUE_LIMIT}"
                )
        limits = self.limits()
        if self.max_score is not None and not limits.min_scaled <= self.max_score <= MAX_SCORE_LIMIT:
            raise DrawError(
                f"--max-score: expected {limits.min_scaled} to {MAX_SCORE_LIMIT}, got {self.max_score}"
            )
        if self.max_sum is not None and not 1 <= self.max_sum <= MAX_SUM_LIMIT:
            raise DrawError(f"--max-sum: expected 1 to {MAX_SUM_LIMIT}, got {self.max_sum}")

    def limits(self) -> Preset:
        """The preset with every override applied."""
        p = PRESETS[self.preset]
        min_scaled = min(p.min_scaled, -1) if self.allow_negative_exponents else p.min_scaled
        max_scaled = p.max_scaled if self.max_score is None else self.max_score
        return Preset(
            x=p.x if self.x_range is None else Table.uniform(*self.x_range),
            w=p.w if self.w_range is None else Table.uniform(*self.w_range),
            qk=(min(p.qk[0], min_scaled), p.qk[1] + max(0, max_scaled - p.max_scaled)),
            v=p.v,
            min_scaled=min_scaled,
            max_scaled=max_scaled,
            min_top=min(p.min_top, max_scaled),
            max_sum=p.max_sum if self.max_sum is None else self.max_sum,
        )


# --- guarantees, checked on many candidates at once ------------------------------------------

def _room(table: Table) -> bool:
    """Whether a value range can still be widened within -VALUE_LIMIT..VALUE_LIMIT."""
    return min(table.values) > -VALUE_LIMIT or max(table.values) < VALUE_LIMIT


# The options that can relax a guarantee, each with when it would change anything: advice never
# names an option already at its limit, or one the chosen preset makes useless.
RELAXERS: dict[str, Callable[["DrawOptions", Preset], bool]] = {
    "widen --x-range": lambda o, lim: _room(lim.x),
    "narrow --x-range": lambda o, lim: len(lim.x.values) > 2,
    "widen --w-range": lambda o, lim: _room(lim.w),
    "narrow --w-range": lambda o, lim: len(lim.w.values) > 2,
    "use fewer --tokens": lambda o, lim: o.tokens > 1,
    "raise --d-model": lambda o, lim: o.d_model < LIMITS["d_model"][1],
    "lower --d-model": lambda o, lim: o.d_model > 1,
    "lower --d-k": lambda o, lim: o.d_k > 1,
    "raise --max-score": lambda o, lim: lim.max_scaled < MAX_SCORE_LIMIT,
    "lower --max-score": lambda o, lim: lim.max_scaled > max(lim.min_scaled, 0),
    "raise --max-sum": lambda o, lim: lim.max_sum < MAX_SUM_LIMIT,
    "add --allow-negative-exponents": lambda o, lim: lim.min_scaled >= 0,
}

# Each guarantee's wording, and the options that may relax it, for the "cannot draw" message.
GUARANTEES = {
    "x_zero": ("no all-zero row or column in X", ("widen --x-range", "use fewer --tokens")),
    "x_same": ("no two tokens identical", ("widen --x-range", "raise --d-model", "use fewer --tokens")),
    "v_window": ("every row of V varied and within the preset's window", ("narrow --x-range", "narrow --w-range")),
    "v_zero": ("no all-zero column in V", ("widen --w-range", "widen --x-range")),
    "qk_window": ("every row of Q and K non-zero and within the preset's window",
                  ("raise --max-score", "narrow --x-range", "narrow --w-range")),
    "qk_zero": ("no all-zero column in Q or K", ("widen --w-range", "widen --x-range")),
    "high": ("every scaled score at most the --max-score", ("raise --max-score", "lower --d-model", "lower --d-k")),
    "low": ("no scaled score below the smallest allowed", ("add --allow-negative-exponents",)),
    "top": ("each head's largest scaled score reaches the preset's top", ("lower --max-score",)),
    "sum": ("every column sum within --max-sum", ("raise --max-sum", "lower --max-score", "use fewer --tokens")),
    "uniform": ("at least half of the queries attend non-uniformly", ("widen --w-range", "raise --max-score")),
    "heads_same": ("no two heads identical", ("widen --w-range",)),
    "o_zero": ("no all-zero row or column in W_O", ("widen --w-range",)),
}


def advice(name: str, o: "DrawOptions", lim: Preset) -> str:
    """What the user can do about a guarantee that failed, among the options that would help."""
    useful = [relax for relax in GUARANTEES[name][1] if RELAXERS[relax](o, lim)]
    if not useful:
        return "no option relaxes it further for this shape: try a smaller shape or another preset"
    return ", or ".join(useful)


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
        return {"W_V": W_V}, {"v_window": ~complete, "v_zero": _zero_columns(V)}

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
        varied = ((col_max != col_min) & eligible).sum(axis=-1)
        fails = {
            "qk_window": ~complete,
            "qk_zero": _zero_columns(Q) | _zero_columns(K),
            "high": high > lim.max_scaled,
            "low": low < lim.min_scaled,
            "top": high < lim.min_top,
            "sum": (powers.sum(axis=-2) > lim.max_sum * 3**lift).any(axis=-1),
            "uniform": 2 * varied < eligible.sum(),
        }
        if ctx["prev_Q"].shape[1]:
            # Same as an earlier head in all three weight matrices: a copy teaches nothing.
            same_q = (W_Q[:, :, None] == ctx["prev_Q"][:, None]).all(axis=(-2, -1))
            same_k = (W_K[:, :, None] == ctx["prev_K"][:, None]).all(axis=(-2, -1))
            same_v = (ctx["W_V"][:, None] == ctx["prev_V"]).all(axis=(-2, -1))[:, None]
            fails["heads_same"] = (same_q & same_k & same_v).any(axis=-1)
        return {"W_Q": W_Q, "W_K": W_K}, fails

    return 2 * half, check


def _o_stage(o: DrawOptions, lim: Preset) -> tuple[int, Check]:
    d, width = o.d_model, o.heads * o.d_v

    per = words_for(d * width)

    def check(words, ctx):
        W_O = lim.w.sample(words.reshape(-1, CHUNK, per), d * width).reshape(-1, CHUNK, d, width)
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
    raise DrawError(
        f"cannot draw problem {keys[int(pending[0])][1]} of seed {keys[int(pending[0])][0]} in "
        f"{MAX_ROUNDS * CHUNK} tries; the guarantee failed most often ({100 * count // tried}% of tries) "
        f"was: {GUARANTEES[name][0]}; {advice(name, o, lim)}"
    )


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
    return draw_keys(options, [(seed, i) for i in range(start, start + count)])


def draw_keys(options: DrawOptions, keys: list[tuple[int, int]]) -> list[Problem]:
    """The problems for (seed, index) pairs, possibly from many seeds, in order."""
    lim = options.limits()
    problems = []
    for block in range(0, len(keys), BLOCK):
        problems.extend(_draw_block(options, lim, keys[block : block + BLOCK]))
    return problems


def _draw_block(o: DrawOptions, lim: Preset, keys: list[tuple[int, int]]) -> list[Problem]:
    gens = [_stream(seed, index) for seed, index in keys]
    P = len(gens)
    X = _run_stage(gens, _x_stage(o, lim), {}, keys, o, lim)["X"]
    heads: list[dict[str, np.ndarray]] = []
    empty_q = np.zeros((P, 0, o.d_k, o.d_model), dtype=np.int64)
    empty_v = np.zeros((P, 0, o.d_v, o.d_model), dtype=np.int64)
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
        heads.append({"W_Q": qk["W_Q"], "W_K": qk["W_K"], "W_V": W_V})
    W_O = _run_stage(gens, _o_stage(o, lim), {}, keys, o, lim)["W_O"] if o.output_projection else None
    rules = Rules() if o.rules == "hand" else Rules(scale="exact", softmax="e")
    coders: dict[int, Callable[[int], str]] = {}
    problems = []
    for p, (seed, index) in enumerate(keys):
        if seed not in coders:
            coders[seed] = _coder(o, seed)
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


def to_row(problem: Problem) -> Problem:
    """The row-convention twin of a column-convention problem: every matrix transposed."""
    t = transpose
    return replace(
        problem,
        X=t(problem.X),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else t(problem.W_O),
        convention="row",
    )


FRESH_SEED_BITS = 30
"""A fresh seed's size: a billion batches, and default codes of 12 symbols for up to 1,024 sheets."""


def fresh_seed() -> int:
    """A new random seed for a batch."""
    return secrets.randbits(FRESH_SEED_BITS)


# --- sheet codes -----------------------------------------------------------------------------

_SHAPES = ("tokens", "d_model", "d_k", "d_v", "heads")


def encode_code(o: DrawOptions, seed: int, index: int) -> str:
    """The sheet code of problem `index` of the batch drawn with `seed` and options `o`.

    Layout (version 1), most significant bit first: version (3 bits), preset (2), a flag for
    non-default options; if set: tokens-1, d_model-1, d_k-1, d_v-1, heads-1 (Elias gamma),
    output projection, causal, row convention, exact rules (1 bit each), then x range, w range,
    max score, max sum (each a presence bit and its value), allow negative exponents (1 bit);
    then the seed (6-bit length, then its bits) and the index (5-bit length, then its bits).
    """
    return _coder(o, seed)(index)


def _coder(o: DrawOptions, seed: int) -> Callable[[int], str]:
    """Codes for the problems of one batch: the options and seed are packed once."""
    w = BitWriter()
    w.uint(CODE_VERSION, 3)
    w.uint(PRESET_NAMES.index(o.preset), 2)
    custom = replace(o, preset="medium") != DrawOptions()
    w.flag(custom)
    if custom:
        for name in _SHAPES:
            w.gamma(getattr(o, name) - 1)
        for bit in (o.output_projection, o.causal, o.convention == "row", o.rules == "exact"):
            w.flag(bit)
        for r in (o.x_range, o.w_range):
            w.flag(r is not None)
            if r is not None:
                w.signed(r[0])
                w.gamma(r[1] - r[0])
        w.flag(o.max_score is not None)
        if o.max_score is not None:
            w.signed(o.max_score)
        w.flag(o.max_sum is not None)
        if o.max_sum is not None:
            w.gamma(o.max_sum)
        w.flag(o.allow_negative_exponents)
    w.sized(seed, 6)
    prefix = w.bits

    def code(index: int) -> str:
        tail = BitWriter()
        tail.sized(index, 5)
        return pack(prefix + tail.bits)

    return code


@dataclass(frozen=True)
class Decoded:
    """What a sheet code says."""

    options: DrawOptions
    """Every option that shaped the draw."""
    seed: int
    """The batch's seed."""
    index: int
    """The problem's index in the batch."""
    code: str = field(default="")
    """The code, normalised."""


def decode_code(code: str) -> Decoded:
    """Read a sheet code back; a mistyped code or an unknown version is a CodeError."""
    r = unpack(code)
    version = r.uint(3)
    if version == 0:
        # No code was ever of version 0: a run of 2s, or a leading 2 (which the check cannot see).
        raise CodeError(f"{_shown(code)} is not a sheet code")
    if version != CODE_VERSION:
        raise CodeError(
            f"sheet code is of format version {version}, which this attnsheet does not know "
            f"(it reads version {CODE_VERSION}); use the attnsheet that printed it"
        )
    preset_index = r.uint(2)
    if preset_index >= len(PRESET_NAMES):
        raise CodeError("sheet code names an unknown preset")
    values: dict = {"preset": PRESET_NAMES[preset_index]}
    if r.flag():
        for name in _SHAPES:
            values[name] = r.gamma() + 1
        values["output_projection"] = r.flag()
        values["causal"] = r.flag()
        values["convention"] = "row" if r.flag() else "column"
        values["rules"] = "exact" if r.flag() else "hand"
        for name in ("x_range", "w_range"):
            if r.flag():
                lo = r.signed()
                values[name] = (lo, lo + r.gamma())
        if r.flag():
            values["max_score"] = r.signed()
        if r.flag():
            values["max_sum"] = r.gamma()
        values["allow_negative_exponents"] = r.flag()
    seed = r.sized(6)
    index = r.sized(5)
    r.finish()
    try:
        options = DrawOptions(**values)
    except DrawError as error:
        raise CodeError(f"sheet code holds options this attnsheet rejects: {error}") from None
    if seed > MAX_SEED or index >= MAX_COUNT:
        raise CodeError("sheet code is malformed")
    canonical = encode_code(options, seed, index)
    if _bare(canonical) != _bare(code):
        # Another spelling of the same bits (say, default options written out): one sheet, one code.
        raise CodeError(f"{_shown(code)} is not a sheet code as attnsheet prints them; "
                        f"the sheet it describes is {canonical}")
    return Decoded(options, seed, index, canonical)


def _bare(code: str) -> str:
    return "".join(code.split()).replace("-", "").upper()


def _shown(code: str) -> str:
    """A typed code, safe and short for a message."""
    return repr(code[:40])


def draw_code(code: str) -> Problem:
    """Rebuild exactly the problem a sheet code was printed for."""
    d = decode_code(code)
    return draw(d.options, d.seed, count=1, start=d.index)[0]
