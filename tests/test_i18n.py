"""Catalogs: every word on a sheet is translated in every catalog."""

from __future__ import annotations

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from conftest import ROOT
from generator.i18n import languages, translations

METHODS = [("generator/render.py", "python"), ("templates/**.html", "jinja2"), ("templates/**.css", "jinja2")]


def sheet_messages() -> set[str]:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), METHODS, options_map={pattern: {"extensions": "jinja2.ext.i18n"} for pattern in ("templates/**.html", "templates/**.css")},
        keywords={"_": None, "gettext": None},
    ):
        if "/generator/" in _file or _file.startswith(("generator", "templates")):
            found.add(message if isinstance(message, str) else message[0])
    return found


def test_there_are_words_to_translate():
    messages = sheet_messages()
    assert {"Worksheet", "Answer key", "Name", "queries", "page"} <= messages


def test_every_catalog_is_complete():
    messages = sheet_messages()
    assert set(languages()) >= {"en", "es"}
    for lang in languages():
        if lang == "en":
            continue
        path = ROOT / "templates" / "locale" / lang / "LC_MESSAGES" / "attnsheet.po"
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang)
        missing = sorted(m for m in messages if not (catalog.get(m) and catalog.get(m).string))
        assert not missing, f"{lang} lacks translations for {missing}"
        assert translations(lang).gettext("Worksheet") != "Worksheet"


def test_unknown_language_is_a_usage_error(run, tmp_path):
    r = run("generate", "--lang", "xx", "--out", str(tmp_path))
    assert r.code == 2 and "--lang" in r.err
