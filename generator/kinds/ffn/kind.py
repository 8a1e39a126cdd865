"""The ffn kind as the registry takes it (pyproject.toml's attnsheet.kinds): its parts, each loaded when first asked for."""

from generator.core.registry import Kind


def part(which: str):
    """One part of the kind (steps, draw, sheet, settings): the draw and the sheet load numpy and the
    layout, which solving a problem never needs."""
    if which == "steps":
        from generator.kinds.ffn import steps as found
    elif which == "draw":
        from generator.kinds.ffn import draw as found
    elif which == "sheet":
        from generator.kinds.ffn import sheet as found
    else:
        from generator.kinds.ffn import settings as found
    return found


KIND = Kind("ffn", code=1, load=part, order=1)
