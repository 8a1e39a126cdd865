"""Draw options of the kinds after attention (the FFN, the transformer block): shapes, presets, guarantees."""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.draw.options import PRESETS, DrawError, DrawOptions, Table

KIND_NAMES = ("attention", "ffn", "transformer")
"""Every kind a draw knows; attention's options are `DrawOptions`, the others' `KindOptions`."""

SHAPE_LIMITS = {"tokens": (2, 8), "d_model": (1, 6), "d_ff": (1, 6), "d_k": (1, 4), "heads": (1, 2)}
"""Shapes a block or an FFN is worked by hand in (the FFN doubles every grid of attention's)."""

DEFAULT_SHAPES = {"ffn": {"tokens": 3, "d_model": 3, "d_ff": 4},
                  "transformer": {"tokens": 3, "d_model": 3, "d_ff": 3, "d_k": 3}}
"""The shapes a kind draws when none is given: the by-hand FFN and "simple transformer" sheets'."""


@dataclass(frozen=True)
class LayerPreset:
    """Value ranges and bounds that keep a feed-forward layer's arithmetic hand-sized."""

    x: Table
    """Distribution of X's entries."""
    w: Table
    """Distribution of W1's and W2's entries."""
    b: Table
    """Distribution of the biases' entries."""
    hidden: int
    """Largest |entry| of H_pre."""
    out: int
    """Largest |entry| of Y and of out."""
    halves: int
    """Given attention: at least this many columns of A are two halves (the rest one 1)."""
    max_sum: int
    """Computed attention: the largest column sum of the powers (R's denominators)."""


LAYER_PRESETS = {
    "easy": LayerPreset(x=Table((0, 1, 2), (2, 3, 1)), w=Table((-1, 0, 1), (2, 2, 3)), b=Table((-1, 0, 1), (1, 2, 1)),
                        hidden=4, out=8, halves=1, max_sum=12),
    "medium": LayerPreset(x=Table((0, 1, 2), (2, 2, 1)), w=Table((-1, 0, 1, 2), (3, 3, 3, 1)),
                          b=Table((-2, -1, 0, 1), (1, 2, 2, 2)), hidden=6, out=12, halves=1, max_sum=16),
    "hard": LayerPreset(x=Table((-1, 0, 1, 2), (1, 2, 2, 1)), w=Table((-2, -1, 0, 1, 2), (1, 3, 3, 3, 1)),
                        b=Table((-2, -1, 0, 1, 2), (1, 2, 2, 2, 1)), hidden=9, out=18, halves=2, max_sum=30),
}
assert tuple(LAYER_PRESETS) == tuple(PRESETS)  # one preset name means one difficulty in every kind


@dataclass(frozen=True)
class KindOptions:
    """Everything that shapes the draw of an FFN or a transformer block; a sheet code carries all of it."""

    kind: str = "ffn"
    """ffn or transformer."""
    preset: str = "medium"
    """easy, medium or hard."""
    tokens: int = 3
    """Tokens n."""
    d_model: int = 3
    """Features per token."""
    d_ff: int = 4
    """Hidden units of the FFN."""
    convention: str = "column"
    """column (by hand) or row (PyTorch)."""
    residual: bool = True
    """FFN: add the input back (out = X + Y). A block always does."""
    attention: str = "given"
    """Block: given (A printed, Z = X·A) or computed (from a head, as the attention sheet)."""
    d_k: int = 3
    """Computed attention: query/key size (3: the classic floor(x/2))."""
    heads: int = 1
    """Computed attention: heads (more than one needs W_O)."""
    output_projection: bool = False
    """Computed attention: a W_O (its values keep d_v = d_model: W_O maps the heads back)."""
    causal: bool = False
    """Computed attention: the causal mask."""

    def __post_init__(self) -> None:
        if self.kind not in KIND_NAMES[1:]:
            raise DrawError(f"--kind: expected one of {', '.join(KIND_NAMES)}, got {self.kind!r}")
        if self.preset not in LAYER_PRESETS:
            raise DrawError(f"--preset: expected one of {', '.join(LAYER_PRESETS)}, got {self.preset!r}")
        for name, (lo, hi) in SHAPE_LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise DrawError(f"--{name.replace('_', '-')}: {self.kind} sheets take {lo} to {hi}, got {value}")
        if self.convention not in ("column", "row"):
            raise DrawError(f"--convention: expected column or row, got {self.convention!r}")
        if self.attention not in ("given", "computed"):
            raise DrawError(f"--attention: expected given or computed, got {self.attention!r}")
        if self.kind == "ffn" and (self.attention != "given" or self.causal or self.output_projection
                                   or self.heads != 1):
            raise DrawError("an ffn sheet has no attention: drop --attention, --heads, --output-projection and "
                            "--causal")
        if self.kind == "transformer" and not self.residual:
            raise DrawError("a transformer block always adds its input back: drop --no-residual")
        if self.computed and self.heads > 1 and not self.output_projection:
            raise DrawError(f"a computed block adds attention's output to X, which needs d_model = {self.d_model} "
                            "rows: with several --heads, add --output-projection (or use one head)")
        if not self.computed and (self.causal or self.output_projection or self.heads != 1):
            raise DrawError("given attention prints A itself: --heads, --output-projection and --causal are for "
                            "--attention computed")

    @property
    def computed(self) -> bool:
        """Whether the block's attention is computed from heads."""
        return self.kind == "transformer" and self.attention == "computed"

    @property
    def d_v(self) -> int:
        """Computed attention's value size: d_model, so Z (or W_O's output) adds to X."""
        return self.d_model

    def limits(self) -> LayerPreset:
        """The preset's values and bounds."""
        return LAYER_PRESETS[self.preset]

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape whose tokens cannot all differ (a computed block's
        attention: a shape the attention draw refuses)."""
        if self.computed:
            attention_options(self).check_drawable()
            return
        x = self.limits().x.values
        kinds = len(x) ** self.d_model - (1 if 0 in x else 0)
        if kinds < self.tokens:
            raise DrawError(f"--tokens {self.tokens}: X's columns must all differ, and --d-model {self.d_model} "
                            f"makes only {kinds}; use a larger --d-model or fewer --tokens")


def attention_options(o: KindOptions) -> DrawOptions:
    """The attention draw of a computed block: its shape, a value per feature, and column sums
    kept small (R's denominators): the preset's bound for three tokens, grown with the tokens,
    and never below what its largest power needs (3^top and a 3 for each other key)."""
    base = DrawOptions(preset=o.preset, tokens=o.tokens, d_model=o.d_model, d_k=o.d_k, d_v=o.d_model,
                       heads=o.heads, output_projection=o.output_projection, causal=o.causal)
    room = 3 ** base.limits().min_top + 3 * (o.tokens - 1)
    return replace(base, max_sum=max(room, -(-o.limits().max_sum * o.tokens // 3)))
