"""`attnsheet boxes` and `attnsheet scan`: where a worksheet's answer boxes are, and reading them from scans."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Optional

import click

from generator.app.reading import (
    MAX_PAGES,
    MAX_PIXELS,
    PAGE_PIXELS,
    Assignment,
    batch_manifest,
    boxes_json,
    is_own_code,
    scan_files,
    scan_page_count,
    sheet_boxes,
    web_batch,
)
from generator.cli.common import InFile, emit, load_problems, once, load_secret, read_text, say, secret_option
from generator.cli.settingopts import setting_option


@click.command("boxes")
@click.argument("code")
@click.option(
    "--problem",
    "problem_file",
    type=InFile(dash=True),
    default=None,
    help="The problem file a teacher's own sheet was printed from (its code names its content).",
)
@secret_option(make=False)
@setting_option("paper")
@setting_option("lang")
@click.option("--json", "as_json", is_flag=True, help="Write attnsheet/boxes@1 JSON instead of a table.")
def boxes_command(
    code: str, problem_file: Optional[str], secret_file: Optional[Path], paper: str, lang: str, as_json: bool
) -> None:
    """Where sheet CODE's answer boxes are printed: marks, QR code and every box, in points.

    For every page of the worksheet: its registration marks' centres, what its QR code holds,
    and every answer box from the page's top left (rows and columns 1-based, as in the answers
    CSV; a fraction's box as its fraction part and its decimal part). The contract other
    scanners can use too (docs/reference/boxes.md).

    \b
    Example:
      attnsheet boxes 72Y2-F --json > boxes.json
    """
    if not is_own_code(code) and problem_file is not None:
        raise click.UsageError("--problem is for a sheet of your own numbers; this code rebuilds its draw alone")
    problems = load_problems(problem_file) if problem_file is not None else ()
    problem, pages = sheet_boxes(code, problems, problem_file or "the file", load_secret(secret_file), paper, lang)
    if as_json:
        emit(json.dumps({"code": problem.code, **boxes_json(pages)}, ensure_ascii=False) + "\n")
        return
    lines = [
        f"sheet {problem.code}: {len(pages)} page(s), {sum(len(p.boxes) for p in pages)} answer boxes, "
        "points from each page's top left"
    ]
    for p in pages:
        marks = "  ".join(f"({x:.1f}, {y:.1f})" for x, y in p.marks)
        lines += [
            f"page {p.page} ({p.width:.1f} x {p.height:.1f}): QR {p.qr!r}; marks' centres {marks}",
            f"  {'head':>4} {'step':<8} {'row':>3} {'col':>3} {'x':>7} {'y':>7} {'w':>6} {'h':>6}  parts",
        ]
        for b in p.boxes:
            parts = "  ".join(f"{k} y {v[1]:.1f} h {v[3]:.1f}" for k, v in b.parts.items())
            lines.append(
                f"  {b.head or '':>4} {b.step:<8} {b.row:>3} {b.col:>3} {b.x:>7.2f} {b.y:>7.2f} "
                f"{b.w:>6.2f} {b.h:>6.2f}  {parts}".rstrip()
            )
    emit("\n".join(lines) + "\n")


_ASSIGNED = re.compile(r"(?P<file>.+):(?P<page>[0-9]{1,6})=(?P<code>[^/=\s]{1,60})(?:/(?P<sheet_page>[0-9]{1,3}))?")


def _assignments(ctx, param, values: tuple[str, ...]) -> tuple[Assignment, ...]:
    """--assign's values parsed; a value not of the form FILE:PAGE=CODE[/PAGE] is refused."""
    out = []
    for value in values:
        m = _ASSIGNED.fullmatch(value.strip())
        if m is None or int(m["page"]) < 1 or (m["sheet_page"] is not None and int(m["sheet_page"]) < 1):
            raise click.BadParameter(
                f"{value[:80]!r} is not FILE:PAGE=CODE/PAGE (for example scans/pile.pdf:3=7352-Y/2; pages count from 1)"
            )
        out.append(Assignment(m["file"], int(m["page"]), m["code"], int(m["sheet_page"] or 1)))
    return tuple(out)


