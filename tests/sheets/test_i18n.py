"""Catalogs: every word on a sheet is translated in every catalog."""

from __future__ import annotations

import configparser

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from conftest import ROOT

from generator.sheet.i18n import languages, translations

# The same places `make messages` extracts from: babel.cfg's sections, "[method: pattern]".
_CFG = configparser.ConfigParser()
_CFG.read(ROOT / "babel.cfg")
METHODS = [(section.split(":", 1)[1].strip(), section.split(":", 1)[0].strip()) for section in _CFG.sections()]


def sheet_messages() -> set[str]:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT),
        METHODS,
        options_map={pattern: {"extensions": "jinja2.ext.i18n"} for pattern, method in METHODS if method == "jinja2"},
        keywords={"_": None, "gettext": None, "N_": None},  # as `make messages` extracts them
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


def test_the_title_help_a_literal_for_the_catalog_names_the_true_limit():
    from generator.app.settings import SETTINGS
    from generator.core.usertext import MAX_TITLE

    assert f"at most {MAX_TITLE} characters" in SETTINGS["title"].help


def test_the_practice_page_speaks_to_a_student_as_tu_throughout(tmp_path):
    """Practice is a student's page: its Spanish says tú, never usted (the teacher's pages say usted)."""
    import re

    from starlette.testclient import TestClient

    from generator.app.store import Store
    from generator.web.app import create_app

    web = TestClient(create_app(Store(tmp_path / "data")), base_url="http://127.0.0.1", follow_redirects=False)
    page = web.get(web.get("/practice?preset=easy").headers["location"] + "?ui=es").text
    text = re.sub(r"<[^>]+>", " ", page.split("<main>")[1])
    assert "Trabaja la hoja" in text and "estás" in text and "tus propios" in text
    assert not re.search(r"\b(usted|Trabaje|haya rellenado|elija|escriba|pulse)\b", text), text[:600]


ENGLISH = {"unit", "row", "column", "output", "example", "node", "of", "the", "and", "each", "with", "step"}
"""English words that a Spanish sheet's text should never hold (each has a Spanish word in the catalog)."""


@pytest.mark.parametrize(
    "kind", ["attention", "ffn", "transformer", "rnn", "moe", "mlp", "backprop", "norm", "gcn", "conv"]
)
def test_a_spanish_worked_key_of_every_kind_says_nothing_in_english(run, tmp_path, kind):
    """Every word on a sheet comes from the catalog: a worked example's too (the recurrent layer's said
    "h2, unit 1 = ReLU(0)" on a Spanish key)."""
    import re
    import subprocess

    out = tmp_path / "out"
    r = run("generate", "--kind", kind, "--count", "1", "--seed", "4", "--lang", "es", "--worked", "--out", str(out))
    assert r.code == 0, r.err
    text = subprocess.run(["pdftotext", str(out / "answer-keys.pdf"), "-"], capture_output=True, text=True).stdout
    found = sorted(set(re.findall(r"[A-Za-z]+", text)) & ENGLISH)
    assert not found, found
