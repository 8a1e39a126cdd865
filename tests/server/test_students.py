"""Students hand in their own work: a link per sheet, a PIN for those without a phone, and
feedback exactly as the teacher's policy allows."""

from __future__ import annotations

import json
import html
import re

import pytest
from waiting import made
from starlette.testclient import TestClient

from generator.app.store import Store
from generator.core.formats import problem_from_json
from generator.core.registry import solve
from generator.core.numbers import sheet_value
from generator.web.app import create_app


def client_for(store: Store, token=None) -> TestClient:
    client = TestClient(create_app(store, token=token), base_url="http://127.0.0.1", follow_redirects=False)
    return client


@pytest.fixture
def school(tmp_path):
    store = Store(tmp_path / "data")
    app = create_app(store)
    teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    store.student = lambda: TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)  # one server
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "3", "seed": "8"}))
    batch = store.batch("batch-0001")
    return store, teacher, csrf, batch


def typed(sheet: dict, slip: bool = True) -> dict:
    """A student's Q, K, V (one slip in Q): nothing of A or Z typed."""
    head = solve(problem_from_json(sheet["problem"])).heads[0]
    grids = {name: [[sheet_value(v) for v in row] for row in getattr(head, name)] for name in ("Q", "K", "V")}
    if slip:
        grids["Q"][0][0] = str(int(grids["Q"][0][0]) + 5)
    return {"heads": [grids]}


def hidden_values(sheet: dict) -> set[str]:
    """The key's fractions of A and Z: no page may state them unless the policy shows values."""
    head = solve(problem_from_json(sheet["problem"])).heads[0]
    return {sheet_value(v) for grid in (head.A, head.Z) for row in grid for v in row if "/" in sheet_value(v)}


def test_a_student_opens_their_sheet_hands_in_and_the_class_page_fills(school):
    store, teacher, csrf, batch = school
    links = store.links(batch)
    student = store.student()
    page = student.get(f"/s/{links[1].token}")
    assert page.status_code == 200 and batch.sheets[0]["code"] in page.text
    others = [s["code"] for s in batch.sheets[1:]]
    assert not any(code in page.text for code in others) and "/batches/" not in page.text
    r = student.post(f"/api/s/{links[1].token}/handin", json=typed(batch.sheets[0]), headers={"x-csrf-token": csrf})
    assert r.status_code == 200 and r.json()["handed_in"] and r.json()["status"] == "graded"
    assert "of 3 have" in teacher.get("/batches/batch-0001/class").text.replace("1 of 3 have", "of 3 have")
    assert re.search(r"\d+/152", teacher.get("/batches/batch-0001").text)
    # Handed in again (a correction): the later one is kept.
    again = typed(batch.sheets[0], slip=False)
    assert (
        student.post(f"/api/s/{links[1].token}/handin", json=again, headers={"x-csrf-token": csrf}).status_code == 200
    )
    assert store.answers(store.batch(batch.id), batch.sheets[0])["heads"][0]["Q"] == again["heads"][0]["Q"]
    assert store.handins(store.batch(batch.id)) == {1: 2}
    # The teacher closes the batch: no more hand-ins, said in one line.
    teacher.post("/batches/batch-0001/policy", data={"csrf": csrf, "action": "close"})
    r = student.post(f"/api/s/{links[1].token}/handin", json=again, headers={"x-csrf-token": csrf})
    assert r.status_code == 409 and "closed" in r.json()["error"] and r.json()["reason"] == "closed"
    # Said on the student's page in the sheet's own language (the page holds the words, the answer says which; issue 56, item 10).
    page = html.unescape(student.get(f"/s/{links[1].token}").text)
    assert '"refused_closed": "Hand-ins for this sheet are closed: ask your teacher."' in page


def test_a_student_reaches_only_their_own_sheet_on_a_public_server(school):
    store, _, csrf, batch = school
    public = client_for(store, token="teacher-secret")
    token = store.links(batch)[2].token
    assert public.get(f"/s/{token}").status_code == 200  # the link is the student's key
    assert public.get("/s").status_code == 200 and public.get("/static/student.js").status_code == 200
    for path in (
        "/",
        "/batches/batch-0001",
        "/batches/batch-0001/files/answer-keys.pdf",
        "/batches/batch-0001/class",
        "/batches/batch-0001/sheets/2",
        "/batches/batch-0001/present/2",
        "/api/csrf",
    ):
        assert public.get(path).status_code == 401, path
    assert (
        public.post("/api/batches/batch-0001/sheets/2/grade", json={}, headers={"x-csrf-token": csrf}).status_code
        == 401
    )
    assert public.get("/s/" + "a" * 26).status_code == 404
    assert public.get(f"/s/{token[:-1]}").status_code == 404


