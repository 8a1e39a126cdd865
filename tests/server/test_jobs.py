"""Long work as durable jobs: a server killed (kill -9) in the middle of a 200-sheet batch or a
60-page pile of scans, started again, finishes each job once, whole, nothing listed twice."""

from __future__ import annotations

import json
import re
import signal
import time
import urllib.request
import uuid

import pytest
from procs import serve

from generator.app.batches import Batch, make_sheets
from generator.app.classroom import create_batch
from generator.app.store import Store
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.output.files import STAGE_PREFIX
from generator.sheet.model import Settings


def post_form(port: int, path: str, fields: dict, files: tuple = ()) -> urllib.request.Request:
    """A multipart form as a browser sends it (fields, and (name, filename, bytes) files)."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    for name, filename, content in files:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n".encode()
            + content
            + b"\r\n"
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body,
        method="POST",
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )


def job(port: int, number: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/jobs/{number}", timeout=30) as answer:
        return json.loads(answer.read())


def until(port: int, number: int, test, seconds: float = 240) -> dict:
    """The job's state once `test` holds for it."""
    deadline = time.monotonic() + seconds
    while True:
        state = job(port, number)
        if test(state):
            return state
        assert state["state"] != "failed", state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def killed(server) -> None:
    """kill -9 the server and its job processes: nothing of theirs runs after."""
    from procs import children

    helpers = children(server.pid)
    server.send_signal(signal.SIGKILL)
    server.wait(20)
    for pid in helpers:
        try:
            import os

            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def rows(data, statement: str) -> list[tuple]:
    store = Store(data)
    try:
        return store.db.query(statement)
    finally:
        store.close()


def test_a_batch_killed_half_way_is_made_once_whole_after_a_restart(tmp_path):
    from pypdf import PdfReader

    data = tmp_path / "data"
    server, port, home = serve(data)
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answer = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "200", "seed": "4"}), timeout=120
        )
        assert answer.url.endswith("/batches/batch-0001")
        assert 'id="job"' in answer.read().decode()  # its progress, at once
        state = until(port, 1, lambda s: s["state"] == "running" and s["done"] >= 40)
        assert state["total"] == 400 and state["done"] < 400
        killed(server)
    finally:
        if server.poll() is None:
            server.kill()
    assert rows(data, "SELECT state FROM jobs") == [("running",)]
    assert rows(data, "SELECT name FROM batches") == []  # never listed half-made
    server, port, _ = serve(data)
    try:
        said = ""
        state = until(port, 1, lambda s: s["state"] == "done")
        assert state["result"] == {"batch": "batch-0001"} and state["done"] == state["total"] == 400
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/batches/batch-0001", timeout=30).read().decode()
        assert "answer-keys.pdf" in page and 'id="job"' not in page
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
        said = server.stderr.read()
    assert "job 1, begun by a process that stopped, is done again from its start" in said
    assert rows(data, "SELECT name FROM batches") == [("batch-0001",)]
    assert rows(data, "SELECT COUNT(*) FROM sheets") == [(200,)]
    folder = data / "batches" / "batch-0001"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert len(manifest["sheets"]) == 200
    pages = sum(1 for _ in PdfReader(folder / "worksheets.pdf").pages)
    assert pages == manifest["sheets"][-1]["worksheet"]["first_page"] + manifest["sheets"][-1]["worksheet"]["pages"] - 1
    assert len(PdfReader(folder / "answer-keys.pdf").pages) >= 200
    assert not [p for p in folder.rglob("*") if p.name.startswith(STAGE_PREFIX)]
    assert not (data / "jobs" / "job-1").exists()  # its inputs go once it is done


