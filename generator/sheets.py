"""Class batches: draw, solve, render and write every worksheet, key and the manifest."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import time
import unicodedata
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence

from generator import __version__
from generator.engine import solve
from generator.errors import AttnsheetError
from generator.files import check_free, check_writable, remove_files, target_kind, write_atomic
from generator.metrics import metrics
from generator.problem import Problem, Solution, dumps, problem_to_json, solution_to_json
from generator.render import (
    Settings, Student, document_html, sheet_view, stylesheet_text, templates_dir,
)

if TYPE_CHECKING:
    from generator.draw import DrawOptions

MANIFEST_FORMAT = "attnsheet/manifest@1"


@dataclass(frozen=True)
class Sheet:
    """One student's exercise: the problem, its solution and who it is for."""

    index: int
    """1-based position in the batch."""
    student: Student
    """The student, or blank fields."""
    problem: Problem
    """The drawn problem, with its code."""
    solution: Solution
    """Its exact solution."""


@dataclass(frozen=True)
class Batch:
    """What `generate` writes: the sheets and how."""

    sheets: tuple[Sheet, ...]
    """Every sheet, in order."""
    settings: Settings
    """Paper, language, title, worked examples."""
    out: Path
    """Destination folder."""
    split: bool = False
    """One file per student and per key, instead of two combined files."""
    fmt: str = "pdf"
    """pdf or html."""
    force: bool = False
    """Overwrite existing files."""
    options: dict = field(default_factory=dict)
    """Every option, recorded in the manifest."""
    seed: Optional[int] = None
    """The batch's seed, recorded in the manifest."""
    jobs: Optional[int] = 1
    """Processes rendering PDF files at once; None for one per CPU. Never more than the CPUs:
    beyond them a job process only adds its start-up (and each runs `ldconfig` as it starts)."""
    names: tuple[str, str, str] = ("worksheets", "answer-keys", "manifest")
    """File stems of the combined worksheets, the combined keys and the manifest."""


@dataclass(frozen=True)
class Written:
    """What a batch left on disk."""

    files: tuple[Path, ...]
    """Every file written, manifest included."""
    pages: int
    """PDF pages written (0 for HTML)."""
    seconds: float
    """Wall time of the whole batch."""
    removed: tuple[Path, ...] = ()
    """Files of an earlier batch in the same folder that this one replaced (with --force)."""


def make_sheets(options: DrawOptions, seed: int, students: Sequence[Student], start: int = 0) -> tuple[Sheet, ...]:
    """Draw and solve one problem per student (blank students for a plain --count)."""
    # Imported here: job processes, which only render, need neither the drawing nor numpy.
    from generator.draw import draw

    problems = draw(options, seed, count=len(students), start=start)
    return tuple(
        Sheet(i, student, p, solve(p)) for i, (student, p) in enumerate(zip(students, problems), start=1)
    )


