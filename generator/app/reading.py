"""Scans read from the command line (`attnsheet scan`), and where a sheet's boxes are printed (`attnsheet boxes`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from generator.core.errors import InputError
from generator.core.formats import dumps
from generator.core.registry import solve
from generator.core.student import Student
from generator.draw.rebuild import rebuild
from generator.draw.sheetcodes import read_own_code
from generator.output.manifest import Listed, manifest_settings, read_manifest
from generator.scan.limits import MAX_PAGES, MAX_PIXELS, PAGE_PIXELS
from generator.sheet.boxes import boxes_json
from generator.sheet.model import Settings

__all__ = [
    "MAX_PAGES",
    "MAX_PIXELS",
    "PAGE_PIXELS",
    "Assignment",
    "batch_manifest",
    "boxes_json",
    "is_own_code",
    "scan_files",
    "sheet_boxes",
    "web_batch",
]


def is_own_code(code: str) -> bool:
    """Whether a code names a sheet of the teacher's own numbers (rebuilt from its problem file)."""
    return read_own_code(code) is not None


def sheet_boxes(
    code: str, problems: Sequence = (), label: str = "the file", secret=None, paper: str = "a4", lang: str = "en"
):
    """The problem a code rebuilds, and its worksheet's pages with their marks, QR code and boxes."""
    from generator.output.boxes import worksheet_boxes

    problem = rebuild(code, problems, label, secret=secret)
    return problem, worksheet_boxes(problem, solve(problem), Student(), Settings(paper=paper, lang=lang))


def web_batch(store, name: str) -> tuple[str, dict[str, str]]:
    """A web batch's manifest, and its students' link tokens → their sheets' codes."""
    stored = store.batch(name)
    links = {link.token: link.code for link in store.links(stored).values()}
    return dumps(stored.manifest), links


def scan_files(
    scans: list[Path],
    out: Path,
    manifest_text: str,
    listed: Optional[dict[str, Listed]],
    settings: dict,
    links: dict[str, str],
    secret=None,
    paper: Optional[str] = None,
    force: bool = False,
    progress=None,
    assigned: Sequence["Assignment"] = (),
    max_pages: Optional[int] = None,
):
    """Every scanned page read into `out`, found among the manifest's sheets (`listed`), or, without
    one, rebuilt from its drawn code, or as a person `assigned` it; the run's summary. `progress(n)`
    is called as page n is read; a pile of more than `max_pages` pages (default: MAX_PAGES) is refused."""
    from generator.scan.limits import Limits
    from generator.output.files import check_writable
    from generator.scan.pipeline import Catalogue, Source
    from generator.scan.run import scan_folder, sources_of

    check_writable(out)
    sources = sources_of(json.loads(manifest_text), listed) if listed is not None else []
    counter = iter(range(1, 1_000_000))

    def rebuilt(code: str) -> Source:
        problem = rebuild(code, (), "the file", secret=secret)
        return Source(problem.code, next(counter), problem)

    catalogue = Catalogue(
        sources,
        Settings(paper=paper or settings.get("paper", "a4"), lang=settings.get("lang", "en")),
        links=links,
        rebuild=None if listed is not None else rebuilt,
    )
    by_hand = _checked_assignments(assigned, scans, catalogue)
    return scan_folder(
        list(scans),
        catalogue,
        out,
        force,
        progress,
        assigned=by_hand,
        limits=Limits() if max_pages is None else Limits(pages=max_pages),
    )


@dataclass(frozen=True)
class Assignment:
    """A person's word for a page the scan cannot identify: page `page` of `file` is page
    `sheet_page` of the sheet `code`."""

    file: str
    page: int
    code: str
    sheet_page: int = 1

    @property
    def written(self) -> str:
        return f"{self.file}:{self.page}={self.code}/{self.sheet_page}"


def _checked_assignments(assigned: Sequence[Assignment], scans: list[Path], catalogue) -> dict:
    """Assignments checked before a page is read (the file is one scanned, the page is in it, the
    sheet and its page exist): (file as given, page) → (code, sheet page); InputError otherwise."""
    from generator.output.manifest import code_key
    from generator.scan.locate import NotFound
    from generator.scan.limits import page_count
    from generator.sheet.marks import QrIdentity

    out: dict[tuple[str, int], tuple[str, int]] = {}
    for a in assigned:
        # The file as it was given, else by its name alone when that names one file only.
        files = [s for s in scans if str(s) == a.file] or [s for s in scans if s.name == a.file]
        if len(files) != 1:
            why = "is not one of the files scanned" if not files else "names more than one file: give its path"
            raise InputError(f"--assign {a.written}: {a.file} {why}")
        pages = page_count([files[0]])
        if not 1 <= a.page <= pages:
            raise InputError(f"--assign {a.written}: {a.file} has {pages} page{'s' * (pages != 1)}")
        try:
            source = catalogue.find(QrIdentity(a.code, a.sheet_page))
        except NotFound as error:
            raise InputError(f"--assign {a.written}: {str(error).removeprefix('not identified: ')}") from None
        sheet_pages = len(catalogue.geometry(code_key(source.code))[0])
        if not 1 <= a.sheet_page <= sheet_pages:
            raise InputError(
                f"--assign {a.written}: sheet {source.code} has {sheet_pages} page{'s' * (sheet_pages != 1)}"
            )
        if (str(files[0]), a.page) in out:
            raise InputError(f"--assign {a.written}: page {a.page} of {a.file} is assigned twice")
        out[(str(files[0]), a.page)] = (source.code, a.sheet_page)
    return out


def scan_page_count(scans: list[Path]) -> int:
    """How many pages a scan of these files reads (their headers alone)."""
    from generator.scan.limits import page_count

    return page_count(scans)


def batch_manifest(text: str, label: str) -> tuple[dict[str, Listed], dict]:
    """A web batch's manifest's sheets and settings (its codes were checked when it was made)."""
    return read_manifest(text, label), manifest_settings(text, label)
