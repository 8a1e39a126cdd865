"""One step of backpropagation's settings: its layers' sizes and its learning rate (the examples are the tokens, the inputs' size the features)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("One step of backpropagation")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "d_hidden", "d_out", "lr")
"""Every setting its draw takes: --tokens is the examples n, --d-model the inputs' size d_0."""
DEFAULT_SHAPE = {"tokens": 1, "d_model": 2, "d_hidden": 2, "d_out": 1}
"""Its shape where none is given: one example of two inputs, a hidden layer of two, one output."""

CHOICE_WORDS = {"lr": {"none": N_("none: the gradients only")}}
"""The learning rate's choice that is not a number, in a teacher's words."""

DECLARED = (
    Setting(
        "lr",
        "--lr",
        N_("Backpropagation's learning rate: the weights are updated by it (or not at all: the gradients only)."),
        "choice",
        "1/2",
        choices=("none", "1", "1/2", "1/4"),
        words=N_("Learning rate"),
        group="exercise",
    ),
)
"""The settings backpropagation brings (its layers' sizes are the multi-layer perceptron's --d-hidden and --d-out)."""
