"""One step of backpropagation's draw: its options and presets, its guarantees (ReLU's gradient matters, no gradient all zero, hand-sized), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: X from spawn key (index,), the
layers and the targets from (index, 1), CANDIDATES at a time, every guarantee checked on the
numbers the sheet will hold, forward and backward.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from generator.core.degenerate import constant
from generator.core.schema import twin
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, inputs_then, sample
from generator.kinds.backprop.settings import DEFAULT_SHAPE
from generator.kinds.backprop.steps import GIVENS, BackpropProblem

CANDIDATES, ROUNDS = 64, 64
"""Networks drawn at once, and rounds of them before a fresh X."""
RATES = ("none", "1", "1/2", "1/4")
"""The learning rates a sheet may take."""

GUARANTEES = {
    "network": "ReLU's gradient matters (some Z1 entry ≤ 0 where dH is not 0), dY and both weight gradients not "
    "all zero, no weights of one value throughout, and every forward and backward entry within the "
    "preset's bound",
}

SHAPE_LIMITS = {"tokens": (1, 2), "d_model": (1, 3), "d_hidden": (1, 3), "d_out": (1, 2)}
"""Shapes a step of learning is worked by hand in (both passes on one sheet)."""


@dataclass(frozen=True)
class BackpropPreset(Tables):
    """Value ranges and a bound that keep a step of learning hand-sized (x, w and b: its tables)."""

    t: Table
    """Distribution of the targets."""
    bound: int
    """Largest |entry| of any grid, forward or backward."""


PRESETS = {
    "easy": BackpropPreset(
        x=Table((0, 1, 2), (2, 3, 1)),
        w=Table((-1, 0, 1), (2, 2, 3)),
        b=Table((-1, 0, 1), (1, 2, 1)),
        t=Table((0, 1, 2, 3), (1, 2, 2, 1)),
        bound=8,
    ),
    "medium": BackpropPreset(
        x=Table((0, 1, 2), (2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        t=Table((-1, 0, 1, 2, 3), (1, 2, 2, 2, 1)),
        bound=12,
    ),
    "hard": BackpropPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        t=Table((-2, -1, 0, 1, 2, 3), (1,) * 6),
        bound=20,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="backprop",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 1), ("d_model", 1), ("d_hidden", 1), ("d_out", 1)),
    choices=(("lr", RATES),),
):
    """Everything that shapes a step of learning's draw; a sheet code carries all of it."""

    tokens: int = 1
    """Examples n."""
    d_hidden: int = 2
    """Units of the hidden layer d_1."""
    d_out: int = 1
    """Outputs d_2."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    lr: str = "1/2"
    """The learning rate, or none."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 16; the numbers drawn are the same)."""


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_network(bits: np.random.PCG64, o: Options, lim: BackpropPreset, X: np.ndarray) -> tuple | None:
    """W1, b1, W2, b2 and T whose forward and backward passes on X meet every guarantee; None if no round does."""
    k, (d0, n), d1, d2 = CANDIDATES, X.shape, o.d_hidden, o.d_out
    for _ in range(ROUNDS):
        W1, b1 = sample(bits, lim.w, (k, d1, d0)), sample(bits, lim.b, (k, d1))
        W2, b2 = sample(bits, lim.w, (k, d2, d1)), sample(bits, lim.b, (k, d2))
        T = sample(bits, lim.t, (k, d2, n))
        Z1 = np.einsum("kij,jn->kin", W1, X) + b1[:, :, None]
        H = np.maximum(Z1, 0)
        Y = np.einsum("kij,kjn->kin", W2, H) + b2[:, :, None]
        dY = Y - T
        dW2 = np.einsum("kin,kjn->kij", dY, H)
        dH = np.einsum("kji,kjn->kin", W2, dY)
        dZ1 = np.where(Z1 > 0, dH, 0)
        dW1 = np.einsum("kin,jn->kij", dZ1, X)
        grids = (Z1, Y, dY, dW2, dH, dW1, dZ1.sum(axis=2), dY.sum(axis=2))
        ok = np.ones(k, dtype=bool)
        for g in grids:
            ok &= (np.abs(g) <= lim.bound).reshape(k, -1).all(axis=1)
        ok &= ((Z1 <= 0) & (dH != 0)).reshape(k, -1).any(axis=1)
        for g in (dY, dW1, dW2):
            ok &= g.reshape(k, -1).any(axis=1)
        for i in np.flatnonzero(ok):
            if not constant(W1[i].tolist()) and not constant(W2[i].tolist()):
                return W1[i], b1[i], W2[i], b2[i], T[i]
    return None


def draw_one(o: Options, seed: int, index: int, code: str) -> BackpropProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    X, (W1, b1, W2, b2, T) = inputs_then(
        o,
        seed,
        index,
        lim.x,
        lambda bits, X: draw_network(bits, o, lim, X),
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: "
        f"{GUARANTEES['network']}; try another preset or more --d-hidden",
    )
    ints = lambda v: tuple(int(x) for x in v)  # noqa: E731
    p = BackpropProblem(
        X=as_matrix(X),
        W1=as_matrix(W1),
        b1=ints(b1),
        W2=as_matrix(W2),
        b2=ints(b2),
        T=as_matrix(T),
        lr=None if o.lr == "none" else Fraction(o.lr),
        code=code,
    )
    return twin(p, GIVENS, o.convention)


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> BackpropProblem:
    """A blank step of learning of the shape of `o` (a blank template prints none of its numbers)."""
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    d0, d1, d2, n = o.d_model, o.d_hidden, o.d_out, o.tokens
    p = BackpropProblem(
        X=zeros(d0, n),
        W1=zeros(d1, d0),
        b1=(0,) * d1,
        W2=zeros(d2, d1),
        b2=(0,) * d2,
        T=zeros(d2, n),
        lr=None if o.lr == "none" else Fraction(o.lr),
    )
    return twin(p, GIVENS, o.convention)
