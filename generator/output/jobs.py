"""Job processes: a pool this module starts and stops, rendering tasks beside this process.

The pool's processes are spawned (not forked), ignore Ctrl-C (the caller stops them), exit by
themselves when this process dies, and keep their temporary files in one per-process scratch
folder that is removed at exit, or by the next run if this one was killed.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

SCRATCH_PREFIX = "attnsheet-run-"
"""Scratch folders are named attnsheet-run-PID-…, so a later run can tell whose they are."""

PARENT_POLL_S = 0.5
"""How often a job process looks whether the process that started it is still there."""


class Stop:
    """A request to stop, made from outside the batch (a signal handler, a web request).

    A signal handler raises its exception as well; but WeasyPrint catches every exception
    while it draws an SVG and would drop it, so the batch also checks here after each task.
    """

    def __init__(self) -> None:
        self.error: Optional[BaseException] = None
        """What to raise, once a stop was asked for."""

    def request(self, error: BaseException) -> None:
        """Ask the batch to stop, raising `error` at its next check."""
        self.error = error

    def check(self) -> None:
        """Raise the requested stop, if any."""
        if self.error is not None:
            raise self.error


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: not ours to clean up after
    return True


def clean_stale_scratch(root: Optional[Path] = None) -> list[Path]:
    """Remove scratch folders whose process is gone (killed before it could clean up)."""
    root = Path(root or tempfile.gettempdir())
    removed = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        owner = entry.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if entry.name.startswith(SCRATCH_PREFIX) and owner.isdigit() and not _alive(int(owner)):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed


@functools.lru_cache(maxsize=None)
def scratch_folder() -> Path:
    """This process's scratch folder (made on first use, removed at exit): job processes and
    WeasyPrint keep their temporary files (its copies of the fonts) in it."""
    clean_stale_scratch()
    folder = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _watch_parent(parent: int) -> None:
    """End this job process as soon as the process that started it is gone (even SIGKILLed)."""
    while True:
        threading.Event().wait(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(1)


def _job_start(scratch: str, parent: int) -> None:
    """Start of a job process: the parent alone answers Ctrl-C and a closed terminal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    tempfile.tempdir = scratch
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _warm_start(scratch: str, parent: int, warm: Optional[Callable[[], object]]) -> None:
    """Start of a kept job process: as any job's, then `warm()` before its first task."""
    _job_start(scratch, parent)
    if warm is not None:
        warm()


class Workers:
    """Job processes kept ready for many batches (a server's): started at once and warmed
    (`warm`, a module-level function, loads the renderer), so a batch pays no start-up."""

    def __init__(self, size: int, warm: Optional[Callable[[], object]] = None) -> None:
        self.size = size
        """How many job processes."""
        self._warm = warm
        self._lock = threading.Lock()
        self._taken = 0
        """Processes lent by `spare` now."""
        self._pool = self._start()

    def _start(self):
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_warm_start,
            initargs=(str(scratch_folder()), os.getpid(), self._warm),
        )
        for _ in range(self.size):
            pool.submit(os.getpid)  # a task each: every process starts (and warms) now, not at the first batch
        return pool

    def pool(self):
        """The processes' executor (a fresh one if a process of the last died)."""
        from concurrent.futures.process import BrokenProcessPool

        with self._lock:
            try:
                self._pool.submit(os.getpid).result()
            except BrokenProcessPool:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._start()
            return self._pool

    @contextlib.contextmanager
    def spare(self) -> Iterator[Optional[object]]:
        """The executor while one of its processes is not taken by another `spare` user, else None:
        short work goes to a free process and is never queued behind another's."""
        with self._lock:
            free = self._taken < self.size
            self._taken += free
        try:
            yield self.pool() if free else None
        finally:
            if free:
                with self._lock:
                    self._taken -= 1

    def close(self) -> None:
        """Stop the processes (what they were doing is dropped)."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def run_tasks(
    tasks: Sequence[T],
    work: Callable[[T], R],
    jobs: int,
    done: Optional[Callable[[T], None]] = None,
    stop: Optional[Stop] = None,
    workers: Optional[Workers] = None,
) -> Iterator[tuple[T, R]]:
    """Each task with `work(task)`, in order; worked by this process and `jobs - 1` job processes,
    or by the kept `workers` when given (then `jobs` is not used).

    This process works too rather than wait: it is already running (a job process first spends
    most of a second importing), and it leaves no third process competing for the cores. `work`
    must be a module-level function (it is sent to the job processes by name). On any error or
    stop, the pool's own processes are terminated, and no other; kept workers are left running,
    only this call's queued tasks dropped.
    """
    from concurrent.futures import Future, ProcessPoolExecutor  # only when jobs run: start-up stays light

    stop = stop or Stop()
    if workers is not None:
        jobs = workers.size + 1

    def here(task: T) -> R:
        result = work(task)
        stop.check()
        return result

    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            result = here(task)
            if done:
                done(task)
            yield task, result
        return
    helpers = min(jobs - 1, len(tasks) - 1)
    ahead = 2 * helpers  # tasks queued for the job processes: none idles, few wait in memory
    others = {p.pid for p in multiprocessing.active_children()}
    if workers is not None:
        pool = workers.pool()
    else:
        pool = ProcessPoolExecutor(
            max_workers=helpers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_job_start,
            initargs=(str(scratch_folder()), os.getpid()),
        )
    queued: dict[int, Future] = {}
    worked: dict[int, R] = {}
    claimed = 0  # tasks handed out so far, to the job processes or to this one, in order

    def feed() -> None:
        nonlocal claimed
        # Submitted one by one (not pool.map, which cancels what is pending when stopped, and
        # then trips over the cancelled futures while we stop the processes).
        while claimed < len(tasks) and len(queued) < ahead:
            queued[claimed] = pool.submit(work, tasks[claimed])
            claimed += 1

    try:
        for i, task in enumerate(tasks):
            feed()
            while i not in worked and not (i in queued and queued[i].done()) and claimed < len(tasks):
                worked[claimed] = here(tasks[claimed])  # the next task, here, meanwhile
                claimed += 1
                feed()
            result = worked.pop(i) if i in worked else queued.pop(i).result()
            if done:
                done(task)
            yield task, result
    except BaseException:
        if workers is not None:
            for future in queued.values():  # kept for the next batch: drop only this call's tasks
                future.cancel()
            raise
        # Stop the pool's processes first (those started since it was made); the pool then
        # fails what is left, and shuts down quietly.
        ours = [child for child in multiprocessing.active_children() if child.pid not in others]
        for child in ours:
            child.terminate()
        for child in ours:
            child.join(5)
            if child.is_alive():  # never seen: SIGTERM ends a job process; but never wait forever
                child.kill()
                child.join()
        _unblocked(pool)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        if workers is None:
            pool.shutdown()


def _unblocked(pool) -> None:
    """A pool whose processes are all gone, freed from waiting for the rest of a result: a
    process stopped halfway through sending a result (a PDF, larger than a pipe holds) leaves
    the pool's thread reading that message forever, and shutdown waits on that thread (CPython
    3.11's ProcessPoolExecutor). This process holds the last writing end of the results' pipe:
    closed, the read ends, and the pool takes itself as broken, as it is."""
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
