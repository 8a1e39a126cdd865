"""The draw's options on the command line: shape, preset and rules, checked by Click (a misuse exits 2)."""

from __future__ import annotations

from typing import Callable

import click

from generator.app.batches import RequestError, draw_options as checked_options
from generator.app.settings import DRAW_SETTINGS
from generator.cli.settingopts import setting_option


def draw_options(command: Callable) -> Callable:
    """The shape, preset and rule options shared by `draw` and `generate` (app/settings.py)."""
    for name in reversed(DRAW_SETTINGS):
        command = setting_option(name)(command)
    return command


DRAW_OPTION_NAMES = DRAW_SETTINGS
"""The draw's settings, as the command line's parameters are named."""


def options_from(params: dict, drawn: bool = True, given: tuple[str, ...] = ()):
    """The draw's options from the CLI's parsed parameters (`given`: the ones the user typed;
    see `draw.choose.options_for`). A combination they refuse, or a shape they cannot draw when
    they are `drawn` (not a blank template's), is a usage error."""
    try:
        return checked_options(params, given, drawn)
    except RequestError as error:
        raise click.UsageError(str(error)) from None
