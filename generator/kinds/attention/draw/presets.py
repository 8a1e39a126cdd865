"""Attention's draw options: presets, value tables, limits, and the advice a failed draw gives."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Optional

from generator.kinds.attention.settings import MAX_SCORE_LIMIT, MAX_SUM_LIMIT
from generator.draw.options import PRESET_NAMES, DrawError, Table
from generator.draw.settings import VALUE_LIMIT


@dataclass(frozen=True)
class Preset:
    """Value ranges and guarantees that make a problem workable by hand in a class period."""

    x: Table
    """Distribution of X's entries."""
    w: Table
    """Distribution of every weight matrix's entries."""
    qk: tuple[int, int]
    """Window for every entry of Q and K."""
    v: tuple[int, int]
    """Window for every entry of V."""
    min_scaled: int
    """Smallest scaled score allowed (negative: 3^-1 = 1/3 appears)."""
    max_scaled: int
    """Largest scaled score allowed."""
    min_top: int
    """Each head's largest scaled score is at least this, so every sheet is comparably hard."""
    max_sum: int
    """Largest column sum of the powers."""
    o_w: Optional[Table] = None
    """Distribution of W_O's entries, where it differs from `w` (W_O mixes the heads' values,
    not d_model features: it keeps the preset's own)."""
    zero_qk: bool = False
    """Whether a token may have an all-zero query or key (one entry, often 0, or many tokens)."""
    zero_v: bool = False
    """Whether a token may have an all-zero value (the same)."""


# Tuned by drawing thousands and working samples by hand. Zeros are likelier than in a uniform
# draw, and the Q/K/V windows keep projections small: that is what keeps scores hand-sized, and
# it keeps the rejection search short (each row of a weight matrix is redrawn on its own).
PRESETS: dict[str, Preset] = {
    "easy": Preset(
        x=Table((0, 1), (1, 1)),
        w=Table((0, 1), (2, 1)),
        qk=(0, 2),
        v=(0, 3),
        min_scaled=0,
        max_scaled=2,
        min_top=2,
        max_sum=30,
    ),
    "medium": Preset(
        x=Table((0, 1, 2), (2, 2, 1)),
        w=Table((-1, 0, 1), (1, 4, 2)),
        qk=(0, 2),
        v=(-2, 3),
        min_scaled=0,
        max_scaled=3,
        min_top=2,
        max_sum=60,
    ),
    "hard": Preset(
        x=Table((-1, 0, 1, 2), (1, 3, 3, 1)),
        w=Table((-1, 0, 1, 2), (1, 5, 3, 1)),
        qk=(-1, 3),
        v=(-3, 4),
        min_scaled=-1,
        max_scaled=4,
        min_top=3,
        max_sum=250,
    ),
}
assert tuple(PRESETS) == PRESET_NAMES  # one preset name means one difficulty in every kind

LIMITS = {"tokens": (1, 12), "d_model": (1, 16), "d_k": (1, 8), "d_v": (1, 8), "heads": (1, 4)}
"""Shape bounds: beyond them no sheet is workable by hand."""
DRAW_VERSION = 3
"""The draw algorithm. Version 2 bounds the output projection's denominators when there are
several heads; version 1 (codes printed before it) drew those shapes without the bound.
Version 3 scales the preset with the shape (see `DrawOptions.limits`); shapes it leaves as
they were (the default one and smaller) draw as in version 2."""

FEWEST_FEATURES = ((2, 2), (4, 3), (10, 4), (12, 5))
"""(tokens up to, d_model at least): the shapes a preset draws without overrides. Measured
over every preset, d_k and d_v, 72 seeds a shape: with fewer features, more than 1% of seeds
draw no sheet (too few different tokens, or scores that outgrow 3^max)."""

BASE_TOKENS, BASE_D_MODEL, BASE_D_K = 4, 6, 4
"""The shape the presets were tuned for (d_k up to 4: four products, halved by the floor):
beyond it, version 3 scales them."""


