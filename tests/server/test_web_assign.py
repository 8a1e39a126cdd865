"""A page the scan could not identify, finished in the web review (issue 36): listed with its
picture, said to be a student's page, and the pile read again with that word; what was reviewed
before stays as the teacher said it, and a stale or impossible word is refused in one line."""

from __future__ import annotations

import re
import time

import cv2
import pytest
from starlette.testclient import TestClient
from test_scan_assign import _without_codes
from waiting import made, ready

from generator.app.assigning import unidentified_pages
from generator.app.scans import review_items, scan_answers
from generator.app.store import Store
from generator.core.answers import cell_at
from generator.scan.synthetic import filled_sheets, pdf_of
from generator.web.app import create_app


def web_batch(tmp, count: int, seed: int):
    """A store, a teacher's client, its CSRF token, and a web batch of `count` sheets made through the form."""
    store = Store(tmp / "data")
    teacher = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": str(count), "seed": str(seed)}))
    return store, teacher, csrf, store.batch("batch-0001")


def upload(teacher, csrf, batch, path) -> str:
    """The review page once the pile at `path` is read (its job done)."""
    r = teacher.post(
        f"/batches/{batch.id}/scans",
        data={"csrf": csrf},
        files=[("scans", (path.name, path.read_bytes(), "application/pdf"))],
    )
    return ready(teacher, r.headers["location"])


@pytest.fixture(scope="module")
def pile(tmp_path_factory):
    """A web batch of three and its pile: sheet 1's QR code painted out, sheet 2's too and upside down."""
    tmp = tmp_path_factory.mktemp("webassign")
    store, teacher, csrf, batch = web_batch(tmp, 3, 12)
    filled = list(filled_sheets(batch.folder, seed=5, scan=dict(dpi=200, angle=1.0, quality=80)))
    pages = [
        _without_codes(filled[0].pages[0]),
        cv2.rotate(_without_codes(filled[1].pages[0]), cv2.ROTATE_180),
        filled[2].pages[0],
    ]
    pdf_of(pages, tmp / "pile.pdf")
    return store, teacher, csrf, batch, filled, tmp


def _assign(teacher, csrf, batch, u, sheet, sheet_page="1"):
    return teacher.post(
        f"/batches/{batch.id}/scans/{u.run}/assign",
        data={"csrf": csrf, "file": u.file, "page": str(u.page), "sheet": sheet, "sheet_page": sheet_page},
    )


def test_a_page_not_identified_is_said_to_be_a_students_and_read_with_the_rest(pile):
    store, teacher, csrf, batch, filled, tmp = pile
    review = upload(teacher, csrf, batch, tmp / "pile.pdf")
    assert "3 pages: 1 identified, 2 not" in review and "2 pages not identified" in review, re.findall(
        r"<p class=\"summary\">(.*?)</p>|<h2>(.*?)</h2>", review
    )
    assert str(tmp) not in review and "/uploads/" not in review  # the server's folders are no one's business
    listed = unidentified_pages(batch)
    assert [(u.file, u.page) for u in listed] == [("001.pdf", 1), ("001.pdf", 2)]
    picture = teacher.get(f"/batches/{batch.id}/scans/{listed[0].run}/pages/{listed[0].picture}")
    assert picture.status_code == 200 and picture.content[:2] == b"\xff\xd8"
    assert f'value="3 · Sheet 3 · {batch.sheets[2]["code"]}"' in review  # the type-ahead's list

    # The identified sheet's review goes on meanwhile: one box said, by hand.
    third = next(i for i in review_items(store, batch) if i.index == 3)
    said = teacher.post(
        f"/api/batches/{batch.id}/review", json={"key": third.key, "value": "123"}, headers={"x-csrf-token": csrf}
    )
    assert said.status_code == 200
    before = len(store.saved(batch))

    # Refused, each in one line, nothing queued: no such student, no such page, not a number.
    for sheet, page, words in (
        ("Nobody Here", "1", "pick a student"),
        ("1", "2", "has 1 page"),
        ("1", "x", "whole number"),
    ):
        refused = _assign(teacher, csrf, batch, listed[0], sheet, page)
        assert refused.status_code == 400 and words in refused.text, refused.text[-400:]
    assert len(store.jobs_of(batch.id, "scan")) == 1

    first = _assign(teacher, csrf, batch, listed[0], f"1 · Sheet 1 · {batch.sheets[0]['code']}")
    assert first.status_code == 303
    again = ready(teacher, first.headers["location"])
    assert "1 page not identified" in again
    assert _assign(teacher, csrf, batch, listed[1], "2").status_code == 404  # its run was read again since
    second = _assign(teacher, csrf, batch, unidentified_pages(batch)[0], batch.sheets[1]["code"])
    assert second.status_code == 303
    done = ready(teacher, second.headers["location"])
    assert "not identified" not in done.split("</h1>", 1)[1].split('id="review"')[0]
    assert unidentified_pages(batch) == [] and len(store.saved(batch)) == 3 >= before
    # Both pages read into their own sheets, the upside-down one too, and the box said by hand kept.
    for index in (1, 2):
        kept = scan_answers(store, batch, store.sheet(batch.id, str(index))[1])
        assert kept is not None
    kept = scan_answers(store, batch, store.sheet(batch.id, "3")[1])[1]
    assert str(cell_at(kept, third.head, third.step, third.row - 1, third.col - 1)) == "123"
    assert third.key not in {i.key for i in review_items(store, batch)}


