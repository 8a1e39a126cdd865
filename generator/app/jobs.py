"""Long work as durable jobs: making a batch and reading a pile of scans, kept in the database.

A job is a row: queued, running (with its progress: done of total), done (with its result) or
failed (with its one-line reason). What it works on is written before it is queued (a batch's
drawn sheets in DATA/jobs/job-N/, a pile's uploads in its run folder), so any process that
shares the data folder and the database can run it. Whoever runs a job holds it by a heartbeat;
a job whose runner stopped beating (a server or worker killed) is taken up again by the next
runner and done again from its start. Doing it again never does it twice: a batch's row is
written last, under the number reserved when it was queued, so it is listed once; a pile's
sheets are saved once (app/scans.save_run). On SQLite the server runs its jobs itself (a
thread); on PostgreSQL any number of `attnsheet worker` processes share them through
procrastinate (app/queue).
"""

from __future__ import annotations

import json
import pickle
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from generator.app.errors import NotFound
from generator.core.errors import AttnsheetError
from generator.output.files import ensure_folder, owner_tag, write_atomic

MIGRATION = (  # 4: jobs
    "CREATE TABLE jobs (id {serial}, kind TEXT NOT NULL, owner BIGINT, batch TEXT NOT NULL DEFAULT '', "
    "params TEXT NOT NULL, state TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, total INTEGER NOT NULL DEFAULT 0, "
    "result TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '', created {real} NOT NULL, started {real}, "
    "finished {real}, runner TEXT NOT NULL DEFAULT '', beat {real}, tries INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX jobs_waiting ON jobs (state, id)",
    "CREATE INDEX jobs_batch ON jobs (batch)",
)
"""The schema's fourth migration (app/store lists them all)."""
PARTS = (  # 5: the parts of a batch spread over the workers (app/queue)
    "CREATE TABLE parts (job_id BIGINT NOT NULL, part INTEGER NOT NULL, state TEXT NOT NULL, "
    "runner TEXT NOT NULL DEFAULT '', beat {real}, PRIMARY KEY (job_id, part))",
)
"""The fifth."""
NAMES = (  # 6: a batch's name as the teacher calls it, and whether it is put away
    "ALTER TABLE batches ADD COLUMN label TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE batches ADD COLUMN archived INTEGER NOT NULL DEFAULT 0",
)
"""The sixth (app/store's)."""
CANCEL = (  # 7: a running job asked to stop
    "ALTER TABLE jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0",
)
"""The seventh."""

KINDS = ("batch", "scan", "regrade", "photo")
"""Making a batch; reading a pile of scans into one; grading a class's saved sheets again (its rule
changed); reading a student's photo of their sheet (app/photos)."""
STATES = ("queued", "running", "done", "failed", "cancelled")
LONG = ("scan",)
"""Kinds of job that may run for long (a pile of up to MAX_PAGES pages): a runner keeps a lane
that never takes them, so a batch asked for meanwhile starts at once."""
BEAT = 3.0
"""Seconds between a runner's heartbeats."""
STALE = 20.0
"""Seconds without a heartbeat after which a running job's runner is taken for gone."""
MAX_TRIES = 20
"""Times a job is begun before it is failed. A server stopped or killed while a job runs is no
fault of the job's: it is begun again from its start (a school's server restarted three times
during one long batch failed it when this was 3). Only work that kills every runner it meets (a
library crashing on one file) is not begun forever; the job's own errors fail it at once."""
FAILED = "something went wrong on the server while doing this; nothing of it was kept"
CANCELLED = "cancelled; nothing of it was kept"
"""What a job stopped by its teacher says."""
"""What a job that failed for a reason of the server's own says (its details go to the log)."""


@dataclass(frozen=True)
class Job:
    """A job as its page shows it."""

    id: int
    kind: str
    state: str
    """queued, running, done, failed or cancelled."""
    done: int = 0
    """Pieces done (documents of a batch, pages of a pile)."""
    total: int = 0
    """Pieces in all (0 while not yet known)."""
    batch: str = ""
    """The batch it makes or reads into."""
    result: dict = field(default_factory=dict)
    """What it made: {"batch": name} or {"run": name, "line": summary}."""
    error: str = ""
    """Why it failed, in one line."""
    owner: Optional[int] = None
    """The teacher who asked for it (accounts on)."""
    run: str = ""
    """The run folder a pile of scans is read into."""

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed", "cancelled")


class JobError(AttnsheetError):
    """A job that cannot be done; its message is the one line its page shows."""


