"""The linear layer as attnsheet registers it (this package's pyproject.toml, attnsheet.kinds): its steps and settings, its draw and its sheet once asked for."""

from generator.core.registry import Kind, parted

from attnsheet_linear import settings, steps


def heavy():
    """Its draw and its sheet: numpy and the layout, which solving a problem never needs."""
    from attnsheet_linear import draw, sheet

    return draw, sheet


KIND = Kind("linear", code=100, load=parted(steps, settings, heavy), order=100)
