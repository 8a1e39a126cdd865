"""The mixture of experts' settings: its experts (each of --d-ff units), the weighting by the gate, and ties at the gate."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("A mixture of experts")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "d_ff", "experts", "weighted", "ties")
"""Every setting its draw takes (--d-ff: each expert's hidden units)."""
DEFAULT_SHAPE = {"tokens": 4, "d_model": 3, "d_ff": 2, "experts": 2}
"""Its shape where none is given: four tokens of three features, two experts of two units."""

DECLARED = (
    Setting(
        "experts",
        "--experts",
        N_("Experts of a mixture of experts (each token goes to one)."),
        "number",
        2,
        lo=2,
        hi=3,
        words=N_("Experts"),
        group="shape",
    ),
    Setting(
        "weighted",
        "--weighted",
        N_("Scale each token's output by its expert's gate probability (3^x softmax)."),
        "flag",
        False,
        words=N_("Weighted by the gate"),
        group="exercise",
    ),
    Setting(
        "ties",
        "--ties",
        N_("Give a token a tie at the gate (the lower expert takes it); none otherwise."),
        "flag",
        False,
        words=N_("A tie at the gate"),
        group="exercise",
    ),
)
"""The settings the mixture of experts brings."""