def slug(text: str, limit: int = 40) -> str:
    """A file-name-safe version of a name: ASCII letters, digits and hyphens only."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    cleaned = re.sub(r"[^A-Za-z0-9]+", "-", ascii_text).strip("-").lower()
    return cleaned[:limit].strip("-")


def _stem(sheet: Sheet, width: int) -> str:
    name = slug(sheet.student.name) or slug(sheet.problem.code or "") or "sheet"
    return f"{sheet.index:0{width}d}-{name}"


def planned_files(batch: Batch) -> dict[str, list[Path]]:
    """The worksheet and key files a batch will write, one per sheet when split."""
    ext = batch.fmt
    if not batch.split:
        return {"worksheets": [batch.out / f"{batch.names[0]}.{ext}"], "keys": [batch.out / f"{batch.names[1]}.{ext}"]}
    width = max(2, len(str(len(batch.sheets))))
    stems = [_stem(s, width) for s in batch.sheets]
    return {
        "worksheets": [batch.out / "worksheets" / f"{stem}.{ext}" for stem in stems],
        "keys": [batch.out / "keys" / f"{stem}.{ext}" for stem in stems],
    }


def generate(batch: Batch, progress: Optional[Callable[[int], None]] = None) -> Written:
    """Render every sheet and key, write them and the manifest; nothing is overwritten unforced.

    `progress` is told of each batch of documents done (a worksheet or a key is one: a batch
    has twice as many documents as sheets).
    """
    start = time.perf_counter()
    _stops.clear()
    plan = planned_files(batch)
    manifest_path = batch.out / f"{batch.names[2]}.json"
    targets = plan["worksheets"] + plan["keys"] + [manifest_path]
    check_free(targets, batch.force)
    # Every folder is made and tried now: an unwritable one fails before any rendering.
    for folder in dict.fromkeys(path.parent for path in targets):
        check_writable(folder)
    stale = _stale_files(batch.out, manifest_path, targets) if batch.force else []
    try:
        if batch.fmt == "html":
            written, pages, places = _write_html(batch, plan, progress)
        else:
            written, pages, places = _write_pdf(batch, plan, progress)
        manifest = _manifest(batch, places)
        write_atomic(manifest_path, (dumps(manifest) + "\n").encode("utf-8"), force=batch.force)
    except KeyboardInterrupt:
        # Stopped outside the rendering loop (which says more): every file on disk is whole.
        raise Interrupted("interrupted: the files already written are complete; the manifest was not written") from None
    remove_files(stale)
    return Written(files=tuple(written) + (manifest_path,), pages=pages, seconds=time.perf_counter() - start,
                   removed=tuple(stale))


def _stale_files(out: Path, manifest_path: Path, targets: list[Path]) -> list[Path]:
    """Worksheets and keys an earlier batch of this tool left in `out` (its manifest lists
    them) that this batch will not write: with --split --force they would stay beside the new."""
    if target_kind(manifest_path) != "file":
        return []
    try:
        earlier = json.loads(manifest_path.read_text(encoding="utf-8"))
        places = [sheet[kind]["file"] for sheet in earlier["sheets"] for kind in ("worksheet", "key")]
    except (OSError, ValueError, KeyError, TypeError):
        return []  # not a manifest of ours: nothing is known to be ours to remove
    if earlier.get("format") != MANIFEST_FORMAT:
        return []
    keep = {path.resolve() for path in targets}
    stale = []
    for name in dict.fromkeys(places):
        relative = Path(name) if isinstance(name, str) else None
        # Only plain relative names inside the folder, as a manifest of ours writes them.
        if relative is None or relative.is_absolute() or ".." in relative.parts:
            continue
        path = out / relative
        if path.resolve() not in keep and target_kind(path) == "file":
            stale.append(path)
    return stale


def _views(sheet: Sheet, settings: Settings) -> tuple[dict, dict]:
    args = (sheet.problem, sheet.solution, sheet.student, settings)
    return sheet_view(*args, key=False), sheet_view(*args, key=True)


@dataclass(frozen=True)
class Task:
    """One PDF file to render: the unit of work a job process takes."""

    path: Path
    """Where it goes."""
    sheets: tuple[Sheet, ...]
    """Its sheets, in order."""
    key: bool
    """Answer keys rather than worksheets."""
    settings: Settings
    """Paper, language, title, worked examples."""


_stops: list[BaseException] = []


def request_stop(error: BaseException) -> None:
    """Remember that the user or the system asked the batch to stop (from a signal handler).

    The handler raises `error` as well, but WeasyPrint catches every exception while it draws
    an SVG, and would drop it: the batch also checks here after each task it renders itself.
    """
    _stops.append(error)


def _render_here(task: Task) -> tuple[bytes, list[int]]:
    """`render_task` in this process, then the stop asked for meanwhile, if any."""
    result = render_task(task)
    if _stops:
        raise _stops[-1]
    return result


def render_task(task: Task) -> tuple[bytes, list[int]]:
    """A task's PDF and the page count of each of its sheets (runs in a job process)."""
    from generator.pdf import renderer  # WeasyPrint loads only when a PDF is asked for

    r = renderer()
    rendered = [r.sheet(sheet_view(s.problem, s.solution, s.student, task.settings, task.key), task.settings)
                for s in task.sheets]
    return r.pdf(rendered), [len(d.document.pages) for d in rendered]


class BatchError(AttnsheetError):
    """A batch that stopped part-way: says what is on disk and what is not."""


class Interrupted(BatchError):
    """The user (SIGINT) or the system (SIGTERM) stopped the batch."""


