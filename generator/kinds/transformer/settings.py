"""The transformer block's settings: its attention given or computed (and a computed one's shape, mask, heads)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("A transformer block")
"""The kind's name, for a teacher."""
TAKES = (
    "preset",
    "tokens",
    "d_model",
    "convention",
    "d_ff",
    "residual",
    "attention",
    "d_k",
    "heads",
    "output_projection",
    "causal",
)
"""Every setting its draw takes (a computed attention's too; a block always adds its input back)."""
DEFAULT_SHAPE = {"tokens": 3, "d_model": 3, "d_ff": 3, "d_k": 3}
CHOICE_WORDS = {"attention": {"given": N_("A given on the sheet"), "computed": N_("A computed from a head")}}
"""Its settings' choices in words, as the web form shows them."""
"""Its shape where none is given: the by-hand "simple transformer" sheets'."""

DECLARED = (
    Setting(
        "attention",
        "--attention",
        N_("A given on the sheet (Z = X·A), or computed from a head."),
        "choice",
        "given",
        choices=("given", "computed"),
        words=N_("Attention given or computed"),
        group="exercise",
    ),
)
"""The settings the block brings."""
