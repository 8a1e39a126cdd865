"""The draw's options from settings by name, whatever the front end: attention's, or an FFN's or a block's."""

from __future__ import annotations

from typing import Collection, Union

from generator.draw.kindopts import DEFAULT_SHAPES, KindOptions
from generator.draw.options import DrawError, DrawOptions

ATTENTION_OPTION_NAMES = (
    "preset", "tokens", "d_model", "d_k", "d_v", "heads", "output_projection", "causal", "convention",
    "rules", "x_range", "w_range", "max_score", "max_sum", "allow_negative_exponents",
)
"""The settings of an attention sheet's draw (every field of DrawOptions a user sets)."""
KIND_OPTION_NAMES = ("d_ff", "residual", "attention")
"""The settings only the kinds after attention take."""
COMPUTED_OPTION_NAMES = ("d_k", "heads", "output_projection", "causal")
"""The attention settings a transformer block with computed attention takes."""


def options_for(values: dict, given: Collection[str] = ()) -> Union[DrawOptions, KindOptions]:
    """DrawOptions for attention, KindOptions for the kinds after it, from `values` (every
    setting by name, the defaults filled in) and `given` (the settings the user chose): a kind's
    shape defaults to its own where none was given; a setting of another kind is refused."""
    kind = values.get("kind") or "attention"
    if kind == "attention":
        # --residual (on) is every kind's default: only turning it off says another kind.
        stray = [name for name in KIND_OPTION_NAMES if name in given and not (name == "residual" and values[name])]
        if stray:
            raise DrawError(f"--{_flag(stray[0])} is for --kind ffn or transformer")
        return DrawOptions(**{name: values[name] for name in ATTENTION_OPTION_NAMES})
    allowed = ("preset", "tokens", "d_model", "convention") + KIND_OPTION_NAMES + (
        COMPUTED_OPTION_NAMES if kind == "transformer" else ())
    stray = [name for name in ATTENTION_OPTION_NAMES if name in given and name not in allowed]
    if stray:
        raise DrawError(f"--{_flag(stray[0])} is for attention sheets"
                        + (" (a block's computed attention takes --d-k, --heads, --output-projection and --causal)"
                           if kind == "transformer" else ""))
    if kind not in DEFAULT_SHAPES:
        raise DrawError(f"--kind: expected attention, ffn or transformer, got {kind!r}")
    chosen = {name: values[name] for name in ("preset", "convention", "attention", "heads", "output_projection",
                                              "causal")}
    chosen.update({name: values[name] if name in given and values.get(name) is not None else default
                   for name, default in DEFAULT_SHAPES[kind].items()})
    # A block always adds its input back: only a --no-residual the user chose is refused (a form's
    # unticked box says nothing of a block).
    residual = values["residual"] if kind == "ffn" or "residual" in given else True
    return KindOptions(kind=kind, residual=residual, **chosen)


def _flag(name: str) -> str:
    return {"residual": "no-residual"}.get(name, name.replace("_", "-"))
