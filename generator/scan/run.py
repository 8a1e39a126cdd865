"""`attnsheet scan`'s job: pages in, a folder of answers, review items, crops and page reports out.

DIR/answers/NN-name.json (answers@1 per sheet: accepted values, "" for a blank box, null for a
box in review), DIR/review.json (attnsheet/review@1), DIR/crops/ (a picture of every box in
review) and DIR/pages.json (every input page: the sheet and page it was found to be, or why
not). Files are written whole or not at all; a folder holding an earlier run's files is
refused without --force.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from generator.core.answers import put_cell, skeleton
from generator.output.files import (
    STAGE_PREFIX,
    OutputError,
    check_free,
    clean_leftovers,
    ensure_folder,
    owner_tag,
    reason,
    slug,
)
from generator.scan.limits import Limits, survey
from generator.scan.pages import scan_pages
from generator.scan.pipeline import UNSEEN, Catalogue, Scanner, SheetScan, crop_name
from generator.scan.verify import Decision

REVIEW_FORMAT = "attnsheet/review@1"
RUN_SUFFIXES = (".json", ".png", ".jpg")
"""What a run writes in its folders (answers, crops, pages): an earlier run's are replaced, nothing else."""
PAGES_FORMAT = "attnsheet/pages@1"


@dataclass(frozen=True)
class ScanSummary:
    """What a run read."""

    pages: int
    identified: int
    sheets: int
    accepted: int
    blank: int
    review: int
    missing: tuple[str, ...] = ()
    """The manifest's sheets no page of which arrived, each as "CODE (name)"."""
    incomplete: tuple[str, ...] = ()
    """Sheets some of whose pages did not arrive, each as "CODE page 2 of 2"."""
    unidentified: tuple[tuple[str, int], ...] = ()
    """The input pages that are not a blank back and went to no sheet, each as (file, page)."""

    @property
    def line(self) -> str:
        line = (
            f"read {self.pages} pages: {self.identified} identified, {self.pages - self.identified} not; "
            f"{self.sheets} sheets; cells: {self.accepted} accepted, {self.blank} blank, {self.review} to review"
        )
        # A sheet that never arrived is a student's work the teacher must find: named, never just counted.
        if self.missing:
            line += f"; {len(self.missing)} sheets never arrived: {_listed(self.missing)}"
        if self.incomplete:
            line += f"; pages missing: {_listed(self.incomplete)}"
        if self.unidentified:
            line += f"; not identified: {_listed(tuple(f'{file} page {page}' for file, page in self.unidentified))}"
        return line


def _listed(items: tuple[str, ...], most: int = 12) -> str:
    """Items joined, the first `most` of them, then how many more."""
    shown = ", ".join(items[:most])
    return shown if len(items) <= most else f"{shown} and {len(items) - most} more"


def answers_json(sheet: SheetScan, decisions: list[Decision]) -> dict:
    """A sheet's answers@1: accepted values, "" where blank, null where a person must look."""
    s = sheet.source
    out = skeleton(s.problem, s.code, s.student)
    for d in decisions:
        put_cell(out, *d.key, d.value if d.verdict == "accepted" else "" if d.verdict == "blank" else None)
    return out


def review_items(sheet: SheetScan, decisions: list[Decision]) -> list[dict]:
    """The boxes of a sheet a person must look at (review@1 items)."""
    code = sheet.source.code
    return [
        {
            "code": code,
            "page": sheet.boxes[d.key],
            "head": d.key[0],
            "step": d.key[1],
            "row": d.key[2] + 1,
            "col": d.key[3] + 1,
            "crop": f"crops/{crop_name(sheet.source, sheet.boxes[d.key], d.key)}",
            "expected": d.expected,
            "reads": [{"text": t, "score": p} for t, p in d.reads],
        }
        for d in decisions
        if d.verdict == "review"
    ]


def answers_name(sheet: SheetScan, width: int) -> str:
    s = sheet.source
    return f"{s.index:0{width}d}-{slug(s.student.name) or slug(s.code) or 'sheet'}.json"


