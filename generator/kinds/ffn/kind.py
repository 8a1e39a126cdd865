"""The feed-forward layer as the registry takes it (pyproject.toml's attnsheet.kinds): its settings at hand, its steps, draw and sheet once asked for."""

from generator.core.registry import Kind, parted
from generator.kinds.ffn import settings


def steps():
    """Its problem and its graph of steps (pure): all that solving a problem loads."""
    from generator.kinds.ffn import steps

    return steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from generator.kinds.ffn import draw, sheet

    return draw, sheet


KIND = Kind("ffn", code=1, load=parted(settings, steps, heavy), order=1, later=(11,))
