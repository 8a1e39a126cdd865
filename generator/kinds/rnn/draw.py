"""The recurrent layer's draw: its options and presets, its guarantees (hand-sized, ReLU matters, the state never dies), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: X from
PCG64(SeedSequence(seed, spawn_key=(index,))), the weights from spawn_key (index, 1), entries
through the presets' tables from `random_raw` words, so a printed code rebuilds its sheet.
Each round draws CANDIDATES weight sets at once and runs the recurrence on all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator.kinds.rnn.settings import DEFAULT_SHAPE
from generator.kinds.rnn.steps import GIVENS, RNNProblem
from generator.core.schema import blank_problem, twin
from generator.draw.options import PRESET_NAMES, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw import shaped
from generator.draw.streams import as_matrix, first_hit, inputs_then, sample

CANDIDATES = 64
"""Weight sets drawn and checked at once."""
ROUNDS = 64
"""Rounds of candidates before a fresh X is drawn."""
MAX_PRE = 60
"""No preset lets a pre-activation pass ±60: beyond it no step is worked by hand."""

GUARANTEES = {
    "x": "no input step all zero, no input feature zero at every step",
    "steps": "every |a_t| within the preset's bound, ReLU zeroes an entry, no h_t all zero, every unit of the "
    "state positive at some step, the recurrence changes some a_t, and every y_t within the preset's bound",
}

SHAPE_LIMITS = {"tokens": (2, 5), "d_model": (1, 4), "d_h": (2, 4), "readout": (0, 3)}
"""Shapes a recurrent layer is unrolled by hand in (tokens: the time steps; a state of one unit that ReLU zeroes dies)."""


@dataclass(frozen=True)
class RNNPreset(Tables):
    """Value ranges and bounds that keep a recurrent layer's arithmetic hand-sized. (x, w and b: its tables)"""

    pre: int
    """Largest |entry| of any a_t."""
    out: int
    """Largest |entry| of any y_t."""


PRESETS = {
    "easy": RNNPreset(
        x=Table((0, 1, 2), (2, 3, 1)), w=Table((-1, 0, 1), (2, 2, 3)), b=Table((-1, 0, 1), (1, 2, 1)), pre=6, out=8
    ),
    "medium": RNNPreset(
        x=Table((0, 1, 2), (2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        pre=12,
        out=16,
    ),
    "hard": RNNPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        pre=24,
        out=30,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES and all(p.pre <= MAX_PRE for p in PRESETS.values())


@dataclass(frozen=True)
class Options(
    Layered,
    kind="rnn",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 2), ("d_model", 1), ("d_h", 1), ("readout", 0)),
):
    """Everything that shapes a recurrent layer's draw; a sheet code carries all of it."""

    d_h: int = 2
    """Units of the state h."""
    readout: int = 1
    """Outputs per step y_t (0: no readout)."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    draw_version: int = 3
    """Which draw made it: 1 let ReLU kill a unit of the state for the whole sequence (77 of 175
    sheets had one); 2 keeps every unit positive at some step (Kind.later: its codes carry 10);
    3 draws as 2 and grows the boxes where the page has room (its codes carry 13)."""


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_weights(bits: np.random.PCG64, o: Options, lim: RNNPreset, X: np.ndarray) -> tuple | None:
    """W_x, W_h, b and W_y whose recurrence on X meets every guarantee; None if no round does."""
    k, h_units, T = CANDIDATES, o.d_h, o.tokens
    for _ in range(ROUNDS):
        W_x = sample(bits, lim.w, (k, h_units, o.d_model))
        W_h = sample(bits, lim.w, (k, h_units, h_units))
        b = sample(bits, lim.b, (k, h_units))
        W_y = sample(bits, lim.w, (k, max(o.readout, 1), h_units))
        h = np.zeros((k, h_units), dtype=np.int64)
        ok = W_x.any(axis=2).all(axis=1) & (W_y.any(axis=2).all(axis=1) if o.readout else True)
        negative = np.zeros(k, dtype=bool)
        recurs = np.zeros(k, dtype=bool)
        alive = np.zeros((k, h_units), dtype=bool) if o.draw_version > 1 else np.ones((k, h_units), dtype=bool)
        for t in range(T):
            carried = np.einsum("kij,kj->ki", W_h, h)
            recurs |= carried.any(axis=1)
            a = np.einsum("kij,j->ki", W_x, X[:, t]) + carried + b
            ok &= (np.abs(a) <= lim.pre).all(axis=1)
            negative |= (a < 0).any(axis=1)
            h = np.maximum(a, 0)
            alive |= h > 0
            ok &= h.any(axis=1)  # a state all zero forgets everything before it
            if o.readout:
                ok &= (np.abs(np.einsum("kij,kj->ki", W_y, h)) <= lim.out).all(axis=1)
        i = first_hit(ok & negative & recurs & alive.all(axis=1))
        if i is not None:
            return W_x[i], W_h[i], b[i], W_y[i] if o.readout else None
    return None


def draw_one(o: Options, seed: int, index: int, code: str) -> RNNProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    X, (W_x, W_h, b, W_y) = inputs_then(
        o,
        seed,
        index,
        lim.x,
        lambda bits, X: draw_weights(bits, o, lim, X),
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: "
        f"{GUARANTEES['steps']}; try another preset, fewer --tokens or a smaller --d-h",
    )
    p = RNNProblem(
        X=as_matrix(X),
        W_x=as_matrix(W_x),
        W_h=as_matrix(W_h),
        b=tuple(int(x) for x in b),
        W_y=None if W_y is None else as_matrix(W_y),
        code=code,
    )
    return twin(p, GIVENS, o.convention)


def blank(o: Options) -> RNNProblem:
    """A blank recurrent layer of the shape of `o` (a blank template prints none of its numbers)."""
    return blank_problem(
        RNNProblem, GIVENS, {"d_x": o.d_model, "T": o.tokens, "d_h": o.d_h, "d_y": o.readout}, o.convention
    )


draw_keys = keys_drawn_by(draw_one)
