"""Class batches: render and write every worksheet, key and the manifest of sheets drawn and solved (app/batches)."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from generator.core.errors import BatchError, Interrupted, LayoutError
from generator.core.student import Sheet
from generator.output.enlarge import check_large
from generator.output.files import check_free, check_writable, remove_files, slug, target_kind
from generator.output.jobs import Stop, Workers, clean_stale_scratch, run_tasks
from generator.output.manifest import MANIFEST_FORMAT, Origin, manifest_chunks
from generator.output.staging import Staging
from generator.sheet.assets import templates_dir
from generator.sheet.boxes import boxes_rows
from generator.sheet.model import Settings, for_student
from generator.sheet.sheets import check_fits, sheet_view
from generator.sheet.sheetview import with_link


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
    origin: Origin = Origin()
    """How its problems came to be (drawn, or rebuilt from a code), for the manifest."""
    seed: Optional[int] = None
    """The batch's seed, recorded in the manifest."""
    jobs: Optional[int] = 1
    """Processes rendering PDF files at once; None for one per CPU. Never more than the CPUs:
    beyond them a job process only adds its start-up (and each runs `ldconfig` as it starts)."""
    names: tuple[str, str, str] = ("worksheets", "answer-keys", "manifest")
    """File stems of the combined worksheets, the combined keys and the manifest."""
    stop: Optional[Stop] = field(default=None, compare=False)
    """Asked to stop from outside (a signal handler): checked after each file or part."""
    workers: Optional[Workers] = field(default=None, compare=False)
    """Job processes kept warm by the caller (a server's), used instead of starting any."""


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


def _stem(sheet: Sheet, width: int) -> str:
    name = slug(sheet.student.name) or slug(sheet.problem.code or "") or "sheet"
    return f"{sheet.index:0{width}d}-{name}"


def planned_files(batch: Batch) -> dict[str, list[Path]]:
    """The worksheet and key files a batch will write, one per sheet when split."""
    ext = batch.fmt
    if not batch.split:
        plan = {"worksheets": [batch.out / f"{batch.names[0]}.{ext}"], "keys": [batch.out / f"{batch.names[1]}.{ext}"]}
    else:
        width = max(2, len(str(len(batch.sheets))))
        stems = [_stem(s, width) for s in batch.sheets]
        plan = {
            "worksheets": [batch.out / "worksheets" / f"{stem}.{ext}" for stem in stems],
            "keys": [batch.out / "keys" / f"{stem}.{ext}" for stem in stems],
        }
    if batch.settings.blank:
        plan["keys"] = []  # a blank template has no key
    return plan


def generate(batch: Batch, progress: Optional[Callable[[int], None]] = None) -> Written:
    """Render every sheet and key, write them and the manifest; nothing is overwritten unforced.

    `progress` is told of each batch of documents done (a worksheet or a key is one: a batch
    has twice as many documents as sheets).
    """
    start = time.perf_counter()
    check_printable(batch)
    plan = planned_files(batch)
    manifest_path = batch.out / f"{batch.names[2]}.json"
    # Blank templates have no problem to record: no key, no manifest.
    targets = plan["worksheets"] + plan["keys"] + ([] if batch.settings.blank else [manifest_path])
    check_free(targets, batch.force)
    # Every folder is tried now (a missing one is made only when the files move in): an
    # unwritable one fails before any rendering.
    for folder in dict.fromkeys(path.parent for path in targets):
        check_writable(folder)
    stale = _stale_files(batch.out, manifest_path, targets) if batch.force else []
    # Every file is staged in one hidden folder and moved into place only when all are written:
    # a run that fails or is stopped leaves the folder as it was.
    with Staging(batch.out, batch.force) as stage:
        if batch.fmt == "html":
            written, pages, places = _write_html(batch, plan, progress, stage)
        else:
            written, pages, places = _write_pdf(batch, plan, progress, stage)
        if not batch.settings.blank:
            chunks = manifest_chunks(
                batch.origin, batch.settings, batch.split, batch.fmt, batch.seed, batch.sheets, places
            )
            stage.write(manifest_path, chunks)  # a sheet at a time: flat memory
            written.append(manifest_path)
        try:
            stage.commit()
        except KeyboardInterrupt:
            raise Interrupted("interrupted: nothing was written") from None
    remove_files(stale)
    return Written(files=tuple(written), pages=pages, seconds=time.perf_counter() - start, removed=tuple(stale))


