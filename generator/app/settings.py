"""A batch's settings, declared once: the command line builds its options from them, the web app its form.

Each setting says its flag, its help, its default and what it takes; `read` turns a form's text
into its value with the same words the command line uses for a misuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from generator.core.errors import AttnsheetError
from generator.draw.kindopts import KIND_NAMES
from generator.draw.options import (
    MAX_COUNT,
    MAX_SCORE_LIMIT,
    MAX_SEED,
    MAX_SUM_LIMIT,
    PRESET_NAMES,
    VALUE_LIMIT,
)
from generator.sheet.i18n import languages
from generator.sheet.model import PAPERS


class SettingError(AttnsheetError):
    """A setting's text that is not one of its values (the message names the flag)."""


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


def N_(text: str) -> str:
    """Mark `text` for the catalog (`make messages`); it is translated where it is shown."""
    return text


def _settings(*items: Setting) -> dict[str, Setting]:
    return {s.name: s for s in items}


WORDS = {
    # A setting's name in words, for a teacher (the web form; the flag stays small beside it),
    # and the group the form shows it in: class, exercise, shape, rules, sheets, advanced.
    "roster": (N_("Class list (CSV)"), "class"), "problem": (N_("Your own numbers (problem file)"), "class"),
    "count": (N_("Number of sheets"), "class"), "seed": (N_("Seed (the same numbers again)"), "class"),
    "blank": (N_("Blank templates"), "sheets"), "kind": (N_("Exercise"), "exercise"),
    "preset": (N_("Difficulty"), "exercise"), "tokens": (N_("Tokens"), "shape"), "d_model": (N_("Features per token"), "shape"),
    "d_k": (N_("Query and key size"), "shape"), "d_v": (N_("Value size"), "shape"), "heads": (N_("Heads"), "shape"),
    "output_projection": (N_("Output projection W_O"), "shape"), "causal": (N_("Causal mask"), "rules"),
    "convention": (N_("Tokens as columns or rows"), "rules"), "rules": (N_("By-hand or exact rules"), "rules"),
    "x_range": (N_("Inputs from … to …"), "advanced"), "w_range": (N_("Weights from … to …"), "advanced"),
    "max_score": (N_("Largest scaled score"), "advanced"), "max_sum": (N_("Largest column sum"), "advanced"),
    "allow_negative_exponents": (N_("Allow 3^−1 = 1/3"), "advanced"), "d_ff": (N_("Hidden units"), "shape"),
    "residual": (N_("Residual connection"), "exercise"), "attention": (N_("Attention given or computed"), "exercise"),
    "title": (N_("Title"), "class"), "split": (N_("One file per student"), "sheets"), "paper": (N_("Paper"), "sheets"),
    "lang": (N_("Language"), "sheets"), "worked": (N_("Worked example on keys"), "sheets"),
    "decimal_comma": (N_("Decimal comma"), "sheets"),
    "feedback": (N_("What students see when they hand in"), "students"),
    "release": (N_("When they see it"), "students"),
    "attempts": (N_("Hand-ins answered with feedback, per student"), "students"),
}
"""What the web form calls each setting, and where it shows it."""

GROUPS = (("class", N_("The class")), ("exercise", N_("The exercise")), ("shape", N_("Its shape")),
          ("rules", N_("Its rules")), ("sheets", N_("The sheets")), ("students", N_("Students hand in")),
          ("advanced", N_("Advanced")))
"""The form's groups, in order; the last is closed until opened."""


