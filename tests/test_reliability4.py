"""Grades you can trust, round four (issue 32): a test per failure found, each failing on the code before its fix."""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import sqlite3
import stat
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from fractions import Fraction
from pathlib import Path

import pytest
from waiting import made, ready
from conftest import ROOT
from procs import serve
from starlette.testclient import TestClient

from generator.app.classroom import Closed, save_sheet
from generator.app.scans import finish_runs, new_run
from generator.app.store import Store
from generator.core.answers import parse_answers_json, skeleton
from generator.core.cells import read_cell
from generator.core.formats import problem_from_json
from generator.core.grade import matches
from generator.core.registry import grade, solve
from generator.core.numbers import sheet_value
from generator.core.student import Student
from generator.draw.choose import kind_options
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.output.files import STAGE_PREFIX, owner_tag
from generator.output.gradebook import class_report
from generator.output.html import report_html
from generator.sheet.model import Settings
from generator.web.app import create_app
from generator.app.turns import Turns

CLI = [sys.executable, "-m", "generator"]


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, **kw)


@pytest.fixture
def school(tmp_path):
    """A web batch of three sheets and a teacher's client, on one store."""
    store = Store(tmp_path / "data")
    app = create_app(store)
    teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    store.student = lambda: TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
    made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "3", "seed": "8"}))
    return store, teacher, csrf, store.batch("batch-0001")


def key_answers(sheet: dict) -> dict:
    """A sheet's answers@1 with every box as the key has it (what a perfect paper says)."""
    problem = problem_from_json(sheet["problem"])
    h = solve(problem).heads[0]
    grids = {name: [[sheet_value(v) for v in row] for row in getattr(h, name)]
             for name in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")}
    grids.update(Q_copy=grids["Q"], V_copy=grids["V"], K_T=[list(r) for r in zip(*grids["K"])],
                 sums=[sheet_value(v) for v in h.sums])
    return {"heads": [grids]}


def garbage(sheet: dict) -> dict:
    """Every box written, none right: a student fishing for the key."""
    problem = problem_from_json(sheet["problem"])
    doc = skeleton(problem, sheet["code"])
    for grid in doc["heads"][0].values():
        for i, row in enumerate(grid):
            if isinstance(row, list):
                grid[i] = ["98765"] * len(row)
            else:
                grid[i] = "98765"
    return {"heads": doc["heads"]}


def values_in(expected: dict) -> dict:
    """The boxes a feedback's `expected` states a value of, as answers@1 to hand in."""
    return {"heads": [{step: (grid if step != "sums" else grid) for step, grid in head.items()}
                      for head in expected.get("heads", [])]}


# --- 1. "full" feedback is not the key -------------------------------------------------------------


@pytest.mark.parametrize("feedback,release,released", [
    ("none", "now", False), ("verdicts", "now", False), ("full", "now", False),
    ("verdicts", "later", True), ("full", "later", False), ("full", "later", True)])
def test_handing_in_blanks_then_what_came_back_earns_nothing_under_any_policy(school, feedback, release, released):
    store, teacher, csrf, batch = school
    teacher.post(f"/batches/{batch.id}/policy", data={"csrf": csrf, "feedback": feedback, "release": release,
                                                      "action": "release" if released else "save"})
    token, student = store.links(batch)[1].token, store.student()
    hand = lambda doc: student.post(f"/api/s/{token}/handin", json=doc, headers={"x-csrf-token": csrf})  # noqa: E731
    blank = hand({"heads": [{}]}).json()
    assert "expected" not in blank or not any(
        v for head in blank["expected"]["heads"] for grid in head.values()
        for v in (sum(grid, []) if grid and isinstance(grid[0], list) else grid))
    again = hand(values_in(blank.get("expected", {})))
    assert again.status_code in (200, 409)
    if again.status_code == 200 and again.json().get("points") is not None:
        assert again.json()["points"] == 0
    assert store.saved(batch)[1]["points"] == 0


def test_full_feedback_states_only_wrong_boxes_and_only_with_the_last_hand_in(school):
    store, teacher, csrf, batch = school
    teacher.post(f"/batches/{batch.id}/policy", data={"csrf": csrf, "feedback": "full", "release": "now",
                                                      "attempts": "2", "action": "save"})
    sheet, token, student = batch.sheets[0], store.links(batch)[1].token, store.student()
    hand = lambda doc: student.post(f"/api/s/{token}/handin", json=doc, headers={"x-csrf-token": csrf})  # noqa: E731
    fishing = garbage(sheet)
    fishing["heads"][0]["A"] = None  # one grid left blank: never revealed
    first = hand(fishing).json()
    assert first["status"] == "graded" and "expected" not in first and first["left"] == 1
    last = hand(fishing).json()
    assert last["left"] == 0 and "expected" in last
    stated = last["expected"]["heads"][0]
    assert not any(v for row in stated["A"] for v in row)  # the blank grid: nothing
    assert stated["Q"][0][0] == key_answers(sheet)["heads"][0]["Q"][0][0]  # a wrong box: its value
    # Handing in what came back: refused, the last hand-in counts.
    r = hand(values_in(last["expected"]))
    assert r.status_code == 409 and "counts" in r.json()["error"]
    assert store.saved(batch)[1]["points"] == first["points"]  # the copies of its own numbers, carried


# --- 2. a slow client cannot stop the class --------------------------------------------------------


def _raise_open_files() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


def test_a_thousand_slow_connections_from_one_address_leave_every_other_client_served(tmp_path):
    _raise_open_files()
    server, port, _ = serve(tmp_path / "data")
    slow = []
    try:
        for _ in range(1000):  # bounded: a thousand connections, each a request line and half a header
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(s)
        for address in ("127.0.0.2", "127.0.0.3"):  # other clients: served at once
            other = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))
            other.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert other.recv(64).startswith(b"HTTP/1.1 200"), address
            other.close()
        # The slow ones are cut: the connections over the address's share at once, the rest when
        # their headers are late (≤ 10 s).
        deadline = time.monotonic() + 20
        for s in slow:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                while s.recv(4096):
                    pass
            except socket.timeout:
                pytest.fail("a connection with half a header is still open after 20 s")
            except OSError:
                pass
    finally:
        for s in slow:
            s.close()
        server.terminate()
        server.wait(timeout=30)


