"""The transformer block's draw: X, its attention (given, or computed by the attention draw itself), then the layers on R.

Problem `index` of a batch drawn with `seed` reads its own streams, as the FFN's do: X and A
(or, computed, the whole attention part, drawn by the attention draw) from spawn_key (index,),
the layers from spawn_key (index, 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Collection

import numpy as np

from generator.core.registry import part
from generator.kinds.attention.problem import Head
from generator.kinds.ffn.draw import (
    RETRIES,
    ROUNDS,
    LayerPreset,
    blank_layers,
    check_tokens,
    draw_layers,
    draw_x,
    layer_code_head,
    layer_values,
    read_layers,
)
from generator.kinds.ffn.draw import GUARANTEES as LAYER_GUARANTEES
from generator.kinds.ffn.draw import Options as LayerOptions
from generator.kinds.transformer.steps import BlockProblem
from generator.core.problem import Rules, transpose
from generator.draw.options import DrawError, Infeasible, lanes, words_for
from generator.draw.streams import as_matrix, keyed, shape_of, stream
from generator.kinds.transformer.settings import DEFAULT_SHAPE, TAKES

GUARANTEES = {**LAYER_GUARANTEES, "a": "A's columns are one 1 or two halves, with at least the preset's halves"}

SHAPE_LIMITS = {"tokens": (2, 8), "d_model": (1, 6), "d_ff": (1, 6), "d_k": (1, 4), "heads": (1, 2)}
"""Shapes a block is worked by hand in."""

SETTINGS = TAKES
"""The settings its draw takes."""

LEGACY_INDEX = 2
"""Its kind field in a version-4 code (the layout of the first kinds after attention)."""


@dataclass(frozen=True)
class Options(LayerOptions, kind="transformer", limits=SHAPE_LIMITS):
    """Everything that shapes a block's draw; a sheet code carries all of it (the FFN's, then its attention's)."""

    attention: str = "given"
    """given (A printed, Z = X·A) or computed (from a head, as the attention sheet)."""
    d_k: int = 3
    """Computed attention: query/key size (3: the classic floor(x/2))."""
    heads: int = 1
    """Computed attention: heads (more than one needs W_O)."""
    output_projection: bool = False
    """Computed attention: a W_O (its values keep d_v = d_model: W_O maps the heads back)."""
    causal: bool = False
    """Computed attention: the causal mask."""
    draw_version: int = 1
    """A block has one draw (the FFN's later one grows its boxes; a block's sheet does not)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.attention not in ("given", "computed"):
            raise DrawError(f"--attention: expected given or computed, got {self.attention!r}")
        if not self.residual:
            raise DrawError("a transformer block always adds its input back: drop --no-residual")
        if self.computed and self.heads > 1 and not self.output_projection:
            raise DrawError(
                f"a computed block adds attention's output to X, which needs d_model = {self.d_model} "
                "rows: with several --heads, add --output-projection (or use one head)"
            )
        if not self.computed and (self.causal or self.output_projection or self.heads != 1):
            raise DrawError(
                "given attention prints A itself: --heads, --output-projection and --causal are for "
                "--attention computed"
            )

    @property
    def computed(self) -> bool:
        """Whether the block's attention is computed from heads."""
        return self.attention == "computed"

    @property
    def d_v(self) -> int:
        """Computed attention's value size: d_model, so Z (or W_O's output) adds to X."""
        return self.d_model

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape whose tokens cannot all differ (computed attention: a
        shape the attention draw refuses)."""
        if self.computed:
            attention_options(self).check_drawable()
            return
        check_tokens(self)


OPTIONS = Options
"""The kind's options: everything that shapes its draw."""


def options(values: dict, given: Collection[str] = ()) -> Options:
    """The options of the settings by name; its shape its own where none was given. Only a
    --no-residual the teacher chose is refused (a form's unticked box says nothing of a block)."""
    residual = values["residual"] if "residual" in given else True
    return Options(
        **shape_of(values, given, DEFAULT_SHAPE),
        preset=values["preset"],
        convention=values["convention"],
        residual=residual,
        attention=values["attention"],
        heads=values["heads"],
        output_projection=values["output_projection"],
        causal=values["causal"],
    )


