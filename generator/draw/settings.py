"""A draw's settings, declared once: every kind's (from its folder's `settings`) and those all kinds share.

Each setting says its flag, its help, its default, what it takes and how the web form names it;
`read` turns a form's text into its value with the same words the command line uses for a
misuse. Which kinds take a setting is each kind's own word (its `TAKES`); no setting names a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Union

from generator.core.errors import AttnsheetError
from generator.core.registry import default_kind, kinds, part


class SettingError(AttnsheetError):
    """A setting's text that is not one of its values (the message names the flag)."""


def N_(text: str) -> str:
    """Mark `text` for the catalog (`make messages`); it is translated where it is shown."""
    return text


VALUE_LIMIT = 9
"""A range setting (LO..HI) stays within -9..9: beyond it no entry is worked by hand."""
PRESET_NAMES = ("easy", "medium", "hard")
"""The presets every kind offers: one name means one difficulty in every kind."""


@dataclass(frozen=True)
class Setting:
    """One setting of a batch, as both front ends offer it."""

    name: str
    """Its parameter name (tokens, d_model, ...)."""
    flag: str
    """Its command-line flag (--tokens)."""
    help: str
    """What it does, in one line."""
    kind: str
    """number (whole, in lo..hi), choice, flag (on or off), switch (a flag and its off flag),
    range (LO..HI within ±VALUE_LIMIT), text, or file (an upload; a path on the command line)."""
    default: Any = None
    """Its value when it is not given."""
    lo: Optional[int] = None
    """A number's least value."""
    hi: Optional[int] = None
    """A number's largest value."""
    choices: tuple[str, ...] = ()
    """A choice's values."""
    shown: Union[bool, str] = True
    """How `--help` shows the default (True: as it is; a text: those words; False: not)."""
    off: str = ""
    """A switch's flag that turns it off (--no-residual)."""
    words: str = ""
    """What the web form calls it, for a teacher (the flag stays small beside it)."""
    group: str = "advanced"
    """The form's group it shows in: class, exercise, shape, rules, sheets, students, advanced."""


def kind_setting() -> Setting:
    """The kind to draw: one of the kinds registered (known only once the registry has loaded them)."""
    return Setting(
        "kind",
        "--kind",
        N_("The exercise, each worked by hand on a sheet of its own."),
        "choice",
        default_kind(),
        choices=kinds(),
        words=N_("Exercise"),
        group="exercise",
    )


SHARED = (
    Setting(
        "preset",
        "--preset",
        N_("Value ranges and guarantees: how hard the arithmetic is."),
        "choice",
        "medium",
        choices=PRESET_NAMES,
        words=N_("Difficulty"),
        group="exercise",
    ),
    Setting("tokens", "--tokens", N_("Tokens n."), "number", 4, lo=1, hi=12, words=N_("Tokens"), group="shape"),
    Setting(
        "d_model",
        "--d-model",
        N_("Features per token."),
        "number",
        6,
        lo=1,
        hi=16,
        words=N_("Features per token"),
        group="shape",
    ),
    Setting(
        "convention",
        "--convention",
        N_("column: tokens are columns (by hand); row: tokens are rows (PyTorch)."),
        "choice",
        "column",
        choices=("column", "row"),
        words=N_("Tokens as columns or rows"),
        group="rules",
    ),
)
"""The settings every kind's draw takes besides its kind (a kind's own shape defaults stand where none is given)."""


@lru_cache(maxsize=1)
def draw_settings() -> dict[str, Setting]:
    """Every draw setting by name: the shared ones, then each kind's own, in the registry's order."""
    found = {s.name: s for s in (kind_setting(), *SHARED)}
    for kind in kinds():
        for s in part(kind, "settings").DECLARED:
            found.setdefault(s.name, s)
    return found


@lru_cache(maxsize=None)
def takers(name: str) -> tuple[str, ...]:
    """The kinds whose draw takes setting `name`."""
    return tuple(kind for kind in kinds() if name in part(kind, "settings").TAKES)


def shape_defaults(name: str) -> str:
    """A shape setting's defaults where kinds differ ("4 for one kind, 3 for another"), or ''."""
    seen = {kind: part(kind, "settings").DEFAULT_SHAPE.get(name) for kind in takers(name)}
    shown = {kind: value for kind, value in seen.items() if value is not None}
    if len(set(shown.values())) < 2:
        return ""
    return ", ".join(f"{value} for {kind}" for kind, value in shown.items())


def read(setting: Setting, text: str) -> Any:
    """A setting's value from a form's text ("" is its default; for a flag, ticked or not), or a
    SettingError in the command line's words."""
    text = text.strip()
    if setting.kind in ("flag", "switch"):
        return text in ("on", "true", "1")
    if text == "":
        return setting.default
    if setting.kind == "number":
        try:
            value = int(text)
        except ValueError:
            raise SettingError(_invalid(setting, f"{text[:40]!r} is not a valid integer.")) from None
        if not setting.lo <= value <= setting.hi:
            raise SettingError(_invalid(setting, f"{value} is not in the range {setting.lo}<=x<={setting.hi}."))
        return value
    if setting.kind == "choice":
        if text not in setting.choices:
            shown = ", ".join(repr(c) for c in setting.choices)
            raise SettingError(_invalid(setting, f"{text[:40]!r} is not one of {shown}."))
        return text
    if setting.kind == "range":
        return value_range(text, setting)
    return text


def value_range(text: str, setting: Setting) -> tuple[int, int]:
    """LO..HI, two integers within -VALUE_LIMIT..VALUE_LIMIT."""
    lo, sep, hi = text.partition("..")
    try:
        if not sep:
            raise ValueError
        pair = (int(lo), int(hi))
    except ValueError:
        raise SettingError(_invalid(setting, f"expected LO..HI such as 0..2, got {text[:40]!r}")) from None
    if pair[0] > pair[1]:
        raise SettingError(_invalid(setting, f"LO must not exceed HI, got {text!r}"))
    if not -VALUE_LIMIT <= pair[0] <= pair[1] <= VALUE_LIMIT:
        raise SettingError(_invalid(setting, f"expected values within -{VALUE_LIMIT}..{VALUE_LIMIT}, got {text!r}"))
    return pair


def _invalid(setting: Setting, why: str) -> str:
    return f"Invalid value for '{setting.flag or setting.name}': {why}"