def test_a_body_trickled_a_byte_at_a_time_is_cut(tmp_path):
    server, port, _ = serve(tmp_path / "data")
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.4", 0))
        s.sendall(b"POST /api/uploads/roster HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
                  b"Content-Type: text/csv\r\n\r\n")
        start, cut = time.monotonic(), False
        while time.monotonic() - start < 40:
            try:
                s.sendall(b"x")
                time.sleep(2)
                s.setblocking(False)
                try:
                    data = s.recv(4096)
                    if data == b"" or data.startswith(b"HTTP/1.1 408"):
                        cut = True
                        break
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
            except OSError:
                cut = True
                break
        assert cut and time.monotonic() - start < 30, "a body at a byte every 2 s was never cut"
        s.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


# --- 3. no one's work is silently replaced ---------------------------------------------------------


def test_a_hand_in_after_the_teachers_entry_waits_beside_it_for_a_decision(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[0]
    r = teacher.post(f"/api/batches/{batch.id}/sheets/1/save", json=key_answers(sheet), headers={"x-csrf-token": csrf})
    assert r.json()["points"] == 152
    token = store.links(batch)[1].token
    student = store.student()
    assert student.post(f"/api/s/{token}/handin", json={"heads": [{}]}, headers={"x-csrf-token": csrf}).status_code == 200
    assert store.saved(batch)[1]["points"] == 152  # the teacher's entry still counts
    page = teacher.get(f"/batches/{batch.id}/class").text
    assert "Waiting for your decision" in page and "handed in by the student" in page
    (newer, current), = store.conflicts(batch)
    assert (newer.source, current.source, current.points) == ("student", "teacher", 152)
    # The teacher decides: the hand-in counts now; the entry is kept in the history.
    r = teacher.post(f"/batches/{batch.id}/revisions/{newer.rev}", data={"csrf": csrf, "action": "take"})
    assert r.status_code == 303 and store.saved(batch)[1]["points"] == 0
    assert [(h.source, h.state) for h in store.history(batch, sheet)] == [("student", "current"), ("teacher", "replaced")]


def test_a_scan_never_replaces_a_typed_sheet_and_a_blank_page_never_replaces_written_answers(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[1]
    save_sheet(store, batch, sheet, key_answers(sheet))
    blank = skeleton(problem_from_json(sheet["problem"]), sheet["code"])
    blank["heads"][0] = {step: ([""] * len(grid) if step == "sums" else [[""] * len(r) for r in grid])
                         for step, grid in blank["heads"][0].items()}
    kept = save_sheet(store, batch, sheet, blank, source="scan")
    assert kept.saved.state == "blank" and store.saved(batch)[2]["points"] == 152
    read = save_sheet(store, batch, sheet, garbage(sheet), source="scan")
    assert read.saved.state == "conflict" and store.saved(batch)[2]["points"] == 152
    # The teacher said the scans replace what was typed: then a scan counts.
    said = save_sheet(store, batch, sheet, garbage(sheet), source="scan", replace_typed=True)
    assert said.saved.state == "current" and store.saved(batch)[2]["points"] < 152
    assert len(store.history(batch, sheet)) == 4  # nothing lost


def test_a_teachers_save_over_a_hand_in_it_never_showed_keeps_the_hand_in_for_a_decision(school):
    store, teacher, csrf, batch = school
    sheet = batch.sheets[2]
    page = teacher.get(f"/batches/{batch.id}/sheets/3").text
    base = re.search(r'data-base="([^"]*)"', page).group(1)
    token = store.links(batch)[3].token
    store.student().post(f"/api/s/{token}/handin", json=garbage(sheet), headers={"x-csrf-token": csrf})
    r = teacher.post(f"/api/batches/{batch.id}/sheets/3/save", json={**key_answers(sheet), "base": base},
                     headers={"x-csrf-token": csrf})
    assert r.json()["kept_newer"] is True
    (newer, current), = store.conflicts(batch)
    assert newer.source == "student" and current.source == "teacher"


# --- 4. exact decimals ------------------------------------------------------------------------------


@pytest.mark.parametrize("written", [0.32142857142857145, "0.3214285714285715", "0.32142857142857145",
                                     "0.321428571428571", "0.3214285714285714", "0.32"])
def test_a_decimal_a_program_prints_for_the_key_is_right(written):
    assert matches(read_cell(written), Fraction(9, 28))


@pytest.mark.parametrize("written", ["0.3214285714285716", "0.33", "0.3", "0.32142857142858"])
def test_a_decimal_that_is_not_the_key_is_still_wrong(written):
    assert not matches(read_cell(written), Fraction(9, 28))


# --- 5. the PIN limit and X-Forwarded-For ----------------------------------------------------------


def test_forwarded_for_is_not_believed_unless_the_teacher_says_so(tmp_path):
    server, port, home = serve(tmp_path / "data")
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answered = refused = 0
        for n in range(300):
            body = f"csrf={csrf}&code=ABCD-EF&pin=000000".encode()
            request = urllib.request.Request(f"http://127.0.0.1:{port}/s", data=body, method="POST", headers={
                "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": f"10.9.{n // 250}.{n % 250}"})
            try:
                urllib.request.urlopen(request, timeout=10)
                answered += 1
            except urllib.error.HTTPError as error:
                if error.code == 429:
                    refused += 1
                else:
                    answered += 1
        assert refused >= 270, (answered, refused)
    finally:
        server.terminate()
        server.wait(timeout=30)


# --- 6. guessing by verdicts --------------------------------------------------------------------------


def test_verdicts_are_given_for_a_few_hand_ins_only(school):
    store, teacher, csrf, batch = school
    token, student = store.links(batch)[2].token, store.student()
    codes = [student.post(f"/api/s/{token}/handin", json=garbage(batch.sheets[1]),
                          headers={"x-csrf-token": csrf}).status_code for _ in range(6)]
    assert codes == [200, 200, 200, 409, 409, 409]


# --- 7. a picture that declares a huge size ---------------------------------------------------------


def huge_tiff(path: Path) -> Path:
    """210 bytes that declare 100,000 × 100,000 grey pixels."""
    entries = [(256, 4, 1, 100000), (257, 4, 1, 100000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8), (277, 3, 1, 1), (278, 4, 1, 100000), (279, 4, 1, 1)]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + struct.pack("<I", 0)
    path.write_bytes(b"II*\x00" + struct.pack("<I", 9) + b"\x00" + ifd)
    return path


def test_a_picture_declaring_ten_billion_pixels_is_one_line_and_nothing_half_written(tmp_path):
    assert cli("generate", "--count", "1", "--seed", "3", "--out", str(tmp_path / "b")).returncode == 0
    r = cli("scan", str(huge_tiff(tmp_path / "big.tif")), "--manifest", str(tmp_path / "b" / "manifest.json"),
            "--out", str(tmp_path / "out"))
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    pages = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert "too big" in pages[0]["why"]
    assert not list((tmp_path / "out").glob(f"{STAGE_PREFIX}*")) and not list((tmp_path / "out" / "crops").iterdir())


def test_the_web_app_reads_such_a_picture_as_a_page_it_cannot_use(school, tmp_path):
    store, teacher, csrf, batch = school
    r = teacher.post(f"/batches/{batch.id}/scans", data={"csrf": csrf},
                     files=[("scans", ("big.tif", huge_tiff(tmp_path / "big.tif").read_bytes(), "image/tiff"))])
    assert r.status_code == 303
    assert "read 1 pages: 0 identified, 1 not" in ready(teacher, r.headers["location"])


# --- 8. a stray quote -----------------------------------------------------------------------------------


def test_a_stray_quote_inside_an_unquoted_field_is_refused_with_its_line(tmp_path):
    assert cli("generate", "--count", "1", "--seed", "3", "--out", str(tmp_path / "b")).returncode == 0
    code = json.loads((tmp_path / "b" / "manifest.json").read_text())["sheets"][0]["code"]
    answers = tmp_path / "answers.csv"
    answers.write_text(f"code,head,step,row,col,value\n{code},1,Q,1,2,1\"\n")
    r = cli("grade", str(answers), "--manifest", str(tmp_path / "b" / "manifest.json"))
    assert r.returncode == 1 and "line 2: a stray quote" in r.stderr and r.stderr.count("\n") == 1, r.stderr


# --- 9. a secret others can read ----------------------------------------------------------------------


def test_a_secret_file_others_can_read_is_made_private_with_a_word(tmp_path):
    secret = tmp_path / "secret"
    r = cli("generate", "--count", "1", "--out", str(tmp_path / "b"), "--secret-file", str(secret))
    assert r.returncode == 0
    os.chmod(secret, 0o644)
    code = json.loads((tmp_path / "b" / "manifest.json").read_text())["sheets"][0]["code"]
    r = cli("key", code, "--secret-file", str(secret), "--out", str(tmp_path / "k"))
    assert r.returncode == 0 and "could be read by other users" in r.stderr
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_data_folders_secret_others_can_read_is_made_private_at_start(tmp_path):
    Store(tmp_path / "data").close()
    os.chmod(tmp_path / "data" / "secret", 0o640)
    store = Store(tmp_path / "data")
    assert store.warnings and "readable by its owner alone" in store.warnings[0]
    assert stat.S_IMODE((tmp_path / "data" / "secret").stat().st_mode) == 0o600
    store.close()


# --- 10. leftovers, and a close that is final ---------------------------------------------------------


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_killed_batch_creations_folder_is_cleaned_at_the_next_start(tmp_path):
    store = Store(tmp_path / "data")
    name, folder = store.reserve()
    store.db.query("SELECT 1")
    with store.db.transaction() as cur:
        cur.run("UPDATE batch_ids SET reserved = reserved - 7200")
    stage = folder / f"{STAGE_PREFIX}{dead_pid()}@{owner_tag().partition('@')[2]}~abc"
    stage.mkdir(parents=True)
    (stage / "worksheets.pdf.part").write_bytes(b"x" * 100_000)
    live_name, live = store.reserve()
    (live / f"{STAGE_PREFIX}{owner_tag()}~def").mkdir(parents=True)  # being made now, by this process
    store.close()
    again = Store(tmp_path / "data")
    assert not folder.exists() and again.cleaned == [name]
    assert live.exists()
    again.close()


def test_a_killed_scan_is_finished_or_removed_at_the_next_start(school, tmp_path):
    store, teacher, csrf, batch = school
    cut = new_run(batch)
    (cut / "uploads").mkdir()
    (cut / "uploads" / "001.pdf").write_bytes(b"%PDF-")
    (cut / ".owner").write_text(f"{dead_pid()}@{owner_tag().partition('@')[2]}")
    living = new_run(batch)  # another live process's upload: left alone
    assert finish_runs(store) == [f"{batch.id}/{cut.name}"]
    assert not cut.exists() and living.exists()


def test_a_close_is_final_for_a_hand_in_being_written(school):
    store, teacher, csrf, batch = school
    seen = store.batch(batch.id)  # what a hand-in read before the close was answered
    store.set_policy(seen, closed=True)
    with pytest.raises(Closed):
        save_sheet(store, seen, batch.sheets[0], garbage(batch.sheets[0]), "student")
    assert 1 not in store.saved(batch)


# --- 11. a full disk --------------------------------------------------------------------------------------


def test_a_full_disk_is_said_in_words_without_the_servers_paths(school, monkeypatch):
    from generator.app import database

    store, teacher, csrf, batch = school
    token, student = store.links(batch)[1].token, store.student()
    real = database.Cursor.rows

    def rows(self, statement, params=()):
        if statement.startswith("INSERT INTO revisions"):  # the write of a save, as SQLite fails it
            with database._disk_said():
                raise sqlite3.OperationalError("database or disk is full")
        return real(self, statement, params)

    monkeypatch.setattr(database.Cursor, "rows", rows)
    r = student.post(f"/api/s/{token}/handin", json=garbage(batch.sheets[0]), headers={"x-csrf-token": csrf})
    assert r.status_code == 507 and "the disk is full" in r.json()["error"]

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(store.root / "held" / "x"))

    monkeypatch.setattr("generator.output.files.write_temporary", no_space)
    r = teacher.post("/api/uploads/roster", content=b"name\nAna\n", headers={"x-csrf-token": csrf})
    assert r.status_code == 507 and str(store.root) not in r.text and "disk is full" in r.text


def test_a_real_full_disk(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(folder)], capture_output=True).returncode:
        pytest.skip("a small disk (tmpfs) cannot be mounted here")
    try:
        store = Store(folder / "data")
        app = create_app(store)
        teacher = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
        csrf = re.search(r'name="csrf" value="([^"]+)"', teacher.get("/").text).group(1)
        made(teacher, teacher.post("/batches", data={"csrf": csrf, "count": "1", "seed": "8"}))
        with open(folder / "filler", "wb") as filler:  # the rest of the disk, taken
            try:
                while True:
                    filler.write(b"\0" * 65536)
                    filler.flush()
            except OSError:
                pass
        batch = store.batch("batch-0001")
        token = store.links(batch)[1].token
        answers = [teacher.post("/batches", data={"csrf": csrf, "count": "30", "seed": "9"}),
                   teacher.post("/api/uploads/roster", content=b"name\n" + b"Ana\n" * 20000,
                                headers={"x-csrf-token": csrf})]
        for _ in range(3):  # SQLite's log may hold a page or two more: a few hand-ins fill it
            answers.append(teacher.post(f"/api/s/{token}/handin", json=garbage(batch.sheets[0]),
                                        headers={"x-csrf-token": csrf}))
        print([r.status_code for r in answers])
        assert [r.status_code for r in answers[:2]] == [507, 507] and 507 in [r.status_code for r in answers[2:]]
        for r in answers:
            if r.status_code == 507:
                assert "the disk is full" in r.text and str(folder) not in r.text, r.text
        assert store.ids() == ["batch-0001"]  # the batch that could not be written is not listed
        store.close()
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


