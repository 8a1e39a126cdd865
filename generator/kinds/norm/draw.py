"""Normalisation's draw: its options and presets, its guarantees (every variance the square of a fraction and none 0, hand-sized fractions), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: the inputs from spawn key
(index,), a layer before the norm from (index, 1), the gains and shifts from (index, 2). Each
line the norm works on (a feature's row, or an example's column) is chosen from CANDIDATES at a
time, its variance checked exactly: σ is then a fraction a student can write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from generator.core.schema import twin
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, DrawError, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, draw_inputs, sample, stream
from generator.kinds.norm.settings import DEFAULT_SHAPE
from generator.kinds.norm.steps import AXES, GIVENS, NormProblem, solve

CANDIDATES, ROUNDS, RETRIES = 64, 64, 16
"""Lines (or layers) drawn at once; rounds of them before a fresh X; fresh X before the draw gives up."""

GUARANTEES = {
    "lines": "every line the norm works on (a feature over the batch, or an example over its features) has a "
    "variance that is the square of a nonzero fraction, σ exact, N's fractions within the preset's "
    "denominator, and (without a layer before the norm) an N other than ±1; a layer before it with no dead unit "
    "and no two units alike",
    "output": "gamma·N + beta within the preset's bounds",
}

SHAPE_LIMITS = {"tokens": (1, 4), "d_model": (1, 4), "d_in": (1, 4)}
"""Shapes a norm is worked by hand in (a batch norm over 4 examples, a layer norm over 4 features)."""


@dataclass(frozen=True)
class NormPreset(Tables):
    """Value ranges and bounds that keep a norm's arithmetic hand-sized (x, w and b: the inputs' and the layer's tables)."""

    gamma: Table
    """Distribution of the gains."""
    beta: Table
    """Distribution of the shifts."""
    den: int
    """Largest denominator of N."""
    y: int
    """Largest |entry| of Y."""