def check_printable(batch: Batch) -> None:
    """A LayoutError naming the first sheet that cannot be printed legibly: it stops the batch
    before any file (and a server's job before it is queued)."""
    for sheet in batch.sheets:
        try:
            check_fits(sheet.problem, sheet.solution, for_student(batch.settings, sheet.student))
            check_large(sheet.problem, sheet.solution, sheet.student, batch.settings)
        except LayoutError as error:
            raise LayoutError(f"sheet {sheet.index} ({sheet.problem.code or 'no code'}): {error}") from None


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


def warm_renderer() -> None:
    """Load WeasyPrint, the fonts and the stylesheet: what a kept job process does first."""
    from generator.output.pdf import renderer

    renderer()


def render_task(task: Task) -> tuple[bytes, list[int], list]:
    """A task's PDF, the page count of each of its sheets, and each worksheet's box geometry
    (boxes@1's pages, None where unknown) for the manifest (runs in a job process)."""
    from generator.output.documents import document  # pikepdf (and maybe WeasyPrint) load only when a PDF is asked for

    views = [
        with_link(sheet_view(s.problem, s.solution, s.student, task.settings, task.key), s.link, s.pin)
        for s in task.sheets
    ]
    boxes: list = []
    data, counts = document(views, task.settings, boxes)
    return data, counts, [None if b is None else boxes_rows(b) for b in boxes]


MIN_PAGES_FOR_JOBS = 40
"""Below this many pages one process renders them all: measured on 2 cores, a second process
made one sheet 1.19× slower, and gains from about 20 sheets on."""

PART_SHEETS = 8
"""Sheets per part of a combined file: parts spread a class over every job, and bound what a
job holds in memory (a rendered page's layout is about 1.5 MB until it is written)."""


def _write_pdf(batch: Batch, plan: dict, progress, stage: Staging) -> tuple[list[Path], int, list[dict]]:
    from generator.output.merge import merge_chunks  # pikepdf loads only when PDF files are written

    clean_stale_scratch()  # a killed run's folder, even when this one needs none (no WeasyPrint, no job process)
    settings = batch.settings
    # A combined file is rendered in parts, the same whatever the number of jobs: so are its bytes.
    tasks = [
        Task(path, sheets[i : i + PART_SHEETS], key, settings)
        for path, sheets, key in documents(batch, plan)
        for i in range(0, len(sheets), PART_SHEETS)
    ]
    files = list(dict.fromkeys(task.path for task in tasks))
    parts = {path: sum(task.path == path for task in tasks) for path in files}
    written: list[Path] = []
    counts: dict[tuple[Path, int], tuple[int, int]] = {}  # (file, sheet index) -> (first page, pages)
    filled = {path: 0 for path in files}  # pages already rendered for each file
    geometry: dict[int, list] = {}  # sheet index -> its worksheet's boxes, for the manifest
    try:
        cpus = os.cpu_count() or 1
        jobs = min(batch.jobs or cpus, cpus)
        if sum(len(task.sheets) for task in tasks) < MIN_PAGES_FOR_JOBS and batch.workers is None:
            jobs = 1  # a job process's start-up (~1 s, importing WeasyPrint) costs more than it saves
        tick = (lambda task: progress(len(task.sheets))) if progress else None
        results = run_tasks(tasks, render_task, jobs, tick, batch.stop, batch.workers)

        def rendered(path: Path) -> Iterator[bytes]:
            """The parts of `path`, as they come: tasks are worked and given back in order."""
            for _ in range(parts[path]):
                task, (data, pages, boxes) = next(results)
                for sheet, n, b in zip(task.sheets, pages, boxes or [None] * len(pages)):
                    counts[(task.path, sheet.index)] = (filled[task.path] + 1, n)
                    filled[task.path] += n
                    if b is not None:
                        geometry[sheet.index] = b
                yield data

        for path in files:
            # A combined file is written a part at a time, as its parts are rendered: flat memory.
            stage.write(path, rendered(path) if parts[path] == 1 else merge_chunks(rendered(path)))
            written.append(path)
    except KeyboardInterrupt:
        raise Interrupted(_stopped("interrupted", batch, written, len(files))) from None
    except BrokenProcessPool:
        raise BatchError(_stopped("a rendering process stopped unexpectedly", batch, written, len(files))) from None
    total = sum(filled.values())
    places = [
        {kind: _place(batch, path, *counts[(path, sheet.index)]) for kind, path in _files_of(batch, plan, i)}
        | ({"boxes": geometry[sheet.index]} if sheet.index in geometry else {})
        for i, sheet in enumerate(batch.sheets)
    ]
    return written, total, places


