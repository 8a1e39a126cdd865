"""Gradebooks school systems take, and a batch's graded sheets and report in its own paper and language."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest
from conftest import ROOT
from test_pages import pages


@pytest.fixture(scope="module")
def spanish(tmp_path_factory):
    """A Spanish Letter batch of two named students, one answered perfectly, as answers@1."""
    folder = tmp_path_factory.mktemp("es")
    roster = folder / "roster.csv"
    roster.write_text("name,id,group\nJosé Núñez,jose@school.example,3B\nZoë Ødegård,zoe@school.example,3B\n",
                      encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "generator", "generate", "--roster", str(roster), "--seed", "4",
                        "--lang", "es", "--paper", "letter", "--title", "Periodo 3", "--out", str(folder / "b")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((folder / "b" / "manifest.json").read_text())
    answers = []
    for sheet in manifest["sheets"]:
        sol = sheet["solution"]["heads"][0]
        grids = {k: sol[k] for k in ("Q", "K", "V", "scores", "scaled", "powers", "sums", "A", "Z")}
        grids.update(Q_copy=sol["Q"], K_T=[list(r) for r in zip(*sol["K"])], V_copy=sol["V"])
        answers.append({"format": "attnsheet/answers@1", "code": sheet["code"], "heads": [grids]})
    answers[1]["heads"][0]["Q"][0][0] += 1
    (folder / "answers.json").write_text(json.dumps(answers))
    return folder


def test_grade_takes_paper_language_and_title_from_the_manifest(run, spanish):
    out = spanish / "g"
    r = run("grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out",
            str(out))
    assert r.code == 0, r.err
    for pdf in [out / "report.pdf", *sorted((out / "graded").iterdir())]:
        found = pages(pdf)
        width, height, _ = found[0]
        assert (round(width), round(height)) == (612, 792), pdf  # Letter
        words = " ".join(w[4] for _, _, ws in found for w in ws)
        for raw in ("Q_copy", "K_T", "V_copy", "scaled", "powers", "Z concat"):
            assert raw not in words, (pdf.name, raw)  # every step named as the sheet names it
    graded_words = " ".join(w[4] for _, _, ws in pages(sorted((out / "graded").iterdir())[0]) for w in ws)
    assert "Puntuación" in graded_words and "Periodo" in graded_words and "copiada" in graded_words


def test_gradebook_csv_opens_in_excel_with_its_accents(run, spanish):
    out = spanish / "c"
    r = run("grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out",
            str(out))
    assert r.code == 0, r.err
    raw = (out / "gradebook.csv").read_bytes()
    assert raw.startswith("\ufeff".encode()) and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:7] == ["code", "name", "id", "group", "points", "total", "percent"]
    assert rows[1][1] == "José Núñez" and rows[2][1] == "Zoë Ødegård"
    out = spanish / "d"
    r = run("grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out",
            str(out), "--csv-dialect", "excel-semicolon")
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig")), delimiter=";"))
    assert rows[0][:3] == ["code", "name", "id"] and rows[2][6] == "99,3"  # 151/152, with a decimal comma


HEADERS = {
    "moodle": [["ID number", "Periodo 3"], ["jose@school.example", "152"], ["zoe@school.example", "151"]],
    "canvas": [["Student", "ID", "SIS User ID", "Section", "Periodo 3"], ["Points Possible", "", "", "", "152"],
               ["José Núñez", "", "jose@school.example", "3B", "152"],
               ["Zoë Ødegård", "", "zoe@school.example", "3B", "151"]],
    "classroom": [["Email Address", "Periodo 3"], ["jose@school.example", "152"], ["zoe@school.example", "151"]],
}


@pytest.mark.parametrize("system", sorted(HEADERS))
def test_each_school_systems_gradebook_has_its_documented_columns(run, spanish, system):
    out = spanish / f"s-{system}"
    r = run("grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out",
            str(out), "--gradebook", system)
    assert r.code == 0 and f"gradebook-{system}.csv" in r.err, r.err
    rows = list(csv.reader(io.StringIO((out / f"gradebook-{system}.csv").read_text(encoding="utf-8-sig"))))
    assert rows == HEADERS[system]


def test_a_school_gradebook_needs_out(run, spanish):
    r = run("grade", str(spanish / "answers.json"), "--gradebook", "moodle")
    assert r.code == 2 and "--gradebook writes into --out" in r.err


def test_the_summary_lines_up(run, spanish):
    r = run("grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"))
    lines = r.out.splitlines()[:2]
    assert r.code == 0 and len({line.index("/") for line in lines}) == 1 and len({len(line) for line in lines}) == 1