def _pile(tmp, database=None):
    """A batch of 60 sheets in a store, and its worksheets filled in and scanned: a 60-page PDF."""
    from generator.scan.synthetic import filled_sheets, pdf_of

    store = Store(tmp / "data", database)
    sheets = make_sheets(DrawOptions(), 21, [Student(name=f"Student {n}") for n in range(1, 61)], secret=store.secret)
    batch = create_batch(store, Batch(sheets=sheets, settings=Settings(), out=store.root, jobs=None, seed=21))
    filled = list(filled_sheets(batch.folder, seed=21, scan=dict(dpi=150, angle=1.0, quality=80)))
    pages = [p for f in filled for p in f.pages]
    pdf_of(pages, tmp / "pile.pdf")
    store.close()
    return tmp / "data", tmp / "pile.pdf", len(pages)


@pytest.fixture(scope="module")
def pile(tmp_path_factory):
    return _pile(tmp_path_factory.mktemp("pile"))


def test_a_pile_of_scans_killed_half_way_is_read_once_after_a_restart(pile):
    data, pdf, count = pile
    assert count == 60
    server, port, home = serve(data)
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answer = urllib.request.urlopen(
            post_form(port, "/batches/batch-0001/scans", {"csrf": csrf}, (("scans", "pile.pdf", pdf.read_bytes()),)),
            timeout=120,
        )
        assert "/batches/batch-0001/review?run=run-1" in answer.url and 'id="job"' in answer.read().decode()
        state = until(port, 1, lambda s: s["state"] == "running" and s["done"] >= 10)
        assert state["total"] == 60 and state["done"] < 60
        killed(server)
    finally:
        if server.poll() is None:
            server.kill()
    server, port, _ = serve(data)
    try:
        state = until(port, 1, lambda s: s["state"] == "done")
        assert state["result"]["run"] == "run-1" and "read 60 pages: 60 identified" in state["result"]["line"]
        page = (
            urllib.request.urlopen(f"http://127.0.0.1:{port}/batches/batch-0001/review?run=run-1", timeout=60)
            .read()
            .decode()
        )
        assert "read 60 pages: 60 identified" in page
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
    # Every sheet saved once from its scan: one revision each, none twice.
    assert rows(data, "SELECT COUNT(*), COUNT(DISTINCT idx) FROM revisions WHERE source = 'scan'") == [(60, 60)]
    assert rows(data, "SELECT state, tries FROM jobs") == [("done", 2)]


# --- on PostgreSQL: the server runs no jobs, two workers share them ------------------------------------


def worker(data, url):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return subprocess.Popen(
        [sys.executable, "-m", "generator", "worker", "--database", url, "--data", str(data)],
        cwd=root,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_holder(data, url, number: int, workers: list):
    """kill -9 the worker that runs job `number` now; that worker."""
    holder = int(rows_of(data, url, "SELECT runner FROM jobs WHERE id = ?", (number,))[0][0].split("@")[0])
    victim = next(w for w in workers if w.pid == holder)
    victim.send_signal(signal.SIGKILL)
    victim.wait(20)
    return victim


def stop_all(*processes) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.wait(60)
        except Exception:
            process.kill()


@pytest.fixture(scope="module")
def school_pg(tmp_path_factory):
    """A PostgreSQL database with a 60-sheet batch and its scanned pile (the server's data folder beside it)."""
    from pgserver import Server, Unavailable

    try:
        pg = Server()
    except Unavailable as why:
        pytest.skip(f"PostgreSQL: {why}")
    url = pg.fresh()
    yield (*_pile(tmp_path_factory.mktemp("school"), url), url)
    pg.stop()


def test_a_worker_killed_in_a_batch_leaves_it_to_the_other_which_makes_it_once(school_pg):
    from pypdf import PdfReader

    data, _, _, url = school_pg
    server, port, home = serve(data, "--database", url, "--no-jobs")
    workers = [worker(data, url), worker(data, url)]
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answer = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "200", "seed": "6"}), timeout=120
        )
        name = answer.url.rsplit("/", 1)[1]
        number = [j for (j,) in rows_of(data, url, "SELECT id FROM jobs WHERE batch = ?", (name,))][0]
        until(port, number, lambda s: s["state"] == "running" and s["done"] >= 60)
        victim = kill_holder(data, url, number, workers)  # the worker making the batch, in the middle of it
        state = until(port, number, lambda s: s["state"] == "done")
        assert state["result"] == {"batch": name} and state["done"] == 400
        survivor = next(w for w in workers if w is not victim)
        runner, tries = rows_of(data, url, "SELECT runner, tries FROM jobs WHERE id = ?", (number,))[0]
        assert runner.startswith(f"{survivor.pid}@") and tries == 2  # begun twice, done once, by the survivor
    finally:
        stop_all(server, *workers)
    assert [n for (n,) in rows_of(data, url, "SELECT name FROM batches WHERE name = ?", (name,))] == [name]
    manifest = json.loads((data / "batches" / name / "manifest.json").read_text())
    assert len(manifest["sheets"]) == 200
    last = manifest["sheets"][-1]["worksheet"]
    assert len(PdfReader(data / "batches" / name / "worksheets.pdf").pages) == last["first_page"] + last["pages"] - 1
    assert not [p for p in (data / "batches" / name).rglob("*") if p.name.startswith(STAGE_PREFIX)]


