"""The mixture of experts' draw: its options and presets, its guarantees (every expert used, no tie unless asked, ReLU matters, hand-sized), its seeded draw and code.

Problem `index` of a batch drawn with `seed` reads its own streams: X from
PCG64(SeedSequence(seed, spawn_key=(index,))), the gate from spawn_key (index, 1), the experts
from (index, 2), entries through the presets' tables from `random_raw` words, so a printed code
rebuilds its sheet. Each stage draws CANDIDATES at once and keeps the first that meets its
guarantees: the gate on X, then the experts' first layers on the tokens routed to them, then
their second layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from generator.kinds.moe.settings import DEFAULT_SHAPE
from generator.kinds.moe.steps import GIVENS, Expert, MoEProblem
from generator.core.schema import twin
from generator.draw.options import PRESET_NAMES, DrawError, Table
from generator.draw.shaped import Layered, code_reader, options_for
from generator.draw import shaped
from generator.draw.streams import as_matrix, draw_inputs, keyed, sample, stream

CANDIDATES = 64
"""Candidates drawn and checked at once."""
ROUNDS = 64
"""Rounds of candidates per stage before a fresh X is drawn."""
RETRIES = 64
"""Fresh X before the draw gives up on a problem (a gate that routes to every expert without a tie
needs the right X: a few in ten do, at the smallest shapes)."""

GUARANTEES = {
    "x": "X's tokens all differ, none all zero, no feature zero for every token",
    "gate": "every expert gets a token, a token's two largest scores tie only when --ties asks for one (then one "
    "does), and a weighted sheet's powers stay small",
    "experts": "the routed H_pre has a negative entry and a positive one for every token, and |H_pre| and |Y| "
    "stay within the preset's bounds",
}

SHAPE_LIMITS = {"tokens": (2, 6), "d_model": (2, 4), "d_ff": (2, 3), "experts": (2, 3)}
"""Shapes a mixture of experts is worked by hand in (every expert's rows are on the sheet; a unit of its
own that ReLU zeroes would leave a token nothing)."""


@dataclass(frozen=True)
class MoEPreset:
    """Value ranges and bounds that keep a mixture of experts' arithmetic hand-sized."""

    x: Table
    """Distribution of X's entries."""
    gate: Table
    """Distribution of W_g's entries."""
    soft_gate: Table
    """Distribution of a weighted sheet's W_g's entries (its scores are powers of 3: kept small)."""
    w: Table
    """Distribution of the experts' weights."""
    b: Table
    """Distribution of the experts' biases."""
    hidden: int
    """Largest |entry| of the routed H_pre."""
    out: int
    """Largest |entry| of Y."""
    low: int
    """A weighted sheet's least gate score (0: every power a whole number)."""
    max_sum: int
    """A weighted sheet's largest column sum of the powers."""


PRESETS = {
    "easy": MoEPreset(
        x=Table((0, 1, 2), (2, 3, 1)),
        gate=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        soft_gate=Table((-1, 0, 1), (1, 3, 2)),
        w=Table((-1, 0, 1), (2, 2, 3)),
        b=Table((-1, 0, 1), (1, 2, 1)),
        hidden=4,
        out=8,
        low=0,
        max_sum=15,
    ),
    "medium": MoEPreset(
        x=Table((0, 1, 2), (2, 2, 1)),
        gate=Table((-2, -1, 0, 1, 2), (1, 2, 3, 2, 1)),
        soft_gate=Table((-1, 0, 1), (1, 2, 2)),
        w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1), (1, 2, 2, 2)),
        hidden=6,
        out=12,
        low=-1,
        max_sum=30,
    ),
    "hard": MoEPreset(
        x=Table((-1, 0, 1, 2), (1, 2, 2, 1)),
        gate=Table((-3, -2, -1, 0, 1, 2, 3), (1, 1, 2, 2, 2, 1, 1)),
        soft_gate=Table((-1, 0, 1, 2), (2, 3, 2, 1)),
        w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)),
        hidden=9,
        out=18,
        low=-1,
        max_sum=40,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES


@dataclass(frozen=True)
class Options(
    Layered,
    kind="moe",
    presets=PRESETS,
    limits=SHAPE_LIMITS,
    code=(("tokens", 2), ("d_model", 1), ("d_ff", 1), ("experts", 2)),
    flags=("weighted", "ties"),
):
    """Everything that shapes a mixture of experts' draw; a sheet code carries all of it."""

    tokens: int = 4
    """Tokens n."""
    d_model: int = 3
    """Features per token d."""
    d_ff: int = 2
    """Hidden units of each expert."""
    experts: int = 2
    """Experts E."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    weighted: bool = False
    """Scale each output by its gate probability."""
    ties: bool = False
    """Give one token a tie at the gate (else none has one)."""
    draw_version: int = 2
    """Which draw made it: 1 printed its boxes at their least size; 2 grows them where the page has
    room (Kind.later: its codes carry 14; the numbers drawn are the same)."""

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape in which every expert cannot have a token."""
        if self.tokens < self.experts:
            raise DrawError(
                f"--tokens {self.tokens}: every one of --experts {self.experts} gets a token; "
                "use more --tokens or fewer --experts"
            )


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""
options, read_code = options_for(Options, DEFAULT_SHAPE), code_reader(Options)
code_head, manifest = shaped.code_head, shaped.manifest


def draw_x(bits: np.random.PCG64, o: Options, lim: MoEPreset) -> np.ndarray:
    """X (d × n): tokens all different, none all zero, no feature zero throughout."""
    return draw_inputs(
        bits,
        lim.x,
        o.d_model,
        o.tokens,
        True,
        f"cannot draw X: {GUARANTEES['x']}; use a larger --d-model or fewer --tokens",
    )


