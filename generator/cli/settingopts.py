"""A declared batch setting (app/settings) as a Click option: its flag, help, default and type."""

from __future__ import annotations

from typing import Callable

import click

from generator.app.settings import SETTINGS, Setting, SettingError, help_of, shown_default, value_range


class RangeType(click.ParamType):
    """LO..HI, two integers within -VALUE_LIMIT..VALUE_LIMIT (see `app.settings.value_range`)."""

    name = "LO..HI"

    def __init__(self, setting: Setting) -> None:
        self.setting = setting

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            return value_range(str(value), self.setting)
        except SettingError as error:
            self.fail(str(error).split(": ", 1)[1], param, ctx)


def setting_option(name: str, *decls: str, **extra) -> Callable:
    """The Click option of a declared batch setting (app/settings.py): its flag, help, default and type."""
    s = SETTINGS[name]
    kinds = {
        "number": {"type": click.IntRange(s.lo, s.hi)},
        "choice": {"type": click.Choice(list(s.choices))},
        "flag": {"is_flag": True},
        "switch": {},
        "range": {"type": RangeType(s)},
        "text": {},
    }
    flags = (f"{s.flag}/{s.off}",) if s.kind == "switch" else (s.flag, *decls)
    shown = {} if not s.shown or s.kind == "flag" else {"show_default": shown_default(name)}
    default = {} if s.kind == "flag" else {"default": s.default}
    return click.option(*flags, help=help_of(name), **kinds.get(s.kind, {}), **default, **shown, **extra)
