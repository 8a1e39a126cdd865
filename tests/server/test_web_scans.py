"""Scans in the web app: upload a batch's pile, review what the reader left, spot-check a sheet.

A web batch's worksheets hold the students' links in their first page's QR code: the pages
are identified through the store. The review's answers save the sheets; the grades are those
of the same answers typed.
"""

from __future__ import annotations

import io
import json
import re

import cv2
import pytest
from test_web_assign import web_batch
from waiting import made, ready
from starlette.testclient import TestClient

from generator.app.classroom import grade_sheet
from generator.app.scans import review_items
from generator.app.store import Store
from generator.scan.synthetic import filled_sheets, pdf_of
from generator.web.app import create_app


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("webscan")
    store, teacher, csrf, batch = web_batch(tmp, 4, 8)
    filled = list(filled_sheets(batch.folder, seed=4, scan=dict(dpi=200, angle=2.0, quality=80)))
    pdf_of([p for f in filled for p in f.pages], tmp / "pile.pdf")
    return store, teacher, csrf, batch, filled, tmp


def _upload(teacher, csrf, batch, path, name="pile.pdf", kind="application/pdf"):
    """The upload's answer, once the pile it sent is read (its job done)."""
    r = teacher.post(
        f"/batches/{batch.id}/scans", data={"csrf": csrf}, files=[("scans", (name, path.read_bytes(), kind))]
    )
    if r.status_code == 303:
        ready(teacher, r.headers["location"])
    return r


def test_an_upload_is_read_its_sheets_saved_and_its_review_waits(scanned):
    store, teacher, csrf, batch, filled, tmp = scanned
    r = _upload(teacher, csrf, batch, tmp / "pile.pdf")
    assert r.status_code == 303 and r.headers["location"].startswith(f"/batches/{batch.id}/review")
    page = teacher.get(r.headers["location"])
    assert page.status_code == 200 and "read 4 pages: 4 identified, 0 not; 4 sheets" in page.text
    assert len(store.saved(batch)) == 4
    items = review_items(store, batch)
    assert items and page.text.count('class="card"') == len(items)
    crop = teacher.get(re.search(r'<img src="([^"]+/crops/[^"]+)"', page.text).group(1))
    assert crop.status_code == 200 and crop.content[:4] == b"\x89PNG"
    batch_page = teacher.get(f"/batches/{batch.id}").text
    assert f"/batches/{batch.id}/scanned/1" in batch_page
    sheet_view = teacher.get(f"/batches/{batch.id}/scanned/1")
    assert sheet_view.status_code == 200 and sheet_view.text.count('class="mark v-') >= 150


def test_reviewing_every_box_gives_the_grades_of_the_same_answers_typed(scanned):
    store, teacher, csrf, batch, filled, tmp = scanned
    if not store.saved(batch):
        _upload(teacher, csrf, batch, tmp / "pile.pdf")
    by_code = {f.code: f for f in filled}
    for item in review_items(store, batch):  # as a person at the review says
        written = by_code[item.code].text((item.head, item.step, item.row - 1, item.col - 1))
        r = teacher.post(
            f"/api/batches/{batch.id}/review",
            headers={"x-csrf-token": csrf},
            content=json.dumps({"key": item.key, "value": written}),
        )
        assert r.status_code == 200, r.text
    assert review_items(store, batch) == []
    assert "Every box is reviewed" in teacher.get(f"/batches/{batch.id}/review").text
    for sheet in batch.sheets:
        typed = by_code[sheet["code"]].typed(store.answers(batch, sheet))
        assert grade_sheet(sheet, typed).grade == store.saved(batch)[sheet["index"]]


def test_a_box_is_confirmed_once_and_foreign_names_lead_nowhere(scanned):
    store, teacher, csrf, batch, filled, tmp = scanned
    r = teacher.post(
        f"/api/batches/{batch.id}/review",
        headers={"x-csrf-token": csrf},
        content=json.dumps({"key": "1:1:Q:1:1", "value": "3"}),
    )
    assert r.status_code == 400 and "confirmed already" in r.json()["error"]
    assert (
        teacher.post(
            f"/api/batches/{batch.id}/review", content=json.dumps({"key": "1:1:Q:1:1", "value": "3"})
        ).status_code
        == 403
    )  # no CSRF token
    for bad in ("1:1:nope:1:1", "9:1:Q:1:1", "x", "1:1:Q:99:1"):
        r = teacher.post(
            f"/api/batches/{batch.id}/review",
            headers={"x-csrf-token": csrf},
            content=json.dumps({"key": bad, "value": "3"}),
        )
        assert r.status_code in (400, 404), bad
    for path in ("run-1/crops/..%2F..%2Fmanifest.json", "run-1/other/x.png", "../x/crops/a.png", "run-1/pages/a.txt"):
        assert teacher.get(f"/batches/{batch.id}/scans/{path}").status_code == 404, path


