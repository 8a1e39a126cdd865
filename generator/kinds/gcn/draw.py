"""A graph convolution's draw: its options and presets, its guarantees (a graph worth gathering over, ReLU matters, no node silenced, hand-sized), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: the graph from spawn key
(index, 2), X from (index,), the layers from (index, 1), one after another, each through the
presets' tables, so a printed code rebuilds its sheet. The graph is one of every graph of n nodes
that is connected, not complete and whose degrees differ (listed once per n, in a fixed order).
Each layer is chosen from CANDIDATES at a time on the layer before's true output, so every
guarantee is checked on the numbers the sheet will hold; under "mean" those are fractions, checked
exactly as integers over a common denominator.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from generator.core.degenerate import constant
from generator.core.schema import twin
from generator.draw import shaped
from generator.draw.options import PRESET_NAMES, DrawError, Table, Tables
from generator.draw.shaped import Layered, code_reader, keys_drawn_by, options_for
from generator.draw.streams import as_matrix, inputs_then, sample, stream
from generator.kinds.gcn.settings import DEFAULT_SHAPE
from generator.kinds.gcn.steps import AGGREGATES, GIVENS, GCNProblem, Layer, connected

CANDIDATES, ROUNDS = 64, 64
"""Layers drawn at once, and rounds of them per layer (draw/streams.inputs_then: fresh inputs after)."""

GUARANTEES = {
    "graph": "connected, not complete, its degrees not all equal",
    "x": "no node all zero, no feature zero for every node",
    "layers": "every node's output positive somewhere (none all zero), no unit dead, ReLU zeroes an entry, |Z| within the "
    "preset's bound and, under mean, every fraction's denominator too, no "
    "weights or Z of one value throughout",
}

SHAPE_LIMITS = {"tokens": (3, 5), "d_model": (1, 3), "layers": (1, 2), "d_hidden": (1, 3), "d_out": (1, 3)}
"""Shapes a graph convolution is worked by hand in (fewer than 3 nodes is no graph to speak of)."""


@dataclass(frozen=True)
class GCNPreset(Tables):
    """Value ranges and bounds that keep a graph convolution's arithmetic hand-sized (x, w and b: its tables)."""

    z: int
    """Largest |entry| of any Z."""
    denominator: int
    """Largest denominator of a fraction written (under mean)."""


