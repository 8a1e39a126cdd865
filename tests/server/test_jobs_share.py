"""Long work that shares (issue 53, 2): a batch asked for while a pile is read starts at once, on
one SQLite process and on PostgreSQL workers; a job can be cancelled from its page and from the
command line, leaving what was saved whole and nothing half-written; a class deleted under its
job stops the job quietly.

Every wait is for a state (the batch made while the pile is still being read), never a time."""

from __future__ import annotations

import importlib.util
import logging
import re
import subprocess
import sys
import time
import urllib.request

import pytest
from starlette.testclient import TestClient
from waiting import made

from conftest import ROOT
from generator.app.store import Store
from generator.web.app import create_app

_spec = importlib.util.spec_from_file_location("bombs", ROOT / "bench" / "bombs.py")
bombs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bombs)

PILE_PAGES = 1500
"""A pile read for tens of seconds (each empty page is read and found to be no sheet)."""


def teacher_of(app) -> TestClient:
    web = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    return web


def until(test, seconds: float = 240, every: float = 0.05):
    """`test()` once it is true (its value); the test fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = test()
        if value:
            return value
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(every)


def pile_job(store, batch, web, path):
    """A pile uploaded to `batch`: its job's id, once it is being read."""
    with open(path, "rb") as handle:
        r = web.post(f"/batches/{batch.id}/scans", data={"csrf": web.csrf}, files=[("scans", ("pile.pdf", handle))])
    assert r.status_code == 303, r.text[:300]
    number = store.jobs_of(batch.id, "scan")[-1].id
    until(lambda: store.job(number).state == "running" and store.job(number).done >= 16)
    return number


@pytest.fixture
def school(tmp_path):
    store = Store(tmp_path / "data")
    app = create_app(store)
    web = teacher_of(app)
    made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "8"}))
    yield store, app, web, store.batch("batch-0001"), bombs.pdf_pages(tmp_path / "pile.pdf", PILE_PAGES)
    store.queue.stop()
    store.close()


def test_a_batch_asked_for_during_a_pile_is_made_while_the_pile_is_read(school):
    """On SQLite a 2-sheet batch asked for during a 1,060-page pile started only when the pile finished."""
    store, app, web, batch, pile = school
    number = pile_job(store, batch, web, pile)
    r = web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "9"})
    assert r.status_code == 303
    name = r.headers["location"].rsplit("/", 1)[1]
    until(lambda: name in store.ids())
    pile_now = store.job(number)
    assert pile_now.state == "running" and pile_now.done < PILE_PAGES, pile_now  # made beside it, not after it
    web.post(f"/batches/{batch.id}/jobs/{number}/cancel", data={"csrf": web.csrf})


def test_a_pile_cancelled_from_its_page_stops_and_keeps_nothing(school, caplog):
    store, app, web, batch, pile = school
    number = pile_job(store, batch, web, pile)
    run = store.job(number).run
    page = web.get(f"/batches/{batch.id}/review?run={run}")
    assert 'id="job-cancel"' in page.text
    r = web.post(f"/batches/{batch.id}/jobs/{number}/cancel", data={"csrf": web.csrf})
    assert r.status_code == 303
    until(lambda: store.job(number).state == "cancelled")
    assert not (batch.folder / "scans" / run).exists()  # its uploads and its half-read pages gone
    page = web.get(f"/batches/{batch.id}/review?run={run}")
    assert "Cancelled: nothing of it was kept." in page.text and 'id="job"' not in page.text
    assert "Traceback" not in caplog.text
    # A stale or forged form, or another class's job, is refused.
    assert web.post(f"/batches/{batch.id}/jobs/{number}/cancel", data={"csrf": "x"}).status_code == 403
    assert web.post(f"/batches/{batch.id}/jobs/999/cancel", data={"csrf": web.csrf}).status_code == 404