def attention_options(o: Options):
    """The attention draw of a computed block: its shape, a value per feature, and column sums
    kept small (R's denominators): the preset's bound for three tokens, grown with the tokens,
    and never below what its largest power needs (3^top and a 3 for each other key)."""
    base = part("attention", "draw").OPTIONS(
        preset=o.preset,
        tokens=o.tokens,
        d_model=o.d_model,
        d_k=o.d_k,
        d_v=o.d_model,
        heads=o.heads,
        output_projection=o.output_projection,
        causal=o.causal,
    )
    room = 3 ** base.limits().min_top + 3 * (o.tokens - 1)
    return replace(base, max_sum=max(room, -(-o.limits().max_sum * o.tokens // 3)))


def draw_weights(bits: np.random.PCG64, o: Options, lim: LayerPreset) -> list[list]:
    """A (n × n): each column one 1 or two halves; at least `lim.halves` columns of halves."""
    n = o.tokens
    halves_wanted = min(lim.halves, n)
    for _ in range(ROUNDS):
        drawn = lanes(bits.random_raw(words_for(3 * n)), 3 * n).tolist()
        A: list[list] = [[0] * n for _ in range(n)]
        halves = 0
        for j in range(n):
            kind, first, second = drawn[3 * j : 3 * j + 3]
            i1 = first % n
            if kind % 2 and n > 1:
                i2 = (i1 + 1 + second % (n - 1)) % n
                A[i1][j] = A[i2][j] = Fraction(1, 2)
                halves += 1
            else:
                A[i1][j] = 1
        if halves >= halves_wanted:
            return A
    raise DrawError(f"cannot draw A: {GUARANTEES['a']}")


def draw_one(o: Options, seed: int, index: int, code: str) -> BlockProblem:
    """Problem `index` of the batch drawn with `seed`, with its code."""
    lim = o.limits()
    bits, layer_bits = stream(seed, index), stream(seed, index, 1)
    attention = None
    if o.computed:
        try:
            drawn = part("attention", "draw").draw_keys(attention_options(o), [(seed, index)])[0]
            attention = replace(drawn, code=None)
        except Infeasible as error:
            guarantees = part("attention", "draw").GUARANTEES
            raise DrawError(
                f"cannot draw the block's attention for problem {index} of seed {seed} on {o.preset}: "
                f"{guarantees[error.guarantee][0]}; try another --preset, fewer --tokens "
                "or another --d-model"
            ) from None
    from generator.core.registry import solve

    for _ in range(RETRIES):
        if attention is not None:
            X = np.array(attention.X, dtype=np.int64)
            A = None
            attended = solve(attention)
            Z = attended.output if attended.output is not None else attended.Z
            source = [[x + z for x, z in zip(r, q)] for r, q in zip(attention.X, Z)]
        else:
            X = draw_x(bits, o, lim)
            A = draw_weights(bits, o, lim)
            xs = X.tolist()
            source = [[x + sum(row[m] * A[m][j] for m in range(o.tokens)) for j, x in enumerate(row)] for row in xs]
        layers = draw_layers(layer_bits, o, lim, source)
        if layers is not None:
            return _problem(o, X, A, attention, layers, code)
        if attention is not None:
            break  # the attention part is the attention draw's: only the layers can be drawn again
    raise DrawError(
        f"cannot draw a {o.kind} sheet of this shape on {o.preset}: {GUARANTEES['layer1']}; "
        "try another preset, fewer --tokens or a smaller --d-model"
    )


def _problem(o: Options, X, A, attention, layers, code: str) -> BlockProblem:
    W1, b1, W2, b2 = layer_values(layers)
    if attention is None:
        p = BlockProblem(
            X=as_matrix(X), W1=W1, b1=b1, W2=W2, b2=b2, attention="given", A=tuple(map(tuple, A)), code=code
        )
    else:
        p = BlockProblem(
            X=attention.X,
            W1=W1,
            b1=b1,
            W2=W2,
            b2=b2,
            attention="computed",
            heads=attention.heads,
            W_O=attention.W_O,
            rules=Rules(),
            causal=attention.causal,
            code=code,
        )
    return to_row(p) if o.convention == "row" else p


def to_row(p: BlockProblem) -> BlockProblem:
    """The row-convention twin of a drawn column-convention block."""
    t = transpose
    return replace(
        p,
        X=t(p.X),
        W1=t(p.W1),
        W2=t(p.W2),
        A=None if p.A is None else t(p.A),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in p.heads),
        W_O=None if p.W_O is None else t(p.W_O),
        convention="row",
    )


def draw_keys(o: Options, keys: list[tuple[int, int]]) -> list:
    """The problems for (seed, index) pairs, in order, each with its sheet code."""
    return keyed(o, keys, lambda seed, index, code: draw_one(o, seed, index, code))


def code_head(o: Options, w) -> None:
    """The code's head (version 4): the layers' fields, the flag being computed attention, then
    for computed attention d_k-1, heads-1 (Elias gamma), output projection and causal (1 bit each)."""
    layer_code_head(o, w, LEGACY_INDEX, o.computed)
    if o.computed:
        w.gamma(o.d_k - 1)
        w.gamma(o.heads - 1)
        w.flag(o.output_projection)
        w.flag(o.causal)


def read_code(version: int, r, code: str) -> Options:
    """The options a version-4 block code holds."""
    values, computed = read_layers(r, code)
    if computed:
        values.update(
            attention="computed", d_k=r.gamma() + 1, heads=r.gamma() + 1, output_projection=r.flag(), causal=r.flag()
        )
    return Options(**values)


def manifest(o: Options) -> dict:
    """The options as a manifest records them."""
    from dataclasses import asdict

    return {"kind": o.kind, **{name: value for name, value in asdict(o).items() if name != "draw_version"}}


def blank(o: Options) -> BlockProblem:
    """A blank block of the shape of `o`; a given A is the identity (a distribution the block
    accepts: a blank template prints none of its numbers)."""
    n, d = o.tokens, o.d_model
    zeros = lambda r, c: tuple((0,) * c for _ in range(r))  # noqa: E731
    if not o.computed:
        problem = BlockProblem(
            **blank_layers(o), attention="given", A=tuple(tuple(int(i == j) for j in range(n)) for i in range(n))
        )
    else:
        head = Head(zeros(o.d_k, d), zeros(o.d_k, d), zeros(o.d_v, d))
        problem = BlockProblem(
            **blank_layers(o),
            attention="computed",
            heads=(head,) * o.heads,
            W_O=zeros(d, o.heads * o.d_v) if o.output_projection else None,
            causal=o.causal,
        )
    return to_row(problem) if o.convention == "row" else problem
