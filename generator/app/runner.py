"""Running the store's jobs (app/jobs): a batch rendered, a pile of scans read, each held by a heartbeat.

`run_job` runs one claimed job to its end, whichever process claimed it; `Runner` is the
server's own thread that claims and runs them one at a time (the SQLite default, and any
server not told that workers run them).
"""

from __future__ import annotations

import logging
import shutil
import threading
from dataclasses import replace
from typing import Callable, Optional

from generator.app.errors import NotFound
from generator.app.jobs import BEAT, FAILED, STALE
from generator.core.errors import AttnsheetError
from generator.output.files import owner_tag
from generator.scan.limits import MAX_PAGES

log = logging.getLogger("attnsheet.jobs")


class Heart:
    """A running job's heartbeat, from a thread of its own (the work may hold one step for long)."""

    def __init__(self, store, job_id: int, runner: str) -> None:
        self.store, self.job_id, self.runner = store, job_id, runner
        self.done: Optional[int] = None
        self.total: Optional[int] = None
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"job-{job_id}-beat", daemon=True)

    def __enter__(self) -> "Heart":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def progress(self, done: int, total: Optional[int] = None) -> None:
        """Pieces done so far (and in all): sent with the next heartbeat."""
        self.done = done
        if total is not None:
            self.total = total

    def _beat(self) -> None:
        while not self._stop.wait(BEAT / 3):
            try:
                if not self.store.beat(self.job_id, self.runner, self.done, self.total):
                    self.lost = True  # another runner took it (this one was taken for gone)
            except AttnsheetError as error:  # the database away a moment: the next beat tries again
                log.warning("job %s: heartbeat not sent: %s", self.job_id, error)


def run_job(store, job_id: int, kind: str, params: dict, runner: str, lock=None, workers=None,
            hand_on: Optional[Callable[[], None]] = None) -> None:
    """Run one claimed job to its end: done with its result, or failed with its one line."""
    try:
        with Heart(store, job_id, runner) as heart:
            if lock is not None:
                with lock:
                    result = _work(store, job_id, kind, params, heart, workers, hand_on)
            else:
                result = _work(store, job_id, kind, params, heart, workers, hand_on)
    except AttnsheetError as error:
        store.finish(job_id, runner, error=str(error))
        return
    except Exception:  # the server's own trouble: logged whole, said in one line
        log.exception("job %s (%s) failed", job_id, kind)
        store.finish(job_id, runner, error=FAILED)
        return
    store.finish(job_id, runner, result)


def _work(store, job_id: int, kind: str, params: dict, heart: Heart, workers, hand_on) -> dict:
    if kind == "batch":
        return _make_batch(store, job_id, params, heart, workers)
    if kind == "regrade":
        return _regrade(store, params, heart)
    return _read_scans(store, params, heart, hand_on)


def _regrade(store, params: dict, heart: "Heart") -> dict:
    """Every saved sheet of a class graded again under its rule as it is now (the credit of a trivial step)."""
    from generator.app.classroom import grade_sheet

    batch = store.batch(params["batch"])
    heart.progress(0, len(batch.sheets))
    changed = 0
    for done, sheet in enumerate(batch.sheets, start=1):
        rev, answers = store.current(batch, sheet)
        if rev is not None:
            graded = grade_sheet(sheet, answers, batch.trivial)
            changed += store.regraded(batch, rev, graded.grade)
        heart.progress(done)
    return {"batch": batch.id, "sheets": changed}


def _make_batch(store, job_id: int, params: dict, heart: Heart, workers) -> dict:
    """A queued batch rendered into the folder its number names, then listed (once, whoever runs it)."""
    from generator.app.classroom import create_batch

    name = params["batch"]
    try:
        store.batch(name)
        return {"batch": name}  # listed by an earlier run of this job that was lost only after
    except NotFound:
        pass
    folder = store.root / "batches" / name
    if folder.exists():  # what an earlier, stopped run of this job rendered: begun again
        shutil.rmtree(folder)
    batch = replace(store.inputs(job_id), workers=workers)
    heart.progress(0, 2 * len(batch.sheets))
    count = [0]

    def progress(n: int) -> None:
        count[0] += n
        heart.progress(count[0])

    create_batch(store, batch, params.get("feedback", "verdicts"), params.get("release", "now"),
                 params.get("base_url", ""), int(params.get("attempts", 3)), owner=params.get("owner"),
                 reserved=(name, folder), progress=progress)
    return {"batch": name}


def _read_scans(store, params: dict, heart: Heart, hand_on) -> dict:
    """A queued pile of scans read into its run folder and its sheets saved (a run done before is done)."""
    from generator.app.scans import read_upload, run_summary, scans_folder
    from generator.scan.limits import page_count

    batch = store.batch(params["batch"])
    run = scans_folder(batch) / params["run"]
    line = run_summary(batch, run.name)
    if line:
        return {"run": run.name, "line": line}
    paths = [run / "uploads" / name for name in params["uploads"]]
    try:
        heart.progress(0, page_count(paths))
    except AttnsheetError:
        pass  # said by the reading itself, page by page
    line = read_upload(store, batch, paths, run, bool(params.get("replace")), hand_on,
                       progress=lambda done: heart.progress(done), assigned=params.get("assigned", ()),
                       max_pages=int(params.get("max_pages", MAX_PAGES)))
    return {"run": run.name, "line": line}


class Runner:
    """Runs the store's jobs in this process, one at a time, in a thread of its own (the server's,
    on SQLite): woken when a job is queued, and every few seconds for one whose runner is gone."""

    def __init__(self, store, lock=None, workers=None, hand_on: Optional[Callable[[], None]] = None) -> None:
        self.store, self.lock, self.workers, self.hand_on = store, lock, workers, hand_on
        self.name = f"{owner_tag()}/runner"
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._guard = threading.Lock()

    def queued(self, job_id: int) -> None:
        """A job was queued: run it (the thread is started on the first)."""
        self.start()
        self._wake.set()

    def start(self) -> None:
        with self._guard:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="attnsheet-jobs", daemon=True)
                self._thread.start()

    def stop(self, wait: float = 30) -> None:
        """Stop taking jobs; wait up to `wait` seconds for the one running (it is taken up again
        after STALE seconds by the next runner if it is not done by then)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=wait)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                claimed = self.store.claim(self.name)
            except Exception as error:  # the database away a moment (or closed as the server stops)
                if self._stopping.is_set():
                    return
                log.warning("jobs: cannot look for work: %s", error)
                claimed = None
            if claimed is None:
                self._wake.wait(STALE / 4)
                self._wake.clear()
                continue
            run_job(self.store, *claimed, runner=self.name, lock=self.lock, workers=self.workers,
                    hand_on=self.hand_on)
