"""Every registered kind goes through every page like the others: a batch made, a sheet typed and
graded, a student's hand-in, practice, the projector and a scanned pile, with no kind named here."""

from __future__ import annotations

import json
from fractions import Fraction
import re
import subprocess
import sys

import pytest
from waiting import made
from starlette.testclient import TestClient

from generator.app.store import Store
from generator.core.answers import parse_answers_json, put_cell, skeleton
from generator.core.formats import problem_from_json
from generator.core.registry import kinds, grade
from generator.core.numbers import sheet_value
from generator.core.student import Student
from generator.draw.rebuild import rebuild
from generator.web.app import create_app

ATTNSHEET = [sys.executable, "-m", "generator"]


def perfect(problem, code: str) -> dict:
    """answers@1 with every box as the key has it, from the grader's own expectations (no step named)."""
    doc = skeleton(problem, code)
    (empty,) = parse_answers_json(json.dumps(doc), "answers")
    for step in grade(problem, empty.answers(problem, Student(), code)).steps:
        for r, row in enumerate(step.expected):
            for c, value in enumerate(row):
                if value is not None:
                    put_cell(doc, step.head, step.step, r, c, sheet_value(value))
    return doc


def written(doc: dict) -> dict:
    """The grids of an answers@1 object, as the web pages post them."""
    return {k: v for k, v in doc.items() if k not in ("format", "code", "problem", "student")}


def slipped(doc: dict) -> dict:
    """The same answers with the first written cell of the first grid off by seven."""
    doc = json.loads(json.dumps(doc))
    grids = doc["heads"][0] if "heads" in doc else {k: v for k, v in written(doc).items()}
    name = next(iter(grids))
    cells = grids[name] if isinstance(grids[name][0], list) else [grids[name]]
    for row in cells:
        for j, v in enumerate(row):
            if v is not None:
                row[j] = str(Fraction(v.replace("\u2212", "-")) + 7)
                return doc
    raise AssertionError("nothing written")


@pytest.fixture(scope="module")
def school(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("every") / "data")
    app = create_app(store)
    teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    return store, app, teacher, csrf, Batches(teacher, csrf)