# --- 12. an error that makes the rest trivial ------------------------------------------------------------


def played(problem, zeroed: str, head: bool = True, trivial: str = "none"):
    """A sheet whose `zeroed` grid is written as zeros and every later box as carried from it."""
    doc = skeleton(problem, problem.code)
    grids = doc["heads"][0] if head else doc
    grids[zeroed] = [[0] * len(row) for row in grids[zeroed]]
    for _ in range(40):
        (pending,) = parse_answers_json(json.dumps(doc), "sheet")
        result = grade(problem, pending.answers(problem, Student(), problem.code), trivial=trivial)
        changed = False
        for s in result.steps:
            target = doc["heads"][s.head - 1] if s.head else doc
            for i, row in enumerate(s.carried):
                for j, v in enumerate(row):
                    cells = target[s.step] if s.step == "sums" else target[s.step][i]
                    at = j
                    if cells[at] is None and v is not None and s.verdicts[i][j] != "masked":
                        cells[at] = sheet_value(v).replace("\u2212", "-")
                        changed = True
        if not changed:
            return result
    return result


def test_q_written_as_zeros_earns_nothing_for_the_steps_it_makes_trivial():
    problem = draw(DrawOptions(), 2026)[0]
    result = played(problem, "Q")
    verdicts = {s.step: {v for row in s.verdicts for v in row} for s in result.steps}
    for step in ("scores", "powers", "sums", "A", "Z"):
        assert "trivial" in verdicts[step], (step, verdicts[step])
    assert result.points < 100, result.points  # 143 of 152 before
    assert played(problem, "Q", trivial="full").points > result.points  # the teacher's credit
    report = class_report([result])
    assert report["trivial"] > 50
    assert "made their step trivial" in report_html(report, Settings())


