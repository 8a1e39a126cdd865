"""Decimals as the class writes them: a comma in Spanish, a point in English, or as chosen."""

from __future__ import annotations

import re

import pytest
from test_pages import pages

POINT, COMMA = re.compile(r"\b\d\.\d\d\b"), re.compile(r"\b\d,\d\d\b")


def text(pdf) -> str:
    return " ".join(w[4] for _, _, ws in pages(pdf) for w in ws)


@pytest.mark.parametrize(
    "lang, flag, comma",
    [("es", None, True), ("en", None, False), ("es", "--decimal-point", False), ("en", "--decimal-comma", True)],
)
def test_keys_write_decimals_as_the_class_does(run, tmp_path, lang, flag, comma):
    r = run(
        "generate",
        "--count",
        "1",
        "--seed",
        "3",
        "--lang",
        lang,
        *([flag] if flag else []),
        "--worked",
        "--out",
        str(tmp_path),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    words = text(tmp_path / "answer-keys.pdf")
    assert bool(COMMA.search(words)) == comma and bool(POINT.search(words)) == (not comma)


def test_graded_sheets_and_the_report_follow_the_batch(run, tmp_path):
    import json

    assert run("generate", "--count", "1", "--seed", "3", "--lang", "es", "--out", str(tmp_path / "b")).code == 0
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["settings"]["decimal_comma"] is None  # as the language writes them
    sheet = manifest["sheets"][0]
    h = sheet["solution"]["heads"][0]
    answers = {
        "format": "attnsheet/answers@1",
        "code": sheet["code"],
        "heads": [{"A": [["0,25" if isinstance(x, str) else x for x in row] for row in h["A"]]}],
    }
    (tmp_path / "a.json").write_text(json.dumps(answers))
    r = run(
        "grade",
        str(tmp_path / "a.json"),
        "--manifest",
        str(tmp_path / "b" / "manifest.json"),
        "--out",
        str(tmp_path / "g"),
    )
    assert r.code == 0, r.err
    graded = text(sorted((tmp_path / "g" / "graded").iterdir())[0])
    assert "0,25" in graded and not POINT.search(graded)
    report = text(tmp_path / "g" / "report.pdf")
    assert re.search(r"media \d+,\d%", report), report[:200]