class Batches(dict):
    """Each kind's batch of two sheets, made when a test first asks for it (`-k` one kind: one batch)."""

    def __init__(self, teacher, csrf: str) -> None:
        super().__init__()
        self.teacher, self.csrf = teacher, csrf

    def __missing__(self, kind: str) -> str:
        self[kind] = made(
            self.teacher,
            self.teacher.post("/batches", data={"csrf": self.csrf, "count": "2", "seed": "5", "kind": kind}),
        )
        return self[kind]


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_a_batch_of_each_kind_is_typed_graded_and_reported(school, kind):
    store, app, teacher, csrf, batches = school
    location = batches[kind]
    manifest = json.loads(teacher.get(location + "/files/manifest.json").text)
    sheet = manifest["sheets"][0]
    problem = problem_from_json(sheet["problem"])
    assert problem.kind == kind
    doc = perfect(problem, sheet["code"])
    total = grade(problem, parse_answers_json(json.dumps(doc), "a")[0].answers(problem, Student(), sheet["code"])).total
    page = teacher.get(location + "/sheets/1")
    assert page.status_code == 200 and page.text.count('class="cell"') >= total
    headers = {"x-csrf-token": csrf}
    graded = teacher.post(f"/api{location}/sheets/1/save", json=written(doc), headers=headers).json()
    assert graded["saved"] and graded["points"] == total, graded
    # One slip costs one point: what follows it is carried.
    graded = teacher.post(
        f"/api{location}/sheets/2/grade",
        json=written(
            slipped(perfect(problem_from_json(manifest["sheets"][1]["problem"]), manifest["sheets"][1]["code"]))
        ),
        headers=headers,
    ).json()
    assert graded["points"] == graded["total"] - 1, graded
    assert teacher.get(location + "/class").status_code == 200
    assert teacher.get(location + "/class/001.pdf").content.startswith(b"%PDF")
    assert teacher.get(location + "/class/report.pdf").content.startswith(b"%PDF")
    gradebook = teacher.get(location + "/class/gradebook.csv")
    assert gradebook.status_code == 200 and str(total) in gradebook.text


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_a_student_of_each_kind_hands_in_from_their_link(school, kind):
    store, app, teacher, csrf, batches = school
    batch = store.batch(batches[kind].rsplit("/", 1)[1])
    links = store.links(batch)
    sheet = batch.sheets[1]
    student = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    page = student.get(f"/s/{links[2].token}")
    assert page.status_code == 200 and sheet["code"] in page.text and 'class="cell"' in page.text
    doc = slipped(perfect(problem_from_json(sheet["problem"]), sheet["code"]))
    r = student.post(f"/api/s/{links[2].token}/handin", json=written(doc), headers={"x-csrf-token": csrf})
    assert r.status_code == 200 and r.json()["handed_in"], r.text


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_each_kind_is_practised_and_projected(school, kind):
    store, app, teacher, csrf, batches = school
    r = teacher.get(f"/practice?kind={kind}&preset=easy")
    assert r.status_code == 303 and r.headers["location"].startswith("/practice/")
    code = r.headers["location"].rsplit("/", 1)[1]
    problem = rebuild(code)
    assert problem.kind == kind
    assert 'class="cell"' in teacher.get(f"/practice/{code}").text
    doc = perfect(problem, code)
    graded = teacher.post(f"/api/practice/{code}/grade", json=written(doc), headers={"x-csrf-token": csrf}).json()
    assert graded["points"] == graded["total"] > 0
    # Every box typed is explained from the student's own cells (or said to be left empty by its route).
    explained = [
        text
        for grids in (graded["explain"].get("heads") or [graded["explain"]])
        for grid in grids.values()
        if isinstance(grid, list)
        for row in grid
        for text in (row if isinstance(row, list) else [row])
        if text
    ]
    assert explained and all("from your own cells" in text or "nothing to write" in text for text in explained), (
        explained[:5]
    )
    page = teacher.get(f"/present/{code}")
    assert page.status_code == 200 and "press → to begin" in page.text


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_a_scanned_pile_of_each_kind_is_read_to_its_sheets(tmp_path, kind):
    from generator.output.manifest import read_manifest
    from generator.scan.pipeline import Catalogue, Source
    from generator.scan.run import scan_folder
    from generator.scan.synthetic import filled_sheets, pdf_of
    from generator.sheet.model import Settings

    subprocess.run(
        [*ATTNSHEET, "generate", "--kind", kind, "--count", "2", "--seed", "3", "--out", str(tmp_path / "batch")],
        check=True,
        capture_output=True,
    )
    sheets = list(filled_sheets(tmp_path / "batch", seed=4, scan=dict(dpi=200, angle=2.0, quality=70)))
    pdf_of([page for s in sheets for page in s.pages][::-1], tmp_path / "pile.pdf")
    listed = read_manifest((tmp_path / "batch" / "manifest.json").read_text(), "manifest")
    sources = [Source(item.code, n + 1, item.problem, item.student) for n, item in enumerate(listed.values())]
    summary = scan_folder([tmp_path / "pile.pdf"], Catalogue(sources, Settings()), tmp_path / "out")
    assert summary.identified == summary.pages == sum(len(s.pages) for s in sheets) and summary.sheets == 2
    boxes = sum(len(s.written) for s in sheets)
    # Two small sheets: a bar for the kind's boxes being read at all (test_scan.py holds the reader's).
    assert summary.accepted >= 0.7 * boxes, (summary, boxes)
    read = [json.loads(f.read_text()) for f in sorted((tmp_path / "out" / "answers").glob("*.json"))]
    assert sorted(a["code"] for a in read) == sorted(s.code for s in sheets)


@pytest.mark.parametrize("kind", sorted(kinds()))
@pytest.mark.parametrize("convention", ["column", "row"])
def test_a_forms_boxes_go_in_the_order_a_student_works_and_no_two_share_a_name(kind, convention):
    """Issue 56, item 3: a recurrent layer's Enter went h1 copy, h2 copy, a1, a2, a3, h1…, and its
    copied state and the computed one were both "h1 row 1 column 1" to a screen reader."""
    from dataclasses import replace

    from generator.core.registry import solve, step_names
    from generator.draw.choose import kind_options
    from generator.draw.options import DrawError
    from generator.draw.search import draw
    from generator.sheet.entry import form

    o = kind_options(kind)
    if convention == "row" and not hasattr(o, "convention"):
        pytest.skip("no row twin")
    try:
        problem = draw(replace(o, convention=convention) if hasattr(o, "convention") else o, 3, count=1)[0]
    except DrawError:
        pytest.skip("no row draw")
    boxes = form(problem, solve(problem)).boxes
    heads, final = step_names(problem)
    for block, order in [(h + 1, heads) for h in range(len({b.head for b in boxes if b.head}))] + [(None, final)]:
        worked = [b.step for b in boxes if b.step is not None and b.head == block]
        assert worked == [s for s in order if s in worked], (block, worked)
    names = [(b.head, b.spoken) for b in boxes if b.step is not None]
    assert len(set(names)) == len(names), names
