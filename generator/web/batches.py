"""Making a batch from the web form: the batch's declared settings (app/settings) check every field, in the CLI's words."""

from __future__ import annotations

import re
from typing import Optional

from generator.app.classroom import create_batch
from generator.app.settings import DRAW_SETTINGS, GROUPS, SETTINGS, WORDS, SettingError, read
from generator.app.settings import read as read_setting
from generator.core.kinds import KINDS, part
from generator.draw.settings import takers
from generator.app.store import Store
from generator.core.errors import AttnsheetError, LayoutError
from generator.core.formats import parse_problems
from generator.core.student import Student
from generator.core.usertext import decode
from generator.draw.choose import options_for
from generator.draw.search import fresh_seed
from generator.output.batch import Batch, blank_sheets, make_sheets, own_sheets
from generator.output.html import document_html, stylesheet_text
from generator.output.jobs import Workers
from generator.output.manifest import Origin
from generator.sheet.i18n import translations
from generator.sheet.model import Settings
from generator.sheet.roster import parse_roster
from generator.sheet.sheets import sheet_view

FORM_KINDS = {"number": "number", "choice": "choice", "flag": "flag", "switch": "flag", "range": "text",
              "text": "text"}
NOT_ON_FORM = ("decimal_comma",)
"""Settings the form leaves to the sheets' language."""
FIELDS = [(name, FORM_KINDS[s.kind]) for name, s in SETTINGS.items() if s.kind != "file" and name not in NOT_ON_FORM]
"""The form's fields, in order, with the kind of field each shows; their help, defaults and choices are
the settings' (the CLI's too)."""

UPLOADS = (("roster", "roster"), ("problem", "problem"))
"""The form's files, each a setting: a roster CSV, a problem@1 file (your own numbers)."""
MAX_UPLOAD = 1024 * 1024
"""Largest file a form may send."""


def ticked(values: dict[str, str], name: str) -> bool:
    """Whether the form's checkbox `name` is ticked (as browsers and scripts send it)."""
    return values.get(name, "") in ("on", "true", "1")


def upload_info(name: str, lang: str = "en") -> dict:
    """What the form shows for an upload: its flag and help."""
    return field_info(dict(UPLOADS)[name], lang)


def field_info(name: str, lang: str = "en") -> dict:
    """What the form shows for a field, in `lang`: its words, flag, help, default and choices."""
    _ = translations(lang).gettext
    s = SETTINGS[name]
    # A flag's default is off, and not shown; an on/off pair (--residual) shows that it is on.
    default = s.default if s.kind != "flag" and (s.kind == "switch" or s.shown) else None
    words, group = WORDS[name]
    # A kind's choice shows its name in words; a draw setting says which kinds take it (the form hides the others').
    labels = {kind: _(part(kind, "settings").TITLE) for kind in KINDS} if name == "kind" else {}
    return {"flag": s.flag, "help": _(s.help), "default": default, "choices": list(s.choices), "words": _(words),
            "group": group, "labels": labels, "kinds": " ".join(takers(name)) if name in DRAW_SETTINGS else ""}