@pytest.mark.parametrize(
    "feedback,release,released",
    [
        ("none", "now", False),
        ("verdicts", "now", False),
        ("full", "now", False),
        ("verdicts", "later", False),
        ("full", "later", False),
        ("full", "later", True),
    ],
)
def test_each_feedback_policy_shows_exactly_what_it_promises(school, feedback, release, released):
    store, teacher, csrf, batch = school
    # One hand-in with feedback: its answer is the student's last, when "full" states values (issue 32).
    teacher.post(
        "/batches/batch-0001/policy",
        data={
            "csrf": csrf,
            "feedback": feedback,
            "release": release,
            "attempts": "1",
            "action": "release" if released else "save",
        },
    )
    sheet, token = batch.sheets[0], store.links(batch)[1].token
    student = store.student()
    responses = [
        student.post(f"/api/s/{token}/handin", json=typed(sheet), headers={"x-csrf-token": csrf}),
        student.get(f"/api/s/{token}/feedback"),
        student.get(f"/s/{token}"),
    ]
    handin, later = responses[0].json(), responses[1].json()
    shown = release == "now" or released
    for answer in (handin, later):
        if feedback == "none" or not shown:
            assert answer["status"] == "received" and "cells" not in answer and "points" not in answer
        else:
            assert answer["status"] == "graded" and "points" in answer
            verdicts = {
                v
                for grids in answer["cells"]["heads"]
                for grid in grids.values()
                for row in grid
                for v in (row if isinstance(row, list) else [row])
            }
            assert verdicts <= {"correct", "carried", "wrong", "blank", "masked", "unreadable"}
            assert ("expected" in answer) == (feedback == "full")
    # Every response read for the key's values: none states any of a box left blank (A and Z here),
    # whatever the policy; "full" states the expected value of the one box written wrong, alone (issue 32).
    text = "".join(r.text for r in responses)
    stated = {v for v in hidden_values(sheet) if json.dumps(v) in text or f">{v}<" in text}
    assert not stated, stated
    if feedback == "full" and shown:
        shown_values = [
            (name, i, j)
            for name, grid in handin["expected"]["heads"][0].items()
            for i, row in enumerate(grid if name != "sums" else [grid])
            for j, v in enumerate(row)
            if v
        ]
        assert shown_values == [("Q", 0, 0)]
    # The one hand-in with feedback used: another is refused, its reason for the page to say in its language.
    again = student.post(f"/api/s/{token}/handin", json=typed(sheet), headers={"x-csrf-token": csrf})
    used = shown and feedback != "none"
    assert (again.status_code, again.json().get("reason")) == ((409, "attempts") if used else (200, None))


def test_a_student_without_a_phone_types_the_code_and_pin(school):
    store, _, csrf, batch = school
    link = store.links(batch)[3]
    student = store.student()
    form = student.get("/s")
    assert form.status_code == 200 and 'name="pin"' in form.text
    code = batch.sheets[2]["code"].lower()  # as typed: any case, hyphens or not
    r = student.post("/s", data={"csrf": csrf, "code": code, "pin": link.pin})
    assert r.status_code == 303 and r.headers["location"] == f"/s/{link.token}"
    wrong = str((int(link.pin) + 1) % 10**6).zfill(6)
    r = student.post("/s", data={"csrf": csrf, "code": code, "pin": wrong})
    assert r.status_code == 400 and "No sheet has this code and PIN" in r.text
    # Guessing PINs: refused after a few tries a minute.
    codes = [student.post("/s", data={"csrf": csrf, "code": code, "pin": "000000"}).status_code for _ in range(25)]
    assert 429 in codes


def test_a_link_is_rate_limited(school):
    store, _, csrf, batch = school
    token = store.links(batch)[1].token
    student = store.student()
    codes = [student.get(f"/api/s/{token}/feedback").status_code for _ in range(70)]
    assert codes[:60] == [200] * 60 and codes[-1] == 429


