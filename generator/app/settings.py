"""A batch's settings, declared once: the command line builds its options from them, the web app its form.

Each setting says its flag, its help, its default and what it takes; `read` turns a form's text
into its value with the same words the command line uses for a misuse. The draw's settings are
the kinds' own (draw/settings: each kind's folder declares what it brings); the batch's and the
sheets' are declared here.
"""

from __future__ import annotations

from generator.core.student import PRINT_SIZES
from generator.draw.options import MAX_COUNT, MAX_SEED
from generator.draw.settings import N_, Setting, SettingError, draw_settings, read, value_range
from generator.sheet.i18n import languages
from generator.sheet.model import PAPERS

GROUPS = (
    ("class", N_("The class")),
    ("exercise", N_("The exercise")),
    ("shape", N_("Its shape")),
    ("rules", N_("Its rules")),
    ("sheets", N_("The sheets")),
    ("students", N_("Students hand in")),
    ("advanced", N_("Advanced")),
)
"""The form's groups, in order; the last is closed until opened."""

BEFORE_DRAW = (
    Setting(
        "roster",
        "--roster",
        N_("CSV with a 'name' column (optional 'id', 'group', 'print'): one named sheet per row."),
        "file",
        shown=False,
        words=N_("Class list (CSV)"),
        group="class",
    ),
    Setting(
        "problem",
        "--problem",
        N_("Print your own numbers: a problem@1 file (one problem for the class, or one per sheet)."),
        "file",
        shown=False,
        words=N_("Your own numbers (problem file)"),
        group="class",
    ),
    Setting(
        "count",
        "--count",
        N_("Number of sheets (default 1); or use --roster."),
        "number",
        lo=1,
        hi=MAX_COUNT,
        shown=False,
        words=N_("Number of sheets"),
        group="class",
    ),
    Setting(
        "seed",
        "--seed",
        N_("Seed of the batch; without it a fresh one is chosen and printed."),
        "number",
        lo=0,
        hi=MAX_SEED,
        shown=False,
        words=N_("Seed (the same numbers again)"),
        group="class",
    ),
    Setting(
        "blank",
        "--blank",
        N_("Blank templates of the shape: every matrix empty, X and the weights too; no key."),
        "flag",
        False,
        words=N_("Blank templates"),
        group="sheets",
    ),
)
AFTER_DRAW = (
    Setting(
        "title",
        "--title",
        N_("Title printed on every sheet (at most 120 characters)."),
        "text",
        "",
        shown=False,
        words=N_("Title"),
        group="class",
    ),
    Setting(
        "split",
        "--split",
        N_("One file per student and per key, not two combined files."),
        "flag",
        False,
        words=N_("One file per student"),
        group="sheets",
    ),
    Setting(
        "large_print",
        "--large-print",
        N_(
            "Every sheet in large print: words, numbers and boxes 1.5 times as large on A3 (1.45 times on "
            "tabloid, for Letter), or twice as large on A3 or tabloid turned sideways, over more pages. For "
            "some students only, a 'print' column in the class list says 'large' or 'double'."
        ),
        "choice",
        "normal",
        choices=("normal", *PRINT_SIZES),
        shown=False,
        words=N_("Large print"),
        group="sheets",
    ),
    Setting(
        "paper", "--paper", N_("Paper size."), "choice", "a4", choices=tuple(PAPERS), words=N_("Paper"), group="sheets"
    ),
    Setting(
        "lang",
        "--lang",
        N_("Language of the sheets."),
        "choice",
        "en",
        choices=tuple(languages()),
        words=N_("Language"),
        group="sheets",
    ),
    Setting(
        "worked",
        "--worked",
        N_("Keys also work out one dot product and one softmax."),
        "flag",
        False,
        words=N_("Worked example on keys"),
        group="sheets",
    ),
    Setting(
        "decimal_comma",
        "--decimal-comma",
        N_("Write decimals as 0,38 (--decimal-point: 0.38)."),
        "switch",
        None,
        shown="a comma in Spanish, a point in English",
        off="--decimal-point",
        words=N_("Decimal comma"),
        group="sheets",
    ),
    # The web app's alone (a batch a server keeps): no flag.
    Setting(
        "feedback",
        "",
        N_(
            "none: “received” only; verdicts: right, carried or wrong per box and the points, no "
            "value; full: each box's expected value too."
        ),
        "choice",
        "verdicts",
        choices=("none", "verdicts", "full"),
        words=N_("What students see when they hand in"),
        group="students",
    ),
    Setting(
        "release",
        "",
        N_("now: as soon as they hand in; later: when you release it on the class page."),
        "choice",
        "now",
        choices=("now", "later"),
        words=N_("When they see it"),
        group="students",
    ),
    Setting(
        "attempts",
        "",
        N_("How many of a student's hand-ins get feedback; the last one counts, and “full” shows values only with it."),
        "number",
        3,
        lo=1,
        hi=20,
        words=N_("Hand-ins answered with feedback, per student"),
        group="students",
    ),
)

DRAW_SETTINGS = tuple(draw_settings())
"""The settings that shape a draw (every kind's; the rest are the batch's and the sheets')."""
SETTINGS = {s.name: s for s in BEFORE_DRAW + tuple(draw_settings().values()) + AFTER_DRAW}
"""Every setting a batch takes, in the order `--help` and the form show them."""
WORDS = {name: (s.words, s.group) for name, s in SETTINGS.items()}
"""What the web form calls each setting, and where it shows it."""


def kind_titles() -> dict[str, str]:
    """Each kind's name in words, for a teacher (message ids), in the registry's order."""
    from generator.core.registry import kinds, part

    return {kind: part(kind, "settings").TITLE for kind in kinds()}


def kind_choice_words() -> dict[str, dict[str, str]]:
    """The choices of the kinds' own settings in words (message ids), by setting and choice."""
    from generator.core.registry import kinds, part

    words: dict[str, dict[str, str]] = {}
    for kind in kinds():
        for name, choices in getattr(part(kind, "settings"), "CHOICE_WORDS", {}).items():
            words.setdefault(name, {}).update(choices)
    return words


def kinds_taking(name: str) -> tuple[str, ...]:
    """The kinds a draw setting is for (every kind's shared ones: all of them); () for a batch's or a sheet's."""
    from generator.draw.settings import takers

    return takers(name) if name in DRAW_SETTINGS else ()


def help_of(name: str) -> str:
    """A setting's help for the command line, with the kinds that take it where not every kind does."""
    from generator.core.registry import kinds

    s = SETTINGS[name]
    if name == "kind":
        return (
            f"{s.help.rstrip('.')}: "
            + ", ".join(f"{kind} ({title.lower()})" for kind, title in kind_titles().items())
            + "."
        )
    some = kinds_taking(name)
    return s.help if not some or len(some) == len(kinds()) else f"{s.help.rstrip('.')} (--kind {' or '.join(some)})."


def shown_default(name: str):
    """How --help shows a setting's default (a shape's per kind where the kinds differ)."""
    from generator.draw.settings import shape_defaults

    s = SETTINGS[name]
    return (shape_defaults(name) if name in DRAW_SETTINGS else "") or s.shown


__all__ = [
    "DRAW_SETTINGS",
    "GROUPS",
    "SETTINGS",
    "WORDS",
    "Setting",
    "SettingError",
    "help_of",
    "kind_choice_words",
    "kind_titles",
    "kinds_taking",
    "read",
    "shown_default",
    "value_range",
]
