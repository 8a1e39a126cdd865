"""Normalisation as the registry takes it (pyproject.toml's attnsheet.kinds): its settings at hand, its steps, draw and sheet once asked for."""

from generator.core.registry import Kind, parted
from generator.kinds.norm import settings


def steps():
    """Its problem and its graph of steps (pure): all that solving a problem loads."""
    from generator.kinds.norm import steps

    return steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from generator.kinds.norm import draw, sheet

    return draw, sheet


KIND = Kind("norm", code=7, load=parted(settings, steps, heavy), order=7, later=(17,))
