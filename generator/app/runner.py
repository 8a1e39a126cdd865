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
from generator.output.jobs import Stop
from generator.scan.limits import MAX_PAGES

log = logging.getLogger("attnsheet.jobs")


class JobStopped(Exception):
    """A running job's work ends here: its teacher cancelled it, or it is no longer this runner's
    (taken over, or its class deleted). Not an AttnsheetError: nothing on the way takes it for one."""

    def __init__(self, cancelled: bool) -> None:
        super().__init__("cancelled" if cancelled else "no longer this runner's")
        self.cancelled = cancelled


class Heart:
    """A running job's heartbeat, from a thread of its own (the work may hold one step for long);
    it hears when the job must stop, and the work stops at its next piece."""

    def __init__(self, store, job_id: int, runner: str) -> None:
        self.store, self.job_id, self.runner = store, job_id, runner
        self.done: Optional[int] = None
        self.total: Optional[int] = None
        self.lost = False
        self.cancelled = False
        self.stop = Stop()
        """Asked to stop with the job (a batch's rendering checks it after each part)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"job-{job_id}-beat", daemon=True)

    def __enter__(self) -> "Heart":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def progress(self, done: int, total: Optional[int] = None) -> None:
        """Pieces done so far (and in all): sent with the next heartbeat. JobStopped once the job
        must stop."""
        self.done = done
        if total is not None:
            self.total = total
        self.stop.check()

    def _beat(self) -> None:
        while not self._stop.wait(BEAT / 3):
            try:
                asked = self.store.beat(self.job_id, self.runner, self.done, self.total)
            except AttnsheetError as error:  # the database away a moment: the next beat tries again
                log.warning("job %s: heartbeat not sent: %s", self.job_id, error)
                continue
            if asked is None:
                self.lost = True  # another runner took it (this one was taken for gone), or it is gone
            self.cancelled = bool(asked)
            if asked is None or asked:
                self.stop.request(JobStopped(bool(asked)))


def run_job(
    store,
    job_id: int,
    kind: str,
    params: dict,
    runner: str,
    lock=None,
    workers=None,
    hand_on: Optional[Callable[[], None]] = None,
) -> None:
    """Run one claimed job to its end: done with its result, or failed with its one line."""
    if kind == "photo":
        lock = None  # a photo is read, never rendered: the class's photos are read side by side, batches or not
    try:
        with Heart(store, job_id, runner) as heart:
            if lock is not None:
                with lock:
                    result = _work(store, job_id, kind, params, heart, workers, hand_on)
            else:
                result = _work(store, job_id, kind, params, heart, workers, hand_on)
    except JobStopped as stopped:
        if stopped.cancelled:
            _left_behind(store, kind, params)
            store.cancelled(job_id, runner)
        return
    except AttnsheetError as error:
        store.finish(job_id, runner, error=str(error))
        return
    except Exception:  # the server's own trouble: logged whole, said in one line
        if _gone(store, job_id, runner):  # its class deleted under it (its files went first): nothing to say
            log.info("job %s (%s) ended: it is no longer this runner's", job_id, kind)
            return
        log.exception("job %s (%s) failed", job_id, kind)
        store.finish(job_id, runner, error=FAILED)
        return
    store.finish(job_id, runner, result)


def _gone(store, job_id: int, runner: str) -> bool:
    """Whether a job is no longer this runner's (deleted with its class, or taken over)."""
    try:
        return store.beat(job_id, runner) is None
    except AttnsheetError:
        return False


def _left_behind(store, kind: str, params: dict) -> None:
    """What a cancelled job had begun, removed: a batch's folder (never listed), a pile's run folder
    (its uploads too: nothing of it was read into the class)."""
    from generator.app.scans import RUN, scans_folder

    try:
        if kind == "batch":
            store.batch(params["batch"])
            return  # listed: it was made after all
    except NotFound:
        shutil.rmtree(store.root / "batches" / params["batch"], ignore_errors=True)
        return
    if kind == "scan" and RUN.fullmatch(str(params.get("run", ""))):
        try:
            shutil.rmtree(scans_folder(store.batch(params["batch"])) / params["run"], ignore_errors=True)
        except NotFound:
            pass


