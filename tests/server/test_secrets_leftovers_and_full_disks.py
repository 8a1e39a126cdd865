"""What the server keeps safe (issue 32): secrets others could read made private, leftovers of a killed run cleaned at the next start, a full disk said in words."""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import stat
import subprocess

import pytest
from waiting import made
from schoolclient import cli, garbage, new_school
from starlette.testclient import TestClient

from generator.app.scans import finish_runs, new_run
from generator.app.store import Store
from generator.output.files import STAGE_PREFIX, owner_tag
from generator.web.app import create_app


@pytest.fixture
def school(tmp_path):
    """A web class of three sheets and its teacher's client."""
    return new_school(tmp_path)


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
        answers = [
            teacher.post("/batches", data={"csrf": csrf, "count": "30", "seed": "9"}),
            teacher.post("/api/uploads/roster", content=b"name\n" + b"Ana\n" * 20000, headers={"x-csrf-token": csrf}),
        ]
        for _ in range(3):  # SQLite's log may hold a page or two more: a few hand-ins fill it
            answers.append(
                teacher.post(f"/api/s/{token}/handin", json=garbage(batch.sheets[0]), headers={"x-csrf-token": csrf})
            )
        print([r.status_code for r in answers])
        assert [r.status_code for r in answers[:2]] == [507, 507] and 507 in [r.status_code for r in answers[2:]]
        for r in answers:
            if r.status_code == 507:
                assert "the disk is full" in r.text and str(folder) not in r.text, r.text
        assert store.ids() == ["batch-0001"]  # the batch that could not be written is not listed
        store.close()
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