@dataclass(frozen=True)
class DrawOptions:
    """Everything that shapes an attention sheet's draw; a sheet code carries all of it."""

    kind: ClassVar[str] = "attention"
    """The kind these options draw."""
    preset: str = "medium"
    """easy, medium or hard."""
    tokens: int = 4
    """Number of tokens n."""
    d_model: int = 6
    """Features per token."""
    d_k: int = 3
    """Query/key size."""
    d_v: int = 3
    """Value size."""
    heads: int = 1
    """Number of heads."""
    output_projection: bool = False
    """Add a W_O."""
    causal: bool = False
    """Causal mask."""
    convention: str = "column"
    """column (by-hand sheets) or row (PyTorch)."""
    rules: str = "hand"
    """hand (floor + base3) or exact (√d_k + e^x)."""
    x_range: Optional[tuple[int, int]] = None
    """Override: X entries uniform in lo..hi."""
    w_range: Optional[tuple[int, int]] = None
    """Override: weight entries uniform in lo..hi."""
    max_score: Optional[int] = None
    """Override: largest scaled score."""
    max_sum: Optional[int] = None
    """Override: largest column sum of powers."""
    allow_negative_exponents: bool = False
    """Allow scaled scores down to -1 (3^-1 = 1/3)."""
    draw_version: int = DRAW_VERSION
    """The draw algorithm (1 and 2 only to rebuild the sheets of older codes)."""

    @property
    def bounds_output(self) -> bool:
        """Whether the output's denominators are bounded: several heads meet in W_O."""
        return self.output_projection and self.heads > 1 and self.rules == "hand" and self.draw_version >= 2

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise DrawError(f"--preset: expected one of {', '.join(PRESETS)}, got {self.preset!r}")
        for name, (lo, hi) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise DrawError(f"--{name.replace('_', '-')}: expected {lo} to {hi}, got {value}")
        if self.convention not in ("column", "row"):
            raise DrawError(f"--convention: expected column or row, got {self.convention!r}")
        if self.rules not in ("hand", "exact"):
            raise DrawError(f"--rules: expected hand or exact, got {self.rules!r}")
        for name in ("x_range", "w_range"):
            r = getattr(self, name)
            if r is not None and not (-VALUE_LIMIT <= r[0] <= r[1] <= VALUE_LIMIT):
                raise DrawError(
                    f"--{name.replace('_', '-')}: expected LO..HI with -{VALUE_LIMIT} ≤ LO ≤ HI ≤ {VALUE_LIMIT}"
                )
        limits = self.limits()
        if self.max_score is not None and not limits.min_scaled <= self.max_score <= MAX_SCORE_LIMIT:
            raise DrawError(f"--max-score: expected {limits.min_scaled} to {MAX_SCORE_LIMIT}, got {self.max_score}")
        x = limits.x.values
        kinds = len(x) ** self.d_model - (1 if 0 in x else 0)  # X's possible columns, all-zero left out
        if kinds < self.tokens:
            raise DrawError(
                f"--tokens {self.tokens}: X's columns must all differ, and --d-model {self.d_model} with "
                f"entries {x[0]}..{x[-1]} makes only {kinds}; use a larger --d-model or a wider --x-range"
            )
        if self.draw_version not in range(1, DRAW_VERSION + 1):
            raise DrawError(f"draw version: expected 1 to {DRAW_VERSION}, got {self.draw_version}")
        if self.max_sum is not None and not 1 <= self.max_sum <= MAX_SUM_LIMIT:
            raise DrawError(f"--max-sum: expected 1 to {MAX_SUM_LIMIT}, got {self.max_sum}")

    def check_drawable(self) -> None:
        """Refuse, before any draw, a shape the presets cannot draw (see `FEWEST_FEATURES`);
        with value overrides the draw itself decides."""
        if self.tokens == 1:
            raise DrawError(
                "--tokens 1: a single token attends only to itself (A is 1, Z is V), "
                "nothing to work by hand; use 2 or more"
            )
        if (self.x_range, self.w_range, self.max_score, self.max_sum) != (None,) * 4:
            return
        least = next(d for n, d in FEWEST_FEATURES if self.tokens <= n)
        if self.d_model < least:
            raise DrawError(
                f"--tokens {self.tokens} needs --d-model {least} or more: with fewer features the "
                f"tokens are too alike or their scores too large to draw a sheet; use --d-model "
                f"{least}, or fewer --tokens"
            )

    @property
    def scales_shape(self) -> bool:
        """Whether draw version 3 changes this shape's limits (so its codes must say so)."""
        return self.draw_version >= 3 and self.limits() != replace(self, draw_version=2).limits()

    def limits(self) -> Preset:
        """The preset with every override applied; from draw version 3, scaled with the shape
        where the user did not set the value (measured over the shape grid, see docs/reference/draw.md):
        the sum cap grows with the tokens past 4 (a column of 12 powers has three times the
        room of 4); past 4 tokens X's extreme entries (2, and −1 on hard) get rarer, the more
        so with a small d_model or a large d_k (more scores, each a longer sum, must stay
        hand-sized); the weights get sparser with d_model past 6, the tokens past 4 and d_k
        past 4 (a projection sums about as many non-zero terms); W_O keeps the preset's
        weights; and with a single entry or more than six tokens a token's query, key or
        value may be 0."""
        lim = self._limits()
        if self.draw_version < 3:
            return lim
        if self.max_sum is None and self.tokens > BASE_TOKENS:
            lim = replace(lim, max_sum=-(-lim.max_sum * self.tokens // BASE_TOKENS))
        values = lim.x.values
        extremes = {v for v in (values[0], values[-1]) if v < 0 or v > 1}
        if self.x_range is None and self.tokens > BASE_TOKENS and extremes:
            more = -(-self.tokens // BASE_TOKENS) * (2 if self.d_model < BASE_D_MODEL or self.d_k > BASE_D_K else 1)
            lim = replace(
                lim, x=Table(values, tuple(w if v in extremes else w * more for v, w in zip(values, lim.x.weights)))
            )
        sparse = (
            min(1.0, BASE_D_MODEL / self.d_model)
            * min(1.0, (BASE_TOKENS / self.tokens) ** 0.5)
            * min(1.0, (BASE_D_K / self.d_k) ** 0.5)
        )
        if self.w_range is None and sparse < 1.0:
            lim = replace(lim, w=_sparser(lim.w, sparse), o_w=lim.w)
        # One entry a token, or many tokens: some token's query, key or value is then often
        # all zero, which is dull (it attends, or is attended to, evenly) but not wrong.
        many = self.tokens > BASE_TOKENS + 2
        lim = replace(lim, zero_qk=self.d_k == 1 or many, zero_v=self.d_v == 1 or many)
        return lim

    def _limits(self) -> Preset:
        """The preset with every override applied, as version 2 drew it."""
        p = PRESETS[self.preset]
        min_scaled = min(p.min_scaled, -1) if self.allow_negative_exponents else p.min_scaled
        max_scaled = p.max_scaled if self.max_score is None else self.max_score
        return Preset(
            x=p.x if self.x_range is None else Table.uniform(*self.x_range),
            w=p.w if self.w_range is None else Table.uniform(*self.w_range),
            qk=(min(p.qk[0], min_scaled), p.qk[1] + max(0, max_scaled - p.max_scaled)),
            v=p.v,
            min_scaled=min_scaled,
            max_scaled=max_scaled,
            min_top=min(p.min_top, max_scaled),
            max_sum=p.max_sum if self.max_sum is None else self.max_sum,
        )


def _sparser(table: Table, factor: float) -> Table:
    """`table` with its non-zero values `factor` times as likely (the rest goes to zero)."""
    if 0 not in table.values:
        return table
    zero = table.values.index(0)
    scale = 12  # integer weights: each non-zero weight ×12, zero's weight makes up the rest
    nonzero = sum(w for k, w in enumerate(table.weights) if k != zero) * scale
    total = round(sum(table.weights) * scale / factor)
    return Table(table.values, tuple(total - nonzero if k == zero else w * scale for k, w in enumerate(table.weights)))


def _room(table: Table) -> bool:
    """Whether a value range can still be widened within -VALUE_LIMIT..VALUE_LIMIT."""
    return min(table.values) > -VALUE_LIMIT or max(table.values) < VALUE_LIMIT


# The options that can relax a guarantee, each with when it would change anything: advice never
# names an option already at its limit, or one the chosen preset makes useless.
RELAXERS: dict[str, Callable[["DrawOptions", Preset], bool]] = {
    "widen --x-range": lambda o, lim: _room(lim.x),
    "narrow --x-range": lambda o, lim: len(lim.x.values) > 2,
    "widen --w-range": lambda o, lim: _room(lim.w),
    "narrow --w-range": lambda o, lim: len(lim.w.values) > 2,
    "use fewer --tokens": lambda o, lim: o.tokens > 1,
    "use fewer --heads": lambda o, lim: o.heads > 1,
    "raise --d-model": lambda o, lim: o.d_model < LIMITS["d_model"][1],
    "lower --d-model": lambda o, lim: o.d_model > 1,
    "lower --d-k": lambda o, lim: o.d_k > 1,
    "raise --max-score": lambda o, lim: lim.max_scaled < MAX_SCORE_LIMIT,
    "lower --max-score": lambda o, lim: lim.max_scaled > max(lim.min_scaled, 0),
    "raise --max-sum": lambda o, lim: lim.max_sum < MAX_SUM_LIMIT,
    "add --allow-negative-exponents": lambda o, lim: lim.min_scaled >= 0,
}

# Each guarantee's wording, and the options that may relax it, for the "cannot draw" message.
GUARANTEES = {
    "x_zero": ("no all-zero row or column in X", ("widen --x-range", "use fewer --tokens")),
    "x_same": ("no two tokens identical", ("widen --x-range", "raise --d-model", "use fewer --tokens")),
    "v_window": ("every row of V varied and within the preset's window", ("narrow --x-range", "narrow --w-range")),
    "v_zero": ("no all-zero column in V", ("widen --w-range", "widen --x-range")),
    "qk_window": (
        "every row of Q and K non-zero and within the preset's window",
        ("raise --max-score", "narrow --x-range", "narrow --w-range"),
    ),
    "qk_zero": ("no all-zero column in Q or K", ("widen --w-range", "widen --x-range")),
    "high": ("every scaled score at most the --max-score", ("raise --max-score", "lower --d-model", "lower --d-k")),
    "low": ("no scaled score below the smallest allowed", ("add --allow-negative-exponents",)),
    "top": ("each head's largest scaled score reaches the preset's top", ("lower --max-score",)),
    "sum": ("every column sum within --max-sum", ("raise --max-sum", "lower --max-score", "use fewer --tokens")),
    "uniform": ("at least half of the queries attend non-uniformly", ("widen --w-range", "raise --max-score")),
    "heads_same": ("no two heads identical", ("widen --w-range",)),
    "o_zero": ("no all-zero row or column in W_O", ("widen --w-range",)),
    "o_denominators": (
        "every denominator of the output (the lcm of the heads' column sums for a query) at most 2 × heads × --max-sum",
        ("raise --max-sum", "use fewer --heads", "lower --max-score"),
    ),
}


def advice(name: str, o: "DrawOptions", lim: Preset) -> str:
    """What the user can do about a guarantee that failed, among the options that would help."""
    useful = [relax for relax in GUARANTEES[name][1] if RELAXERS[relax](o, lim)]
    if not useful:
        return "no option relaxes it further for this shape: try a smaller shape or another preset"
    return ", or ".join(useful)
