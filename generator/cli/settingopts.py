"""A declared batch setting (app/settings) as a Click option: its flag, help, default and type."""

from __future__ import annotations

from typing import Callable

import click

from generator.app.settings import DRAW_SETTINGS, SETTINGS, Setting, SettingError, value_range
from generator.core.kinds import KINDS, part
from generator.draw.settings import shape_defaults, takers

DRAW_NAMES = frozenset(DRAW_SETTINGS)


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
    kinds = {"number": {"type": click.IntRange(s.lo, s.hi)}, "choice": {"type": click.Choice(list(s.choices))},
             "flag": {"is_flag": True}, "switch": {}, "range": {"type": RangeType(s)}, "text": {}}
    flags = (f"{s.flag}/{s.off}",) if s.kind == "switch" else (s.flag, *decls)
    by_kind = shape_defaults(name) if name in DRAW_NAMES else ""
    shown = {} if not s.shown or s.kind == "flag" else {"show_default": by_kind or s.shown}
    default = {} if s.kind == "flag" else {"default": s.default}
    return click.option(*flags, help=help_of(s), **kinds.get(s.kind, {}), **default, **shown, **extra)


def help_of(s: Setting) -> str:
    """A setting's help, with the kinds that take it where not every kind does (from the kinds' own words)."""
    if s.name == "kind":
        return f"{s.help.rstrip('.')}: " + ", ".join(f"{kind} ({part(kind, 'settings').TITLE.lower()})"
                                                      for kind in KINDS) + "."
    if s.name not in DRAW_NAMES:
        return s.help
    some = takers(s.name)
    return s.help if len(some) == len(KINDS) else f"{s.help.rstrip('.')} (--kind {' or '.join(some)})."
