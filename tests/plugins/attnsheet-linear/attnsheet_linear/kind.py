"""The linear layer as attnsheet registers it (this package's pyproject.toml, attnsheet.kinds): its settings at hand, its steps, draw and sheet once asked for."""

from generator.core.registry import Kind, parted

from attnsheet_linear import settings


def steps():
    """Its problem and its graph of steps (pure): all that solving a problem loads."""
    from attnsheet_linear import steps

    return steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from attnsheet_linear import draw, sheet

    return draw, sheet


KIND = Kind("linear", code=100, load=parted(settings, steps, heavy), order=100)