PRESETS = {
    "easy": GCNPreset(
        x=Table((0, 1, 2), (2, 3, 1)),
        w=Table((-1, 0, 1), (2, 2, 3)),
        b=Table((-1, 0, 1), (1, 2, 1)),
        z=8,
        denominator=5,
    ),
    "medium": GCNPreset(
        x=Table((0, 1, 2), (2, 2, 1)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        z=14,
        denominator=24,
    ),
    "hard": GCNPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        z=24,
        denominator=60,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="gcn",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 3), ("d_model", 1), ("layers", 1), ("d_hidden", 1), ("d_out", 1)),
    choices=(("aggregate", AGGREGATES),),
):
    """Everything that shapes a graph convolution's draw; a sheet code carries all of it."""

    tokens: int = 4
    """Nodes n."""
    d_model: int = 2
    """Features per node."""
    layers: int = 1
    """Layers L."""
    d_hidden: int = 2
    """Units of the first layer, when there are two."""
    d_out: int = 2
    """Units of the last layer."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    aggregate: str = "sum"
    """How a node gathers its neighbours: sum or mean."""

    def sizes(self) -> tuple[int, ...]:
        """d_0, d_1, …, d_L."""
        return (self.d_model, *(self.d_hidden for _ in range(self.layers - 1)), self.d_out)

    def check_drawable(self) -> None:
        """Refuse one layer of one unit (every node's output positive leaves ReLU nothing to zero), and
        an easy sheet's means of means."""
        if self.preset == "easy" and self.aggregate == "mean" and self.layers == 2:
            raise DrawError(
                "--aggregate mean: two layers of means write fractions of fractions; a gcn sheet on easy "
                "takes one layer (use --layers 1, or --preset medium or hard)"
            )
        if self.layers == 1 and self.d_out == 1:
            raise DrawError(
                "--d-out: a gcn sheet of one layer needs 2 or more units (with one, every node's "
                "output positive leaves ReLU nothing to zero); use --d-out 2 or --layers 2"
            )


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


@functools.lru_cache(maxsize=None)
def graphs(n: int) -> tuple[np.ndarray, ...]:
    """Every adjacency of n nodes worth gathering over (connected, not complete, degrees not all
    equal), self-loops on the diagonal, in the order of their edges as bits."""
    pairs = list(itertools.combinations(range(n), 2))
    out = []
    for bits in range(1, 2 ** len(pairs) - 1):  # neither no edge nor every edge
        A = np.eye(n, dtype=np.int64)
        for k, (i, j) in enumerate(pairs):
            if bits >> k & 1:
                A[i, j] = A[j, i] = 1
        if connected(A.tolist()) and len(set(A.sum(axis=0).tolist())) > 1:
            out.append(A)
    return tuple(out)


def draw_graph(seed: int, index: int, n: int) -> np.ndarray:
    """Problem `index`'s graph of n nodes, from its own stream."""
    found = graphs(n)
    return found[int(stream(seed, index, 2).random_raw()) % len(found)]


def hand_sized(Zs: np.ndarray, scale: int, lim: GCNPreset) -> bool:
    """Whether a grid worked over a common denominator (`Zs`/`scale`) writes no fraction whose
    denominator passes the preset's bound."""
    return scale == 1 or all(Fraction(int(x), scale).denominator <= lim.denominator for x in Zs.flat)


def gathered(Hs: np.ndarray, scale: int, A: np.ndarray, mean: bool) -> tuple[np.ndarray, int]:
    """M = H·A (each column ÷ its node's degree under mean) over a common denominator: (M·scale', scale')."""
    if not mean:
        return Hs @ A, scale
    degrees = A.sum(axis=0)
    common = math.lcm(*degrees.tolist())
    return (Hs @ A) * (common // degrees), scale * common


def draw_layer(
    bits: np.random.PCG64, lim: GCNPreset, Ms: np.ndarray, scale: int, units: int, then: Callable[[np.ndarray], bool]
) -> tuple | None:
    """A layer of `units` on M = Ms/scale (its input, true values): its W, b and Z·scale within the
    preset's bounds, every unit positive for some node, and what comes after it (`then`, on
    ReLU(Z)·scale) hand-sized and not silenced; None if no round gives one."""
    for _ in range(ROUNDS):
        W = sample(bits, lim.w, (CANDIDATES, units, Ms.shape[0]))
        b = sample(bits, lim.b, (CANDIDATES, units))
        Zs = np.einsum("kij,jn->kin", W, Ms) + b[:, :, None] * scale
        ok = (np.abs(Zs) <= lim.z * scale).all(axis=(1, 2)) & W.any(axis=2).all(axis=1)
        ok &= (Zs > 0).any(axis=2).all(axis=1)  # every unit positive for some node: none dead
        # A layer whose Z has a negative entry comes first: ReLU then has something to do.
        first = np.flatnonzero(ok & (Zs < 0).any(axis=(1, 2)))
        for i in [*first, *np.flatnonzero(ok)]:
            if (
                not constant(W[i].tolist())
                and not constant(Zs[i].tolist())
                and hand_sized(Zs[i], scale, lim)
                and then(np.maximum(Zs[i], 0))
            ):
                return W[i], b[i], Zs[i]
    return None


def draw_layers(bits: np.random.PCG64, o: Options, lim: GCNPreset, A: np.ndarray, X: np.ndarray) -> list | None:
    """Every layer on X over the graph A, in order; None where one cannot be drawn, a gathered grid
    is not hand-sized or no ReLU zeroes an entry."""
    mean, sizes = o.aggregate == "mean", o.sizes()
    Ms, scale = gathered(X, 1, A, mean)
    zeroed, out = False, []
    for k in range(1, o.layers + 1):
        if k == o.layers:  # every node's output positive somewhere: none silenced
            then = lambda Hs: bool((Hs > 0).any(axis=0).all())  # noqa: E731
        else:  # what the next layer gathers, hand-sized (a mean's fractions gathered again)
            then = lambda Hs, scale=scale: hand_sized(*gathered(Hs, scale, A, mean), lim)  # noqa: E731
        found = draw_layer(bits, lim, Ms, scale, sizes[k], then)
        if found is None:
            return None
        W, b, Zs = found
        out.append((W, b))
        zeroed |= bool((Zs < 0).any())
        Ms, scale = gathered(np.maximum(Zs, 0), scale, A, mean)
    return out if zeroed else None


def draw_one(o: Options, seed: int, index: int, code: str) -> GCNProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    A = draw_graph(seed, index, o.tokens)
    X, layers = inputs_then(
        o,
        seed,
        index,
        lim.x,
        lambda bits, X: draw_layers(bits, o, lim, A, X),
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['layers']}; "
        "try another preset, more --d-model or --d-hidden, or fewer --layers",
        retries=64,
    )
    p = GCNProblem(
        X=as_matrix(X),
        A=as_matrix(A),
        layers=tuple(Layer(as_matrix(W), tuple(int(x) for x in b)) for W, b in layers),
        aggregate=o.aggregate,
        code=code,
    )
    return twin(p, GIVENS, o.convention)


draw_keys = keys_drawn_by(draw_one)


def blank(o: Options) -> GCNProblem:
    """A blank graph convolution of the shape of `o` (a blank template prints none of its numbers:
    its graph is nodes without edges, for the student's own)."""
    sizes = o.sizes()
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    layers = tuple(Layer(zeros(sizes[k], sizes[k - 1]), (0,) * sizes[k]) for k in range(1, o.layers + 1))
    A = tuple(tuple(int(i == j) for j in range(o.tokens)) for i in range(o.tokens))
    return twin(
        GCNProblem(X=zeros(o.d_model, o.tokens), A=A, layers=layers, aggregate=o.aggregate), GIVENS, o.convention
    )
