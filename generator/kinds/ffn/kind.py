"""The feed-forward layer as the registry takes it (pyproject.toml's attnsheet.kinds): its steps and settings, its draw and its sheet once asked for."""

from generator.core.registry import Kind, parted
from generator.kinds.ffn import settings, steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from generator.kinds.ffn import draw, sheet

    return draw, sheet


KIND = Kind("ffn", code=1, load=parted(steps, settings, heavy), order=1)
