"""The feed-forward layer's settings: its hidden units and its residual connection."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("The feed-forward layer")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "d_ff", "residual")
"""Every setting its draw takes."""
DEFAULT_SHAPE = {"tokens": 3, "d_model": 3, "d_ff": 4}
"""Its shape where none is given: the by-hand FFN sheets'."""

DECLARED = (
    Setting(
        "d_ff",
        "--d-ff",
        N_("Hidden units of the feed-forward layer."),
        "number",
        lo=1,
        hi=6,
        words=N_("Hidden units"),
        group="shape",
    ),
    Setting(
        "residual",
        "--residual",
        N_("Add the input back, out = X + Y."),
        "switch",
        True,
        off="--no-residual",
        words=N_("Residual connection"),
        group="exercise",
    ),
)
"""The settings the feed-forward layer brings."""