def test_a_batch_cancelled_while_it_is_made_is_never_listed(school):
    store, app, web, batch, pile = school
    number = pile_job(store, batch, web, pile)  # the batch waits for its turn behind the pile's slice
    r = web.post("/batches", data={"csrf": web.csrf, "count": "120", "seed": "9"})
    name = r.headers["location"].rsplit("/", 1)[1]
    making = store.batch_job(name)
    until(lambda: store.job(making.id).state == "running")
    r = web.post(f"/batches/{name}/jobs/{making.id}/cancel", data={"csrf": web.csrf})
    assert r.status_code == 303
    until(lambda: store.job(making.id).state in ("cancelled", "done"))
    if store.job(making.id).state == "cancelled":  # (a machine fast enough may have made it first)
        assert name not in store.ids() and not (store.root / "batches" / name).exists()
        assert "Cancelled: nothing of it was kept." in web.get(f"/batches/{name}").text
    web.post(f"/batches/{batch.id}/jobs/{number}/cancel", data={"csrf": web.csrf})


def test_a_class_deleted_under_its_pile_stops_the_job_quietly(school, caplog):
    """Deleting the class stopped the job with a traceback in the log."""
    store, app, web, batch, pile = school
    number = pile_job(store, batch, web, pile)
    with caplog.at_level(logging.WARNING):
        r = web.post(f"/batches/{batch.id}/manage", data={"csrf": web.csrf, "action": "delete", "confirm": batch.id})
        assert r.status_code == 303
        time.sleep(3)  # a few heartbeats: the runner hears the job is gone
        made(web, web.post("/batches", data={"csrf": web.csrf, "count": "1", "seed": "3"}))  # the runner is free
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.exc_info], caplog.text
    assert number not in [j.id for j in store.unfinished()]


def test_the_command_line_lists_and_cancels_a_job(tmp_path):
    store = Store(tmp_path / "data")
    number = store.submit("regrade", {"batch": "none"})
    store.close()
    args = [sys.executable, "-m", "generator", "jobs", "--data", str(tmp_path / "data")]
    listed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert listed.returncode == 0 and f"{number:>6}  regrade queued" in listed.stdout, listed
    done = subprocess.run(args + ["--cancel", str(number)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and f"job {number} is cancelled" in done.stderr, done
    again = subprocess.run(args + ["--cancel", str(number)], cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 1 and "is cancelled already: nothing was changed" in again.stderr
    missing = subprocess.run(args + ["--cancel", "4242"], cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 1 and "no such job" in missing.stderr and missing.stderr.count("\n") == 1
    listed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert "no job is waiting or running" in listed.stderr


def test_on_postgresql_a_worker_makes_a_batch_while_it_reads_a_pile(tmp_path, postgres_server):
    """One worker: the batch asked for while it reads a pile is made between two slices of the pile."""
    from procs import serve

    from test_jobs import post_form, stop_all, worker

    url = postgres_server.fresh()
    data = tmp_path / "data"
    store = Store(data, url)
    store.close()
    server, port, home = serve(data, "--database", url, "--no-jobs")
    workers = [worker(data, url)]
    store = Store(data, url)
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answer = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "2", "seed": "6"}), timeout=120
        )
        first = answer.url.rsplit("/", 1)[1]
        until(lambda: first in store.ids())
        pile = bombs.pdf_pages(tmp_path / "pile.pdf", PILE_PAGES)
        urllib.request.urlopen(
            post_form(port, f"/batches/{first}/scans", {"csrf": csrf}, (("scans", "pile.pdf", pile.read_bytes()),)),
            timeout=120,
        )
        number = store.jobs_of(first, "scan")[-1].id
        until(lambda: store.job(number).state == "running" and store.job(number).done >= 16)
        answer = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "2", "seed": "7"}), timeout=120
        )
        second = answer.url.rsplit("/", 1)[1]
        until(lambda: second in store.ids())
        assert store.job(number).state == "running" and store.job(number).done < PILE_PAGES
        store.cancel(number)
        until(lambda: store.job(number).state == "cancelled")
    finally:
        store.close()
        stop_all(server, *workers)
