"""Attention's draw, as every kind's draw offers it: its options from the settings, its seeded draw, its code, its blank template.

The search itself is `search` (staged, bounded, in lockstep), its options and presets `presets`,
the guarantees' stages `stages`, and what a failed draw suggests `nearby`.
"""

from __future__ import annotations

from dataclasses import asdict, fields, replace
from typing import Collection

from generator.kinds.attention.draw.presets import DRAW_VERSION, GUARANTEES, DrawOptions
from generator.kinds.attention.problem import Head, Problem, to_row
from generator.core.problem import Rules
from generator.draw.codes import CodeError
from generator.draw.options import PRESET_NAMES, DrawError, Infeasible
from generator.kinds.attention.settings import TAKES as SETTINGS

OPTIONS = DrawOptions
"""The kind's options: everything that shapes its draw; a sheet code carries all of it."""

CODE_VERSION = 1
"""Version of the code layout, and of the draw for every shape the draw's version 2 left as it was."""
BOUNDED_VERSION = 2
"""The same layout, for the shapes whose draw version 2 changed (several heads with W_O): their
older codes (version 1) still rebuild the sheets they were printed on."""
SCALED_VERSION = 3
"""The same layout, for the shapes whose draw version 3 changed (a preset scaled with the
shape): their older codes (versions 1 and 2) still rebuild the sheets they were printed on."""
CODE_VERSIONS = (CODE_VERSION, BOUNDED_VERSION, SCALED_VERSION)
"""The code versions that are attention's (the first three: attention was the first kind)."""

_SHAPES = ("tokens", "d_model", "d_k", "d_v", "heads")


def options(values: dict, given: Collection[str] = ()) -> DrawOptions:
    """The options of the settings by name (every default filled in)."""
    return DrawOptions(**{name: values[name] for name in SETTINGS})


def draw_keys(o: DrawOptions, keys: list[tuple[int, int]]) -> list[Problem]:
    """The problems for (seed, index) pairs, in order, each with its code."""
    from generator.kinds.attention.draw.search import draw_keys as search

    return search(o, keys)


def remedy(error: Infeasible, o: DrawOptions, seed: int, end: int) -> str:
    """A failed draw's message, with settings near the teacher's that were tried and do draw it."""
    from generator.kinds.attention.draw.nearby import remedy as tried
    from generator.kinds.attention.draw.search import draw_keys as search

    return tried(error, o, seed, end, search)


def code_head(o: DrawOptions, w) -> None:
    """The code's head: version (3 bits), preset (2), a flag for non-default options; if set:
    tokens-1, d_model-1, d_k-1, d_v-1, heads-1 (Elias gamma), output projection, causal, row
    convention, exact rules (1 bit each), then x range, w range, max score, max sum (each a
    presence bit and its value), allow negative exponents (1 bit)."""
    w.uint(SCALED_VERSION if o.scales_shape else BOUNDED_VERSION if o.bounds_output else CODE_VERSION, 3)
    w.uint(PRESET_NAMES.index(o.preset), 2)
    default = DrawOptions()
    custom = any(
        getattr(o, f.name) != getattr(default, f.name)
        for f in fields(DrawOptions)
        if f.name not in ("preset", "draw_version")
    )
    w.flag(custom)
    if custom:
        for name in _SHAPES:
            w.gamma(getattr(o, name) - 1)
        for bit in (o.output_projection, o.causal, o.convention == "row", o.rules == "exact"):
            w.flag(bit)
        for r in (o.x_range, o.w_range):
            w.flag(r is not None)
            if r is not None:
                w.signed(r[0])
                w.gamma(r[1] - r[0])
        w.flag(o.max_score is not None)
        if o.max_score is not None:
            w.signed(o.max_score)
        w.flag(o.max_sum is not None)
        if o.max_sum is not None:
            w.gamma(o.max_sum)
        w.flag(o.allow_negative_exponents)


def read_code(version: int, r, code: str) -> DrawOptions:
    """The options a code's head holds (its version read): a DrawError where they are refused."""
    preset_index = r.uint(2)
    if preset_index >= len(PRESET_NAMES):
        raise CodeError("sheet code names an unknown preset")
    values: dict = {"preset": PRESET_NAMES[preset_index]}
    if r.flag():
        for name in _SHAPES:
            values[name] = r.gamma() + 1
        values["output_projection"] = r.flag()
        values["causal"] = r.flag()
        values["convention"] = "row" if r.flag() else "column"
        values["rules"] = "exact" if r.flag() else "hand"
        for name in ("x_range", "w_range"):
            if r.flag():
                lo = r.signed()
                values[name] = (lo, lo + r.gamma())
        if r.flag():
            values["max_score"] = r.signed()
        if r.flag():
            values["max_sum"] = r.gamma()
        values["allow_negative_exponents"] = r.flag()
    options = DrawOptions(**values)
    if version == CODE_VERSION and options.bounds_output:
        options = replace(options, draw_version=1)  # printed before the output's bound: drawn without it
    elif version < SCALED_VERSION and options.scales_shape:
        options = replace(options, draw_version=2)  # printed before the presets scaled with the shape
    return options


def manifest(o: DrawOptions) -> dict:
    """The options as a manifest records them (the current draw's version left out: the codes say
    which draw made an older sheet)."""
    drawn = asdict(o)
    if drawn.get("draw_version") == DRAW_VERSION:
        del drawn["draw_version"]
    return drawn


def blank(o: DrawOptions) -> Problem:
    """A problem of the shape and rules of `o` with every entry 0: what a blank template is laid
    out from (none of its numbers is printed)."""
    n, d, dk, dv = o.tokens, o.d_model, o.d_k, o.d_v
    head = Head(zeros(dk, d), zeros(dk, d), zeros(dv, d))
    problem = Problem(
        X=zeros(d, n),
        heads=(head,) * o.heads,
        W_O=zeros(d, o.heads * dv) if o.output_projection else None,
        rules=Rules("exact", "e") if o.rules == "exact" else Rules(),
        causal=o.causal,
    )
    return to_row(problem) if o.convention == "row" else problem


def zeros(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """A matrix of zeros."""
    return tuple((0,) * cols for _ in range(rows))


__all__ = [
    "GUARANTEES",
    "OPTIONS",
    "DrawError",
    "blank",
    "zeros",
    "code_head",
    "draw_keys",
    "manifest",
    "options",
    "read_code",
    "remedy",
]
