"""The feed-forward layer's draw: its options and presets, its guarantees (ReLU matters, hand-sized layers), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: X from
PCG64(SeedSequence(seed, spawn_key=(index,))), the layers from spawn_key (index, 1); entries
come from `random_raw` words through the presets' tables, so a printed code rebuilds its sheet.
Each stage tries CANDIDATES at a time and keeps the first that meets every guarantee. The
transformer block draws its layers with these, on its R.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Collection

import numpy as np

from generator.kinds.ffn.steps import FFNProblem
from generator.core.problem import transpose
from generator.draw.shaped import Layered
from generator.draw.options import PRESET_NAMES, DrawError, Table, Tables
from generator.draw.streams import as_matrix, draw_inputs, keyed, sample, shape_of, stream
from generator.kinds.ffn.settings import DEFAULT_SHAPE, TAKES

CANDIDATES = 64
"""Candidates drawn and checked at once (numpy's per-call cost shared)."""
ROUNDS = 64
"""Rounds of candidates per stage before a fresh X is drawn."""
RETRIES = 16
"""Fresh X before the draw gives up on a problem."""

GUARANTEES = {
    "x": "X's tokens all differ, none all zero, no feature zero for every token",
    "layer1": "H_pre has a negative and a positive entry (ReLU matters), every hidden unit fires for some token, "
    "and |H_pre| stays within the preset's bound",
    "layer2": "Y and out stay within the preset's bound",
}

SHAPE_LIMITS = {"tokens": (2, 8), "d_model": (1, 6), "d_ff": (1, 6)}
"""Shapes a feed-forward layer is worked by hand in (it doubles every grid of attention's)."""

SETTINGS = TAKES
"""The settings its draw takes."""

LEGACY_INDEX = 1
"""Its kind field in a version-4 code (the layout of the first kinds after attention)."""


@dataclass(frozen=True)
class LayerPreset(Tables):
    """Value ranges and bounds that keep a feed-forward layer's arithmetic hand-sized. (x, w and b: its tables)"""

    hidden: int
    """Largest |entry| of H_pre."""
    out: int
    """Largest |entry| of Y and of out."""
    halves: int
    """Given attention: at least this many columns of A are two halves (the rest one 1)."""
    max_sum: int
    """Computed attention: the largest column sum of the powers (R's denominators)."""


LAYER_PRESETS = {
    "easy": LayerPreset(
        x=Table((0, 1, 2), (2, 3, 1)),
        w=Table((-1, 0, 1), (2, 2, 3)),
        b=Table((-1, 0, 1), (1, 2, 1)),
        hidden=4,
        out=8,
        halves=1,
        max_sum=12,
    ),
    "medium": LayerPreset(
        x=Table((0, 1, 2), (2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        hidden=6,
        out=12,
        halves=1,
        max_sum=16,
    ),
    "hard": LayerPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        hidden=9,
        out=18,
        halves=2,
        max_sum=30,
    ),
}
assert tuple(LAYER_PRESETS) == PRESET_NAMES  # one preset name means one difficulty in every kind


@dataclass(frozen=True)
class Options(Layered, kind="ffn", presets=LAYER_PRESETS, limits=SHAPE_LIMITS):
    """Everything that shapes an FFN's draw; a sheet code carries all of it."""

    d_model: int = 3
    """Features per token."""
    d_ff: int = 4
    """Hidden units of the FFN."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    residual: bool = True
    """Add the input back (out = X + Y)."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 11; the numbers drawn are the same)."""

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape whose tokens cannot all differ."""
        check_tokens(self)


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""


def check_tokens(o) -> None:
    """Refuse a shape whose X cannot have all its tokens different."""
    x = o.limits().x.values
    kinds = len(x) ** o.d_model - (1 if 0 in x else 0)
    if kinds < o.tokens:
        raise DrawError(
            f"--tokens {o.tokens}: X's columns must all differ, and --d-model {o.d_model} "
            f"makes only {kinds}; use a larger --d-model or fewer --tokens"
        )


def options(values: dict, given: Collection[str] = ()) -> Options:
    """The options of the settings by name; its shape its own where none was given."""
    return Options(
        **shape_of(values, given, DEFAULT_SHAPE),
        preset=values["preset"],
        convention=values["convention"],
        residual=values["residual"],
    )


def draw_x(bits: np.random.PCG64, o, lim: LayerPreset) -> np.ndarray:
    """X (d_model × n): tokens all different, none all zero, no feature zero throughout."""
    return draw_inputs(
        bits,
        lim.x,
        o.d_model,
        o.tokens,
        True,
        f"cannot draw X: {GUARANTEES['x']}; use a larger --d-model or fewer --tokens",
    )


def scaled_source(source) -> tuple[np.ndarray, np.ndarray]:
    """A matrix of ints and Fractions as integers over one denominator per column: (S·L, L)."""
    cols = list(zip(*source))
    L = np.array([math.lcm(*(Fraction(x).denominator for x in col)) for col in cols], dtype=np.int64)
    S = np.array([[int(Fraction(x) * L[j]) for j, x in enumerate(row)] for row in source], dtype=np.int64)
    return S, L


def draw_layers(bits: np.random.PCG64, o, lim: LayerPreset, source) -> tuple | None:
    """W1, b1, W2, b2 that meet the guarantees on `source` (X, or a block's R); None if no round does."""
    S, L = scaled_source(source)
    d, f = o.d_model, o.d_ff
    first = None
    for _ in range(ROUNDS):
        W1 = sample(bits, lim.w, (CANDIDATES, f, d))
        b1 = sample(bits, lim.b, (CANDIDATES, f))
        H = np.einsum("kfd,dn->kfn", W1, S) + b1[:, :, None] * L[None, None, :]  # H_pre·L, per column
        ok = (
            (H < 0).any(axis=(1, 2))
            & (H > 0).any(axis=(1, 2))
            & (H > 0).any(axis=2).all(axis=1)
            & (np.abs(H) <= lim.hidden * L).all(axis=(1, 2))
            & W1.any(axis=2).all(axis=1)
        )
        hits = np.flatnonzero(ok)
        if hits.size:
            first = (W1[hits[0]], b1[hits[0]], np.maximum(H[hits[0]], 0))
            break
    if first is None:
        return None
    W1, b1, relu = first
    for _ in range(ROUNDS):
        W2 = sample(bits, lim.w, (CANDIDATES, d, f))
        b2 = sample(bits, lim.b, (CANDIDATES, d))
        Y = np.einsum("kdf,fn->kdn", W2, relu) + b2[:, :, None] * L[None, None, :]
        out = Y + S[None]
        ok = (
            (np.abs(Y) <= lim.out * L).all(axis=(1, 2))
            & (np.abs(out) <= lim.out * L).all(axis=(1, 2))
            & W2.any(axis=2).all(axis=1)
            & W2.any(axis=1).all(axis=1)
        )
        hits = np.flatnonzero(ok)
        if hits.size:
            k = hits[0]
            return W1, b1, W2[k], b2[k]
    return None


def draw_one(o: Options, seed: int, index: int, code: str) -> FFNProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    bits, layer_bits = stream(seed, index), stream(seed, index, 1)
    for _ in range(RETRIES):
        X = draw_x(bits, o, lim)
        layers = draw_layers(layer_bits, o, lim, X.tolist())
        if layers is not None:
            W1, b1, W2, b2 = layer_values(layers)
            p = FFNProblem(X=as_matrix(X), W1=W1, b1=b1, W2=W2, b2=b2, residual=o.residual, code=code)
            return to_row(p) if o.convention == "row" else p
    raise DrawError(
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['layer1']}; "
        "try another preset, fewer --tokens or a smaller --d-model"
    )


def layer_values(layers) -> tuple:
    """W1, b1, W2, b2 as a problem holds them."""
    return (
        as_matrix(layers[0]),
        tuple(int(x) for x in layers[1]),
        as_matrix(layers[2]),
        tuple(int(x) for x in layers[3]),
    )


def to_row(p):
    """The row-convention twin of a drawn column-convention problem with layers (every matrix transposed)."""
    from dataclasses import replace

    t = transpose
    return replace(p, X=t(p.X), W1=t(p.W1), W2=t(p.W2), convention="row")


def draw_keys(o: Options, keys: list[tuple[int, int]]) -> list:
    """The problems for (seed, index) pairs, in order, each with its sheet code."""
    return keyed(o, keys, lambda seed, index, code: draw_one(o, seed, index, code))


def code_head(o: Options, w) -> None:
    """The code's head: the layers' fields, the flag being the residual; version 4 (the kind's
    index, 2 bits) for its first draw, version 6 (its number, Kind.later) for its later one."""
    if o.draw_version == 1:
        layer_code_head(o, w, LEGACY_INDEX, o.residual)
        return
    from generator.core.registry import kind
    from generator.draw.sheetcodes import KINDS_VERSION

    w.uint(KINDS_VERSION, 3)
    w.gamma(kind(o.kind).numbers[o.draw_version - 1])
    layer_fields(o, w, o.residual)


def layer_code_head(o, w, index: int, flag: bool) -> None:
    """Version (3 bits: 4), the kind's index (2), preset (2), tokens-2, d_model-1, d_ff-1 (Elias
    gamma), row convention, and the kind's flag (1 bit each)."""
    w.uint(4, 3)
    w.uint(index, 2)
    layer_fields(o, w, flag)


def layer_fields(o, w, flag: bool) -> None:
    """What follows the kind in a layer's code: preset (2), tokens-2, d_model-1, d_ff-1 (Elias
    gamma), row convention, and the kind's flag (1 bit each)."""
    w.uint(PRESET_NAMES.index(o.preset), 2)
    w.gamma(o.tokens - 2)
    w.gamma(o.d_model - 1)
    w.gamma(o.d_ff - 1)
    w.flag(o.convention == "row")
    w.flag(flag)


def read_layers(r, code: str) -> tuple[dict, bool]:
    """The layers' fields of a code (its kind read), and the kind's flag."""
    from generator.draw.codes import CodeError

    preset_index = r.uint(2)
    if preset_index >= len(PRESET_NAMES):
        raise CodeError(f"{code[:40]!r} is not a sheet code")
    values = {
        "preset": PRESET_NAMES[preset_index],
        "tokens": r.gamma() + 2,
        "d_model": r.gamma() + 1,
        "d_ff": r.gamma() + 1,
        "convention": "row" if r.flag() else "column",
    }
    return values, r.flag()


def read_code(version: int, r, code: str) -> Options:
    """The options an FFN code holds: a version-4 code's are its first draw's (a version-6 code
    says which of its draws made it, Kind.later)."""
    values, residual = read_layers(r, code)
    return Options(**values, residual=residual, draw_version=1 if version == 4 else 2)


def manifest(o: Options) -> dict:
    """The options as a manifest records them: as they were before the kinds had folders, when one
    options type served the FFN and the block (its attention fields at their defaults)."""
    return {
        "kind": o.kind,
        "preset": o.preset,
        "tokens": o.tokens,
        "d_model": o.d_model,
        "d_ff": o.d_ff,
        "convention": o.convention,
        "residual": o.residual,
        "attention": "given",
        "d_k": 3,
        "heads": 1,
        "output_projection": False,
        "causal": False,
    }


def blank(o: Options) -> FFNProblem:
    """A blank FFN of the shape of `o` (a blank template prints none of its numbers)."""
    problem = FFNProblem(**blank_layers(o), residual=o.residual)
    return to_row(problem) if o.convention == "row" else problem


def blank_layers(o) -> dict:
    """X and the layers of the shape of `o`, every entry 0."""
    n, d, f = o.tokens, o.d_model, o.d_ff
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    return dict(X=zeros(d, n), W1=zeros(f, d), b1=(0,) * f, W2=zeros(d, f), b2=(0,) * d)
