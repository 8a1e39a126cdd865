"""A batch's scans: read into the store, and the boxes a person must look at, each with its expected value.

Each upload is read into a run folder of its own (scans/run-N: the scan's answers, review
items, crops, and the pages upright for a spot check), and every sheet it holds is saved as
if typed: accepted values, blanks, and the boxes in review empty (null). A box is still to
review while its saved cell is null; confirming it saves the sheet again, so the class page's
grades follow, and the later boxes' expected values (carried from the student's own cells)
follow the confirmed ones. A sheet scanned again is read again: the later run wins.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from generator.app.classroom import Graded, grade_sheet, save_sheet
from generator.app.store import NotFound, Store, StoredBatch
from generator.core.answers import cell_at, put_cell
from generator.core.errors import AttnsheetError
from generator.core.formats import problem_from_json
from generator.core.registry import solve
from generator.core.student import Student
from generator.core.grade import step_label
from generator.output.files import ensure_folder, owner_tag, reason, tag_alive, write_atomic
from generator.output.manifest import code_key
from generator.scan.limits import MAX_PAGES
from generator.sheet.model import Settings

RUN = re.compile(r"run-\d{1,6}")
"""A run folder's name: the only names joined into a path under a batch's scans/."""
MAX_VALUE = 1000
"""The longest value a box is said to hold (a sheet's largest power has 287 digits)."""
FILE = re.compile(r"[0-9A-Za-z_.-]{1,120}\.(png|jpg)")
"""A crop's or a page picture's name."""


@dataclass(frozen=True)
class Item:
    """A box to review: where it is, its crop, its expected value now."""

    run: str
    code: str
    index: int
    name: str
    head: Optional[int]
    step: str
    label: str
    """The step as the gradebook names it (h2 Q, Z concat)."""
    row: int
    col: int
    crop: str
    expected: str
    reads: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.index}:{self.head or 0}:{self.step}:{self.row}:{self.col}"


def scans_folder(batch: StoredBatch) -> Path:
    """Where a batch's scan runs are kept."""
    return batch.folder / "scans"


def runs(batch: StoredBatch, finished: bool = True) -> list[str]:
    """The batch's scan runs, oldest first: those done (their summary written), or all of them."""
    folder = scans_folder(batch)
    found = [p.name for p in folder.iterdir() if p.is_dir() and RUN.fullmatch(p.name)
             and (not finished or (p / "summary.json").is_file())] if folder.is_dir() else []
    return sorted(found, key=lambda name: int(name.split("-")[1]))


OWNER = ".owner"
"""A run's file naming the process reading it (PID@HOST), until its summary says it is done."""


def new_run(batch: StoredBatch) -> Path:
    """A fresh run folder, made by this process alone (two uploads at once never share one)."""
    ensure_folder(scans_folder(batch))
    for _ in range(1000):
        taken = runs(batch, finished=False)
        number = int(taken[-1].split("-")[1]) + 1 if taken else 1
        folder = scans_folder(batch) / f"run-{number}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as error:
            raise AttnsheetError(f"cannot keep the scans: {reason(error)}") from None
        (folder / OWNER).write_text(owner_tag(), encoding="ascii")
        return folder
    raise AttnsheetError("cannot keep the scans: no free run folder")


def finish_runs(store: Store) -> list[str]:
    """What killed runs of scans left, put right (at a server's start): a run read whole but not
    yet saved is saved (nothing twice) and marked done; a run cut short is removed, its uploads
    with it (the teacher uploads again). A run another live process is reading is left alone.
    The runs put right, as batch/run."""
    done = []
    queued = store.queued_runs()  # a job reads these: it is resumed, not put right here
    for name in store.ids():
        batch = store.batch(name)
        for run in runs(batch, finished=False):
            folder = scans_folder(batch) / run
            if (folder / "summary.json").exists() or (name, run) in queued:
                continue
            owner = folder / OWNER
            try:
                tag = owner.read_text(encoding="ascii")
            except OSError:
                tag = ""
            if tag and tag_alive(tag, owner):
                continue
            saving = folder / "saving.json"
            if saving.is_file():
                step = json.loads(saving.read_text(encoding="utf-8"))
                save_run(store, batch, folder, bool(step.get("replace")), bool(step.get("again")))
                write_json(folder / "summary.json", {"line": step.get("line", "")})
            else:
                shutil.rmtree(folder, ignore_errors=True)
            done.append(f"{name}/{run}")
    return done