def draw_gate(bits: np.random.PCG64, o: Options, lim: MoEPreset, X: np.ndarray) -> Optional[tuple]:
    """W_g and its route (0-based) meeting the gate's guarantees; None if no round does."""
    for _ in range(ROUNDS):
        W = sample(bits, lim.soft_gate if o.weighted else lim.gate, (CANDIDATES, o.experts, o.d_model))
        G = np.einsum("ked,dn->ken", W, X)
        top = G.max(axis=1)
        tied = (G == top[:, None, :]).sum(axis=1) > 1  # (k, n): the column's largest score is shared
        route = G.argmax(axis=1)  # the first of the largest: a tie goes to the lower expert
        used = np.stack([(route == e).any(axis=1) for e in range(o.experts)], axis=1).all(axis=1)
        ok = used & (tied.sum(axis=1) == 1 if o.ties else ~tied.any(axis=1)) & W.any(axis=2).all(axis=1)
        if o.weighted:
            ok &= (G >= lim.low).all(axis=(1, 2)) & (G <= 6).all(axis=(1, 2))
            powers = np.power(3.0, G)
            ok &= (powers.sum(axis=1) <= lim.max_sum).all(axis=1)
        hits = np.flatnonzero(ok)
        if hits.size:
            return W[hits[0]], route[hits[0]]
    return None


def draw_experts(
    bits: np.random.PCG64, o: Options, lim: MoEPreset, X: np.ndarray, route: np.ndarray
) -> Optional[tuple]:
    """Every expert's W1, b1 and W2 (stacked: E·d_ff rows, and side by side) meeting the guarantees on
    the tokens routed to it; None if no round does."""
    f, E, n = o.d_ff, o.experts, o.tokens
    mask = np.zeros((E * f, n), dtype=bool)  # the cells the route asks for
    for j, e in enumerate(route.tolist()):
        mask[e * f : (e + 1) * f, j] = True
    first = None
    for _ in range(ROUNDS):
        W1 = sample(bits, lim.w, (CANDIDATES, E * f, o.d_model))
        b1 = sample(bits, lim.b, (CANDIDATES, E * f))
        H = np.einsum("kfd,dn->kfn", W1, X) + b1[:, :, None]
        routed = np.where(mask[None], H, 0)
        # Every token keeps a positive unit: a token whose expert's ReLU zeroes it all would output nothing.
        ok = (
            (np.abs(routed) <= lim.hidden).all(axis=(1, 2))
            & (routed < 0).any(axis=(1, 2))
            & (routed > 0).any(axis=1).all(axis=1)
            & W1.any(axis=2).all(axis=1)
        )
        hits = np.flatnonzero(ok)
        if hits.size:
            first = W1[hits[0]], b1[hits[0]], np.maximum(np.where(mask, H[hits[0]], 0), 0)
            break
    if first is None:
        return None
    W1, b1, relu = first
    for _ in range(ROUNDS):
        W2 = sample(bits, lim.w, (CANDIDATES, o.d_model, E * f))
        Y = np.einsum("kdf,fn->kdn", W2, relu)  # the other experts' rows are 0: each column its expert's
        blocks = np.stack([W2[:, :, e * f : (e + 1) * f].any(axis=(1, 2)) for e in range(E)], axis=1).all(axis=1)
        ok = (np.abs(Y) <= lim.out).all(axis=(1, 2)) & blocks & W2.any(axis=2).all(axis=1)
        hits = np.flatnonzero(ok)
        if hits.size:
            return W1, b1, W2[hits[0]]
    return None


def draw_one(o: Options, seed: int, index: int, code: str) -> MoEProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    bits, gate_bits, expert_bits = stream(seed, index), stream(seed, index, 1), stream(seed, index, 2)
    f = o.d_ff
    for _ in range(RETRIES):
        X = draw_x(bits, o, lim)
        gate = draw_gate(gate_bits, o, lim, X)
        found = gate and draw_experts(expert_bits, o, lim, X, gate[1])
        if found:
            W1, b1, W2 = found
            experts = tuple(
                Expert(
                    as_matrix(W1[e * f : (e + 1) * f]),
                    tuple(int(x) for x in b1[e * f : (e + 1) * f]),
                    as_matrix(W2[:, e * f : (e + 1) * f]),
                )
                for e in range(o.experts)
            )
            p = MoEProblem(X=as_matrix(X), W_g=as_matrix(gate[0]), experts=experts, weighted=o.weighted, code=code)
            return to_row(p) if o.convention == "row" else p
    raise DrawError(
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['gate']}; "
        f"{GUARANTEES['experts']}; try another preset, a larger --d-model or fewer --experts"
    )


def to_row(p: MoEProblem) -> MoEProblem:
    """The row-convention twin of a drawn column-convention problem (every matrix transposed)."""
    return twin(p, GIVENS, "row")


def draw_keys(o: Options, keys: list[tuple[int, int]]) -> list:
    """The problems for (seed, index) pairs, in order, each with its sheet code."""
    return keyed(o, keys, lambda seed, index, code: draw_one(o, seed, index, code))


def blank(o: Options) -> MoEProblem:
    """A blank mixture of the shape of `o` (a blank template prints none of its numbers)."""
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    expert = Expert(zeros(o.d_ff, o.d_model), (0,) * o.d_ff, zeros(o.d_model, o.d_ff))
    p = MoEProblem(
        X=zeros(o.d_model, o.tokens),
        W_g=zeros(o.experts, o.d_model),
        experts=(expert,) * o.experts,
        weighted=o.weighted,
    )
    return to_row(p) if o.convention == "row" else p