def _job_process(scratch: str) -> None:
    """Start of a job process: the parent alone answers Ctrl-C, and stops its jobs itself.

    Temporary files (WeasyPrint's copies of the fonts) go in `scratch`, which the parent
    removes: a job process stopped in the middle of a page cannot clean up after itself.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tempfile.tempdir = scratch


def _run_tasks(tasks: list[Task], jobs: int, progress) -> Iterator[tuple[Task, bytes, list[int]]]:
    """Each task's result, in order; rendered by this process and `jobs - 1` job processes.

    This process renders too rather than wait: it is already running (a job process first
    spends most of a second importing WeasyPrint), and it leaves no third process competing
    for the cores. A file is always rendered whole by one process, so its bytes do not
    depend on `jobs`; each process keeps its renderer (fonts, parsed stylesheet).
    """
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            data, pages = _render_here(task)
            if progress:
                progress(len(task.sheets))
            yield task, data, pages
        return
    helpers = min(jobs - 1, len(tasks) - 1)
    ahead = 2 * helpers  # tasks queued for the job processes: none idles, few wait in memory
    # Spawned (not forked) processes are our own children, so they can be stopped for sure.
    context = multiprocessing.get_context("spawn")
    scratch = tempfile.mkdtemp(prefix="attnsheet-jobs-")
    pool = ProcessPoolExecutor(max_workers=helpers, mp_context=context, initializer=_job_process,
                               initargs=(scratch,))
    queued: dict[int, Future] = {}
    rendered: dict[int, tuple[bytes, list[int]]] = {}
    claimed = 0  # tasks handed out so far, to the job processes or to this one, in order

    def feed() -> None:
        nonlocal claimed
        # Submitted one by one (not pool.map, which cancels what is pending when stopped, and
        # then trips over the cancelled futures while we stop the processes).
        while claimed < len(tasks) and len(queued) < ahead:
            queued[claimed] = pool.submit(render_task, tasks[claimed])
            claimed += 1

    try:
        for i, task in enumerate(tasks):
            feed()
            while i not in rendered and not (i in queued and queued[i].done()) and claimed < len(tasks):
                rendered[claimed] = _render_here(tasks[claimed])  # the next task, here, meanwhile
                claimed += 1
                feed()
            data, pages = rendered.pop(i) if i in rendered else queued.pop(i).result()
            if progress:
                progress(len(task.sheets))
            yield task, data, pages
    except BaseException:
        # Stop the job processes first; the pool then fails what is left, and shuts down quietly.
        for child in multiprocessing.active_children():
            child.terminate()
        pool.shutdown(wait=True)
        raise
    else:
        pool.shutdown()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


PART_SHEETS = 8
"""Sheets per part of a combined file: parts spread a class over every job, and bound what a
job holds in memory (a rendered page's layout is about 1.5 MB until it is written)."""


def _write_pdf(batch: Batch, plan: dict, progress) -> tuple[list[Path], int, list[dict]]:
    settings = batch.settings
    if batch.split:
        tasks = [Task(path, (sheet,), key, settings)
                 for sheet, ws, kp in zip(batch.sheets, plan["worksheets"], plan["keys"])
                 for path, key in ((ws, False), (kp, True))]
    else:
        # The parts are the same whatever the number of jobs: so are the merged bytes.
        parts = [batch.sheets[i:i + PART_SHEETS] for i in range(0, len(batch.sheets), PART_SHEETS)]
        tasks = [Task(path, part, key, settings)
                 for path, key in ((plan["worksheets"][0], False), (plan["keys"][0], True)) for part in parts]
    files = list(dict.fromkeys(task.path for task in tasks))
    left = {path: sum(task.path == path for task in tasks) for path in files}
    done: dict[Path, list[bytes]] = {path: [] for path in files}
    written: list[Path] = []
    counts: dict[tuple[Path, int], tuple[int, int]] = {}  # (file, sheet index) -> (first page, pages)
    filled = {path: 0 for path in files}  # pages already rendered for each file
    try:
        cpus = os.cpu_count() or 1
        jobs = min(batch.jobs or cpus, cpus)
        for task, data, pages in _run_tasks(tasks, jobs, progress):
            for sheet, n in zip(task.sheets, pages):
                counts[(task.path, sheet.index)] = (filled[task.path] + 1, n)
                filled[task.path] += n
            done[task.path].append(data)
            left[task.path] -= 1
            if not left[task.path]:
                write_atomic(task.path, _joined(done.pop(task.path)), force=batch.force)
                written.append(task.path)
    except KeyboardInterrupt:
        raise Interrupted(_stopped("interrupted", batch, written, len(files))) from None
    except BrokenProcessPool:
        raise BatchError(_stopped("a rendering process stopped unexpectedly", batch, written, len(files))) from None
    total = sum(filled.values())
    places = []
    for i, sheet in enumerate(batch.sheets):
        ws_path = plan["worksheets"][i if batch.split else 0]
        key_path = plan["keys"][i if batch.split else 0]
        places.append({"worksheet": _place(batch, ws_path, *counts[(ws_path, sheet.index)]),
                       "key": _place(batch, key_path, *counts[(key_path, sheet.index)])})
    return written, total, places


def _joined(parts: list[bytes]) -> bytes:
    """A file from its rendered parts (most files are one part: no merge to load)."""
    if len(parts) == 1:
        return parts[0]
    from generator.merge import merge

    return merge(parts)


def _stopped(why: str, batch: Batch, written: list[Path], planned: int) -> str:
    """One line on what a stopped batch left: only complete files, and no manifest."""
    if not written:
        return f"{why}: no file was written"
    names = ", ".join(p.relative_to(batch.out).as_posix() for p in written[:3])
    more = f" and {len(written) - 3} more" if len(written) > 3 else ""
    return (f"{why}: {len(written)} of {planned} files written, each complete ({names}{more}); "
            "the others and the manifest were not written")


def _write_html(batch: Batch, plan: dict, progress) -> tuple[list[Path], int, list[dict]]:
    views = []
    for sheet in batch.sheets:
        views.append(_views(sheet, batch.settings))
        if progress:
            progress(2)
    written: list[Path] = []
    places = []
    if batch.split:
        css = stylesheet_text("../")
        for (ws, key), ws_path, key_path in zip(views, plan["worksheets"], plan["keys"]):
            write_atomic(ws_path, document_html([ws], batch.settings, css).encode("utf-8"), force=batch.force)
            write_atomic(key_path, document_html([key], batch.settings, css).encode("utf-8"), force=batch.force)
            written += [ws_path, key_path]
            places.append({"worksheet": _place(batch, ws_path), "key": _place(batch, key_path)})
    else:
        css = stylesheet_text("")
        ws_path, key_path = plan["worksheets"][0], plan["keys"][0]
        ws_html = document_html([w for w, _ in views], batch.settings, css)
        key_html = document_html([k for _, k in views], batch.settings, css)
        write_atomic(ws_path, ws_html.encode("utf-8"), force=batch.force)
        write_atomic(key_path, key_html.encode("utf-8"), force=batch.force)
        written += [ws_path, key_path]
        places = [{"worksheet": _place(batch, ws_path), "key": _place(batch, key_path)} for _ in views]
    written += _copy_fonts(batch)
    return written, 0, places


def _copy_fonts(batch: Batch) -> list[Path]:
    """HTML output refers to the bundled fonts next to it."""
    copied = []
    for font in sorted((templates_dir() / "fonts").iterdir()):
        if font.suffix in (".otf", ".ttf") or font.name == "OFL.txt":
            target = batch.out / "fonts" / font.name
            write_atomic(target, font.read_bytes(), force=True)  # identical bytes: safe to refresh
            copied.append(target)
    return copied


def _place(batch: Batch, path: Path, first_page: Optional[int] = None, pages: Optional[int] = None) -> dict:
    place: dict = {"file": path.relative_to(batch.out).as_posix()}
    if first_page is not None:
        place["first_page"] = first_page
        place["pages"] = pages
    return place


def _manifest(batch: Batch, places: list[dict]) -> dict:
    """Everything needed to grade without opening a PDF, and to rebuild any sheet."""
    return {
        "format": MANIFEST_FORMAT,
        "tool": {"name": "attnsheet", "version": __version__},
        "options": batch.options,
        "seed": batch.seed,
        "settings": {k: v for k, v in asdict(batch.settings).items() if k != "timestamp"},
        **({"created": batch.settings.timestamp} if batch.settings.timestamp else {}),
        "sheets": [
            {
                "index": sheet.index,
                "code": sheet.problem.code,
                "student": asdict(sheet.student),
                **place,
                "metrics": metrics(sheet.problem, sheet.solution),
                "problem": problem_to_json(sheet.problem),
                "solution": solution_to_json(sheet.solution),
            }
            for sheet, place in zip(batch.sheets, places)
        ],
    }