def test_a_server_batchs_worksheets_open_each_students_link_and_print_the_pin(tmp_path):
    from pypdf import PdfReader

    from generator.app.classroom import create_batch
    from generator.core.student import Student
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.app.batches import make_sheets
    from generator.output.batch import Batch
    from generator.output.svg import qr_svg
    from generator.sheet.model import Settings

    store = Store(tmp_path / "data")
    sheets = make_sheets(DrawOptions(), 5, [Student(name="Ana"), Student(name="Ben")], secret=store.secret)
    for fmt in ("pdf", "html"):
        batch = create_batch(
            store,
            Batch(sheets=sheets, settings=Settings(), out=store.root, split=False, jobs=1, seed=5, fmt=fmt),
            base_url="http://192.168.1.20:8000/",
        )
        links = store.links(batch)
        if fmt == "pdf":
            pages = PdfReader(batch.folder / "worksheets.pdf").pages
            text = "\n".join(page.extract_text() for page in pages)
            keys = "\n".join(page.extract_text() for page in PdfReader(batch.folder / "answer-keys.pdf").pages)
            assert f"PIN {links[1].pin}" in text and f"PIN {links[2].pin}" in text and "PIN" not in keys
        else:
            html = (batch.folder / "worksheets.html").read_text()
            for link in links.values():
                assert str(qr_svg(f"http://192.168.1.20:8000/s/{link.token}")) in html and f"PIN {link.pin}" in html


def test_a_batch_made_from_the_command_line_for_a_server(tmp_path, run):
    from pypdf import PdfReader

    data = tmp_path / "data"
    r = run("generate", "--count", "2", "--seed", "4", "--server-url", "http://10.0.0.5:8000", "--data", str(data))
    assert r.code == 0 and "students hand in at http://10.0.0.5:8000/s" in r.err
    store = Store(data)
    batch = store.batch("batch-0001")
    links = store.links(batch)
    text = "\n".join(p.extract_text() for p in PdfReader(batch.folder / "worksheets.pdf").pages)
    assert f"PIN {links[1].pin}" in text
    assert run("key", batch.sheets[0]["code"], "--out", str(tmp_path / "k")).code == 1  # private: the server's secret
    app = TestClient(create_app(store), base_url="http://127.0.0.1")
    assert app.get(f"/s/{links[2].token}").status_code == 200
    for args in (["--out", "x"], ["--secret-file", "s"], ["--blank"]):
        r = run("generate", "--server-url", "http://10.0.0.5:8000", "--data", str(data), *args)
        assert r.code == 2 and "--server-url makes the batch" in r.err
    assert run("generate", "--server-url", "ftp://x", "--data", str(data)).code == 2


def test_a_spanish_batchs_student_pages_are_in_spanish(tmp_path):
    store = Store(tmp_path / "data")
    app = create_app(store)
    teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "1", "lang": "es"}))
    batch = store.batch("batch-0001")
    page = TestClient(app, base_url="http://127.0.0.1").get(f"/s/{store.links(batch)[1].token}").text
    assert '<html lang="es">' in page and "Entregar" in page and "Tu hoja" in page and "Hand in" not in page
    assert (
        "Busca tu hoja"
        in TestClient(app, base_url="http://127.0.0.1").get("/s", headers={"accept-language": "es"}).text
    )


def test_a_release_is_one_of_the_looks_a_student_may_have(school):
    """Issue 56, item 8: under "later", a release showed the verdicts without using an attempt, and
    three more hand-ins with feedback followed."""
    store, teacher, csrf, batch = school
    teacher.post(
        "/batches/batch-0001/policy",
        data={"csrf": csrf, "feedback": "verdicts", "release": "later", "attempts": "3", "action": "save"},
    )
    sheet, token = batch.sheets[0], store.links(batch)[1].token
    student = store.student()

    def hand_in():
        return student.post(f"/api/s/{token}/handin", json=typed(sheet), headers={"x-csrf-token": csrf})

    assert hand_in().json()["status"] == "received" and hand_in().json()["status"] == "received"  # unseen: free
    teacher.post(
        "/batches/batch-0001/policy",
        data={"csrf": csrf, "feedback": "verdicts", "release": "later", "attempts": "3", "action": "release"},
    )
    look = student.get(f"/api/s/{token}/feedback").json()
    assert look["status"] == "graded" and look["left"] == 2  # the release was a look
    assert [hand_in().json()["left"] for _ in range(2)] == [1, 0]
    refused = hand_in()
    assert refused.status_code == 409 and refused.json()["reason"] == "attempts"
    # A sheet never handed in keeps all of its looks.
    other = store.links(batch)[2].token
    assert student.get(f"/api/s/{other}/feedback").json().get("left", 3) == 3
