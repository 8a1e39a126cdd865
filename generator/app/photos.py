"""A photo of a paper sheet a student hands in from a phone: checked, read as one page of a scan, kept with the sheet.

The photo is found as a scanned page is (its corner marks and QR code find it, whatever the angle
or the way up), but against this student's sheet alone: a photo of another sheet, or of another
page of theirs, is refused in words that name no one else. What is read goes back to the student's
page, each box sure or unsure (a best guess to confirm); the student confirms or corrects, then
hands in as they would have typed. Sure is the reader's own certainty of what is written, never
verification's: a scan's verification accepts a read that matches the key or what the student's
own earlier boxes carry, so its marks, shown before the hand-in, would tell the student which boxes
are right whatever the class's policy (a photo a minute, no attempt counted). The picture is kept
in the batch's folder (photos/), re-encoded (no camera metadata kept), with what was read, so the
teacher sees where the hand-in and the paper differ; deleting the batch deletes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from generator.app.store import StoredBatch
from generator.core.formats import problem_from_json
from generator.core.student import student_of
from generator.output.manifest import code_key
from generator.scan.guesses import likeliest
from generator.scan.verify import alone
from generator.scan.photo import MAX_PHOTO_BYTES, PhotoError, checked, decoded, evened, jpeg, too_dark, why_unread

__all__ = [
    "MAX_PHOTO_BYTES",
    "asked",
    "wrong_boxes",
    "PhotoBox",
    "PhotoError",
    "differences",
    "handed_photos",
    "handed_with",
    "photo_files",
    "photo_log",
    "photo_reads",
    "photo_answer",
    "photo_path",
    "queue_photo",
    "read_photo",
    "read_queued",
    "warm_reader",
]

PER_MINUTE = 6
"""Photos one sheet may send in a minute (a page retaken, another page): more is refused."""


@dataclass(frozen=True)
class PhotoBox:
    """One box as the photo shows it."""

    head: Optional[int]
    step: str
    i: int
    j: int
    value: str
    """What the reader read ("" for a blank box); for an unsure box, its best guess."""
    sure: bool
    """Read with certainty (verify.alone: by its own reads, asking no key), or to be confirmed by the student."""
    others: tuple[str, ...] = ()
    """An unsure box's next likeliest reads, OTHERS at most: the student picks one with a tap."""


def queue_photo(store, batch: StoredBatch, sheet: dict, token: str, content: bytes, page: int = 1) -> int:
    """A student's photo checked at once (a picture, within the limits, the sheet's sixth this minute
    at most) and queued to be read on the server's queue; the job's id (photo_answer says what became of it)."""
    checked(content)
    index = int(sheet["index"])
    sent = [
        p for p in store.recent("photo", time.time() - 60) if p.get("batch") == batch.id and p.get("index") == index
    ]
    if len(sent) >= PER_MINUTE:
        raise PhotoError(f"{PER_MINUTE} photos of this sheet in a minute already: wait a minute and take it again")
    # No batch of its own for the job: the class's page shows the progress of making and reading it, not of this.
    params = {"batch": batch.id, "index": index, "token": token, "page": int(page)}
    return store.submit("photo", params, inputs=pickle.dumps(bytes(content), protocol=pickle.HIGHEST_PROTOCOL))


def read_queued(store, params: dict, content: bytes, workers=None) -> dict:
    """A queued photo read by whichever runner took its job (the server's own, or a worker); with
    `workers` (the server's kept job processes), in one of them while one is free."""
    batch, sheet = store.sheet(params["batch"], str(params["index"]))
    args = (batch, sheet, str(params["token"]), content, int(params["page"]))
    if workers is not None:
        with workers.spare() as pool:
            if pool is not None:  # a core of its own: the server's process reads another, and answers the pages
                return pool.submit(read_photo, *args).result()
    return read_photo(*args)


def warm_reader() -> None:
    """The reader's modules and network loaded, so a process's first photo is read as fast as the next."""
    from generator.scan import pages, pipeline  # noqa: F401  (their imports are most of a first read's time)
    from generator.scan.recognize import model

    model()


def photo_answer(store, token: str, job_id: int) -> Optional[dict]:
    """What became of a photo the student of `token` sent: None while it waits or is read, what was
    read once it is, PhotoError (its one line) where it could not be used. Another link's photo is no such photo."""
    from generator.app.store import NotFound

    params = store.job_params(job_id)
    if params.get("token") != token or "index" not in params:
        raise NotFound("no such photo")
    job = store.job(job_id)
    if job.kind != "photo":
        raise NotFound("no such photo")
    if not job.finished:
        return None
    if job.state != "done":
        raise PhotoError(job.error or "this photo could not be read: take it again")
    return job.result