def documents(batch: Batch, plan: dict) -> list[tuple[Path, tuple[Sheet, ...], bool]]:
    """Every file to write as (path, its sheets, answer keys or not), in the order they are written."""
    kinds = ((plan["worksheets"], False),) + (() if batch.settings.blank else ((plan["keys"], True),))
    if batch.split:
        return [(paths[i], (sheet,), key) for i, sheet in enumerate(batch.sheets) for paths, key in kinds]
    return [(paths[0], batch.sheets, key) for paths, key in kinds]


def _files_of(batch: Batch, plan: dict, i: int) -> list[tuple[str, Path]]:
    """The worksheet and key file sheet `i` is in."""
    at = i if batch.split else 0
    return [("worksheet", plan["worksheets"][at])] + ([] if batch.settings.blank else [("key", plan["keys"][at])])


def _stopped(why: str, batch: Batch, written: list[Path], planned: int) -> str:
    """One line on a stopped batch: nothing of it is written (its files were only staged)."""
    done = f" ({len(written)} of {planned} files had been rendered)" if written else ""
    return f"{why}: nothing was written{done}"


def _write_html(batch: Batch, plan: dict, progress, stage: Staging) -> tuple[list[Path], int, list[dict]]:
    settings, written = batch.settings, []

    def views(sheets: Sequence[Sheet], key: bool) -> Iterator[dict]:
        # Made as the template takes them: the HTML of any batch is written with flat memory.
        for sheet in sheets:
            yield with_link(
                sheet_view(sheet.problem, sheet.solution, sheet.student, settings, key), sheet.link, sheet.pin
            )
            if progress:
                progress(1)

    from generator.output.html import document_chunks, stylesheet_text  # Jinja loads only for HTML output

    css = stylesheet_text("../" if batch.split else "")
    for path, sheets, key in documents(batch, plan):
        chunks = (text.encode("utf-8") for text in document_chunks(views(sheets, key), settings, css, laid_out=True))
        stage.write(path, chunks)
        written.append(path)
    places = [{kind: _place(batch, path) for kind, path in _files_of(batch, plan, i)} for i in range(len(batch.sheets))]
    written += _copy_fonts(batch, stage)
    return written, 0, places


def _copy_fonts(batch: Batch, stage: Staging) -> list[Path]:
    """HTML output refers to the bundled fonts next to it."""
    copied = []
    for font in sorted((templates_dir() / "fonts").iterdir()):
        if font.suffix in (".otf", ".ttf") or font.name == "OFL.txt":
            target = batch.out / "fonts" / font.name
            stage.write(target, font.read_bytes(), force=True)  # identical bytes: safe to refresh
            copied.append(target)
    return copied


def _place(batch: Batch, path: Path, first_page: Optional[int] = None, pages: Optional[int] = None) -> dict:
    place: dict = {"file": path.relative_to(batch.out).as_posix()}
    if first_page is not None:
        place["first_page"] = first_page
        place["pages"] = pages
    return place
