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
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from generator.core.answers import put_cell, skeleton
from generator.output.files import OutputError, check_free, ensure_folder, slug, write_atomic
from generator.scan.pages import scan_pages
from generator.scan.pipeline import Catalogue, Scanner, SheetScan, crop_name
from generator.scan.verify import Decision

REVIEW_FORMAT = "attnsheet/review@1"
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

    @property
    def line(self) -> str:
        return (f"read {self.pages} pages: {self.identified} identified, {self.pages - self.identified} not; "
                f"{self.sheets} sheets; cells: {self.accepted} accepted, {self.blank} blank, {self.review} to review")


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
    return [{"code": code, "page": sheet.boxes[d.key], "head": d.key[0], "step": d.key[1], "row": d.key[2] + 1,
             "col": d.key[3] + 1, "crop": f"crops/{crop_name(sheet.source, sheet.boxes[d.key], d.key)}",
             "expected": d.expected, "reads": [{"text": t, "score": p} for t, p in d.reads]}
            for d in decisions if d.verdict == "review"]


def answers_name(sheet: SheetScan, width: int) -> str:
    s = sheet.source
    return f"{s.index:0{width}d}-{slug(s.student.name) or slug(s.code) or 'sheet'}.json"


def scan_folder(paths: list[Path], catalogue: Catalogue, out: Path, force: bool = False,
                progress: Optional[Callable[[int], None]] = None, keep_pages: bool = False) -> ScanSummary:
    """Reads every page of `paths` into `out` (`keep_pages`: each page upright in out/pages/, for
    a spot check); the summary."""
    fixed = [out / "review.json", out / "pages.json"]
    check_free(fixed, force)
    if not force and (out / "answers").is_dir() and any((out / "answers").glob("*.json")):
        raise OutputError(f"{out / 'answers'} holds answers already; use --force to replace them")
    ensure_folder(out / "crops")
    if force:
        for old in (out / "crops").glob("*.png"):
            old.unlink()
        for old in (out / "answers").glob("*.json") if (out / "answers").is_dir() else ():
            old.unlink()
    if keep_pages:
        ensure_folder(out / "pages")
    with tempfile.TemporaryFile(dir=out) as spool:
        scanner = Scanner(catalogue, spool, out / "pages" if keep_pages else None)
        for n, page in enumerate(scan_pages(paths), start=1):
            scanner.add(page)
            if progress:
                progress(n)
        return write_results(scanner, out)


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
    write_atomic(out / "review.json", _json({"format": REVIEW_FORMAT, "items": review}), force=True)
    reports = scanner.reports
    write_atomic(out / "pages.json", _json({"format": PAGES_FORMAT, "pages": [r.json() for r in reports]}),
                 force=True)
    return ScanSummary(len(reports), sum(r.identified for r in reports), len(scanner.sheets), counts["accepted"],
                       counts["blank"], counts["review"])


def _put(path: Path, data: bytes) -> None:
    """A sheet's answers or a crop, whole or not at all (a temporary name, then renamed); not
    synced one by one (a class's files would wait on the disk a file at a time): pages.json and
    review.json, written last, are, and every file here is made again by running again."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def _json(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode()


def sources_of(manifest: dict, listed: dict) -> Iterable:
    """The manifest's sheets as scan sources, with their index."""
    from generator.output.manifest import code_key
    from generator.scan.pipeline import Source

    index = {code_key(str(s.get("code"))): int(s.get("index", n + 1)) for n, s in enumerate(manifest["sheets"])}
    return [Source(item.code, index.get(key, n + 1), item.problem, item.student)
            for n, (key, item) in enumerate(listed.items())]
