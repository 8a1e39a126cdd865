"""Jobs across processes and machines on the PostgreSQL store: procrastinate carries them to the workers.

Each job queued (app/jobs) is deferred as a procrastinate job that names it; any `attnsheet
worker` process on any machine sharing the database and the data folder takes it, claims the
job's row and runs it. The row stays the truth (its state, progress, result): a procrastinate
job that finds its row done, or running under a live heartbeat, does nothing. A batch is spread
over the workers a part at a time (8 sheets of one file each): its parts are deferred too, so
idle workers render them while the worker that took the batch renders the others and joins them
in order; a part nobody took, or whose worker is gone, it renders itself. A sweeper in every
worker defers again what a stopped process left (a job whose runner stopped beating, or one
queued while the queue was away), and retries procrastinate's stalled jobs.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import threading
import time
from pathlib import Path
from typing import Optional

from generator.app.database import MIGRATION_LOCK
from generator.app.jobs import LONG, STALE
from generator.core.errors import AttnsheetError
from generator.output.files import ensure_folder, owner_tag, write_atomic

QUEUE = "attnsheet"
JOB_TASK = "attnsheet.job"
PART_TASK = "attnsheet.part"
SCHEMA_LOCK = MIGRATION_LOCK + 2
"""The advisory lock held while procrastinate's tables are made (two workers starting at once)."""
PARTS_AHEAD = 4
"""Parts a batch defers beyond the one its own worker renders: enough for four idle workers."""
PART_STALE = 15.0
"""Seconds a part may be rendered before its worker is taken for gone (a part takes about one)."""
SWEEP = 5.0
"""Seconds between a worker's sweeps for work a stopped process left."""

log = logging.getLogger("attnsheet.jobs")


def procrastinate_app(url: str, sync: bool = True):
    """A procrastinate App on the database `url`: a sync one to defer from any thread, an async one for a worker."""
    import procrastinate

    if sync:
        return procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=url, min_size=1, max_size=4))
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url, min_size=1, max_size=4))


def ensure_schema(store) -> None:
    """procrastinate's tables in the store's database, made once (the first process to get here makes them)."""
    from procrastinate.schema import SchemaManager

    conn = store.db.connection()
    conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
    try:
        present = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()[0]
        if not present:
            with conn.transaction():
                conn.execute(SchemaManager.get_schema())
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


class Procrastinated:
    """The store's queue on PostgreSQL: each job (and each part of a batch) deferred to procrastinate;
    `local`, the server's own runner, when the server runs jobs too."""

    def __init__(self, store, url: str, local=None) -> None:
        self.store, self.url, self.local = store, url, local
        self._app = None
        self._guard = threading.Lock()

    def _opened(self):
        with self._guard:
            if self._app is None:
                ensure_schema(self.store)
                self._app = procrastinate_app(self.url).open()
            return self._app

    def defer(self, task: str, **values) -> None:
        """Defer one procrastinate job (one already waiting for the same work is enough)."""
        from procrastinate.exceptions import AlreadyEnqueued

        lock = f"{task}-" + "-".join(str(v) for v in values.values())
        try:
            self._opened().configure_task(task, queue=QUEUE, queueing_lock=lock).defer(**values)
        except AlreadyEnqueued:
            pass

    def queued(self, job_id: int) -> None:
        """A job was queued: a worker takes it (and this server's runner, if it runs jobs)."""
        try:
            self.defer(JOB_TASK, job_id=job_id)
        except Exception as error:  # the queue away a moment: a worker's sweep defers it again
            log.warning("job %s: not handed to the workers yet: %s", job_id, error)
        if self.local is not None:
            self.local.queued(job_id)

    def start(self) -> None:
        if self.local is not None:
            self.local.start()

    def stop(self, wait: float = 30) -> None:
        if self.local is not None:
            self.local.stop(wait)
        with self._guard:
            if self._app is not None:
                self._app.close()
                self._app = None


# --- a batch's parts, spread over the workers ------------------------------------------------------