def read_photo(batch: StoredBatch, sheet: dict, token: str, content: bytes, page: int = 1) -> dict:
    """A student's photo of page `page` of their own sheet, read: its boxes (sure or unsure), the
    picture kept in the batch's photos/ folder; PhotoError (nothing kept) where it cannot be used."""
    reads, pages, colour = photo_reads(batch, sheet, token, content, page)
    boxes = [marked(key, read) for key, read in reads.items()]
    folder = batch.folder / "photos"
    index = int(sheet["index"])
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{index:03d}-p{page}-{time.time_ns()}.jpg"
    from generator.output.files import write_atomic

    write_atomic(folder / name, jpeg(colour))  # re-encoded: no camera metadata kept
    entry = {
        "file": name,
        "page": page,
        "pages": pages,
        "taken": time.time(),
        "handed": None,
        "boxes": [box.__dict__ for box in boxes],
    }
    with _log_lock(batch, index):
        log = photo_log(batch, index)
        write_atomic(folder / f"{index:03d}.json", (json.dumps(log + [entry]) + "\n").encode(), force=True)
    return {"photo": name, "page": page, "pages": pages, "boxes": [box.__dict__ for box in boxes]}


def photo_reads(batch: StoredBatch, sheet: dict, token: str, content: bytes, page: int = 1) -> tuple:
    """What a photo of page `page` of a student's own sheet shows: its boxes as read (weighed by the
    writer's own other characters), the sheet's count of pages and the picture in colour; PhotoError
    where it cannot be used."""
    from generator.scan.pages import ScanPage
    from generator.scan.pipeline import Catalogue, Scanner, Source, in_hand
    from generator.sheet.model import Settings

    grey, colour = decoded(content)
    if too_dark(grey):  # read anyway, its boxes would be guesses: said at once
        raise PhotoError(why_unread(grey))
    problem = problem_from_json(sheet["problem"])
    student = student_of(sheet["student"])
    settings = Settings(paper=batch.manifest["settings"]["paper"], lang=batch.manifest["settings"]["lang"])
    # This sheet alone, named by its code or by its student's link (the QR code of a web batch's sheet).
    source = Source(sheet["code"], int(sheet["index"]), problem, student)
    scanner = Scanner(Catalogue([source], settings, links={token.lower(): code_key(sheet["code"])}), marks=True)
    report = scanner.add(ScanPage("photo", 1, evened(grey)))  # a phone's light is no scanner's: evened first
    if not report.identified:
        why = report.why
        if "not in the manifest" in why or "student's link of another" in why:
            raise PhotoError(
                f"this photo shows another sheet: photograph your own worksheet (its code is {sheet['code']})"
            )
        raise PhotoError(why_unread(grey))
    scanned = scanner.sheets[code_key(sheet["code"])]
    if report.sheet_page != page:
        raise PhotoError(
            f"this photo shows page {report.sheet_page} of your sheet, not page {page}: choose page "
            f"{report.sheet_page}, or photograph page {page}"
        )
    in_hand(scanned)  # the writer's own other characters weigh in
    return {key: read for key, read in scanned.reads.items() if scanned.boxes[key] == page}, scanned.pages, colour


def marked(key, read) -> PhotoBox:
    """One box as the photo shows it, sure where the reader is SURE of its own read (a blank box is
    sure) and its digits are all of one writing (a struck-out value's are not: `CellRead.stray`)."""
    if read.blank:
        return PhotoBox(*key, "", True)
    text, share = alone(read)
    if share >= SURE and not read.stray:
        return PhotoBox(*key, text, True)
    reads = likeliest(read, OTHERS + 1)
    return PhotoBox(*key, reads[0] if reads else "", False, tuple(reads[1:]))


OTHERS = 3
"""The other reads of an unsure box offered to the student (bench/photo_marks.py's 152-box sheets:
where the guess is wrong, what people's held-out digits wrote is among the next three in 23 of 35
boxes, the held-out faces' in 18 of 58, the project's writers' in 2 of 10)."""


SURE = 0.995
"""The share of a box's number-like reads that must stand for its likeliest number for the phone to
call it sure. bench/photo_marks.py, every kind photographed under a phone's conditions, three sheets
each by the project's writers, the held-out faces and people's digits (270 sheets): at 0.995, 8
boxes called sure other than what was written, all in hands the network never learned from, every
one a box `asked` shows the teacher; the issue's 152-box sheet 3-39 taps by the project's writers;
at 0.998 those sheets 4-43 taps and 5 such boxes; at 0.99, 12."""


def photo_log(batch: StoredBatch, index: int) -> list[dict]:
    """Every photo a sheet's student has sent, oldest first: its file, page, when, what was read,
    and the hand-in it went with (None until then)."""
    path = batch.folder / "photos" / f"{index:03d}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []


def handed_with(batch: StoredBatch, index: int, names: list, answers: dict, rev: Optional[int] = None) -> None:
    """Mark the photos a hand-in went with (`names`, as read_photo returned them), with what was
    handed in and its revision (the sheet's history says it came from a photo)."""
    from generator.output.files import write_atomic

    wanted = {str(n) for n in names}
    if not wanted or not (batch.folder / "photos").is_dir():
        return
    handed = {"at": time.time(), "answers": answers, "rev": rev}  # one moment: the photos of one hand-in
    with _log_lock(batch, index):
        log = photo_log(batch, index)
        changed = False
        for entry in log:
            if entry["file"] in wanted:
                entry["handed"] = handed
                changed = True
        if changed:
            write_atomic(batch.folder / "photos" / f"{index:03d}.json", (json.dumps(log) + "\n").encode(), force=True)


