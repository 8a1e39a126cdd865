"""Making a batch from the web form: the batch's declared settings (app/settings) check every field, in the CLI's words."""

from __future__ import annotations

import datetime
import re
from dataclasses import replace
from pathlib import PurePath
from typing import Optional

from generator.app.batches import (
    Batch,
    RequestError,
    blank_sheets,
    check_printable,
    request,
    roster_students,
    sheets_of,
)
from generator.app.errors import AttnsheetError
from generator.app.jobs import batch_inputs
from generator.app.screens import document_html, document_pdf, sheet_view, stylesheet_text, translations
from generator.app.settings import (
    GROUPS,
    SETTINGS,
    WORDS,
    SettingError,
    kind_choice_words,
    kind_titles,
    kinds_taking,
    read,
)
from generator.app.solving import decode, parse_problems
from generator.app.store import Store

FORM_KINDS = {"number": "number", "choice": "choice", "flag": "flag", "switch": "flag", "range": "text", "text": "text"}


def N_(message: str) -> str:
    """A message id, translated where it is shown."""
    return message


CHOICE_WORDS = {
    "preset": {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")},
    "convention": {"column": N_("tokens as columns (by hand)"), "row": N_("tokens as rows (as PyTorch)")},
    "paper": {"a4": "A4", "letter": "Letter"},
    "lang": {"en": "English", "es": "Español"},
    "feedback": {
        "none": N_("“received” only"),
        "verdicts": N_("each box marked, and the points"),
        "full": N_("that, and each box's expected value"),
    },
    "release": {"now": N_("as soon as they hand in"), "later": N_("when I release it")},
    "large_print": {
        "normal": N_("no: the class's size"),
        "1.5": N_("1.5 times as large (A3)"),
        "2": N_("twice as large (A3 sideways)"),
    },
}
"""Each choice of the form in words (a language by its own name); a kind's own settings' choices
are its settings module's (app/settings.kind_choice_words)."""
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
    labels = (
        {kind: _(title) for kind, title in kind_titles().items()}
        if name == "kind"
        else {choice: _(words) for choice, words in {**CHOICE_WORDS, **kind_choice_words()}.get(name, {}).items()}
    )
    # Its help in a teacher's words: a setting it names by its flag is named by its field's words.
    return {
        "flag": s.flag,
        "help": worded(_(s.help), lang),
        "default": default,
        "choices": list(s.choices),
        "words": _(words),
        "group": group,
        "labels": labels,
        "kinds": " ".join(kinds_taking(name)),
    }


def grouped(fields: list[tuple[str, str]], lang: str = "en") -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The form's fields by group, in the groups' order: (group, its title in `lang`, its fields)."""
    _ = translations(lang).gettext
    return [
        (group, _(title), [(name, kind) for name, kind in fields if WORDS[name][1] == group]) for group, title in GROUPS
    ]


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


def read_form(values: dict[str, str], uploads: Optional[dict[str, bytes]] = None):
    """The form's batch request (app/batches), checked as the CLI checks it, with the uploaded roster
    and problem file read: (the request, {}), or (None, an error message per field)."""
    params, errors = {}, {}
    for name, _ in FIELDS:
        try:
            params[name] = read(SETTINGS[name], values.get(name, ""))
        except SettingError as error:
            errors[name] = str(error)
    if errors:
        return None, errors
    # What the teacher chose: a field filled in, or set away from its default (a form sends
    # every menu's value); a kind's shape defaults to its own where none is chosen.
    given = [name for name, _ in FIELDS if values.get(name, "").strip() and params[name] != SETTINGS[name].default]
    uploads = {name: data for name, data in (uploads or {}).items() if data}
    try:
        problems = parse_problems(decode(uploads["problem"], "the problem file")) if "problem" in uploads else None
    except AttnsheetError as error:
        return None, {"problem": str(error)}
    try:
        students = (
            roster_students(decode(uploads["roster"], "the roster"), "the roster")[0] if "roster" in uploads else None
        )
    except AttnsheetError as error:
        return None, {"roster": str(error)}
    try:
        return request(
            params,
            given,
            problems,
            students,
            "(uploaded)" if "roster" in uploads else None,
            "(uploaded)" if problems is not None else None,
        ), {}
    except RequestError as error:
        return None, {error.setting if error.setting in dict(FIELDS) else "form": str(error)}


def preview_html(values: dict[str, str], key: bool, uploads: Optional[dict[str, bytes]] = None) -> tuple[str, dict]:
    """One worksheet (or key) of the form's options as a standalone HTML page, or the errors: the
    uploaded roster's first student on it, the uploaded problem file's first problem; a blank
    template has no key, so its preview is always the worksheet."""
    req, errors = read_form(values, uploads)
    if req is None:
        return "", errors
    # One sheet: the first student's, of the first problem, drawn with the form's seed (1 by default).
    req = replace(req, students=req.students[:1], problems=req.problems[:1], seed=1 if req.seed is None else req.seed)
    try:
        (sheet,), _, _ = sheets_of(req)
        view = sheet_view(sheet.problem, sheet.solution, sheet.student, req.settings, key and not req.settings.blank)
    except AttnsheetError as error:  # a draw that cannot be made, a shape that cannot be printed
        return "", {"problem" if req.source == "own" else "form": str(error)}
    return document_html([view], req.settings, stylesheet_text("/preview/"), laid_out=True), {}


def upload_summary(name: str, content: bytes, lang: str = "en") -> str:
    """What a held file holds, in a few words of `lang`: a roster's size and first name, a problem file's count and kind."""
    t = translations(lang)
    if name == "roster":
        students = roster_students(decode(content, "the roster"), "the roster")[0]
        first = students[0].name or students[0].id or "?"
        return t.ngettext(
            "%(count)d student, the first %(name)s", "%(count)d students, the first %(name)s", len(students)
        ) % {"count": len(students), "name": first}
    problems = parse_problems(decode(content, "the problem file"))
    kinds = ", ".join(sorted({p.kind for p in problems}))
    return t.ngettext("%(count)d problem (%(kinds)s)", "%(count)d problems (%(kinds)s)", len(problems)) % {
        "count": len(problems),
        "kinds": kinds,
    }


def blank_pdf(values: dict[str, str], uploads: Optional[dict[str, bytes]] = None) -> tuple[Optional[bytes], dict]:
    """The blank templates of the form's shape as one PDF (a page per student of the roster, or
    --count copies), or None and the errors: nothing is stored, there is nothing to grade."""
    req, errors = read_form(values, uploads)
    if req is None:
        return None, errors
    try:
        views = [
            sheet_view(s.problem, s.solution, s.student, req.settings, False)
            for s in blank_sheets(req.options, req.students)
        ]
    except AttnsheetError as error:
        return None, {"form": str(error)}
    return document_pdf(views, req.settings), {}


def class_name(values: dict[str, str], req) -> str:
    """The class's name in every list and on its files: the teacher's (or its sheets' title), else the
    roster's file name (or the exercise) and the day it was made."""
    given = " ".join(values.get("label", "").split()) or req.settings.title  # else as its sheets are titled
    if given:
        return given
    stem = PurePath(values.get("roster_name", "")).stem.replace("_", " ").strip() if req.students else ""
    lang = req.settings.lang
    kind = getattr(req.options, "kind", "") or (req.problems[0].kind if req.problems else SETTINGS["kind"].default)
    title = translations(lang).gettext(kind_titles().get(kind, kind))
    return f"{stem or title}, {datetime.date.today().isoformat()}"


def queue_batch(
    store: Store,
    values: dict[str, str],
    uploads: Optional[dict[str, bytes]] = None,
    base_url: str = "",
    owner: Optional[int] = None,
) -> tuple[Optional[str], dict[str, str]]:
    """A batch from the form's values (and uploaded roster or problem file), drawn, checked and
    queued to be rendered as a job (app/jobs): (its name, {}), or (None, an error message per
    field) with nothing written or queued. Every refusal is found here, before the job: only
    the server's own trouble is left for the job to meet."""
    req, errors = read_form(values, uploads)
    if req is None:
        return None, errors
    if req.settings.blank:
        return None, {"blank": "a blank template has no key or manifest to store: it downloads as it is made"}
    try:
        # Private codes: only the server's secret rebuilds a key, so a code handed out is no key.
        sheets, origin, seed = sheets_of(req, store.secret)
        batch = Batch(
            sheets=sheets, settings=req.settings, out=store.root, split=req.split, origin=origin, seed=seed, jobs=1
        )
        check_printable(batch)
    except AttnsheetError as error:  # the CLI's own words: a draw that cannot be made, a sheet too wide
        return None, {"form": str(error)}
    name, _ = store.reserve()
    params = {
        "batch": name,
        "label": class_name(values, req),
        "feedback": values.get("feedback") or "verdicts",
        "release": values.get("release") or "now",
        "base_url": base_url,
        "attempts": read(SETTINGS["attempts"], values.get("attempts", "")),
        "owner": owner,
    }
    store.submit("batch", params, owner, name, batch_inputs(batch))
    return name, {}