class SharedPool:
    """What `output.jobs.run_tasks` takes for kept workers: here, the other `attnsheet worker`
    processes, each rendering a part it was deferred (its task kept in the job's folder)."""

    size = PARTS_AHEAD

    def __init__(self, store, queue: Procrastinated, job_id: int, runner: str) -> None:
        self.store, self.queue, self.job_id, self.runner = store, queue, job_id, runner
        self.folder = store.job_folder(job_id) / "parts"
        self.count = 0
        with store.db.transaction() as cur:  # a batch begun again begins its parts again
            cur.run("DELETE FROM parts WHERE job_id = ?", (job_id,))
        for old in self.folder.glob("*") if self.folder.is_dir() else ():
            old.unlink(missing_ok=True)
        ensure_folder(self.folder)

    def pool(self) -> "SharedPool":
        return self

    def submit(self, work, task) -> "PartFuture":
        """Defer one part: its task written where every worker finds it, then its row, then the job."""
        from generator.output.batch import render_task

        if work is not render_task:
            raise ValueError("the workers render parts of a batch only")
        part = self.count
        self.count += 1
        write_atomic(self.folder / f"{part}.task", pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL), force=True)
        with self.store.db.transaction() as cur:
            cur.run("INSERT INTO parts (job_id, part, state) VALUES (?, ?, 'queued')", (self.job_id, part))
        try:
            self.queue.defer(PART_TASK, job_id=self.job_id, part=part)
        except Exception as error:  # the part is rendered here, then
            log.warning("job %s part %s: not handed to the workers: %s", self.job_id, part, error)
        return PartFuture(self, part)


class PartFuture:
    """A part deferred to the workers, as a Future: done once a worker wrote it; its result renders
    it here when no worker took it (or the one that did is gone)."""

    def __init__(self, pool: SharedPool, part: int) -> None:
        self.pool, self.part = pool, part

    def _state(self) -> tuple[str, Optional[float]]:
        rows = self.pool.store.db.query(
            "SELECT state, beat FROM parts WHERE job_id = ? AND part = ?", (self.pool.job_id, self.part)
        )
        return rows[0] if rows else ("gone", None)

    def done(self) -> bool:
        return self._state()[0] == "done"

    def cancel(self) -> bool:
        with self.pool.store.db.transaction() as cur:
            cur.run(
                "DELETE FROM parts WHERE job_id = ? AND part = ? AND state = 'queued'", (self.pool.job_id, self.part)
            )
        return True

    def result(self):
        while True:
            state, _ = self._state()
            if state == "done":
                return _result(self.pool.folder, self.part)
            if claim_part(self.pool.store, self.pool.job_id, self.part, self.pool.runner):
                return render_part(self.pool.store, self.pool.job_id, self.part, self.pool.runner)
            time.sleep(0.02)


def claim_part(store, job_id: int, part: int, runner: str) -> bool:
    """Take a part to render: one waiting, or one whose worker stopped."""
    now = time.time()
    with store.db.transaction() as cur:
        return bool(
            cur.rows(
                "UPDATE parts SET state = 'running', runner = ?, beat = ? WHERE job_id = ? AND part = ? "
                "AND (state = 'queued' OR (state = 'running' AND beat < ?)) RETURNING part",
                (runner, now, job_id, part, now - PART_STALE),
            )
        )


def render_part(store, job_id: int, part: int, runner: str):
    """Render a claimed part, keep its result beside its task, mark it done; the result."""
    from generator.output.batch import render_task

    folder = store.job_folder(job_id) / "parts"
    task = pickle.loads((folder / f"{part}.task").read_bytes())  # noqa: S301 (written by the batch's worker)
    result = render_task(task)
    write_atomic(folder / f"{part}.result", pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL), force=True)
    with store.db.transaction() as cur:
        cur.run("UPDATE parts SET state = 'done' WHERE job_id = ? AND part = ? AND runner = ?", (job_id, part, runner))
    return result


