"""The recurrent layer's settings: its state's size and its readout (the time steps are the tokens, the inputs' size the features)."""

from __future__ import annotations

from generator.draw.settings import N_, Setting

TITLE = N_("The recurrent layer")
"""The kind's name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention", "d_h", "readout")
"""Every setting its draw takes: --tokens is the time steps T, --d-model the inputs' size d_x."""
DEFAULT_SHAPE = {"tokens": 3, "d_model": 2, "d_h": 2, "readout": 1}
"""Its shape where none is given: three steps of two inputs, a state of two, one output a step."""

DECLARED = (
    Setting(
        "d_h",
        "--d-h",
        N_("Units of a recurrent layer's state h."),
        "number",
        2,
        lo=2,
        hi=4,
        words=N_("State units"),
        group="shape",
    ),
    Setting(
        "readout",
        "--readout",
        N_("Outputs per time step of a recurrent layer, y_t = W_y·h_t (0: none)."),
        "number",
        1,
        lo=0,
        hi=3,
        words=N_("Outputs per step"),
        group="shape",
    ),
)
"""The settings the recurrent layer brings."""