@contextlib.contextmanager
def _log_lock(batch: StoredBatch, index: int) -> Iterator[None]:
    """A sheet's photo log held by one process at a time (two pages read at once by two runners, or
    a hand-in marking its photos as one is read: neither loses the other's entry)."""
    with open(batch.folder / "photos" / f".{index:03d}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _same(a: str, b: str) -> bool:
    """Whether two writings of a box are the same (a decimal comma or point, − or -, spacing aside)."""

    def plain(text: str) -> str:
        return " ".join(text.replace("−", "-").replace(",", ".").split())

    return plain(a) == plain(b)


def differences(entry: dict) -> list[dict]:
    """The boxes the photo read surely whose handed-in value is not what it read: where the phone
    says one thing and the paper another (each with what was read and what was handed in)."""
    from generator.core.answers import cell_at

    handed = (entry.get("handed") or {}).get("answers")
    if not handed:
        return []
    out = []
    for box in entry["boxes"]:
        if not box["sure"]:  # a guess the student corrected says nothing of the paper
            continue
        try:
            given = cell_at(handed, box["head"], box["step"], box["i"], box["j"])
        except (KeyError, IndexError, TypeError):  # a grid the hand-in left out
            given = None
        if not _same(str(given or ""), box["value"]):
            out.append({**box, "handed": "" if given is None else str(given)})
    return out


def wrong_boxes(sheet: dict, answers: dict) -> frozenset:
    """The boxes a hand-in gets wrong: neither the key's value nor what its own earlier boxes give."""
    from generator.core.answers import cell_at
    from generator.core.cells import read_cell_text
    from generator.core.registry import grade
    from generator.scan.verify import answers_of, empty_grids

    problem, student = problem_from_json(sheet["problem"]), student_of(sheet["student"])
    grids = empty_grids(problem)
    for (head, step), grid in grids.items():
        for i, row in enumerate(grid):
            for j in range(len(row)):
                try:
                    row[j] = read_cell_text(str(cell_at(answers, head, step, i, j) or ""))
                except (KeyError, IndexError, TypeError):  # a grid the hand-in left out
                    pass
    steps = grade(problem, answers_of(problem, grids, sheet["code"], student)).steps
    return frozenset(
        (s.head, s.step, i, j)
        for s in steps
        for i, row in enumerate(s.verdicts)
        for j, v in enumerate(row)
        if v == "wrong"
    )


def asked(entry: dict, wrong: frozenset) -> list[dict]:
    """The boxes handed in as the phone surely read them that the hand-in gets wrong (`wrong`, as
    wrong_boxes gives it): the student's mistakes, or a misread the reader was sure of (a hand it
    never learned from); the photo says which. Each with what was read. The teacher's alone:
    before the hand-in, this would say which boxes are right."""
    changed = {(d["head"], d["step"], d["i"], d["j"]) for d in differences(entry)}
    at = [(box, (box["head"], box["step"], box["i"], box["j"])) for box in entry["boxes"]]
    return [box for box, key in at if box["sure"] and key in wrong and key not in changed]


def handed_photos(batch: StoredBatch, sheet: dict) -> tuple[list[dict], set]:
    """The last hand-in's photos, a page each, each with the boxes where the hand-in is not what the
    photo read (`differs`) and those it gets wrong as the photo surely read them (`asked`); and the
    revisions handed in with a photo (the sheet's history says so)."""
    handed = [entry for entry in photo_log(batch, int(sheet["index"])) if entry.get("handed")]
    if not handed:
        return [], set()
    last = [entry for entry in handed if entry["handed"].get("at") == handed[-1]["handed"].get("at")]
    wrong = wrong_boxes(sheet, last[0]["handed"]["answers"])
    shown = [{**entry, "differs": differences(entry), "asked": asked(entry, wrong)} for entry in last]
    return shown, {entry["handed"].get("rev") for entry in handed}


def photo_path(batch: StoredBatch, name: str) -> Path:
    """A kept photo's file, if `name` is one of the batch's photos (never a path out of its folder)."""
    from generator.app.store import NotFound

    folder = batch.folder / "photos"
    if not name.endswith(".jpg") or "/" in name or "\\" in name or name.startswith("."):
        raise NotFound("no such photo")
    path = folder / name
    if not path.resolve().is_relative_to(folder.resolve()) or not path.is_file():
        raise NotFound("no such photo")
    return path


def photo_files(batch: StoredBatch) -> list[str]:
    """The batch's kept photos and their logs, by name (what an export of the batch includes)."""
    folder = batch.folder / "photos"
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".") and p.suffix in (".jpg", ".json")
    )