@click.command("scan")
@click.argument("scans", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for answers/, review.json, crops/ and pages.json (created if missing).",
)
@click.option(
    "--manifest",
    type=InFile(),
    multiple=True,
    callback=once,
    help="The batch's manifest.json: its sheets' problems and students (without it, only drawn codes "
    "are known, each sheet unnamed).",
)
@click.option(
    "--batch",
    default=None,
    metavar="NAME",
    help="A web batch instead of --manifest (its worksheets' QR codes open the students' links).",
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --batch: the web app's data folder (default: your user data folder).",
)
@click.option("--database", default=None, metavar="URL", help="With --batch: the server's PostgreSQL database.")
@secret_option(make=False)
@click.option(
    "--paper",
    type=click.Choice(["a4", "letter"]),
    default=None,
    show_default="the manifest's, else a4",
    help="The paper the sheets were printed on.",
)
@click.option(
    "--assign",
    "assigned",
    multiple=True,
    metavar="FILE:PAGE=CODE/PAGE",
    callback=_assignments,
    help="Say which sheet a page the scan cannot identify is: page PAGE of FILE (as given, or its name) "
    "is page PAGE of sheet CODE (/PAGE may be left out for page 1). Repeat for more pages.",
)
@click.option(
    "--max-pages",
    type=click.IntRange(1, 100_000),
    default=MAX_PAGES,
    show_default=True,
    help="Refuse a pile of more pages than this before reading any (each page is also at most "
    f"{MAX_PIXELS // 1_000_000} million pixels, and the pile {PAGE_PIXELS // 1_000_000} million a "
    "page in all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--force", is_flag=True, help="Replace an earlier run's files in --out.")
def scan_command(
    scans: tuple[Path, ...],
    out: Path,
    manifest: Optional[str],
    batch: Optional[str],
    data: Optional[Path],
    database: Optional[str],
    secret_file: Optional[Path],
    paper: Optional[str],
    assigned: tuple[Assignment, ...],
    max_pages: int,
    as_json: bool,
    force: bool,
) -> None:
    """Read scanned worksheets: every page found by its marks and codes, every answer box read and checked.

    Each box's read is checked against its true value and the value carried from the student's
    own cells: accepted when it clearly stands for one, else left for a person to review.

    SCANS are PDFs (every page, at 200 dpi; pages in any order, turned, scanned twice) and
    pictures (PNG, JPEG, TIFF; a phone photo with the four corner marks in it). A page whose QR
    code cannot be read is identified by the code and page printed in its footer. Writes
    answers/NN-name.json (accepted values; null where a person must look), review.json
    (attnsheet/review@1: those boxes, each with its crop under crops/ and the recognizer's
    reads) and pages.json (each input page's sheet and page, or why it was not assigned).

    \b
    Example:
      attnsheet scan scans/*.pdf --manifest output/manifest.json --out scanned
      attnsheet grade scanned/answers/*.json --manifest output/manifest.json
    """
    from generator.cli.grading import load_manifest

    if batch is not None and manifest is not None:
        raise click.UsageError("give --manifest or --batch, not both")
    secret = load_secret(secret_file)
    links: dict[str, str] = {}
    if batch is not None:
        manifest_text, links = _web_batch(batch, data, database)
        listed, settings = batch_manifest(manifest_text, batch)
    else:
        listed, settings = load_manifest(manifest, secret)
        manifest_text = read_text(manifest) if manifest is not None else ""
    summary = _read_with_progress(
        list(scans),
        out,
        manifest_text,
        listed,
        settings,
        links,
        secret,
        paper,
        force,
        assigned=assigned,
        max_pages=max_pages,
    )
    if as_json:
        emit(
            json.dumps(
                {
                    "pages": summary.pages,
                    "identified": summary.identified,
                    "not_identified": summary.pages - summary.identified,
                    "sheets": summary.sheets,
                    "accepted": summary.accepted,
                    "blank": summary.blank,
                    "review": summary.review,
                    "missing": list(summary.missing),
                    "incomplete": list(summary.incomplete),
                    "unidentified": [{"file": f, "page": p} for f, p in summary.unidentified],
                }
            )
            + "\n"
        )
    else:
        how = ""
        if summary.unidentified:  # a student's whole page: say how to finish it, not only that it is not done
            file, page = summary.unidentified[0]
            how = f" (assign each: --assign {file}:{page}=CODE/PAGE)"
        say(f"{summary.line}{how}; see {out / 'pages.json'} and {out / 'review.json'}")


def _read_with_progress(scans, out, *args, **kwargs):
    """The scan, with a bar of pages read on a terminal (nothing extra in a pipe or a file)."""
    if sys.stderr is None or not sys.stderr.isatty():
        return scan_files(scans, out, *args, **kwargs)
    total = scan_page_count(scans)
    with click.progressbar(length=total, label="reading pages", file=sys.stderr, show_pos=True) as bar:
        return scan_files(scans, out, *args, progress=lambda n: bar.update(n - bar.pos), **kwargs)


def _web_batch(name: str, data: Optional[Path], database: Optional[str]) -> tuple[str, dict[str, str]]:
    """A web batch's manifest, and its students' link tokens → their sheets' codes."""
    from generator.cli.common import data_store

    store = data_store(data, database)
    try:
        return web_batch(store, name)
    finally:
        store.close()
