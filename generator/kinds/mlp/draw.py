"""The multi-layer perceptron's draw: its options and presets, its guarantees (no dead unit, ReLU matters, hand-sized), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: X from spawn key (index,),
the layers from (index, 1), one after another, each through the presets' tables, so a printed
code rebuilds its sheet. Each layer is chosen from CANDIDATES at a time on the layer before's
true output, so every guarantee is checked on the numbers the sheet will hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator.core.degenerate import constant
from generator.core.schema import twin
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, inputs_then, sample
from generator.kinds.mlp.settings import DEFAULT_SHAPE
from generator.kinds.mlp.steps import GIVENS, LASTS, Layer, MLPProblem

CANDIDATES, ROUNDS = 64, 64
"""Layers drawn at once, and rounds of them per layer (draw/streams.inputs_then: fresh inputs after)."""

GUARANTEES = {
    "x": "no example all zero, no input zero for every example",
    "layers": "every hidden unit positive for some example (none dead), ReLU zeroes an entry, |Z| within the "
    "preset's bound, no weights or Z of one value throughout, and the output not all zero",
}

SHAPE_LIMITS = {"tokens": (2, 4), "d_model": (1, 4), "layers": (1, 4), "d_hidden": (1, 4), "d_out": (1, 3)}
"""Shapes a network is worked by hand in (one example cannot have a unit both alive and zeroed)."""


@dataclass(frozen=True)
class MLPPreset(Tables):
    """Value ranges and a bound that keep a network's arithmetic hand-sized (x, w and b: its tables)."""

    z: int
    """Largest |entry| of any Z."""


PRESETS = {
    "easy": MLPPreset(
        x=Table((0, 1, 2), (2, 3, 1)), w=Table((-1, 0, 1), (2, 2, 3)), b=Table((-1, 0, 1), (1, 2, 1)), z=6
    ),
    "medium": MLPPreset(
        x=Table((0, 1, 2), (2, 2, 1)), w=Table((-1, 0, 1, 2), (3, 3, 3, 1)), b=Table((-2, -1, 0, 1), (1, 2, 2, 2)), z=12
    ),
    "hard": MLPPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        z=24,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="mlp",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 2), ("d_model", 1), ("layers", 1), ("d_hidden", 1), ("d_out", 1)),
    choices=(("last", LASTS),),
):
    """Everything that shapes a network's draw; a sheet code carries all of it."""

    tokens: int = 2
    """Examples n."""
    layers: int = 2
    """Layers L."""
    d_hidden: int = 3
    """Units of each hidden layer."""
    d_out: int = 1
    """Units of the last layer."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    last: str = "linear"
    """What the last layer does: linear or relu."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 15; the numbers drawn are the same)."""

    def sizes(self) -> tuple[int, ...]:
        """d_0, d_1, …, d_L."""
        return (self.d_model, *(self.d_hidden for _ in range(self.layers - 1)), self.d_out)


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_layer(
    bits: np.random.PCG64, o: Options, lim: MLPPreset, H: np.ndarray, units: int, relu: bool
) -> tuple | None:
    """A layer of `units` on H (its input, true values): its W, b and Z, meeting the layer's
    guarantees (a ReLU layer: every unit positive for some example; the last, linear: not all
    zero); None if no round gives one."""
    for _ in range(ROUNDS):
        W = sample(bits, lim.w, (CANDIDATES, units, H.shape[0]))
        b = sample(bits, lim.b, (CANDIDATES, units))
        Z = np.einsum("kij,jn->kin", W, H) + b[:, :, None]
        ok = (np.abs(Z) <= lim.z).all(axis=(1, 2)) & W.any(axis=2).all(axis=1)
        ok &= (Z > 0).any(axis=2).all(axis=1) if relu else Z.any(axis=(1, 2))
        # A ReLU layer whose Z has a negative entry comes first: ReLU then has something to do.
        first = np.flatnonzero(ok & (Z < 0).any(axis=(1, 2))) if relu else np.empty(0, dtype=int)
        for i in [*first, *np.flatnonzero(ok)]:
            if not constant(W[i].tolist()) and not constant(Z[i].tolist()):
                return W[i], b[i], Z[i]
    return None


def draw_layers(bits: np.random.PCG64, o: Options, lim: MLPPreset, X: np.ndarray) -> list | None:
    """Every layer on X, in order; None where one cannot be drawn or no ReLU zeroes an entry."""
    H, zeroed, out = X, False, []
    sizes = o.sizes()
    for k in range(1, o.layers + 1):
        relu = k < o.layers or o.last == "relu"
        found = draw_layer(bits, o, lim, H, sizes[k], relu)
        if found is None:
            return None
        W, b, Z = found
        out.append((W, b))
        zeroed |= relu and bool((Z < 0).any())
        H = np.maximum(Z, 0) if relu else Z
    has_relu = o.layers > 1 or o.last == "relu"
    return out if zeroed or not has_relu else None


def draw_one(o: Options, seed: int, index: int, code: str) -> MLPProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    X, layers = inputs_then(
        o,
        seed,
        index,
        lim.x,
        lambda bits, X: draw_layers(bits, o, lim, X),
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['layers']}; "
        "try another preset, more --tokens or fewer --layers",
        retries=64,
    )
    p = MLPProblem(
        X=as_matrix(X),
        layers=tuple(Layer(as_matrix(W), tuple(int(x) for x in b)) for W, b in layers),
        last=o.last,
        code=code,
    )
    return twin(p, GIVENS, o.convention)


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> MLPProblem:
    """A blank network of the shape of `o` (a blank template prints none of its numbers)."""
    sizes = o.sizes()
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    layers = tuple(Layer(zeros(sizes[k], sizes[k - 1]), (0,) * sizes[k]) for k in range(1, o.layers + 1))
    return twin(MLPProblem(X=zeros(o.d_model, o.tokens), layers=layers, last=o.last), GIVENS, o.convention)
