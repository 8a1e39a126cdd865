"""The attention kind as the registry takes it (pyproject.toml's attnsheet.kinds): its steps and settings, its draw and its sheet once asked for."""

from generator.core.registry import Kind, parted
from generator.kinds.attention import settings, steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from generator.kinds.attention import draw, sheet

    return draw, sheet


KIND = Kind("attention", code=0, load=parted(steps, settings, heavy), order=0, default=True)
