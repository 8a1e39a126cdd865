"""What a teacher chooses for a linear layer: attnsheet's shared settings only (the tokens, the inputs' size)."""

from generator.draw.settings import N_

TITLE = N_("The linear layer")
"""Its name, for a teacher."""
TAKES = ("preset", "tokens", "d_model", "convention")
"""Every setting its draw takes: --d-model is the inputs' size d_in (the outputs' size is drawn)."""
DEFAULT_SHAPE = {"tokens": 3, "d_model": 3}
"""Three tokens of three features."""
DECLARED = ()
"""It brings no setting of its own."""
