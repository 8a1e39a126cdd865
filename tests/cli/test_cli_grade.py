"""`attnsheet answers` and `attnsheet grade` end to end: a class generated, answered and graded."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest


def key_answers(sheet: dict) -> dict:
    """A sheet's answers@1 filled with its key's own values, from the manifest's solution@1."""
    sol = sheet["solution"]
    heads = []
    for h in sol["heads"]:
        heads.append(
            {
                **{k: h[k] for k in ("Q", "K", "V", "scores", "scaled", "powers", "sums", "A", "Z")},
                "Q_copy": h["Q"],
                "K_T": [list(r) for r in zip(*h["K"])],
                "V_copy": h["V"],
            }
        )
    doc = {"format": "attnsheet/answers@1", "code": sheet["code"], "heads": heads}
    if len(heads) > 1 or "output" in sol:
        doc["Z"] = sol["Z"]
    if "output" in sol:
        doc["output"] = sol["output"]
    if sheet["problem"]["causal"]:
        for head in heads:  # what a student leaves in struck-out cells: nothing
            for step in ("scaled", "powers", "A"):
                head[step] = [[None if x is None else x for x in r] for r in head[step]]
    return doc


@pytest.fixture
def batch(run, tmp_path) -> Path:
    roster = tmp_path / "class.csv"
    roster.write_text('name,id,group\nAna Lopez,s1,3B\nBen Ode,s2,3B\n=HYPERLINK("x"),s3,3B\n', encoding="utf-8")
    r = run("generate", "--roster", str(roster), "--seed", "9", "--out", str(tmp_path / "b"), "--jobs", "1")
    assert r.code == 0, r.err
    return tmp_path / "b"


