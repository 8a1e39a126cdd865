"""Runs `attnsheet ARGS` and stops it at a chosen point: deterministic stop tests, not races.

    python tests/stopper.py ACTION AFTER [ARGS...]

After the batch's AFTER-th rendering task is done (worked here or by a job process), ACTION
happens inside the batch's own process: `signal:N` sends it signal N, `kill-worker` SIGKILLs one
of its job processes, `kill-self:FILE` writes the job processes' pids to FILE and SIGKILLs the
batch itself. The batch code is the real one; only its task loop is watched.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time


def main() -> None:
    action, after, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    import generator.output.batch as batch

    real = batch.run_tasks

    def watched(tasks, work, jobs, done=None, stop=None, workers=None):
        count = 0

        def tick(task):
            nonlocal count
            if done:
                done(task)
            count += 1
            if count == after:
                act(action)

        return real(tasks, work, jobs, tick, stop, workers)

    batch.run_tasks = watched
    sys.argv = ["attnsheet", *args]
    from generator.__main__ import main as attnsheet

    attnsheet()


def act(action: str) -> None:
    """Do `action` now, from inside the batch."""
    kind, _, value = action.partition(":")
    if kind == "signal":
        os.kill(os.getpid(), int(value))
        time.sleep(1)  # the handler runs at the next bytecode; never go on past it
    elif kind == "kill-worker":
        os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)
        time.sleep(0.5)  # dead before the next task is handed out
    elif kind == "kill-self":
        with open(value, "w") as pids:
            pids.write(" ".join(str(p.pid) for p in multiprocessing.active_children()))
        os.kill(os.getpid(), signal.SIGKILL)
    else:
        raise SystemExit(f"unknown action {action!r}")


if __name__ == "__main__":
    main()