def grouped(fields: list[tuple[str, str]], lang: str = "en") -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The form's fields by group, in the groups' order: (group, its title in `lang`, its fields)."""
    _ = translations(lang).gettext
    return [(group, _(title), [(name, kind) for name, kind in fields if WORDS[name][1] == group])
            for group, title in GROUPS]


FLAG = re.compile(r"'?--(no-)?([a-z][a-z-]*[a-z])'?")


def worded(message: str, lang: str = "en") -> str:
    """A message of the draw and the settings, which name each setting by its flag, in the form's
    words: `use fewer --heads` → `use fewer “Heads”` (a flag the form has no field for stays)."""
    _ = translations(lang).gettext
    by_flag = {s.flag: name for name, s in SETTINGS.items() if s.flag and name in WORDS}

    def word(match: re.Match) -> str:
        name = by_flag.get(f"--{match.group(2)}")
        if name is None:
            return match.group(0)
        words = _(WORDS[name][0])
        return f"“{words}” " + _("off") if match.group(1) else f"“{words}”"

    return FLAG.sub(word, message)


def read_form(values: dict[str, str]) -> tuple[Optional[tuple], dict]:
    """The form's options, checked as the CLI checks them: (options, settings, seed, count) and
    no errors, or None and an error message per field."""
    params, errors = {}, {}
    for name, _ in FIELDS:
        try:
            params[name] = read(SETTINGS[name], values.get(name, ""))
        except SettingError as error:
            errors[name] = str(error)
    if errors:
        return None, errors
    if params["blank"] and params["worked"]:
        return None, {"worked": "--blank has no key, so no worked example: drop --worked"}
    # What the teacher chose: a field filled in, or set away from its default (a form sends
    # every menu's value); a kind's shape defaults to its own where none is chosen.
    given = [name for name, _ in FIELDS if values.get(name, "").strip() and params[name] != SETTINGS[name].default]
    try:
        options = options_for(params, given)
        settings = Settings(paper=params["paper"], lang=params["lang"], title=params["title"], worked=params["worked"],
                            blank=params["blank"])
    except AttnsheetError as error:
        return None, {"form": str(error)}
    return (options, settings, params["seed"], params["count"] or 1), {}


def preview_html(values: dict[str, str], key: bool, uploads: Optional[dict[str, bytes]] = None) -> tuple[str, dict]:
    """One worksheet (or key) of the form's options as a standalone HTML page, or the errors: the
    uploaded roster's first student on it, the uploaded problem file's first problem; a blank
    template has no key, so its preview is always the worksheet."""
    read, errors = read_form(values)
    if read is None:
        return "", errors
    options, settings, seed, _ = read
    uploads = {name: data for name, data in (uploads or {}).items() if data}
    try:
        (student, *_) = _students(uploads, 1)
    except AttnsheetError as error:
        return "", {"roster": str(error)}
    try:
        if "problem" in uploads:
            problems = parse_problems(decode(uploads["problem"], "the problem file"))
            (sheet,) = own_sheets(problems[:1], [student])
        elif settings.blank:
            (sheet,) = blank_sheets(options, [student])
        else:
            (sheet,) = make_sheets(options, 1 if seed is None else seed, [student])
        view = sheet_view(sheet.problem, sheet.solution, sheet.student, settings, key and not settings.blank)
    except AttnsheetError as error:  # a draw that cannot be made, a shape that cannot be printed
        return "", {"problem" if "problem" in uploads else "form": str(error)}
    return document_html([view], settings, stylesheet_text("/preview/"), laid_out=True), {}


def upload_summary(name: str, content: bytes, lang: str = "en") -> str:
    """What a held file holds, in a few words of `lang`: a roster's size and first name, a problem file's count and kind."""
    t = translations(lang)
    if name == "roster":
        students = parse_roster(decode(content, "the roster"), label="the roster").students
        first = students[0].name or students[0].id or "?"
        return t.ngettext("%(count)d student, the first %(name)s", "%(count)d students, the first %(name)s",
                          len(students)) % {"count": len(students), "name": first}
    problems = parse_problems(decode(content, "the problem file"))
    kinds = ", ".join(sorted({p.kind for p in problems}))
    return t.ngettext("%(count)d problem (%(kinds)s)", "%(count)d problems (%(kinds)s)",
                      len(problems)) % {"count": len(problems), "kinds": kinds}


def blank_pdf(values: dict[str, str], uploads: Optional[dict[str, bytes]] = None) -> tuple[Optional[bytes], dict]:
    """The blank templates of the form's shape as one PDF (a page per student of the roster, or
    --count copies), or None and the errors: nothing is stored, there is nothing to grade."""
    read, errors = read_form(values)
    if read is None:
        return None, errors
    options, settings, _, count = read
    uploads = {name: data for name, data in (uploads or {}).items() if data}
    if "problem" in uploads:
        return None, {"blank": "--problem takes no --blank: the file says the shape and the rules"}
    try:
        students = _students(uploads, count)
        views = [sheet_view(s.problem, s.solution, s.student, settings, False) for s in blank_sheets(options, students)]
    except AttnsheetError as error:
        return None, {"form": str(error)}
    from generator.output.documents import document  # pikepdf (and maybe WeasyPrint) load only when a PDF is asked for

    data, _ = document(views, settings)
    return data, {}


def _students(uploads: dict[str, bytes], count: int) -> list[Student]:
    """The uploaded roster's students, or `count` unnamed ones."""
    if "roster" in uploads:
        return list(parse_roster(decode(uploads["roster"], "the roster"), label="the roster").students)
    return [Student()] * count


def make_batch(store: Store, values: dict[str, str], uploads: Optional[dict[str, bytes]] = None,
               workers: Optional[Workers] = None, base_url: str = "") -> tuple[Optional[str], dict[str, str]]:
    """Generate a batch from the form's values (and uploaded roster or problem file) into a new
    store folder, rendered here and by the kept `workers` if any: (its id, {}), or (None, an
    error message per field) without writing anything."""
    read, errors = read_form(values)
    if read is None:
        return None, errors
    options, settings, seed, count = read
    uploads = {name: data for name, data in (uploads or {}).items() if data}
    if settings.blank:
        return None, {"blank": "a blank template has no key or manifest to store: it downloads as it is made"}
    try:
        students = _students(uploads, count)
        if "problem" in uploads:
            problems = parse_problems(decode(uploads["problem"], "the problem file"))
            if "roster" not in uploads and not values.get("count"):
                students = [Student()] * len(problems)
            sheets, origin, seed = own_sheets(problems, students), Origin(problem_file="(uploaded)"), None
        else:
            seed = fresh_seed() if seed is None else seed
            # Private codes: only the server's secret rebuilds a key, so a code handed out is no key.
            sheets, origin = make_sheets(options, seed, students, secret=store.secret), Origin(options=options)
    except AttnsheetError as error:  # the CLI's own words: a roster, a problem file, a draw that cannot be
        return None, {"form": str(error)}
    split = ticked(values, "split")
    try:
        stored = create_batch(store, Batch(sheets=sheets, settings=settings, out=store.root, split=split,
                                           origin=origin, seed=seed, jobs=1, workers=workers),
                              values.get("feedback") or "verdicts", values.get("release") or "now", base_url,
                              read_setting(SETTINGS["attempts"], values.get("attempts", "")))
    except LayoutError as error:  # checked before any file: nothing was written
        return None, {"form": str(error)}
    return stored.id, {}