def latest_runs(batch: StoredBatch) -> dict[str, str]:
    """Each sheet's code key → the run that read it last (a later scan of a sheet wins)."""
    latest: dict[str, str] = {}
    for run in runs(batch):
        try:
            pages = json.loads((scans_folder(batch) / run / "pages.json").read_text(encoding="utf-8"))["pages"]
        except (OSError, ValueError, KeyError):
            continue
        for page in pages:
            if page.get("code") and not page.get("why", "").startswith("not "):
                latest[code_key(page["code"])] = run
    return latest


def _keep_said(kept, read):
    """A read of the same pages again with what the kept revision says where the read is unsure
    (a box reviewed since stays as the teacher said it)."""
    if isinstance(read, dict):
        return {k: v if k == "student" else _keep_said(kept.get(k) if isinstance(kept, dict) else None, v)
                for k, v in read.items()}
    if isinstance(read, list):
        return [_keep_said(kept[i] if isinstance(kept, list) and i < len(kept) else None, v) for i, v in enumerate(read)]
    return kept if read is None and kept is not None and not isinstance(kept, (dict, list)) else read


def save_run(store: Store, batch: StoredBatch, run: Path, replace_typed: bool = False, again: bool = False) -> int:
    """Saves every sheet a run read (its boxes in review left empty), each as a scan's revision:
    current, or beside what was typed or handed in (`replace_typed`: the scan takes the place of
    what the teacher typed); how many. Saving a run again saves nothing twice. `again`: the run
    reads the same uploads as an earlier one (a page assigned since), so what was reviewed stays."""
    by_code = {code_key(s["code"]): s for s in batch.sheets}
    saved = 0
    for path in sorted((run / "answers").glob("*.json")):
        answers = json.loads(path.read_text(encoding="utf-8"))
        sheet = by_code.get(code_key(str(answers.get("code", ""))))
        if sheet is None:
            continue
        latest = store.latest(batch, sheet, "scan")
        if again and latest is not None:
            answers = _keep_said(latest[1], answers)
        if latest is None or not _same_read(latest[1], answers):
            save_sheet(store, batch, sheet, answers, source="scan", replace_typed=replace_typed)
        saved += 1
    return saved