def test_a_worker_killed_in_a_pile_of_scans_leaves_it_to_the_other(school_pg):
    data, pdf, count, url = school_pg
    server, port, home = serve(data, "--database", url, "--no-jobs")
    workers = [worker(data, url), worker(data, url)]
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answer = urllib.request.urlopen(
            post_form(port, "/batches/batch-0001/scans", {"csrf": csrf}, (("scans", "pile.pdf", pdf.read_bytes()),)),
            timeout=120,
        )
        run = answer.url.rsplit("=", 1)[1]
        number = max(j for (j,) in rows_of(data, url, "SELECT id FROM jobs WHERE kind = 'scan'"))
        until(port, number, lambda s: s["state"] == "running" and s["done"] >= 10)
        kill_holder(data, url, number, workers)
        state = until(port, number, lambda s: s["state"] == "done")
        assert state["result"]["run"] == run and f"read {count} pages: {count} identified" in state["result"]["line"]
    finally:
        stop_all(server, *workers)
    assert rows_of(data, url, "SELECT COUNT(*), COUNT(DISTINCT idx) FROM revisions WHERE source = 'scan'") == [(60, 60)]


def test_a_students_photo_is_read_by_a_worker_on_postgresql(school_pg, tmp_path):
    """Issue 58, item 5: a photo is read on the server's queue; on PostgreSQL a worker reads it, not the server."""
    import cv2

    from generator.scan.synthetic import filled_sheets

    data, _, _, url = school_pg
    store = Store(data, url)
    try:
        batch = store.batch("batch-0001")
        token = store.links(batch)[1].token  # the first sheet, the one filled below
    finally:
        store.close()
    filled = next(
        filled_sheets(data / "batches" / "batch-0001", seed=4, scan={"dpi": 200, "quality": 70, "photo": True})
    )
    picture = cv2.imencode(".jpg", filled.pages[0], [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
    server, port, home = serve(data, "--database", url, "--no-jobs")
    reader = worker(data, url)
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        sent = post_form(port, f"/api/s/{token}/photo", {"page": "1"}, (("photo", "IMG_1.jpg", picture),))
        sent.add_header("X-CSRF-Token", csrf)
        with urllib.request.urlopen(sent, timeout=60) as answer:
            assert answer.status == 202
            queued = json.loads(answer.read())
        deadline = time.monotonic() + 240
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{queued['poll']}", timeout=30) as answer:
                status, read = answer.status, json.loads(answer.read())
            if status == 200:
                break
            assert time.monotonic() < deadline, "the photo was never read"
            time.sleep(0.1)
        assert read["page"] == 1 and sum(box["sure"] for box in read["boxes"]) > 50
        ((runner,),) = rows_of(data, url, "SELECT runner FROM jobs WHERE id = ?", (queued["job"],))
        assert runner.startswith(f"{reader.pid}@"), runner  # the worker's, never the server's
    finally:
        stop_all(server, reader)


def test_several_server_processes_serve_one_postgresql(school_pg, tmp_path):
    from procs import children

    data, _, _, url = school_pg
    server, port, home = serve(data, "--database", url, "--workers", "3")
    try:
        deadline = time.monotonic() + 30
        while len(children(server.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(children(server.pid)) == 3
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        for _ in range(6):  # connections answered by whichever process: each takes the others' pages
            page = urllib.request.urlopen(
                post_form(port, "/batches", {"csrf": csrf, "count": "2", "seed": "3"}), timeout=120
            )
            assert "/batches/batch-" in page.url
        numbers = [j for (j,) in rows_of(data, url, "SELECT id FROM jobs WHERE kind = 'batch' ORDER BY id")][-6:]
        for number in numbers:  # run by the server processes themselves (no worker here)
            until(port, number, lambda s: s["state"] == "done")
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(30) == 0
    assert "3 server processes answer" in server.stderr.read()


def rows_of(data, url, statement: str, params: tuple = ()) -> list[tuple]:
    store = Store(data, url)
    try:
        return store.db.query(statement, params)
    finally:
        store.close()


def test_a_new_rule_for_trivial_steps_grades_the_saved_sheets_again_as_a_job(tmp_path):
    from starlette.testclient import TestClient
    from waiting import made, ready

    from generator.app.classroom import grade_sheet, save_sheet
    from generator.core.answers import skeleton
    from generator.core.formats import problem_from_json
    from generator.web.app import create_app

    # The data folder's secret draws the numbers: a fixed one, so that the sheet is the same in
    # every run (a fresh one drew, one run in four, a sheet whose zero Q made no step trivial).
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "secret").write_text("3c" * 32 + "\n", encoding="ascii")
    (tmp_path / "data" / "secret").chmod(0o600)
    store = Store(tmp_path / "data")
    try:
        web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
        csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
        made(web, web.post("/batches", data={"csrf": csrf, "count": "2", "seed": "8"}))
        batch = store.batch("batch-0001")
        sheet = batch.sheets[0]
        problem = problem_from_json(sheet["problem"])
        doc = skeleton(problem, problem.code)
        head = doc["heads"][0]
        head["Q"] = [[0] * len(row) for row in head["Q"]]  # Q written as zeros, every later box carried from it
        for _ in range(40):
            expected = grade_sheet(sheet, doc, batch.trivial).expected
            changed = fill(doc, expected)
            if not changed:
                break
        save_sheet(store, batch, sheet, doc, "teacher")
        before = store.saved(batch)[1]["points"]
        r = web.post(f"/batches/{batch.id}/policy", data={"csrf": csrf, "trivial": "full"})
        assert r.status_code == 303
        page = web.get(f"/batches/{batch.id}/class").text
        assert 'id="job"' in page or "Grading the saved sheets again" not in page  # the bar, while it runs
        ready(web, f"/batches/{batch.id}/class")
        after = store.saved(store.batch(batch.id))[1]
        assert after["points"] > before
        assert after == grade_sheet(sheet, store.answers(batch, sheet), "full").grade
        ((state,),) = store.db.query("SELECT state FROM jobs WHERE kind = 'regrade'")
        assert state == "done"
    finally:
        store.close()


def fill(answers, expected) -> bool:
    """Every empty box of `answers` given the value `expected` has for it (as "start from the key"); whether any was."""
    changed = False
    if isinstance(answers, dict):
        for key, value in answers.items():
            if key in expected and isinstance(value, (dict, list)):
                changed |= fill(value, expected[key])
    elif isinstance(answers, list):
        for i, value in enumerate(answers):
            if i >= len(expected):
                continue
            if isinstance(value, (dict, list)):
                changed |= fill(value, expected[i])
            elif value is None and expected[i] not in (None, ""):
                answers[i] = expected[i]
                changed = True
    return changed