PRESETS = {
    "easy": NormPreset(
        x=Table((0, 1, 2, 3, 4), (2, 2, 2, 2, 2)),
        w=Table((-1, 0, 1), (2, 2, 3)),
        b=Table((-1, 0, 1), (1, 2, 1)),
        gamma=Table((1, 2), (1, 1)),
        beta=Table((-1, 0, 1), (1, 2, 1)),
        den=3,
        y=8,
    ),
    "medium": NormPreset(
        x=Table((-2, -1, 0, 1, 2, 3, 4, 5), (1, 2, 2, 2, 2, 2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        gamma=Table((1, 2, 3), (2, 2, 1)),
        beta=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        den=6,
        y=12,
    ),
    "hard": NormPreset(
        x=Table((-3, -2, -1, 0, 1, 2, 3, 4, 5, 6), (1,) * 10),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        gamma=Table((-1, 1, 2, 3), (1, 2, 2, 1)),
        beta=Table((-3, -2, -1, 0, 1, 2, 3), (1,) * 7),
        den=12,
        y=20,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="norm",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 1), ("d_model", 1), ("d_in", 1)),
    flags=("layer_before",),
    choices=(("axis", AXES),),
):
    """Everything that shapes a norm's draw; a sheet code carries all of it."""

    tokens: int = 4
    """Examples n."""
    d_in: int = 2
    """A layer before the norm: its inputs' size d_0."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    layer_before: bool = False
    """A layer (Z = [W | b]·[X ; 1], H = ReLU(Z)) before the norm."""
    axis: str = "batch"
    """batch: each feature over the batch; layer: each example over its features."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 17; the numbers drawn are the same)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        # Three whole numbers' squared deviations sum to 2(p² + pq + q²)/3 (p, q their differences),
        # never 3·9 times a square: their σ is never a fraction. Two make every N ±1.
        if self.layer_before and self.axis == "layer":
            # Every example of a ReLU layer's output with an exact σ, no unit dead or alike: none found by search.
            raise DrawError(
                "--layer-before: a layer norm's examples after a ReLU layer cannot be drawn with every σ "
                "exact; use --axis batch, or give the problem yourself (--problem FILE)"
            )
        flag, size = ("--tokens", self.tokens) if self.axis == "batch" else ("--d-model", self.d_model)
        if size != 4:
            what = "examples" if self.axis == "batch" else "features"
            raise DrawError(
                f"{flag} {size}: a {self.axis} norm works over 4 {what} (the variance of 3 whole numbers "
                f"is never the square of a fraction, and 2 make every N ±1)"
            )


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
read_code = code_reader(Options)


def options(values: dict, given=()) -> Options:
    """The options of the settings by name: its shape its own where none was given, a layer norm's 4 features."""
    if values.get("axis") == "layer" and "d_model" not in given:
        values, given = {**values, "d_model": 4}, {*given, "d_model"}
    return options_for(Options, DEFAULT_SHAPE)(values, given)


code_head, manifest = shaped.code_head, shaped.manifest


def lines_exact(lines: np.ndarray, den: int, two_levels: bool = False) -> np.ndarray:
    """For each line (the last axis) whether its variance is the square of a nonzero fraction,
    each D/σ has a denominator of at most `den` and (unless `two_levels`) one is not ±1.

    Over whole numbers: with s1 = Σx, s2 = Σx² and L entries, L²·var = L·s2 − s1², so σ = √(L·s2 −
    s1²)/L is a fraction exactly where L·s2 − s1² is a square r², and N = (L·x − s1)/r."""
    size = lines.shape[-1]
    s1, s2 = lines.sum(axis=-1), (lines * lines).sum(axis=-1)
    spread = size * s2 - s1 * s1
    r = np.rint(np.sqrt(np.maximum(spread, 0))).astype(np.int64)
    ok = (spread > 0) & (r * r == spread)
    tops = size * lines - s1[..., None]
    safe = np.where(ok, r, 1)[..., None]
    ok &= (safe // np.gcd(tops, safe) <= den).all(axis=-1)
    if not two_levels:
        ok &= ~(np.abs(tops) == safe).all(axis=-1)
    return ok


def draw_lines(bits: np.random.PCG64, o: Options, lim: NormPreset) -> Optional[np.ndarray]:
    """The inputs (d × n), line by line, each line's σ exact and one of its N not ±1; None if a
    line cannot be found."""
    count, size = (o.d_model, o.tokens) if o.axis == "batch" else (o.tokens, o.d_model)
    lines = []
    for _ in range(count):
        for _ in range(ROUNDS):
            candidates = sample(bits, lim.x, (CANDIDATES, size))
            hits = np.flatnonzero(lines_exact(candidates, lim.den))
            if hits.size:
                lines.append(candidates[hits[0]])
                break
        else:
            return None
    grid = np.array(lines, dtype=np.int64)
    return grid if o.axis == "batch" else grid.T


def draw_layer(bits: np.random.PCG64, o: Options, lim: NormPreset, X: np.ndarray) -> Optional[tuple]:
    """A layer (W, b) on X whose ReLU output has every line's σ exact; None if no round gives one.
    A batch norm's lines are the layer's units, each drawn on its own; a layer norm's are the
    examples, which every unit makes together. No unit is dead or the same as another. ReLU's
    zeros leave few lines with an exact σ: a line of two levels (every N ±1) is taken here."""
    units = 1 if o.axis == "batch" else o.d_model
    rows: list[tuple] = []
    while sum(len(w) for w, _ in rows) < o.d_model:
        for _ in range(ROUNDS):
            W = sample(bits, lim.w, (CANDIDATES, units, o.d_in))
            b = sample(bits, lim.b, (CANDIDATES, units))
            H = np.maximum(np.einsum("kij,jn->kin", W, X) + b[:, :, None], 0)
            lines = H if o.axis == "batch" else H.transpose(0, 2, 1)
            ok = lines_exact(lines, lim.den, two_levels=True).all(axis=1) & H.any(axis=2).all(axis=1)  # no dead unit
            # No unit the same as another (drawn before, or beside it).
            for w, c in rows:
                ok &= ~(H[:, :, None, :] == np.maximum(w @ X + c[:, None], 0)[None, None]).all(axis=3).any(axis=(1, 2))
            if units > 1:
                same = (H[:, :, None, :] == H[:, None, :, :]).all(axis=3)
                ok &= same.sum(axis=(1, 2)) == units
            hits = np.flatnonzero(ok)
            if hits.size:
                rows.append((W[hits[0]], b[hits[0]]))
                break
        else:
            return None
    W, b = np.concatenate([w for w, _ in rows]), np.concatenate([c for _, c in rows])
    return W, b, np.maximum(W @ X + b[:, None], 0)


def draw_one(o: Options, seed: int, index: int, code: str) -> NormProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    bits, layer_bits, gain_bits = stream(seed, index), stream(seed, index, 1), stream(seed, index, 2)
    W = b = None
    if o.layer_before:
        found = None
        for _ in range(RETRIES):
            X = draw_inputs(bits, lim.x, o.d_in, o.tokens, False, f"cannot draw X: {GUARANTEES['lines']}")
            found = draw_layer(layer_bits, o, lim, X)
            if found is not None:
                break
        if found is None:
            raise DrawError(
                f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['lines']}; "
                "try another preset or no layer before the norm"
            )
        W, b, _ = found
    else:
        X = draw_lines(bits, o, lim)
        if X is None:
            raise DrawError(
                f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['lines']}; try another preset"
            )
    for _ in range(ROUNDS):
        gamma, beta = sample(gain_bits, lim.gamma, (o.d_model,)), sample(gain_bits, lim.beta, (o.d_model,))
        p = NormProblem(
            X=as_matrix(X),
            gamma=tuple(int(x) for x in gamma),
            beta=tuple(int(x) for x in beta),
            W=None if W is None else as_matrix(W),
            b=None if b is None else tuple(int(x) for x in b),
            axis=o.axis,
            code=code,
        )
        if all(x is not None and abs(x) <= lim.y for r in solve(p)["Y"] for x in r):
            return twin(p, GIVENS, o.convention)
    raise DrawError(f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['output']}")


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> NormProblem:
    """A blank norm of the shape of `o` (a blank template prints none of its numbers)."""
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    p = NormProblem(
        X=zeros(o.d_in if o.layer_before else o.d_model, o.tokens),
        gamma=(0,) * o.d_model,
        beta=(0,) * o.d_model,
        W=zeros(o.d_model, o.d_in) if o.layer_before else None,
        b=(0,) * o.d_model if o.layer_before else None,
        axis=o.axis,
    )
    return twin(p, GIVENS, o.convention)