def _same_read(kept: dict, read: dict) -> bool:
    """Whether a kept scan revision is this read (its reviewed boxes may since hold values)."""
    def same(a, b) -> bool:
        if isinstance(b, dict):
            return isinstance(a, dict) and all(same(a.get(k), v) for k, v in b.items() if k != "student")
        if isinstance(b, list):
            return isinstance(a, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return b is None or a == b
    return same(kept, read)


def scan_answers(store: Store, batch: StoredBatch, sheet: dict) -> Optional[tuple[int, dict]]:
    """A sheet's newest scan revision (its id and answers@1) while it is in use or waiting for the
    teacher: the one its review confirms boxes in; None when none is (or the teacher left it)."""
    latest = store.latest(batch, sheet, "scan")
    if latest is None or latest[2] not in ("current", "conflict"):
        return None
    return latest[0], latest[1]


def review_items(store: Store, batch: StoredBatch) -> list[Item]:
    """Every box still to review, in working order (step by step, then sheet by sheet)."""
    latest = latest_runs(batch)
    by_code = {code_key(s["code"]): s for s in batch.sheets}
    items, expected = [], {}
    for run in sorted(set(latest.values()), key=lambda name: int(name.split("-")[1])):
        path = scans_folder(batch) / run / "review.json"
        try:
            found = json.loads(path.read_text(encoding="utf-8"))["items"]
        except (OSError, ValueError, KeyError):
            continue
        for item in found:
            key = code_key(str(item["code"]))
            sheet = by_code.get(key)
            if sheet is None or latest.get(key) != run:
                continue
            kept = scan_answers(store, batch, sheet)
            if kept is None:
                continue
            answers = kept[1]
            if cell_at(answers, item["head"], item["step"], item["row"] - 1, item["col"] - 1) is not None:
                continue  # confirmed since
            if key not in expected:
                expected[key] = grade_sheet(sheet, answers, batch.trivial)
            graded = expected[key]
            items.append(Item(run, sheet["code"], int(sheet["index"]), str(sheet["student"].get("name", "")),
                              item["head"], item["step"], "", item["row"], item["col"],
                              item["crop"].rsplit("/", 1)[-1],
                              cell_at(graded.expected, item["head"], item["step"], item["row"] - 1, item["col"] - 1) or "",
                              tuple(r["text"] for r in item.get("reads", ())[:3])))
    if not items:
        return []
    steps = [(s["head"], s["step"]) for s in next(iter(expected.values())).grade["steps"]]
    heads = max((h or 0 for h, _ in steps), default=0)
    order = {key: n for n, key in enumerate(steps)}
    items = [Item(**{**i.__dict__, "label": step_label(i.head, i.step, heads)}) for i in items]
    return sorted(items, key=lambda i: (order.get((i.head, i.step), 99), i.index, i.row, i.col))


def confirm(store: Store, batch: StoredBatch, key: str, value: str, was: Optional[str] = None) -> tuple[Graded, dict]:
    """Says what box `key` holds (`value`; "" for blank); the sheet saved again and graded; each of
    its cells' expected value now, as `Graded.expected` has them. A box said already is said again
    (an undo) only with `was`, what it was said to hold: a page open in two tabs never overwrites
    unseen."""
    try:
        index, head, step, row, col = key.split(":")
        head_n, row_n, col_n = int(head) or None, int(row), int(col)
    except ValueError:
        raise AttnsheetError("no such box") from None
    batch_, sheet = store.sheet(batch.id, index)
    kept = scan_answers(store, batch_, sheet)
    if kept is None:
        raise NotFound("this sheet has no scan to review")
    rev, answers = kept
    try:
        now = cell_at(answers, head_n, step, row_n - 1, col_n - 1)
        if now is not None and (was is None or str(now) != was):
            raise AttnsheetError("this box was confirmed already: reload the page")
        if len(value) > MAX_VALUE:  # never cut: a cut number is another number
            raise AttnsheetError(f"a value of at most {MAX_VALUE} characters, please")
        put_cell(answers, head_n, step, row_n - 1, col_n - 1, value)
    except (KeyError, IndexError, TypeError):
        raise AttnsheetError("no such box") from None
    graded = grade_sheet(sheet, answers, batch_.trivial)
    store.replace_revision(batch_, rev, graded.answers, graded.grade)
    return graded, graded.expected


def page_pictures(batch: StoredBatch, code: str) -> list[tuple[str, str]]:
    """A sheet's upright pages from the run that read it last: (run, picture name), page by page."""
    run = latest_runs(batch).get(code_key(code))
    if run is None:
        return []
    folder = scans_folder(batch) / run / "pages"
    return [(run, p.name) for p in sorted(folder.glob(f"{code_key(code)}-p*.jpg"))]


def run_file(batch: StoredBatch, run: str, kind: str, name: str) -> Path:
    """A crop or a page picture of a run, by name; never a path out of the run."""
    if not RUN.fullmatch(run) or kind not in ("crops", "pages") or not FILE.fullmatch(name):
        raise NotFound("no such file")
    path = scans_folder(batch) / run / kind / name
    if not path.is_file():
        raise NotFound("no such file")
    return path


def write_json(path: Path, value) -> None:
    write_atomic(path, (json.dumps(value, ensure_ascii=False) + "\n").encode(), force=True)


def run_summary(batch: StoredBatch, run: str) -> str:
    """A finished run's summary line ("" for no run, or one not finished)."""
    if not RUN.fullmatch(run):
        return ""
    try:
        return str(json.loads((scans_folder(batch) / run / "summary.json").read_text(encoding="utf-8"))["line"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""


SLICE = 8
"""Pages read before a scan hands the render lock on to whoever waits (a batch waits at most a slice)."""


def check_pile(paths: list[Path], max_pages: int) -> int:
    """How many pages an upload holds; InputError, in one line, when it holds more than `max_pages`
    or more pixels than such a pile may (its files' headers alone are read)."""
    from generator.scan.limits import Limits, survey

    return survey(paths, Limits(pages=max_pages))


def read_upload(store: Store, batch: StoredBatch, paths: list[Path], run: Path, replace_typed: bool = False,
                hand_on=None, progress=None, assigned: Sequence[Sequence] = (), max_pages: int = MAX_PAGES) -> str:
    """Reads the uploaded pages into `run`, saves the sheets they hold, and marks the run done
    (its summary, last: a run without one is finished or removed at the next start); the summary
    line. `hand_on` is called after every SLICE pages, so long work waiting behind a pile goes first;
    `progress`, with the pages read so far; `assigned`, pages the teacher said are which
    ([upload, page, code, sheet page] each: the uploads of an earlier run read again)."""
    from generator.scan.limits import Limits
    from generator.scan.pipeline import Catalogue
    from generator.scan.run import scan_folder, sources_of

    sources = sources_of(batch.manifest, batch.listed())
    links = {link.token: link.code for link in store.links(batch).values()}
    settings = batch.manifest["settings"]
    catalogue = Catalogue(sources, Settings(paper=settings["paper"], lang=settings["lang"]), links=links)

    def read(done: int) -> None:
        if progress is not None:
            progress(done)
        if hand_on is not None and done % SLICE == 0:
            hand_on()

    by_name = {p.name: str(p) for p in paths}
    by_hand = {(by_name[f], int(p)): (str(c), int(n)) for f, p, c, n in assigned if f in by_name}
    summary = scan_folder(paths, catalogue, run, force=True, progress=read, keep_pages=True, assigned=by_hand,
                          limits=Limits(pages=max_pages))
    # The line names each upload as the review does (001.pdf), never by its path on the server.
    line = summary.line
    for path in paths:
        line = line.replace(str(path), path.name)
    write_json(run / "saving.json", {"line": line, "replace": replace_typed, "again": bool(assigned)})
    save_run(store, batch, run, replace_typed, again=bool(assigned))
    write_json(run / "summary.json", {"line": line})
    return line


def sheet_geometry(batch: StoredBatch, sheet: dict):
    """A sheet's pages' boxes, laid out again as its batch printed it."""
    from generator.output.boxes import NoGeometry, worksheet_boxes

    problem = problem_from_json(sheet["problem"])
    settings = batch.manifest["settings"]
    try:
        return worksheet_boxes(problem, solve(problem), Student(), Settings(paper=settings["paper"],
                                                                            lang=settings["lang"]))
    except NoGeometry as error:
        raise AttnsheetError(str(error)) from None


def box_value(cells: dict, head, step: str, row: int, col: int):
    """A box's value in grade@1's cells or answers@1 (1-based row and column), "" where it has none."""
    try:
        return cell_at(cells, head, step, row - 1, col - 1)
    except (KeyError, IndexError, TypeError):
        return ""


def scanned_sheets(batch: StoredBatch) -> set[int]:
    """The sheets of a batch that a scan has read (their spot-check link)."""
    read = latest_runs(batch)
    return {int(s["index"]) for s in batch.sheets if code_key(s["code"]) in read}