def test_an_upload_that_is_no_scan_is_refused_and_leaves_nothing(scanned):
    store, teacher, csrf, batch, filled, tmp = scanned
    before = sorted(p.name for p in (batch.folder / "scans").iterdir())
    (tmp / "notes.txt").write_text("hello")
    r = _upload(teacher, csrf, batch, tmp / "notes.txt", "notes.txt", "text/plain")
    assert r.status_code == 400 and "not a PDF" in r.text
    assert sorted(p.name for p in (batch.folder / "scans").iterdir()) == before
    picture = io.BytesIO(cv2.imencode(".png", filled[0].pages[0])[1].tobytes())
    stale = teacher.post(
        f"/batches/{batch.id}/scans",
        data={"csrf": "wrong"},
        files=[("scans", ("a.png", picture.getvalue(), "image/png"))],
    )
    assert stale.status_code == 403


def test_a_long_value_is_kept_whole_and_a_longer_one_refused(scanned):
    from generator.app.classroom import save_sheet
    from generator.app.scans import confirm

    store, teacher, csrf, batch, filled, tmp = scanned
    sheet = batch.sheets[0]
    answers = store.answers(batch, sheet) or {}
    if not answers:
        _upload(teacher, csrf, batch, tmp / "pile.pdf")
        answers = store.answers(batch, sheet)
    answers["heads"][0]["powers"][0][0] = None  # as a box left in review
    save_sheet(store, batch, sheet, answers, source="scan")
    huge = "3" * 300  # a wrong power of a student's, as long as they come
    r = teacher.post(
        f"/api/batches/{batch.id}/review",
        headers={"x-csrf-token": csrf},
        content=json.dumps({"key": f"{sheet['index']}:1:powers:1:1", "value": "1" * 1001}),
    )
    assert r.status_code == 400 and "at most" in r.json()["error"]
    confirm(store, batch, f"{sheet['index']}:1:powers:1:1", huge)
    assert store.answers(batch, sheet)["heads"][0]["powers"][0][0] == huge


def test_the_command_line_reads_a_web_batchs_pile_through_its_store(scanned, tmp_path):
    import subprocess
    import sys

    store, teacher, csrf, batch, filled, tmp = scanned
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "scan",
            str(tmp / "pile.pdf"),
            "--batch",
            batch.id,
            "--data",
            str(store.root),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "read 4 pages: 4 identified, 0 not; 4 sheets" in result.stderr
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "scan",
            str(tmp / "pile.pdf"),
            "--batch",
            "nope",
            "--data",
            str(store.root),
            "--out",
            str(tmp_path / "o2"),
        ],
        capture_output=True,
        text=True,
    )
    assert missing.returncode != 0 and "no such batch" in missing.stderr and "Traceback" not in missing.stderr


def test_a_box_said_already_is_said_again_only_from_what_it_was(scanned):
    """Undo on the review page: the change names what the box was said to hold, so a stale tab
    (which says another value, or none) never overwrites unseen."""
    store, teacher, csrf, batch, filled, tmp = scanned
    if not store.saved(batch):
        _upload(teacher, csrf, batch, tmp / "pile.pdf")
    from generator.app.scans import scan_answers
    from generator.core.answers import cell_at

    sheet = batch.sheets[0]
    answers = scan_answers(store, batch, sheet)[1]
    key = f"{sheet['index']}:1:Q:1:1"
    now = cell_at(answers, 1, "Q", 0, 0)
    assert now is not None

    def post(body):
        return teacher.post(f"/api/batches/{batch.id}/review", headers={"x-csrf-token": csrf}, content=json.dumps(body))

    assert post({"key": key, "value": "41", "was": str(now) + "9"}).status_code == 400  # not what it holds
    assert post({"key": key, "value": "41", "was": str(now)}).status_code == 200
    assert cell_at(scan_answers(store, batch, sheet)[1], 1, "Q", 0, 0) == "41"
    assert post({"key": key, "value": str(now), "was": "41"}).status_code == 200  # and back
    assert cell_at(scan_answers(store, batch, sheet)[1], 1, "Q", 0, 0) == str(now)


def test_a_batch_never_scanned_says_so_on_its_review_page(tmp_path):
    store = Store(tmp_path / "data")
    teacher = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "1", "seed": "8"}))
    page = teacher.get("/batches/batch-0001/review").text
    assert "No scan of this batch has been read yet" in page and "Every box is reviewed" not in page
