"""A server's start: its store put right after a stop (what killed work left), its renderer and job processes warmed."""

from __future__ import annotations

import os
from typing import Optional

from generator.output.jobs import Workers

__all__ = ["Workers", "recover", "warm"]


def recover(store) -> list[str]:
    """What a stopped server left, put right, in words to say: scans read but not saved, batches begun."""
    from generator.app.scans import finish_runs

    said = [f"finished the scans {where} that a stopped server had read" for where in finish_runs(store)]
    said += [
        f"job {number}, begun by a process that stopped, is done again from its start"
        for number in store.release_dead()
    ]
    return said + [f"removed {name}, a batch a stopped server had begun and not finished" for name in store.cleaned]


def warm() -> Optional[object]:
    """The warm process: WeasyPrint, the fonts and the stylesheet loaded once here; and a job
    process per other CPU, as warm, so a batch is rendered on every core without any start-up
    (the Workers, None on one CPU)."""
    from generator.output.batch import warm_renderer
    from generator.output.pdf import renderer

    cpus = os.cpu_count() or 1
    workers = Workers(cpus - 1, warm_renderer) if cpus > 1 else None
    renderer()
    return workers
