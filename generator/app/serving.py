"""A server's start: its store put right after a stop (what killed work left), its renderer and job processes warmed."""

from __future__ import annotations

import os
from typing import Optional

from generator.output.jobs import Workers

__all__ = ["Workers", "recover", "single_threaded", "warm", "warm_process"]


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
    """The warm process: WeasyPrint, the fonts and the stylesheet loaded once here, and the photo
    reader; and a job process per other CPU, as warm, so a batch is rendered and a photo read on
    every core without any start-up (the Workers, None on one CPU)."""
    cpus = os.cpu_count() or 1
    workers = Workers(cpus - 1, warm_process) if cpus > 1 else None
    warm_process()
    return workers


def warm_process() -> None:
    """What a server's process loads before its first job: the renderer and the photo reader, its
    libraries on one thread each (the server's processes share the cores)."""
    from generator.app.photos import warm_reader
    from generator.output.batch import warm_renderer

    single_threaded()
    warm_renderer()
    warm_reader()


def single_threaded() -> None:
    """This process's numerical libraries on one thread each: a server works on processes, one a core."""
    from generator.scan.cores import one_thread_each

    one_thread_each()
