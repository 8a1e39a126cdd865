"""The multi-layer perceptron's settings: its depth, its layers' sizes and what its last layer does (the examples are the tokens, the inputs' size the features)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("The multi-layer perceptron")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "layers", "d_hidden", "d_out", "last")
"""Every setting its draw takes: --tokens is the examples n, --d-model the inputs' size d_0."""
DEFAULT_SHAPE = {"tokens": 2, "d_model": 2, "layers": 2, "d_hidden": 3, "d_out": 1}
"""Its shape where none is given: two examples of two inputs through a hidden layer of three to one output."""
CHOICE_WORDS = {"last": {"linear": N_("linear (its Z is the output)"), "relu": N_("ReLU, as the others")}}
"""The last layer's choices in a teacher's words."""

DECLARED = (
    Setting(
        "layers",
        "--layers",
        N_("Layers of a multi-layer perceptron, each [W | b]·[H ; 1] then ReLU."),
        "number",
        2,
        lo=1,
        hi=4,
        words=N_("Layers"),
        group="shape",
    ),
    Setting(
        "d_hidden",
        "--d-hidden",
        N_("Units of each hidden layer of a multi-layer perceptron."),
        "number",
        3,
        lo=1,
        hi=4,
        words=N_("Hidden units"),
        group="shape",
    ),
    Setting(
        "d_out",
        "--d-out",
        N_("Outputs of a multi-layer perceptron's last layer."),
        "number",
        1,
        lo=1,
        hi=3,
        words=N_("Outputs"),
        group="shape",
    ),
    Setting(
        "last",
        "--last",
        N_("What a multi-layer perceptron's last layer does: linear (its Z is the output) or relu."),
        "choice",
        "linear",
        choices=("linear", "relu"),
        words=N_("Last layer"),
        group="exercise",
    ),
)
"""The settings the multi-layer perceptron brings."""