class Jobs:
    """The jobs part of the store (its `db` and `root` are the Store's)."""

    db: object
    root: Path
    queue: object = None
    """Told of each job queued (app/queue): a local runner to wake, or procrastinate to defer to."""

    def job_folder(self, job_id: int) -> Path:
        """Where a job's inputs are kept until it is done."""
        return self.root / "jobs" / f"job-{int(job_id)}"

    def submit(
        self, kind: str, params: dict, owner: Optional[int] = None, batch: str = "", inputs: Optional[bytes] = None
    ) -> int:
        """Queue a job (its `inputs` written first, where every runner finds them); its id."""
        if kind not in KINDS:
            raise ValueError(kind)
        with self.db.transaction() as cur:
            ((number,),) = cur.rows(
                "INSERT INTO jobs (kind, owner, batch, params, state, created) "
                "VALUES (?, ?, ?, ?, 'queued', ?) RETURNING id",
                (kind, owner, batch, json.dumps(params), time.time()),
            )
            if inputs is not None:  # inside the transaction: a job whose inputs failed to write is never queued
                folder = self.job_folder(number)
                ensure_folder(folder)
                write_atomic(folder / "inputs.pickle", inputs, force=True)
        if self.queue is not None:
            self.queue.queued(number)
        return number

    def job_params(self, job_id: int) -> dict:
        """What a job was asked to do (its params)."""
        rows = self.db.query("SELECT params FROM jobs WHERE id = ?", (int(job_id),))
        if not rows:
            raise NotFound("no such job")
        return json.loads(rows[0][0])

    def job(self, job_id: int) -> Job:
        """The job of `job_id`."""
        rows = self.db.query(
            "SELECT id, kind, state, done, total, batch, result, error, owner, params FROM jobs WHERE id = ?",
            (int(job_id),),
        )
        if not rows:
            raise NotFound("no such job")
        return _job(rows[0])

    def recent(self, kind: str, since: float) -> list[dict]:
        """The params of every job of `kind` queued since `since` (a time), oldest first."""
        rows = self.db.query("SELECT params FROM jobs WHERE kind = ? AND created > ? ORDER BY id", (kind, since))
        return [json.loads(params) for (params,) in rows]

    def jobs_of(self, batch: str, kind: str) -> list[Job]:
        """The jobs of `kind` that make or read into batch `batch`, oldest first."""
        return [
            _job(row)
            for row in self.db.query(
                "SELECT id, kind, state, done, total, batch, result, error, owner, params FROM jobs WHERE batch = ? AND "
                "kind = ? ORDER BY id",
                (str(batch)[:40], kind),
            )
        ]

    def batch_job(self, name: str) -> Optional[Job]:
        """The newest job that makes or reads into batch `name`, if any."""
        rows = self.db.query("SELECT id FROM jobs WHERE batch = ? ORDER BY id DESC LIMIT 1", (str(name)[:40],))
        return self.job(rows[0][0]) if rows else None

    def making(self, kind: str = "batch") -> set[str]:
        """The batches that jobs of `kind` not yet finished make (their folders are theirs)."""
        return {
            name
            for (name,) in self.db.query(
                "SELECT batch FROM jobs WHERE kind = ? AND state IN ('queued', 'running')", (kind,)
            )
        }

    def queued_runs(self) -> set[tuple[str, str]]:
        """The (batch, run) of every pile of scans a job not yet finished reads."""
        return {
            (name, json.loads(params).get("run", ""))
            for name, params in self.db.query(
                "SELECT batch, params FROM jobs WHERE kind = 'scan' AND state IN ('queued', 'running')"
            )
        }

    def unfinished(self, owner: Optional[int] = None) -> list[Job]:
        """Jobs queued or running (a teacher's own, with accounts on), oldest first."""
        rows = self.db.query("SELECT id FROM jobs WHERE state IN ('queued', 'running') ORDER BY id", ())
        jobs = [self.job(number) for (number,) in rows]
        return [j for j in jobs if owner is None or j.owner == owner]

    # --- running ---------------------------------------------------------------------------------

    def claim(self, runner: str, job_id: Optional[int] = None, short: bool = False) -> Optional[tuple[int, str, dict]]:
        """Take a job to run (`job_id`, or the oldest waiting; `short`: none of the LONG kinds): one
        queued, or one whose runner stopped beating; (id, kind, params), or None when there is none."""
        now = time.time()
        lock = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgresql" else ""
        which = "id = ? AND " if job_id is not None else ""
        if short:
            which += f"kind NOT IN ({', '.join('?' for _ in LONG)}) AND "
        with self.db.transaction() as cur:
            rows = cur.rows(
                f"SELECT id, kind, params, tries, cancel FROM jobs WHERE {which}(state = 'queued' OR "
                f"(state = 'running' AND beat < ?)) ORDER BY id LIMIT 1{lock}",
                ((job_id,) if job_id is not None else ()) + (LONG if short else ()) + (now - STALE,),
            )
            if not rows:
                return None
            number, kind, params, tries, cancel = rows[0]
            if cancel:  # asked to stop, then its runner went: it stops here
                cur.run(
                    "UPDATE jobs SET state = 'cancelled', error = ?, finished = ? WHERE id = ?",
                    (CANCELLED, now, number),
                )
                return None
            if tries >= MAX_TRIES:  # begun and lost this often: the work itself stops its runners
                cur.run(
                    "UPDATE jobs SET state = 'failed', error = ?, finished = ? WHERE id = ?",
                    (f"stopped {tries} times before it was done: {FAILED}", now, number),
                )
                return None
            cur.run(
                "UPDATE jobs SET state = 'running', runner = ?, beat = ?, started = COALESCE(started, ?), "
                "tries = tries + 1 WHERE id = ?",
                (runner, now, now, number),
            )
        return number, kind, json.loads(params)

    def release_dead(self) -> list[int]:
        """Jobs whose runner was a process of this machine that is gone (a server or worker killed):
        queued again now, not after STALE seconds. The jobs released."""
        from generator.output.files import tag_alive

        here = owner_tag().partition("@")[2]
        released = []
        for number, runner in self.db.query("SELECT id, runner FROM jobs WHERE state = 'running'"):
            tag = runner.partition("/")[0]
            if tag.partition("@")[2] == here and not tag_alive(tag, self.root):
                with self.db.transaction() as cur:
                    cur.run(
                        "UPDATE jobs SET state = 'queued', runner = '' WHERE id = ? AND runner = ? AND "
                        "state = 'running'",
                        (number, runner),
                    )
                released.append(number)
        return released

    def beat(self, job_id: int, runner: str, done: Optional[int] = None, total: Optional[int] = None) -> Optional[bool]:
        """A running job's heartbeat (and its progress): whether it was asked to stop; None once it
        is no longer this runner's (taken over, or its class deleted)."""
        sets, params = ["beat = ?"], [time.time()]
        if done is not None:
            sets.append("done = ?")
            params.append(int(done))
        if total is not None:
            sets.append("total = ?")
            params.append(int(total))
        with self.db.transaction() as cur:
            rows = cur.rows(
                f"UPDATE jobs SET {', '.join(sets)} WHERE id = ? AND runner = ? AND state = 'running' RETURNING cancel",
                (*params, int(job_id), runner),
            )
        return bool(rows[0][0]) if rows else None

    def cancel(self, job_id: int) -> Job:
        """Ask a job to stop: one waiting stops now, one running at its next piece of work (what it
        had saved stays whole: a batch is listed only when made, a pile's sheets saved only when
        read). The job as it is then; a job already finished is left as it was."""
        with self.db.transaction() as cur:
            cur.run(
                "UPDATE jobs SET state = 'cancelled', error = ?, finished = ? WHERE id = ? AND state = 'queued'",
                (CANCELLED, time.time(), int(job_id)),
            )
            cur.run("UPDATE jobs SET cancel = 1 WHERE id = ? AND state = 'running'", (int(job_id),))
        return self.job(job_id)

    def cancelled(self, job_id: int, runner: str) -> None:
        """A running job that stopped as asked."""
        with self.db.transaction() as cur:
            ended = cur.rows(
                "UPDATE jobs SET state = 'cancelled', error = ?, finished = ? WHERE id = ? AND runner = ? "
                "AND state = 'running' RETURNING id",
                (CANCELLED, time.time(), int(job_id), runner),
            )
        if ended:
            shutil.rmtree(self.job_folder(job_id), ignore_errors=True)

    def finish(self, job_id: int, runner: str, result: Optional[dict] = None, error: str = "") -> None:
        """A job done (its result) or failed (its reason); its inputs removed."""
        with self.db.transaction() as cur:
            ended = cur.rows(
                "UPDATE jobs SET state = ?, result = ?, error = ?, finished = ?, done = CASE WHEN ? = 1 "
                "THEN total ELSE done END WHERE id = ? AND runner = ? AND state = 'running' RETURNING id",
                (
                    "failed" if error else "done",
                    json.dumps(result or {}),
                    error[:500],
                    time.time(),
                    int(not error),
                    int(job_id),
                    runner,
                ),
            )
        if ended:  # a runner taken for gone leaves the inputs to the one that took the job over
            shutil.rmtree(self.job_folder(job_id), ignore_errors=True)

    def inputs(self, job_id: int):
        """What a job works on, as it was queued (written by this server alone, in its data folder)."""
        path = self.job_folder(job_id) / "inputs.pickle"
        try:
            return pickle.loads(path.read_bytes())  # noqa: S301 (the server's own file, never a user's upload)
        except (OSError, pickle.UnpicklingError, EOFError) as error:
            raise JobError(f"the job's inputs are gone ({type(error).__name__}): ask for it again") from None


def _job(row) -> Job:
    number, kind, state, done, total, batch, result, error, owner, params = row
    run = json.loads(params).get("run", "") if kind == "scan" else ""
    return Job(number, kind, state, done, total, batch, json.loads(result) if result else {}, error, owner, run)


def batch_inputs(batch) -> bytes:
    """A batch's drawn sheets and settings, as a job keeps them until it is rendered."""
    return pickle.dumps(replace(batch, workers=None, stop=None), protocol=pickle.HIGHEST_PROTOCOL)
