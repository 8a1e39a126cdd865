"""The linear layer's draw: its options and presets, its guarantees (hand-sized, no step to skip), its seeded draw, its sheet codes.

Problem `index` of a batch drawn with `seed` reads its own streams (attnsheet's draw/streams):
X from spawn key (index,), the weights from (index, 1), so a printed code rebuilds its sheet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator.core.degenerate import constant, repeated
from generator.core.schema import blank_problem, twin
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, DrawError, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, draw_inputs, sample, stream

from attnsheet_linear.settings import DEFAULT_SHAPE
from attnsheet_linear.steps import GIVENS, LinearProblem

CANDIDATES, ROUNDS = 64, 64
"""Weight sets drawn at once, and rounds of them before the draw gives up."""
GUARANTEES = {
    "x": "no token all zero, no feature zero for every token, X not one value throughout",
    "layer": "W not one value throughout, no row of W all zero, |Y| within the preset's bound, "
    "and Y neither one value nor one row or column repeated",
}


@dataclass(frozen=True)
class LinearPreset(Tables):
    """Value ranges and a bound that keep a linear layer's arithmetic hand-sized. (x, w and b: its tables)"""

    out: int
    """Largest |entry| of Y."""


PRESETS = {
    "easy": LinearPreset(
        x=Table((0, 1, 2), (2, 3, 1)), w=Table((-1, 0, 1), (2, 2, 3)), b=Table((-1, 0, 1), (1, 2, 1)), out=6
    ),
    "medium": LinearPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 2, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        out=12,
    ),
    "hard": LinearPreset(
        x=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 2, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        out=20,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="linear",
    presets=PRESETS,
    limits={"tokens": (1, 6), "d_model": (1, 4), "d_out": (1, 4)},
    code=(("tokens", 1), ("d_model", 1), ("d_out", 1)),
):
    """Everything that shapes a linear layer's draw; a sheet code carries all of it."""

    d_model: int = 3
    """The inputs' size d_in."""
    d_out: int = 2
    """The outputs' size d_out."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""


OPTIONS = Options
"""Its options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_one(o: Options, seed: int, index: int, code: str) -> LinearProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim, bits, weight_bits = o.limits(), stream(seed, index), stream(seed, index, 1)
    for _ in range(ROUNDS):
        X = draw_inputs(bits, lim.x, o.d_model, o.tokens, False, f"cannot draw X: {GUARANTEES['x']}")
        if constant(X.tolist()):
            continue
        W, b = (
            sample(weight_bits, lim.w, (CANDIDATES, o.d_out, o.d_model)),
            sample(weight_bits, lim.b, (CANDIDATES, o.d_out)),
        )
        Y = np.einsum("kij,jn->kin", W, X) + b[:, :, None]
        ok = W.any(axis=2).all(axis=1) & (np.abs(Y) <= lim.out).all(axis=(1, 2))
        for i in np.flatnonzero(ok):
            if not constant(W[i].tolist()) and not repeated(Y[i].tolist()):
                p = LinearProblem(X=as_matrix(X), W=as_matrix(W[i]), b=tuple(int(x) for x in b[i]), code=code)
                return twin(p, GIVENS, o.convention)
    raise DrawError(
        f"cannot draw a linear sheet of this shape on {o.preset}: {GUARANTEES['layer']}; "
        "try another preset or fewer --tokens"
    )


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> LinearProblem:
    """A blank linear layer of the shape of `o` (a blank template prints none of its numbers)."""
    return blank_problem(LinearProblem, GIVENS, {"d_in": o.d_model, "n": o.tokens, "d_out": o.d_out}, o.convention)