def test_a_class_answered_and_graded(run, batch, tmp_path):
    manifest = batch / "manifest.json"
    sheets = json.loads(manifest.read_text())["sheets"]
    files = []
    for i, sheet in enumerate(sheets):
        doc = key_answers(sheet)
        if i == 1:
            doc["heads"][0]["Q"][0][0] += 5  # one slip, never followed through: Q_copy stays right
        if i == 2:
            doc["heads"][0]["Z"] = None  # stopped before Z
        path = tmp_path / f"{i}.json"
        path.write_text(json.dumps(doc))
        files.append(str(path))
    r = run("grade", *files, "--manifest", str(manifest))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split() == ["Ana", "Lopez", sheets[0]["code"], "152/152", "100.0%"]
    assert lines[1].split()[-2:] == ["151/152", "99.3%"]
    assert lines[2].split()[-2:] == ["140/152", "92.1%"]
    assert lines[3].startswith("class: 3 sheets, mean 97.1%")
    r = run("grade", *files, "--manifest", str(manifest), "--json", "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    grades = json.loads(r.out)
    assert [g["format"] for g in grades] == ["attnsheet/grade@1"] * 3
    assert grades[1]["cells"]["heads"][0]["Q"][0][0] == "wrong"
    assert grades[0]["student"] == {"name": "Ana Lopez", "id": "s1", "group": "3B"}
    with open(tmp_path / "g" / "gradebook.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["points"]) for row in rows] == [g["points"] for g in grades]
    assert [int(row["Q"]) for row in rows] == [12, 11, 12] and rows[2]["Z"] == "0"
    assert rows[2]["name"].startswith("'=")  # a formula from the roster is text in a spreadsheet
    assert json.loads((tmp_path / "g" / "grades.json").read_text()) == grades
    # Each student's graded sheet: their name and score as text, the wrong cell's expected value.
    from pypdf import PdfReader

    graded = sorted((tmp_path / "g" / "graded").iterdir())
    assert [p.name for p in graded] == ["01-ana-lopez.pdf", "02-ben-ode.pdf", "03-hyperlink-x.pdf"]
    texts = [PdfReader(p).pages[0].extract_text() for p in graded]
    assert "Ana Lopez" in texts[0] and "Score 152/152 (100.0%)" in texts[0] and "GRADED SHEET" in texts[0].upper()
    assert "Score 151/152 (99.3%)" in texts[1] and "Q 11/12" in texts[1]
    assert "Score 140/152" in texts[2] and "Z 0/12" in texts[2]
    report = PdfReader(tmp_path / "g" / "report.pdf").pages[0].extract_text()
    assert "Class report" in report and "3 sheets; mean 97.1%" in report
    assert (
        "Q, copied" in report
        and "Q_copy" not in report
        and "The five cells most often wrong" in report
        and "90–100%" in report
    )
    again = run("grade", *files, "--manifest", str(manifest), "--out", str(tmp_path / "g"))
    assert again.code == 1 and "already exists" in again.err


def test_skeletons_and_drawn_codes(run, batch, tmp_path):
    r = run("answers", "--manifest", str(batch / "manifest.json"), "--all")
    assert r.code == 0, r.err
    skeletons = json.loads(r.out)
    assert [s["student"]["name"] for s in skeletons][:2] == ["Ana Lopez", "Ben Ode"]
    assert len(skeletons[0]["heads"][0]["Q"]) == 3 and skeletons[0]["heads"][0]["sums"] == [None] * 4
    # A drawn code rebuilds its sheet without the manifest; blank answers grade to zero.
    one = tmp_path / "one.json"
    one.write_text(json.dumps(skeletons[0]))
    r = run("grade", str(one))
    assert r.code == 0 and r.out.split()[-2:] == ["0/152", "0.0%"]
    r = run("answers", skeletons[0]["code"].lower())
    assert r.code == 0 and json.loads(r.out)["code"] == skeletons[0]["code"]


def test_bad_answers_are_one_line_and_write_nothing(run, batch, tmp_path):
    manifest = batch / "manifest.json"
    sheet = json.loads(manifest.read_text())["sheets"][0]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(key_answers(sheet)))
    wrong_shape = key_answers(sheet)
    wrong_shape["heads"][0]["K"] = [[1, 2]]
    cases = {
        "unknown code": {"format": "attnsheet/answers@1", "code": "2222-2222"},
        "wrong shape": wrong_shape,
        "not in manifest": {"format": "attnsheet/answers@1", "code": "72Y2-F"},
    }
    for name, doc in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        args = ("grade", str(path), "--out", str(tmp_path / "out"))
        if name != "unknown code":
            args += ("--manifest", str(manifest))
        r = run(*args)
        assert r.code == 1 and r.err.count("\n") == 1 and r.err.startswith("attnsheet: error:"), (name, r.err)
        assert not (tmp_path / "out").exists()
    r = run("grade", str(tmp_path / "wrong shape.json"), "--manifest", str(manifest))
    assert "heads[0].K: expected 3×4 (rows × columns), got 1×2" in r.err
    r = run("grade", str(good), str(good), "--manifest", str(manifest))
    assert r.code == 1 and "graded twice" in r.err
    r = run("grade", str(tmp_path / "missing.json"))
    assert r.code == 1 and "cannot read" in r.err
    r = run("answers")
    assert r.code == 2


def test_the_gradebooks_list_the_whole_class_those_without_answers_without_points(run, batch, tmp_path):
    manifest = batch / "manifest.json"
    sheets = json.loads(manifest.read_text())["sheets"]
    (tmp_path / "ben.json").write_text(json.dumps(key_answers(sheets[1])))  # one hand-in of three
    r = run(
        "grade",
        str(tmp_path / "ben.json"),
        "--manifest",
        str(manifest),
        "--out",
        str(tmp_path / "g"),
        "--gradebook",
        "moodle",
        "--gradebook",
        "canvas",
    )
    assert r.code == 0, r.err
    assert "the gradebook lists the whole class: 2 of its 3 sheets had no answers" in r.err
    with open(tmp_path / "g" / "gradebook.csv", newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["name"] for row in rows] == ["Ben Ode", "Ana Lopez", '\'=HYPERLINK("x")']
    assert rows[0]["points"] == "152" and rows[1]["points"] == rows[2]["points"] == "" == rows[1]["Q"]
    assert [row["code"] for row in rows] == [sheets[1]["code"], sheets[0]["code"], sheets[2]["code"]]
    moodle = (tmp_path / "g" / "gradebook-moodle.csv").read_text(encoding="utf-8-sig").splitlines()
    assert moodle[1:] == ["s2,152", "s1,", "s3,"]
    canvas = (tmp_path / "g" / "gradebook-canvas.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(canvas) == 2 + 3 and canvas[-1].endswith(",s3,3B,")
    # Without a manifest there is no class to list: only the sheets answered.
    r = run("grade", str(tmp_path / "ben.json"), "--out", str(tmp_path / "h"))
    assert r.code == 0 and len((tmp_path / "h" / "gradebook.csv").read_text().splitlines()) == 2, r.err
    assert "whole class" not in r.err
