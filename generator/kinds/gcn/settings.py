"""A graph convolution's settings: how a node gathers its neighbours (the nodes are the tokens, their features d_model; its layers' sizes are the multi-layer perceptron's)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("A graph convolution")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "layers", "d_hidden", "d_out", "aggregate")
"""Every setting its draw takes: --tokens is the nodes n, --d-model their features d."""
DEFAULT_SHAPE = {"tokens": 4, "d_model": 2, "layers": 1, "d_hidden": 2, "d_out": 2}
"""Its shape where none is given: four nodes of two features through one layer of two units."""
CHOICE_WORDS = {
    "aggregate": {
        "sum": N_("the sum of its neighbours' features"),
        "mean": N_("their mean (the sum ÷ the node's degree)"),
    }
}
"""How a node gathers its neighbours, in a teacher's words."""

DECLARED = (
    Setting(
        "aggregate",
        "--aggregate",
        N_(
            "How a graph convolution's node gathers its neighbours' features (itself "
            "too): sum, or mean (the sum divided by its degree)."
        ),
        "choice",
        "sum",
        choices=("sum", "mean"),
        words=N_("Each node takes"),
        group="exercise",
    ),
)
"""The settings a graph convolution brings (its layers' sizes are the multi-layer perceptron's --layers,
--d-hidden and --d-out)."""