@pytest.mark.parametrize("kind,zeroed,trivial_steps", [("ffn", "H_pre", ("Y",)),
                                                      ("transformer", "R", ("H_pre", "H", "Y", "out"))])
def test_its_kin_in_the_ffn_and_the_block(kind, zeroed, trivial_steps):
    problem = draw(kind_options(kind), 7)[0]
    result = played(problem, zeroed, head=False)
    verdicts = {s.step: {v for row in s.verdicts for v in row} for s in result.steps}
    for step in trivial_steps:
        assert "trivial" in verdicts[step], (step, verdicts[step])


def test_a_real_mistake_is_still_carried():
    problem = draw(DrawOptions(), 2026)[0]
    answers = skeleton(problem, problem.code)
    h = solve(problem).heads[0]
    answers["heads"][0]["Q"] = [[sheet_value(v) for v in row] for row in h.Q]
    answers["heads"][0]["Q"][0][0] = str(int(answers["heads"][0]["Q"][0][0]) + 1)
    (pending,) = parse_answers_json(json.dumps(answers), "sheet")
    result = grade(problem, pending.answers(problem, Student(), problem.code))
    assert not any(v == "trivial" for s in result.steps for row in s.verdicts for v in row)


# --- 13. a long pile never holds the class's batches ------------------------------------------------------


