"""The store on both databases: migrations, batch numbers, saves as one transaction, imported folders.

Each test runs on SQLite and on a throwaway PostgreSQL server (skipped, with the reason, where
PostgreSQL cannot run).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

from generator.app.classroom import create_batch, grade_sheet, save_sheet
from generator.app.database import Database, DatabaseError
from generator.app.store import MIGRATIONS, NotFound, Store
from generator.core.registry import solve
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.app.batches import make_sheets
from generator.output.batch import Batch
from generator.sheet.model import Settings


def new_batch(store: Store, count: int = 2, seed: int = 3):
    sheets = make_sheets(
        DrawOptions(preset="easy"), seed, [Student(name=f"S{i}") for i in range(count)], secret=store.secret
    )
    return create_batch(
        store, Batch(sheets=sheets, settings=Settings(), out=store.root, split=False, jobs=1, seed=seed, fmt="html")
    )


def answers_of(sheet: dict, slip: bool = False) -> dict:
    from generator.core.formats import problem_from_json

    head = solve(problem_from_json(sheet["problem"])).heads[0]
    grids = {name: [[str(v) for v in row] for row in getattr(head, name)] for name in ("Q", "K", "V")}
    if slip:
        grids["Q"][0][0] = "99"
    return {"heads": [grids]}


def test_a_batch_its_sheets_and_a_save(tmp_path, database):
    store = Store(tmp_path / "data", database)
    batch = new_batch(store)
    assert store.ids() == [batch.id] and batch.id == "batch-0001"
    assert (batch.folder / "manifest.json").is_file() and len(store.links(batch)) == 2
    sheet = batch.sheets[0]
    graded = save_sheet(store, batch, sheet, answers_of(sheet))
    assert store.saved(batch) == {1: graded.grade}
    assert store.answers(batch, sheet)["heads"][0]["Q"] == graded.answers["heads"][0]["Q"]
    assert [g.grade.points for g in store.graded(batch)] == [graded.grade["points"]]
    link = store.links(batch)[2]
    assert store.by_token(link.token)[1]["index"] == 2
    with pytest.raises(NotFound):
        store.by_token("x" * 26)
    with pytest.raises(NotFound):
        store.batch("batch-9999")
    closed = store.set_policy(batch, feedback="full", release="later", closed=True)
    assert (closed.feedback, closed.release, closed.released, closed.closed) == ("full", "later", False, True)
    store.close()
    # Opened again: the same, the schema not migrated twice.
    again = Store(tmp_path / "data", database)
    assert again.ids() == ["batch-0001"] and again.saved(again.batch("batch-0001")) == {1: graded.grade}
    again.close()


def test_a_database_newer_than_this_attnsheet_is_refused(tmp_path, database):
    Store(tmp_path / "data", database).close()
    db = Database(database or tmp_path / "data" / "attnsheet.sqlite3")
    with db.transaction() as cur:
        cur.run("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    db.close()
    with pytest.raises(DatabaseError, match="newer than this attnsheet"):
        Store(tmp_path / "data", database)


def test_a_folder_of_an_earlier_attnsheet_is_imported_once_without_loss(tmp_path, database, run):
    # What the web app of the last version kept: a batch folder, answers/ and grades/ beside it.
    data = tmp_path / "data"
    folder = data / "batches" / "batch-0007"
    assert run("generate", "--count", "2", "--seed", "4", "--out", str(folder)).code == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    graded = grade_sheet(manifest["sheets"][1], answers_of(manifest["sheets"][1], slip=True))
    (folder / "answers").mkdir()
    (folder / "grades").mkdir()
    (folder / "answers" / "002.json").write_text(json.dumps(graded.answers))
    (folder / "grades" / "002.json").write_text(json.dumps(graded.grade))
    store = Store(data, database)
    batch = store.batch("batch-0007")
    assert store.saved(batch) == {2: graded.grade} and store.answers(batch, {"index": 2}) == graded.answers
    assert new_batch(store).id == "batch-0008"  # numbering goes on after the imported batch
    store.close()
    again = Store(data, database)
    assert again.ids() == ["batch-0008", "batch-0007"] and again.saved(again.batch("batch-0007")) == {2: graded.grade}
    again.close()


def _worker(data, database, count, seed) -> subprocess.Popen:
    script = (
        "import sys, json; sys.path[:0] = ['tests', 'tests/server']\n"
        "from pathlib import Path\n"
        "from generator.app.store import Store\n"
        "from test_store import new_batch\n"
        f"store = Store(Path({str(data)!r}), {database!r})\n"
        f"print(json.dumps([new_batch(store, 1, {seed} + i).id for i in range({count})]))\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_two_processes_making_batches_at_once_never_collide(tmp_path, database):
    data = tmp_path / "data"
    Store(data, database).close()  # the schema, made once
    workers = [_worker(data, database, 4, seed) for seed in (10, 50)]
    made = []
    for w in workers:
        out, err = w.communicate(timeout=300)
        assert w.returncode == 0, err
        made += json.loads(out)
    assert len(set(made)) == 8  # no name taken twice
    store = Store(data, database)
    assert sorted(store.ids()) == sorted(made)  # and nothing lost
    for name in made:
        assert len(store.batch(name).sheets) == 1 and (data / "batches" / name / "manifest.json").is_file()
    store.close()


def test_a_save_killed_at_any_moment_leaves_answers_and_grade_agreeing(tmp_path, database):
    """kill -9 a process saving in a loop, 20 times: every save found has its own grade."""
    data = tmp_path / "data"
    store = Store(data, database)
    batch = new_batch(store, count=4)
    store.close()
    script = (
        "import sys, random; sys.path[:0] = ['tests', 'tests/server']\n"
        "from pathlib import Path\n"
        "from generator.app.store import Store\n"
        "from generator.app.classroom import save_sheet\n"
        "from test_store import answers_of\n"
        f"store = Store(Path({str(data)!r}), {database!r}); batch = store.batch({batch.id!r})\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    sheet = random.choice(batch.sheets)\n"
        "    save_sheet(store, batch, sheet, answers_of(sheet, slip=random.random() < 0.5))\n"
    )
    for round_ in range(20):
        saver = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert saver.stdout.readline().strip() == "ready"
        time.sleep(0.05 + 0.01 * round_)
        os.kill(saver.pid, signal.SIGKILL)
        saver.wait()
        store = Store(data, database)
        current = store.batch(batch.id)
        for index, answers, grade in store.saves(current):
            assert grade_sheet(current.sheets[index - 1], answers).grade == grade
        store.close()
    assert Store(data, database).saves(batch)  # the rounds did save


def test_serve_keeps_its_batches_in_the_database_it_is_given(tmp_path, database):
    import re
    import urllib.request

    from procs import serve

    server, port, home = serve(tmp_path / "data", *(["--database", database] if database else []))
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/batches", data=f"csrf={csrf}&count=1".encode(), method="POST"
        )
        answer = urllib.request.urlopen(request, timeout=60)
        assert answer.status == 200
        deadline = time.monotonic() + 60  # the batch's job, run by the server
        while "manifest.json" not in urllib.request.urlopen(answer.url, timeout=60).read().decode():
            assert time.monotonic() < deadline, "the batch was not made"
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(20)
    assert (tmp_path / "data" / "attnsheet.sqlite3").exists() == (database is None)
    store = Store(tmp_path / "data", database)
    assert store.ids() == ["batch-0001"]
    store.close()