def test_a_servers_sheets_are_identified_from_a_150_dpi_copy(tmp_path):
    """A server's first pages hold a long link (small modules): a 150 dpi copy, JPEG 80, turned 3°."""
    store, teacher, csrf, batch = web_batch(tmp_path, 8, 21)
    filled = list(filled_sheets(batch.folder, seed=2, scan=dict(dpi=150, angle=3.0, quality=80)))
    pdf_of([p for f in filled for p in f.pages], tmp_path / "pile.pdf")
    assert "read 8 pages: 8 identified, 0 not; 8 sheets" in upload(teacher, csrf, batch, tmp_path / "pile.pdf")


def test_a_reading_that_fails_leaves_the_page_to_assign_again(tmp_path, monkeypatch):
    store, teacher, csrf, batch = web_batch(tmp_path, 1, 14)
    filled = list(filled_sheets(batch.folder, seed=6, scan=dict(dpi=200, angle=1.0, quality=80)))
    pdf_of([_without_codes(filled[0].pages[0])], tmp_path / "pile.pdf")
    assert "1 page not identified" in upload(teacher, csrf, batch, tmp_path / "pile.pdf")
    (page,) = unidentified_pages(batch, store)

    import generator.app.scans as scans

    real = scans.read_upload

    def broken(*args, **kwargs):
        raise OSError("the disk went away")

    monkeypatch.setattr(scans, "read_upload", broken)
    failed = _assign(teacher, csrf, batch, page, "1")
    assert failed.status_code == 303
    deadline = time.monotonic() + 60
    while store.jobs_of(batch.id, "scan")[-1].state not in ("failed", "done"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert store.jobs_of(batch.id, "scan")[-1].state == "failed"
    # The page is listed again, to be assigned once more, and this time it is read.
    assert [(u.run, u.file, u.page) for u in unidentified_pages(batch, store)] == [(page.run, page.file, page.page)]
    assert "1 page not identified" in teacher.get(f"/batches/{batch.id}/review").text
    monkeypatch.setattr(scans, "read_upload", real)
    again = _assign(teacher, csrf, batch, page, "1")
    assert again.status_code == 303
    ready(teacher, again.headers["location"])
    assert unidentified_pages(batch, store) == [], _whys(batch)
    assert len(store.saved(batch)) == 1


def _whys(batch) -> list:
    """Each run's pages as its reading left them (what an assertion shows when one is not read)."""
    from generator.app.scans import scans_folder

    return [
        (run.name, sorted(p.name for p in run.iterdir()), (run / "pages.json").read_text(encoding="utf-8")[:600])
        for run in sorted(scans_folder(batch).iterdir())
        if (run / "pages.json").is_file()
    ]
