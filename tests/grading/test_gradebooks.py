"""Gradebooks school systems take, and a batch's graded sheets and report in its own paper and language."""

from __future__ import annotations

import csv
import re
import html
import io
import json
import subprocess
import sys
from fractions import Fraction

import pytest
from conftest import ROOT
from test_pages import pages


@pytest.fixture(scope="module")
def spanish(tmp_path_factory):
    """A Spanish Letter batch of two named students, one answered perfectly, as answers@1."""
    folder = tmp_path_factory.mktemp("es")
    roster = folder / "roster.csv"
    roster.write_text(
        "name,id,group\nJosé Núñez,jose@school.example,3B\nZoë Ødegård,zoe@school.example,3B\n", encoding="utf-8"
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "--roster",
            str(roster),
            "--seed",
            "4",
            "--lang",
            "es",
            "--paper",
            "letter",
            "--title",
            "Periodo 3",
            "--out",
            str(folder / "b"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
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
    r = run(
        "grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out", str(out)
    )
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
    r = run(
        "grade", str(spanish / "answers.json"), "--manifest", str(spanish / "b" / "manifest.json"), "--out", str(out)
    )
    assert r.code == 0, r.err
    raw = (out / "gradebook.csv").read_bytes()
    assert raw.startswith("\ufeff".encode()) and b"\r\n" in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:7] == ["code", "name", "id", "group", "points", "total", "percent"]
    assert rows[1][1] == "José Núñez" and rows[2][1] == "Zoë Ødegård"
    out = spanish / "d"
    r = run(
        "grade",
        str(spanish / "answers.json"),
        "--manifest",
        str(spanish / "b" / "manifest.json"),
        "--out",
        str(out),
        "--csv-dialect",
        "excel-semicolon",
    )
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8-sig")), delimiter=";"))
    assert rows[0][:3] == ["code", "name", "id"] and rows[2][6] == "99,3"  # 151/152, with a decimal comma


HEADERS = {
    "moodle": [["ID number", "Periodo 3"], ["jose@school.example", "152"], ["zoe@school.example", "151"]],
    "canvas": [
        ["Student", "ID", "SIS User ID", "Section", "Periodo 3"],
        ["Points Possible", "", "", "", "152"],
        ["José Núñez", "", "jose@school.example", "3B", "152"],
        ["Zoë Ødegård", "", "zoe@school.example", "3B", "151"],
    ],
    "classroom": [["Email Address", "Periodo 3"], ["jose@school.example", "152"], ["zoe@school.example", "151"]],
}


@pytest.mark.parametrize("system", sorted(HEADERS))
def test_each_school_systems_gradebook_has_its_documented_columns(run, spanish, system):
    out = spanish / f"s-{system}"
    r = run(
        "grade",
        str(spanish / "answers.json"),
        "--manifest",
        str(spanish / "b" / "manifest.json"),
        "--out",
        str(out),
        "--gradebook",
        system,
    )
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


def _class(tmp_path, roster: bytes, lang: str = "en"):
    """A web batch of the roster's students, sheet 1 saved (every box the key's but one)."""
    import re

    from starlette.testclient import TestClient
    from waiting import made

    from generator.app.classroom import save_sheet
    from generator.app.store import Store
    from generator.core.formats import problem_from_json
    from generator.core.registry import solve
    from generator.web.app import create_app

    store = Store(tmp_path / "data")
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    location = made(
        web,
        web.post(
            "/batches",
            data={"csrf": csrf, "seed": "5", "lang": lang},
            files=[("roster", ("class.csv", roster, "text/csv"))],
        ),
    )
    batch = store.batch(location.rsplit("/", 1)[1])
    sheet = batch.sheets[0]
    from generator.core.answers import skeleton

    problem = problem_from_json(sheet["problem"])
    doc = skeleton(problem, problem.code)
    from generator.core.numbers import sheet_value

    head = solve(problem).heads[0]
    doc["heads"][0]["Q"] = [[sheet_value(v) for v in row] for row in head.Q]
    doc["heads"][0]["Q"][0][0] = "99"
    save_sheet(store, batch, sheet, doc, "teacher")
    return store, web, location, batch


def test_the_web_gradebooks_hold_the_whole_roster_in_every_dialect(tmp_path):
    roster = (
        "name,id,group\nZoë Álvarez,zoe@school.example,3B\nBen Ode,ben@school.example,3B\nAi Lin,ai@school.example,3C\n"
    )
    store, web, location, batch = _class(tmp_path, roster.encode())
    try:
        saved = store.saved(batch)[1]
        names = ["Zoë Álvarez", "Ben Ode", "Ai Lin"]
        ours = list(
            csv.reader(
                io.StringIO(web.get(location + "/class/gradebook.csv?scale=20").content.decode("utf-8-sig")),
                dialect="excel",
            )
        )
        assert ours[0][:9] == ["code", "name", "id", "group", "points", "total", "percent", "score out of 20", "status"]
        assert [row[1] for row in ours[1:]] == names and [row[8] for row in ours[1:]] == ["saved", "missing", "missing"]
        exact = Fraction(saved["points"] * 20, saved["total"])
        assert ours[1][7] == (str(exact) if exact.denominator == 1 else f"{float(exact):.2f}")
        assert ours[2][4:8] == ["", "", "", ""]
        moodle = list(
            csv.reader(io.StringIO(web.get(location + "/class/gradebook-moodle.csv").content.decode("utf-8-sig")))
        )
        assert (
            moodle[0][0] == "ID number"
            and [r[0] for r in moodle[1:]] == ["zoe@school.example", "ben@school.example", "ai@school.example"]
            and moodle[1][1] == str(saved["points"])
        )
        assert moodle[2][1] == ""  # missing: no grade, never a zero
        canvas = list(
            csv.reader(
                io.StringIO(
                    web.get(location + "/class/gradebook.csv?system=canvas&scale=100").content.decode("utf-8-sig")
                )
            )
        )
        assert canvas[1] == ["Points Possible", "", "", "", "100"] and [r[0] for r in canvas[2:]] == names
        classroom = web.get(location + "/class/gradebook-classroom.csv?scale=10")
        rows = list(csv.reader(io.StringIO(classroom.content.decode("utf-8-sig"))))
        assert rows[0][0] == "Email Address" and len(rows) == 4
        assert re.search(r'filename="[a-z0-9-]+-gradebook-classroom\.csv"', classroom.headers["content-disposition"])
        assert web.get(location + "/class/gradebook.csv?scale=7").status_code == 400
        assert web.get(location + "/class/gradebook-nothing.csv").status_code == 400
    finally:
        store.close()


def test_a_spanish_class_gradebook_and_a_classroom_file_without_emails(tmp_path):
    store, web, location, batch = _class(tmp_path, "name,id\nZoë Álvarez,S001\nBen Ode,S002\n".encode(), "es")
    try:
        text = web.get(location + "/class/gradebook.csv?scale=10").content.decode("utf-8-sig")
        rows = list(csv.reader(io.StringIO(text), delimiter=";"))
        assert rows[0][:9] == [
            "código",
            "nombre",
            "id",
            "grupo",
            "puntos",
            "total",
            "porcentaje",
            "nota sobre 10",
            "estado",
        ]
        assert rows[1][8] == "guardada" and rows[2][8] == "falta" and "," in rows[1][6]  # decimal comma
        refused = web.get(location + "/class/gradebook-classroom.csv")
        assert refused.status_code == 400 and "S001" not in refused.text
        # In the class's language, back to the class (issue 56, item 10: English, "Back to the batches").
        page = html.unescape(refused.text)
        assert 'lang="es"' in page and "Google Classroom identifica" in page and "correo" in page
        assert f'<a href="{location}/class">Volver a la clase</a>' in page and "Back to" not in page
        assert "identifica a los estudiantes por su correo" in web.get(location + "/class").text  # said beforehand
    finally:
        store.close()