def cancel_job(store, job_id: int):
    """Ask a job to stop (its teacher's word, on its page or the command line); the job as it is
    then. A waiting pile's uploads are removed now; a running job stops at its next piece of work."""
    job = store.cancel(job_id)
    if job.state == "cancelled":
        params = store.job_params(job_id)
        _left_behind(store, job.kind, params)
    return job


def _work(store, job_id: int, kind: str, params: dict, heart: Heart, workers, hand_on) -> dict:
    if kind == "batch":
        return _make_batch(store, job_id, params, heart, workers)
    if kind == "regrade":
        return _regrade(store, params, heart)
    if kind == "photo":
        from generator.app.photos import read_queued

        return read_queued(store, params, store.inputs(job_id), workers)
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
    batch = replace(store.inputs(job_id), workers=workers, stop=heart.stop)
    heart.progress(0, 2 * len(batch.sheets))
    count = [0]

    def progress(n: int) -> None:
        count[0] += n
        heart.progress(count[0])

    made = create_batch(
        store,
        batch,
        params.get("feedback", "verdicts"),
        params.get("release", "now"),
        params.get("base_url", ""),
        int(params.get("attempts", 3)),
        owner=params.get("owner"),
        reserved=(name, folder),
        progress=progress,
    )
    if params.get("label"):  # the class's name, as its teacher gave it (or the roster's and the day)
        store.rename(made, str(params["label"]))
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
    line = read_upload(
        store,
        batch,
        paths,
        run,
        bool(params.get("replace")),
        hand_on,
        progress=lambda done: heart.progress(done),
        assigned=params.get("assigned", ()),
        max_pages=int(params.get("max_pages", MAX_PAGES)),
    )
    return {"run": run.name, "line": line}


class Runner:
    """Runs the store's jobs in this process (the server's, on SQLite), in two lanes, each a thread:
    one takes any job, the other never a LONG one (a pile of scans), so a batch asked for while a
    pile is read starts at once and takes turns with it for the renderer. Woken when a job is
    queued, and every few seconds for one whose runner is gone."""

    LANES = (("any", False), ("quick", True))
    """Each lane's name and whether it leaves the LONG kinds to the other."""

    def __init__(self, store, lock=None, workers=None, hand_on: Optional[Callable[[], None]] = None) -> None:
        self.store, self.lock, self.workers, self.hand_on = store, lock, workers, hand_on
        self.name = f"{owner_tag()}/runner"
        self._wakes = [threading.Event() for _ in self.LANES]
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._guard = threading.Lock()

    def queued(self, job_id: int) -> None:
        """A job was queued: run it (the threads are started on the first)."""
        self.start()
        for wake in self._wakes:
            wake.set()

    def start(self) -> None:
        with self._guard:
            if not self._threads:
                self._threads = [
                    threading.Thread(
                        target=self._loop, args=(lane, short, wake), name=f"attnsheet-jobs-{lane}", daemon=True
                    )
                    for (lane, short), wake in zip(self.LANES, self._wakes)
                ]
                for thread in self._threads:
                    thread.start()

    def stop(self, wait: float = 30) -> None:
        """Stop taking jobs; wait up to `wait` seconds for those running (each is taken up again
        after STALE seconds by the next runner if it is not done by then)."""
        self._stopping.set()
        for wake in self._wakes:
            wake.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=wait)

    def _loop(self, lane: str, short: bool, wake: threading.Event) -> None:
        name = self.name if lane == "any" else f"{self.name}-{lane}"
        while not self._stopping.is_set():
            try:
                claimed = self.store.claim(name, short=short)
            except Exception as error:  # the database away a moment (or closed as the server stops)
                if self._stopping.is_set():
                    return
                log.warning("jobs: cannot look for work: %s", error)
                claimed = None
            if claimed is None:
                wake.wait(STALE / 4)
                wake.clear()
                continue
            run_job(self.store, *claimed, runner=name, lock=self.lock, workers=self.workers, hand_on=self.hand_on)
