"""Normalisation's settings: batch or layer norm, and a layer before it (the examples are the tokens, the features the norm's size)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("Batch norm and layer norm")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "axis", "layer_before", "d_in")
"""Every setting its draw takes: --tokens is the examples n, --d-model the features d."""
DEFAULT_SHAPE = {"tokens": 4, "d_model": 2, "d_in": 2}
"""Its shape where none is given: a batch norm of two features over four examples."""
CHOICE_WORDS = {
    "axis": {
        "batch": N_("batch norm: each feature over the batch"),
        "layer": N_("layer norm: each example over its features"),
    }
}
"""The axis's choices in a teacher's words."""

DECLARED = (
    Setting(
        "axis",
        "--axis",
        N_("A norm's axis: batch (each feature over the examples) or layer (each example over its features)."),
        "choice",
        "batch",
        choices=("batch", "layer"),
        words=N_("Normalise"),
        group="exercise",
    ),
    Setting(
        "layer_before",
        "--layer-before",
        N_("A layer before the norm: Z = [W | b]·[X ; 1], then ReLU."),
        "flag",
        False,
        words=N_("A layer before the norm"),
        group="exercise",
    ),
    Setting(
        "d_in",
        "--d-in",
        N_("Inputs of the layer before a norm (--layer-before)."),
        "number",
        2,
        lo=1,
        hi=4,
        words=N_("Inputs of that layer"),
        group="shape",
    ),
)
"""The settings a norm brings."""