SETTINGS = _settings(
    Setting("roster", "--roster", "CSV with a 'name' column (optional 'id', 'group'): one named sheet per row.",
            "file", shown=False),
    Setting("problem", "--problem", "Print your own numbers: a problem@1 file (one problem for the class, or one "
            "per sheet).", "file", shown=False),
    Setting("count", "--count", "Number of sheets (default 1); or use --roster.", "number", lo=1, hi=MAX_COUNT,
            shown=False),
    Setting("seed", "--seed", "Seed of the batch; without it a fresh one is chosen and printed.", "number", lo=0,
            hi=MAX_SEED, shown=False),
    Setting("blank", "--blank", "Blank templates of the shape: every matrix empty, X and the weights too; no key.",
            "flag", False),
    Setting("kind", "--kind", "The exercise: self-attention, the feed-forward layer (ffn), or a whole transformer "
            "block.", "choice", "attention", choices=KIND_NAMES),
    Setting("preset", "--preset", "Value ranges and guarantees: how hard the arithmetic is.", "choice", "medium",
            choices=PRESET_NAMES),
    Setting("tokens", "--tokens", "Tokens n.", "number", 4, lo=1, hi=12),
    Setting("d_model", "--d-model", "Features per token.", "number", 6, lo=1, hi=16),
    Setting("d_k", "--d-k", "Query/key size.", "number", 3, lo=1, hi=8),
    Setting("d_v", "--d-v", "Value size.", "number", 3, lo=1, hi=8),
    Setting("heads", "--heads", "Attention heads.", "number", 1, lo=1, hi=4),
    Setting("output_projection", "--output-projection", "Add an output projection W_O.", "flag", False),
    Setting("causal", "--causal", "Causal mask: query j sees keys 1..j only.", "flag", False),
    Setting("convention", "--convention", "column: tokens are columns (by hand); row: tokens are rows (PyTorch).",
            "choice", "column", choices=("column", "row")),
    Setting("rules", "--rules", "hand: floor(x/2) and 3^x; exact: /√d_k and e^x.", "choice", "hand",
            choices=("hand", "exact")),
    Setting("x_range", "--x-range", "Override: X entries in LO..HI, e.g. 0..3.", "range", shown=False),
    Setting("w_range", "--w-range", "Override: weights in LO..HI, e.g. -1..2.", "range", shown=False),
    Setting("max_score", "--max-score", "Override: largest scaled score (3^N).", "number", lo=-1,
            hi=MAX_SCORE_LIMIT, shown=False),
    Setting("max_sum", "--max-sum", "Override: largest column sum of powers.", "number", lo=1, hi=MAX_SUM_LIMIT,
            shown=False),
    Setting("allow_negative_exponents", "--allow-negative-exponents",
            "Allow scaled scores of -1, so 3^-1 = 1/3 appears.", "flag", False),
    Setting("d_ff", "--d-ff", "Hidden units of the feed-forward layer (--kind ffn or transformer).", "number",
            lo=1, hi=6, shown="4 for ffn, 3 for transformer"),
    Setting("residual", "--residual", "--kind ffn: add the input back, out = X + Y (a transformer block always "
            "does).", "switch", True, off="--no-residual"),
    Setting("attention", "--attention", "--kind transformer: A given on the sheet (Z = X·A), or computed from a "
            "head.", "choice", "given", choices=("given", "computed")),
    Setting("title", "--title", "Title printed on every sheet (at most 120 characters).", "text", "",
            shown=False),
    Setting("split", "--split", "One file per student and per key, not two combined files.", "flag", False),
    Setting("paper", "--paper", "Paper size.", "choice", "a4", choices=tuple(PAPERS)),
    Setting("lang", "--lang", "Language of the sheets.", "choice", "en", choices=tuple(languages())),
    Setting("worked", "--worked", "Keys also work out one dot product and one softmax.", "flag", False),
    Setting("decimal_comma", "--decimal-comma", "Write decimals as 0,38 (--decimal-point: 0.38).", "switch", None,
            shown="a comma in Spanish, a point in English", off="--decimal-point"),
    # The web app's alone (a batch a server keeps): no flag.
    Setting("feedback", "", "none: “received” only; verdicts: right, carried or wrong per box and the points, no "
            "value; full: each box's expected value too.", "choice", "verdicts", choices=("none", "verdicts", "full")),
    Setting("release", "", "now: as soon as they hand in; later: when you release it on the class page.", "choice",
            "now", choices=("now", "later")),
    Setting("attempts", "", "How many of a student's hand-ins get feedback; the last one counts, and “full” shows "
            "values only with it.", "number", 3, lo=1, hi=20),
)
"""Every setting a batch takes, in the order `--help` and the form show them."""

DRAW_SETTINGS = ("kind", "preset", "tokens", "d_model", "d_k", "d_v", "heads", "output_projection", "causal",
                 "convention", "rules", "x_range", "w_range", "max_score", "max_sum", "allow_negative_exponents",
                 "d_ff", "residual", "attention")
"""The settings that shape a draw (the rest are the batch's and the sheets')."""


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
