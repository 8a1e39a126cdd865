"""The draw's options from settings by name, whatever the front end and the kind: each kind makes its own."""

from __future__ import annotations

from typing import Collection

from generator.core.registry import default_kind, kinds, part
from generator.draw.options import DrawError
from generator.draw.settings import draw_settings, takers


def options_for(values: dict, given: Collection[str] = ()):
    """The chosen kind's options from `values` (every setting by name, the defaults filled in)
    and `given` (the settings the user chose): a kind's shape defaults to its own where none was
    given; a setting another kind takes is refused (a switch left at its default says nothing)."""
    kind = values.get("kind") or default_kind()
    if kind not in kinds():
        raise DrawError(f"--kind: expected one of {', '.join(kinds())}, got {kind!r}")
    settings, takes = draw_settings(), part(kind, "settings").TAKES
    stray = [
        name
        for name in given
        if name in settings
        and name != "kind"
        and name not in takes
        and not (settings[name].kind == "switch" and values.get(name) == settings[name].default)
    ]
    if stray:
        s = settings[stray[0]]
        flag = s.off if s.kind == "switch" and not values.get(s.name) else s.flag
        raise DrawError(f"{flag} is for {_listed(takers(s.name))} sheets, not {kind}")
    return part(kind, "draw").options(values, given)


def kind_options(kind: str, **fields):
    """A kind's options with `fields` set (the rest at their defaults): for code that knows its kind."""
    return part(kind, "draw").OPTIONS(**fields)


def _listed(names) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
