"""Pages a scan could not identify, finished by the teacher in the web review: which student's
sheet, which page, and the pile read again with that word (issue 36).

A run's unidentified pages are listed with their pictures. Assigning one makes a new run over
the same uploads (linked, not copied) with every word said so far (`assigned.json`), read as a
job like any upload: sheets read as before are not saved again, so nothing reviewed is lost, and
the sheet the page belongs to gains its boxes. The run it came from is then superseded: its
pages are no longer listed.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.app.errors import AttnsheetError
from generator.app.scans import RUN, new_run, runs, scans_folder, sheet_geometry, write_json
from generator.app.store import NotFound, Store, StoredBatch

__all__ = ["ASSIGNED", "Unidentified", "assign_page", "assignments_of", "sheet_named", "unidentified_pages"]

ASSIGNED = "assigned.json"
"""A run's record of the pages a person said are which, and the run it reads again."""


@dataclass(frozen=True)
class Unidentified:
    """A page of a run that went to no sheet, for the teacher to say which it is."""

    run: str
    file: str
    """The upload's name in its run (001.pdf)."""
    page: int
    """1-based, within its file."""
    picture: str
    """Its picture's name among the run's pages ('' when none was kept)."""


def _pages(folder: Path) -> list[dict]:
    try:
        return list(json.loads((folder / "pages.json").read_text(encoding="utf-8"))["pages"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def assignments_of(folder: Path) -> tuple[Optional[str], list[list]]:
    """A run's assignments: the run it reads again (None for an upload), and [file, page, code, sheet page] each."""
    try:
        said = json.loads((folder / ASSIGNED).read_text(encoding="utf-8"))
        return str(said["from"]), [[str(f), int(p), str(c), int(n)] for f, p, c, n in said["pages"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None, []


def unidentified_pages(batch: StoredBatch, store: Optional[Store] = None) -> list[Unidentified]:
    """Every page of the batch's finished runs that went to no sheet (a blank back, a file that
    cannot be read or a page scanned again is not one), except in runs read again since (or being
    read: with `store`, a reading that failed hides nothing, so its pages can be assigned again)."""
    from generator.scan.pipeline import UNSEEN, unidentified_picture

    failed = {job.run for job in store.jobs_of(batch.id, "scan") if job.state == "failed"} if store else set()
    # A run being read again hides the one it reads (its pages come back with the new run's).
    superseded = {
        assignments_of(scans_folder(batch) / run)[0] for run in runs(batch, finished=False) if run not in failed
    }
    found = []
    for run in runs(batch):
        if run in superseded:
            continue
        folder = scans_folder(batch) / run
        for page in _pages(folder):
            why = str(page.get("why", ""))
            if not why.startswith(UNSEEN):
                continue
            name = Path(str(page["file"])).name
            picture = unidentified_picture(str(page["file"]), int(page["page"]))
            found.append(
                Unidentified(run, name, int(page["page"]), picture if (folder / "pages" / picture).is_file() else "")
            )
    return found


def assign_page(
    store: Store,
    batch: StoredBatch,
    run: str,
    file: str,
    page: int,
    index: int,
    sheet_page: int,
    teacher: Optional[int] = None,
) -> str:
    """Page `page` of `file` in `run` said to be page `sheet_page` of sheet `index`: a new run over
    the same uploads with that word and those said before, queued to be read; its name."""
    listed = {(u.run, u.file, u.page) for u in unidentified_pages(batch, store)}
    if not RUN.fullmatch(run) or (run, file, page) not in listed:
        raise NotFound("no such page to assign (assigned already, or read again since): reload the page")
    try:
        _, sheet = store.sheet(batch.id, str(index))
    except NotFound:
        raise AttnsheetError(f"there is no sheet {index} in this batch: pick a student from the list") from None
    pages = len(sheet_geometry(batch, sheet))
    if not 1 <= sheet_page <= pages:
        raise AttnsheetError(f"sheet {index} has {pages} page{'s' * (pages != 1)}: pick one of them")
    source = scans_folder(batch) / run
    _, before = assignments_of(source)
    said = [a for a in before if (a[0], a[1]) != (file, page)] + [[file, page, str(sheet["code"]), sheet_page]]
    uploads = sorted(p.name for p in (source / "uploads").iterdir() if not p.name.startswith("."))
    try:
        replace_typed = bool(json.loads((source / "saving.json").read_text(encoding="utf-8")).get("replace"))
    except (OSError, ValueError, AttributeError):
        replace_typed = False
    again = new_run(batch)
    try:
        (again / "uploads").mkdir()
        for name in uploads:  # the same files: linked where the file system allows, else copied
            try:
                os.link(source / "uploads" / name, again / "uploads" / name)
            except OSError:
                shutil.copyfile(source / "uploads" / name, again / "uploads" / name)
        write_json(again / ASSIGNED, {"from": run, "pages": said})
        store.submit(
            "scan",
            {"batch": batch.id, "run": again.name, "uploads": uploads, "replace": replace_typed, "assigned": said},
            teacher,
            batch.id,
        )
    except BaseException:
        shutil.rmtree(again, ignore_errors=True)  # nothing half made: the page stays listed
        raise
    return again.name


def sheet_named(batch: StoredBatch, text: str) -> int:
    """The sheet a teacher picked (the list's "3 · name · code", its number, its code or one
    student's whole name); refused in one line when it names none or several."""
    from generator.output.manifest import code_key

    said = text.strip()
    head = said.split("·", 1)[0].strip()
    if head.isdigit():
        return int(head)
    by_code = [s for s in batch.sheets if code_key(str(s["code"])) == code_key(said)]
    by_name = [s for s in batch.sheets if str(s["student"].get("name", "")).casefold() == said.casefold()]
    found = by_code or by_name
    if len(found) != 1:
        raise AttnsheetError(
            f"{said[:60]!r} names {'no' if not found else 'more than one'} sheet of this batch: "
            "pick a student from the list"
        )
    return int(found[0]["index"])