def test_a_batch_waiting_behind_a_pile_goes_at_the_next_slice():
    turns, events = Turns(), []

    def pile():
        with turns:
            for page in range(1, 41):
                events.append(("page", page))
                time.sleep(0.01)
                if page % 8 == 0:
                    turns.hand_on()

    reader = threading.Thread(target=pile)
    reader.start()
    while not events:
        time.sleep(0.001)

    with turns:  # a batch, asked for after the pile began
        events.append(("batch", 0))
    reader.join()
    at = events.index(("batch", 0))
    assert at < 17, events[:at + 1]  # within the next slice of 8 pages, never after all 40


def test_a_web_scan_hands_the_render_lock_on_between_slices(school, tmp_path, monkeypatch):
    from generator.scan.synthetic import filled_sheets, pdf_of

    store, teacher, csrf, batch = school
    filled = list(filled_sheets(batch.folder, seed=4, scan=dict(dpi=150)))
    pages = [p for f in filled for p in f.pages] * 6  # 18 pages
    pdf_of(pages, tmp_path / "pile.pdf")
    calls = []
    monkeypatch.setattr(Turns, "hand_on", lambda self: calls.append(1))
    r = teacher.post(f"/batches/{batch.id}/scans", data={"csrf": csrf},
                     files=[("scans", ("pile.pdf", (tmp_path / "pile.pdf").read_bytes(), "application/pdf"))])
    assert r.status_code == 303
    ready(teacher, r.headers["location"])
    assert len(calls) == len(pages) // 8