def _result(folder: Path, part: int):
    return pickle.loads((folder / f"{part}.result").read_bytes())  # noqa: S301 (written by a worker of ours)


# --- the worker ------------------------------------------------------------------------------------


def worker_tasks(app, store, queue: Procrastinated, name: str) -> None:
    """The two tasks a worker runs: a job, and a part of a batch another worker took. A worker runs
    one at a time; while it reads a pile of scans it takes up, between slices of pages, the short
    jobs waiting (a batch, a class graded again), so a batch asked for while every worker reads a
    pile starts at the next slice."""
    from generator.app.runner import run_job

    def run(number: int, kind: str, params: dict) -> None:
        pool = SharedPool(store, queue, number, name) if kind == "batch" else None
        run_job(
            store,
            number,
            kind,
            params,
            runner=name,
            workers=pool,
            hand_on=(lambda: between_slices(store, name, run)) if kind in LONG else None,
        )

    @app.task(name=JOB_TASK, queue=QUEUE)
    def job(job_id: int) -> None:
        claimed = store.claim(name, job_id)
        if claimed is None:
            return  # done, or running under a live heartbeat elsewhere
        run(*claimed)

    @app.task(name=PART_TASK, queue=QUEUE)
    def part(job_id: int, part: int) -> None:
        try:
            if claim_part(store, job_id, part, name):
                render_part(store, job_id, part, name)
        except (OSError, pickle.UnpicklingError, EOFError):
            return  # the batch ended (or began again) meanwhile: its parts are gone


def between_slices(store, name: str, run) -> None:
    """While a long job waits between its slices: the short jobs queued meanwhile, each run to its end."""
    while (claimed := store.claim(name, short=True)) is not None:
        run(*claimed)


def sweep(store, queue: Procrastinated) -> int:
    """Defer again the jobs a stopped process left: queued and not handed on, or running without a
    heartbeat (its runner gone). How many."""
    store.release_dead()
    rows = store.db.query(
        "SELECT id FROM jobs WHERE state = 'queued' OR (state = 'running' AND beat < ?)", (time.time() - STALE,)
    )
    for (number,) in rows:
        queue.defer(JOB_TASK, job_id=number)
    return len(rows)


async def _sweeping(app, store, queue: Procrastinated) -> None:
    while True:
        try:
            await asyncio.to_thread(sweep, store, queue)
            for stalled in await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=STALE):
                await app.job_manager.retry_job(stalled)
        except Exception as error:  # the database away a moment: the next sweep tries again
            log.warning("worker: sweep not done: %s", error)
        await asyncio.sleep(SWEEP)


def run_worker(store, url: str, on_start=None) -> None:
    """Run jobs of the store's database until stopped (Ctrl-C, SIGTERM): one at a time, the parts of
    other workers' batches between them."""
    if store.db.dialect != "postgresql":
        raise AttnsheetError(
            "workers share the jobs of a PostgreSQL database (--database postgresql://…); "
            "on the SQLite default the server runs its jobs itself"
        )
    from generator.app.serving import warm_process

    warm_process()  # WeasyPrint, the fonts and the photo reader, once, before the first job
    name = f"{owner_tag()}/worker"
    queue = Procrastinated(store, url)
    queue._opened()  # procrastinate's tables made, before the worker looks for its jobs
    app = procrastinate_app(url, sync=False)
    worker_tasks(app, store, queue, name)

    async def main() -> None:
        async with app.open_async():
            sweeper = asyncio.create_task(_sweeping(app, store, queue))
            if on_start is not None:
                on_start()
            try:
                await app.run_worker_async(
                    queues=[QUEUE],
                    concurrency=1,
                    name=name,
                    wait=True,
                    install_signal_handlers=True,
                    shutdown_graceful_timeout=30,
                    update_heartbeat_interval=STALE / 4,
                    stalled_worker_timeout=STALE,
                )
            finally:
                sweeper.cancel()

    try:
        asyncio.run(main())
    finally:
        queue.stop()