def scan_folder(
    paths: list[Path],
    catalogue: Catalogue,
    out: Path,
    force: bool = False,
    progress: Optional[Callable[[int], None]] = None,
    keep_pages: bool = False,
    assigned: Optional[dict[tuple[str, int], tuple[str, int]]] = None,
    limits: Limits = Limits(),
) -> ScanSummary:
    """Reads every page of `paths` into `out` (`keep_pages`: each page upright in out/pages/, for
    a spot check; `assigned`: pages a person has said are which, (file, page) → (code, sheet page));
    the summary. A pile beyond `limits` is refused before anything is read or written (InputError).
    Everything is written into a hidden folder inside `out` first and
    moved into place at the end: a run that fails or is killed leaves `out` as it was (its hidden
    folder goes at the next run)."""
    survey(paths, limits)
    fixed = [out / "review.json", out / "pages.json"]
    check_free(fixed, force)
    if not force and (out / "answers").is_dir() and any((out / "answers").glob("*.json")):
        raise OutputError(f"{out / 'answers'} holds answers already; use --force to replace them")
    ensure_folder(out)
    clean_leftovers(out)
    try:
        work = Path(tempfile.mkdtemp(dir=out, prefix=f"{STAGE_PREFIX}{owner_tag()}~"))
    except OSError as error:
        raise OutputError(f"cannot write into {out}: {reason(error)}") from None
    try:
        for name in ("crops", "answers") + (("pages",) if keep_pages else ()):
            (work / name).mkdir()
        with tempfile.TemporaryFile(dir=work) as spool:
            scanner = Scanner(catalogue, spool, work / "pages" if keep_pages else None, assigned)
            for n, page in enumerate(scan_pages(paths), start=1):
                scanner.add(page)
                if progress:
                    progress(n)
            summary = write_results(scanner, work)
        _publish(work, out, ("crops", "answers") + (("pages",) if keep_pages else ()), ("review.json", "pages.json"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return summary


def _publish(work: Path, out: Path, folders: tuple[str, ...], files: tuple[str, ...]) -> None:
    """A staged run moved into `out`: its folders in place of the earlier run's, then its reports
    (synced) last, so that a run whose reports are there is whole."""
    try:
        for name in folders:
            target = out / name
            if not target.is_dir():
                os.replace(work / name, target)
                continue
            for old in target.iterdir():  # the earlier run's files of this kind go (checked free or --force)
                if old.suffix in RUN_SUFFIXES and old.is_file() and not old.name.startswith("."):
                    old.unlink()
            for new in (work / name).iterdir():
                os.replace(new, target / new.name)
        for name in files:
            with open(work / name, "rb") as handle:
                os.fsync(handle.fileno())
            os.replace(work / name, out / name)
        directory = os.open(out, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as error:
        raise OutputError(f"cannot write into {out}: {reason(error)}") from None


def write_results(scanner: Scanner, out: Path) -> ScanSummary:
    """The answers, review items and page reports of what `scanner` read; crops not in review go."""
    ensure_folder(out / "answers")
    review: list[dict] = []
    counts = {"accepted": 0, "blank": 0, "review": 0}
    width = max([2] + [len(str(s.source.index)) for s in scanner.sheets.values()])
    for sheet, decisions in scanner.decisions():
        for d in decisions:
            counts[d.verdict] += 1
            if d.verdict == "review":
                name = crop_name(sheet.source, sheet.boxes[d.key], d.key)
                _put(out / "crops" / name, scanner.crop(sheet, d.key))
        review += review_items(sheet, decisions)
        _put(out / "answers" / answers_name(sheet, width), _json(answers_json(sheet, decisions)))
    _put(out / "review.json", _json({"format": REVIEW_FORMAT, "items": review}))
    reports = scanner.reports
    _put(out / "pages.json", _json({"format": PAGES_FORMAT, "pages": [r.json() for r in reports]}))
    return ScanSummary(
        len(reports),
        sum(r.identified for r in reports),
        len(scanner.sheets),
        counts["accepted"],
        counts["blank"],
        counts["review"],
        *_absent(scanner),
        tuple((r.file, r.page) for r in reports if _unidentified(r)),
    )


def _unidentified(report) -> bool:
    """Whether a page went to no sheet though it may be one (not a blank back, not a file that
    cannot be read, not a page replaced by a later scan of it)."""
    return not report.identified and report.why.startswith(UNSEEN)


def _absent(scanner: Scanner) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The manifest's sheets with no page read, and the pages missing of those read (in batch order)."""
    missing, incomplete = [], []
    for key, source in sorted(scanner.catalogue.sources.items(), key=lambda item: item[1].index):
        name = f" ({source.student.name})" if source.student.name else ""
        sheet = scanner.sheets.get(key)
        if sheet is None:
            missing.append(f"{source.code}{name}")
            continue
        incomplete += [
            f"{source.code}{name} page {n} of {sheet.pages}" for n in range(1, sheet.pages + 1) if n not in sheet.seen
        ]
    return tuple(missing), tuple(incomplete)


def _put(path: Path, data: bytes) -> None:
    """A file of the staged run, whole or not at all (a temporary name, then renamed); not synced
    one by one (a class's files would wait on the disk a file at a time): pages.json and
    review.json are, as the run is published, and every file here is made again by running again."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path.name}: {reason(error)}") from None


def _json(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode()


def sources_of(manifest: dict, listed: dict) -> Iterable:
    """The manifest's sheets as scan sources, with their index."""
    from generator.output.manifest import code_key
    from generator.scan.pipeline import Source

    index = {code_key(str(s.get("code"))): int(s.get("index", n + 1)) for n, s in enumerate(manifest["sheets"])}
    return [
        Source(item.code, index.get(key, n + 1), item.problem, item.student)
        for n, (key, item) in enumerate(listed.items())
    ]
