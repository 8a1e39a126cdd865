"""A student hands in a photo of their paper sheet (issue 58): read as a scanned page under a phone's conditions, unsure boxes left to confirm, refused in one line with nothing kept, the picture kept with the hand-in."""

from __future__ import annotations

import collections

import io
import json
import time
import re
import struct
import zipfile
import zlib

import cv2
import numpy as np
import pytest
from starlette.testclient import TestClient
from waiting import made

from generator.app.classroom import grade_sheet
from generator.core.answers import cell_at
from generator.app.store import Store
from generator.core.cells import read_cell_text
from generator.core.formats import problem_from_json
from generator.core.grade import matches
from generator.core.registry import grade
from generator.core.student import Student
from generator.scan.verify import answers_of, empty_grids
from generator.scan.synthetic import filled_sheets
from generator.web.app import create_app


@pytest.fixture
def school(tmp_path):
    """A class of two, its own each test (a sheet takes six photos a minute), drawn from a fixed server
    secret: the same photos every run."""
    store = Store(fixed_secret(tmp_path / "data"))
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "5"}))
    batch = store.batch(location.rsplit("/", 1)[1])
    return store, web, batch


def fixed_secret(data):
    """A data folder whose server secret is fixed: a web class's numbers come from it, so the same
    numbers, and the same photos, every run."""
    data.mkdir(parents=True)
    secret = data / "secret"
    secret.write_text("5eed" * 16 + "\n", encoding="ascii")
    secret.chmod(0o600)
    return data


def lit(page: np.ndarray, light: str) -> np.ndarray:
    """A photographed page under a phone's light: a shadow over a third of it (a hand, the phone),
    light falling off across it, or both."""
    h, w = page.shape[:2]
    shadow = np.ones((h, w), np.float32)
    shadow[:, : w // 3] = 0.55
    shadow = cv2.GaussianBlur(shadow, (0, 0), 25)
    falling = (
        np.linspace(1.0, 0.75, h, dtype=np.float32)[:, None] * np.linspace(0.85, 1.0, w, dtype=np.float32)[None, :]
    )
    factor = {"shadow": shadow, "uneven": falling, "both": shadow * falling}[light]
    return np.clip(page.astype(np.float32) * (factor if page.ndim == 2 else factor[..., None]), 0, 255).astype(np.uint8)


def photographed(batch, light: str = "", **scan) -> tuple:
    """Sheet 1 filled in by its writer and photographed (`scan`: synthetic.scanned's settings;
    `light`: a shadow or uneven light over it), as a JPEG."""
    filled = next(filled_sheets(batch.folder, seed=3, scan={"dpi": 200, "quality": 70, **scan}))
    page = lit(filled.pages[0], light) if light else filled.pages[0]
    return filled, cv2.imencode(".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()


def alike(read: str, written: str) -> bool:
    """Whether a box read says what was written ("3/250 0,01" read as "3/250 0.01": a decimal comma
    or point, − or -, spacing aside)."""

    def plain(text: str) -> str:
        return " ".join(text.replace("−", "-").replace(",", ".").split())

    return plain(read) == plain(written)


def send(web, token: str, content: bytes, page: str = "1", name: str = "photo.jpg"):
    """A photo sent as the student's page sends it, and what the server answers once it is read (it
    is read on the server's queue: the page asks again while the answer is 202)."""
    answer = web.post(
        f"/api/s/{token}/photo",
        files={"photo": (name, content, "image/jpeg")},
        data={"page": page},
        headers={"x-csrf-token": web.csrf},
    )
    deadline = time.monotonic() + 120
    poll = answer.json().get("poll") if answer.status_code == 202 else None
    while answer.status_code == 202:
        assert time.monotonic() < deadline, "the photo was never read"
        time.sleep(0.05)
        answer = web.get(poll)
    return answer


def kept(store, batch) -> list[str]:
    folder = store.batch(batch.id).folder / "photos"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def token_of(store, batch, code: str) -> str:
    index = next(int(s["index"]) for s in batch.sheets if s["code"] == code)
    return store.links(batch)[index].token


@pytest.mark.parametrize(
    "scan",
    [
        {"photo": True, "angle": 8},
        {"photo": True, "angle": -4, "quarter": True},
        {"angle": 180},
        {"photo": True, "angle": 3, "dpi": 300},
        {"photo": True, "angle": 6, "light": "shadow"},
        {"photo": True, "angle": 6, "light": "both"},
    ],
    ids=["angle", "turned-90", "upside-down", "12-megapixels", "shadow-over-a-third", "shadow-and-uneven-light"],
)
def test_a_photo_of_the_sheet_is_read_and_nothing_sure_is_other_than_what_was_written(school, scan):
    store, web, batch = school
    filled, content = photographed(batch, **scan)
    answer = send(web, token_of(store, batch, filled.code), content)
    assert answer.status_code == 200, answer.text
    read = answer.json()
    boxes = read["boxes"]
    assert read["page"] == 1 and len(boxes) == len(filled.written)
    wrong = [
        (b, filled.text((b["head"], b["step"], b["i"], b["j"])))
        for b in boxes
        if b["sure"] and not alike(b["value"], filled.text((b["head"], b["step"], b["i"], b["j"])))
    ]
    assert not wrong, wrong[:3]  # the scans' rule: no box accepted other than what was written
    assert sum(b["sure"] for b in boxes) > len(boxes) / 2
    assert read["photo"] in kept(store, batch)


def test_a_box_written_wrong_is_marked_as_one_written_right(school):
    """The marks come before the hand-in, so they say nothing of the key: the student's own mistakes
    (boxes matching neither the key nor what their earlier boxes carry) are called sure as surely as
    the right ones, where the reader is sure of what is written; verification's marks never did."""
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=5)
    boxes = send(web, token_of(store, batch, filled.code), content).json()["boxes"]
    problem = problem_from_json(next(s for s in batch.sheets if s["code"] == filled.code)["problem"])
    grids = empty_grids(problem)
    for head, step, i, j in filled.written:
        grids[(head, step)][i][j] = read_cell_text(filled.text((head, step, i, j)))
    graded = grade(problem, answers_of(problem, grids, None, Student())).steps
    ruled = {
        (s.head, s.step, i, j): (s.expected[i][j], s.carried[i][j])
        for s in graded
        for i in range(len(s.expected))
        for j in range(len(s.expected[i]))
    }
    mistakes = []
    for b in boxes:
        key = (b["head"], b["step"], b["i"], b["j"])
        written = read_cell_text(filled.text(key))
        if written.kind == "value" and not any(v is not None and matches(written, v) for v in ruled[key]):
            mistakes.append((b, filled.text(key)))
    assert len(mistakes) >= 2 and any(b["sure"] for b, _ in mistakes), mistakes
    assert all(alike(b["value"], text) for b, text in mistakes if b["sure"])


def test_a_blank_worksheet_reads_as_blank_and_a_heic_photo_is_read(school):
    store, web, batch = school
    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    filled, content = photographed(batch, photo=True, angle=5)
    picture = Image.open(io.BytesIO(content))
    heic = io.BytesIO()
    picture.save(heic, format="HEIF", quality=80)
    answer = send(web, token_of(store, batch, filled.code), heic.getvalue(), name="IMG_0001.HEIC")
    assert answer.status_code == 200, answer.text
    # A worksheet printed and photographed before anything was written: every box blank, none refused.
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(batch.folder / "worksheets.pdf"))
    sheet = batch.sheets[1]
    grey = np.array(pdf[sheet["worksheet"]["first_page"] - 1].render(scale=200 / 72, grayscale=True).to_numpy())
    pdf.close()
    blank = send(web, store.links(batch)[int(sheet["index"])].token, cv2.imencode(".jpg", grey)[1].tobytes())
    assert blank.status_code == 200, blank.text
    assert all(b["value"] == "" and b["sure"] for b in blank.json()["boxes"])


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares `width` × `height` pixels (and holds almost none)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


def test_what_cannot_be_used_is_refused_in_one_line_and_nothing_is_kept(school):
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=6)
    other = next(s for s in batch.sheets if s["code"] != filled.code)
    mine = token_of(store, batch, filled.code)
    theirs = store.links(batch)[int(other["index"])].token
    before = kept(store, batch)
    desk = cv2.imencode(".jpg", np.full((1800, 1400, 3), 128, np.uint8))[1].tobytes()
    cases = [
        (theirs, content, "1", "this photo shows another sheet"),
        (mine, content, "2", "this photo shows page 1 of your sheet, not page 2"),
        (mine, b"%PDF-1.4 not a photo", "1", "not a picture the reader knows"),
        (mine, png_declaring(9000, 9000), "1", "more than 50 megapixels"),
        (mine, cv2.imencode(".jpg", np.full((300, 200), 250, np.uint8))[1].tobytes(), "1", "too small"),
        (mine, desk, "1", "shows no sheet"),
        (mine, cv2.imencode(".jpg", (filled.pages[0] // 8).astype(np.uint8))[1].tobytes(), "1", "too dark"),
    ]
    for token, data, page, words in cases:
        answer = send(web, token, data, page)
        assert answer.status_code == 400 and words in answer.json()["error"], (words, answer.text)
        assert "\n" not in answer.json()["error"]
        assert other["student"].get("name", "") not in answer.json()["error"] or not other["student"].get("name")
    assert kept(store, batch) == before
    huge = web.post(
        f"/api/s/{mine}/photo",
        files={"photo": ("big.jpg", b"\xff" * (22 * 1024 * 1024), "image/jpeg")},
        headers={"x-csrf-token": web.csrf},
    )
    assert huge.status_code == 413 and kept(store, batch) == before


def test_the_photo_is_kept_with_the_hand_in_and_the_teacher_sees_where_it_differs(school):
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=4)
    token = token_of(store, batch, filled.code)
    read = send(web, token, content).json()
    index = next(int(s["index"]) for s in batch.sheets if s["code"] == filled.code)
    sheet = next(s for s in batch.sheets if s["code"] == filled.code)
    from generator.core.answers import skeleton
    from generator.core.formats import problem_from_json

    problem = problem_from_json(sheet["problem"])
    answers = filled.typed(skeleton(problem, problem.code))  # the student confirmed what they wrote
    changed = next(b for b in read["boxes"] if b["sure"] and b["value"])
    from generator.core.answers import put_cell

    put_cell(
        answers, changed["head"], changed["step"], changed["i"], changed["j"], "99"
    )  # and changed one on the phone
    answers.pop("problem", None)
    handed = web.post(
        f"/api/s/{token}/handin", json={**answers, "photos": [read["photo"]]}, headers={"x-csrf-token": web.csrf}
    )
    assert handed.status_code == 200 and handed.json()["handed_in"], handed.text
    page = web.get(f"/batches/{batch.id}/sheets/{index}").text
    assert f"/batches/{batch.id}/photos/{read['photo']}" in page
    assert "1 box handed in is not what the photo shows" in page and "handed in 99" in page
    assert "handed in by the student, read from a photo" in page  # its source in the sheet's history
    differs = json.loads(
        re.search(r'data-differs="([^"]*)"', page).group(1).replace("&#34;", '"').replace("&quot;", '"')
    )
    assert differs == [[changed["head"], changed["step"], changed["i"], changed["j"]]]
    # The boxes read surely that are neither the key's value nor carried from what was handed in before
    # them (the student's own mistakes here, and any misread) are the teacher's alone to look at.
    assert set(read) == {"photo", "page", "pages", "boxes"}
    asked = json.loads(re.search(r'data-asked="([^"]*)"', page).group(1).replace("&#34;", '"').replace("&quot;", '"'))
    verdicts = grade_sheet(sheet, answers).grade["cells"]
    sure = {(b["head"], b["step"], b["i"], b["j"]) for b in read["boxes"] if b["sure"] and b["value"]}
    wrong = {key for key in sure if cell_at(verdicts, *key) == "wrong"}
    assert asked and {tuple(k) for k in asked} == wrong - {tuple(d) for d in differs}
    assert f"{len(asked)} box" in page and "a scan would ask you to look at" in page
    photo = web.get(f"/batches/{batch.id}/photos/{read['photo']}")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg"
    assert web.get(f"/batches/{batch.id}/photos/..%2Fmanifest.json").status_code == 404
    names = zipfile.ZipFile(io.BytesIO(web.get(f"/batches/{batch.id}/files.zip").content)).namelist()
    assert f"{batch.id}/photos/{read['photo']}" in names  # exports include the photos
    # A student reaches no photo: the teacher's route needs the teacher's page.
    student = TestClient(web.app, base_url="http://127.0.0.1")
    assert f"/photos/{read['photo']}" not in student.get(f"/s/{token}").text


def test_a_sheet_takes_six_photos_a_minute_and_refuses_the_seventh(school):
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=5)
    token = token_of(store, batch, filled.code)
    assert [send(web, token, content).status_code for _ in range(6)] == [200] * 6
    seventh = send(web, token, content)
    assert seventh.status_code == 400 and "6 photos of this sheet in a minute already" in seventh.json()["error"]
    assert len([n for n in kept(store, batch) if n.endswith(".jpg")]) == 6


def test_a_photo_is_read_on_the_queue_and_only_its_own_link_hears_what_was_read(school):
    """Issue 58, item 5: the upload is answered at once (202, a job to ask about) and read by the
    server's queue; another student's link asking about it hears of no such photo; a file that is no
    picture is refused at once, nothing queued; the class's page shows no job of it."""
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=5)
    token = token_of(store, batch, filled.code)
    other = next(link.token for link in store.links(batch).values() if link.token != token)
    queued = web.post(
        f"/api/s/{token}/photo", files={"photo": ("p.jpg", content, "image/jpeg")}, headers={"x-csrf-token": web.csrf}
    )
    assert queued.status_code == 202 and queued.json()["poll"] == f"/api/s/{token}/photo/{queued.json()['job']}"
    assert web.get(f"/api/s/{other}/photo/{queued.json()['job']}").status_code == 404
    assert web.get(f"/api/s/{token}/photo/{queued.json()['job'] + 1000}").status_code == 404
    deadline = time.monotonic() + 120
    while (answer := web.get(queued.json()["poll"])).status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert answer.status_code == 200 and answer.json()["photo"] in kept(store, batch)
    assert store.job(queued.json()["job"]).kind == "photo" and store.batch_job(batch.id).kind == "batch"
    jobs = len(store.recent("photo", 0))
    refused = web.post(
        f"/api/s/{token}/photo",
        files={"photo": ("p.jpg", b"not a picture", "image/jpeg")},
        headers={"x-csrf-token": web.csrf},
    )
    assert refused.status_code == 400 and "not a picture" in refused.json()["error"]
    assert len(store.recent("photo", 0)) == jobs  # refused before it was queued


def test_the_pages_ask_is_held_until_its_photo_is_read(school, monkeypatch):
    """The student's page asks once and hears what was read as soon as it is (a class of phones
    asking every fraction of a second cost the server a request each: bench/photo.py)."""
    import generator.web.students as students

    monkeypatch.setattr(students, "PHOTO_WAIT", 120.0)
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=4)
    token = token_of(store, batch, filled.code)
    queued = web.post(
        f"/api/s/{token}/photo", files={"photo": ("p.jpg", content, "image/jpeg")}, headers={"x-csrf-token": web.csrf}
    )
    assert queued.status_code == 202
    answer = web.get(queued.json()["poll"])  # one ask: held while the queue reads it
    assert answer.status_code == 200 and answer.json()["photo"] in kept(store, batch)


def test_a_photo_is_read_in_a_free_kept_process_as_it_is_read_here(school):
    """On SQLite the server's two runners read two photos at once: one in its kept job process while
    that is free (a core of its own), the other in the server's process; both read the same."""
    from generator.app.photos import read_queued
    from generator.app.serving import warm_process
    from generator.output.jobs import Workers

    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=5)
    index = next(int(s["index"]) for s in batch.sheets if s["code"] == filled.code)
    params = {"batch": batch.id, "index": index, "token": token_of(store, batch, filled.code), "page": 1}
    here = read_queued(store, params, content)
    workers = Workers(1, warm_process)
    try:
        with workers.spare() as lent:
            assert lent is not None
            with workers.spare() as second:
                assert second is None  # its one process is lent: the next photo is read where it is
        with workers.spare() as again:
            assert again is not None  # given back
        there = read_queued(store, params, content, workers)
    finally:
        workers.close()
    assert there["boxes"] == here["boxes"] and there["photo"] != here["photo"]
    assert {here["photo"], there["photo"]} <= set(kept(store, batch))


KINDS = ("attention", "ffn", "transformer", "rnn", "moe", "mlp", "backprop", "norm", "gcn", "conv")


PHONE = (
    ({"photo": True, "angle": 7}, ""),
    ({"photo": True, "angle": -5, "quarter": True}, "both"),
    ({"photo": True, "angle": 3, "dpi": 300, "upside_down": True}, "shadow"),
)
"""A phone's conditions for every kind: at an angle with desk around it; held sideways under a shadow
and uneven light; turned over at 12 megapixels under a shadow over a third of the page."""


def phone_taps(tmp_path, kind: str, hands: str = "") -> list[int]:
    """A sheet of `kind` filled in by `hands` (filled_sheets') photographed under each PHONE condition
    and sent as a student would: the taps spent confirming and correcting each photo (one for a right
    guess, two to pick another of its reads, else the keys), every page found and at least half its
    boxes sure. In the project's writers' hands, no box is read surely other than what was written
    (the scans' rule); a hand never learned from may be, and the teacher is asked to look at it
    (test_a_misread_the_phone_was_sure_of_is_one_the_teacher_is_asked_to_look_at)."""
    store = Store(fixed_secret(tmp_path / "data"))
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "kind": kind, "count": "1", "seed": "5"}))
    batch = store.batch(location.rsplit("/", 1)[1])
    taps = []
    for scan, light in PHONE:
        filled = next(filled_sheets(batch.folder, seed=3, scan={"quality": 70, "dpi": 200, **scan}, hands=hands))
        token = token_of(store, batch, filled.code)
        spent = 0
        for number, page in enumerate(filled.pages, start=1):
            picture = lit(page, light) if light else page
            content = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
            read = send(web, token, content, page=str(number))
            assert read.status_code == 200, (scan, light, number, read.text)
            boxes = read.json()["boxes"]
            for b in boxes:
                written = filled.text((b["head"], b["step"], b["i"], b["j"]))
                if b["sure"]:
                    assert hands or alike(b["value"], written), (scan, light, b, written)
                elif alike(b["value"], written):
                    spent += 1  # the guess confirmed
                else:  # another of its reads picked, or the keys
                    spent += 2 if any(alike(o, written) for o in b["others"]) else len(written) + 1
            assert sum(b["sure"] for b in boxes) >= len(boxes) / 2, (kind, scan, light)
        taps.append(spent)
    store.close()
    print(f"{kind} ({hands or 'project'}): {taps} taps")
    return taps


@pytest.mark.parametrize("kind", KINDS)
def test_a_photo_of_every_kind_accepts_only_what_was_written(tmp_path, kind):
    """Issue 58: every kind's sheet photographed under a phone's conditions (PHONE); each of its
    pages found, and no box read surely other than what was written (the scans' rule); the taps a
    student spends confirming and correcting are counted."""
    taps = phone_taps(tmp_path, kind)
    # Issue 58's measure: a sheet handed in with at most 40 taps in the project's writers' hands
    # (here the middle of the three phones: the 12-megapixel photo under a shadow takes 42 on attention).
    assert sorted(taps)[1] <= 40, (kind, taps)


@pytest.mark.parametrize("hands", ["faces", "digits"])
def test_an_attention_sheet_in_a_hand_never_learned_from_is_handed_in_with_at_most_60_taps(tmp_path, hands):
    """Issue 58's measure in the held-out hands (bench/writers.py's faces and people's digits): an
    attention sheet's photos handed in with at most 60 taps (the middle of the three phones)."""
    taps = phone_taps(tmp_path, "attention", hands)
    assert sorted(taps)[1] <= 60, (hands, taps)


@pytest.mark.parametrize("size", ["", "1.5"])
def test_a_value_struck_out_and_written_again_beside_it_is_seldom_read_surely(tmp_path, size):
    """A student strikes a value out and writes the right one beside it; the network reads a struck
    digit surely all the same (a 7 struck through is a 7), and the box was read surely as both ("71"
    for 1) on about one photographed sheet in ten. A digit unlike every one its writer wrote on the
    other steps, beside one like them, makes the box unsure (adapt.strays): on photos of sheets with
    a value in four struck out, most such boxes are caught and few read rightly are made unsure."""
    from generator.app.photos import SURE, marked, photo_reads
    from generator.scan.verify import alone

    store = Store(fixed_secret(tmp_path / "data"))
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    form = {"csrf": web.csrf, "count": "3", "seed": "5", "large_print": size}
    batch = store.batch(made(web, web.post("/batches", data=form)).rsplit("/", 1)[1])
    seen = collections.Counter()
    for filled in filled_sheets(batch.folder, seed=3, scan={"dpi": 200, "quality": 70, "photo": True}, crossed=0.25):
        sheet = next(s for s in batch.sheets if s["code"] == filled.code)
        content = cv2.imencode(".jpg", filled.pages[0], [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
        reads, _, _ = photo_reads(batch, sheet, token_of(store, batch, filled.code), content, 1)
        for key, read in reads.items():
            written, mark, (text, share) = filled.text(key), marked(key, read), alone(read)
            right = alike(text, written)
            seen["struck"] += key in filled.crossed
            seen["sure"] += share >= SURE and right
            seen["unsure by the rule"] += share >= SURE and right and not mark.sure
            seen["caught"] += share >= SURE and not right and not mark.sure
            seen["missed"] += mark.sure and not alike(mark.value, written)
    # Measured: 8 caught, 2 still sure (a struck 88 near this writer's 8s; a lost 0), 3 of 315 right reads
    # made unsure at A4; 6 caught, 1 left (the lost 0), none of 298 at 1.5 times the size.
    assert seen["struck"] >= 100 and seen["caught"] >= max(5, 3 * seen["missed"]), dict(seen)
    assert seen["unsure by the rule"] <= 0.02 * seen["sure"], dict(seen)


def test_a_misread_the_phone_was_sure_of_is_one_the_teacher_is_asked_to_look_at(tmp_path):
    """A photo's marks ask no key, so a hand the network never learned from can be read surely and
    wrongly (a held-out face's faint minus lost: -9 read 9). Handed in as a student keeps what the
    phone was sure of, every such box is one the teacher's page asks them to check against the photo."""
    from generator.app.photos import asked, marked, photo_reads, wrong_boxes
    from generator.core.answers import skeleton

    store = Store(fixed_secret(tmp_path / "data"))
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "kind": "rnn", "count": "3", "seed": "5"}))
    batch = store.batch(location.rsplit("/", 1)[1])
    misread = looked_at = 0
    for scan, light in PHONE:
        for filled in filled_sheets(batch.folder, seed=3, scan={"quality": 70, "dpi": 200, **scan}, hands="faces"):
            sheet = next(s for s in batch.sheets if s["code"] == filled.code)
            problem = problem_from_json(sheet["problem"])
            for number, page in enumerate(filled.pages, start=1):
                picture = lit(page, light) if light else page
                content = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
                reads, _, _ = photo_reads(batch, sheet, token_of(store, batch, filled.code), content, number)
                marks = [marked(key, read) for key, read in reads.items()]
                handed = filled.kept(skeleton(problem, problem.code), marks)
                entry = {"boxes": [m.__dict__ for m in marks], "handed": {"answers": handed}}
                flagged = {(b["head"], b["step"], b["i"], b["j"]) for b in asked(entry, wrong_boxes(sheet, handed))}
                for m in marks:
                    key = (m.head, m.step, m.i, m.j)
                    if m.sure and not alike(m.value, filled.text(key)):
                        misread += 1
                        looked_at += key in flagged
    assert misread >= 1 and looked_at == misread, (misread, looked_at)


def test_the_teacher_sees_every_photo_of_the_last_hand_in(school):
    """A sheet of several pages is handed in with a photo of each: the teacher's page shows them all,
    not only the last one read (an earlier hand-in's photos are not shown)."""
    store, web, batch = school
    filled, content = photographed(batch, photo=True, angle=4)
    token = token_of(store, batch, filled.code)
    index = next(int(s["index"]) for s in batch.sheets if s["code"] == filled.code)
    earlier, first, second = (send(web, token, content).json()["photo"] for _ in range(3))
    answers = {"heads": [{}]}
    for names in ([earlier], [first, second]):
        handed = web.post(
            f"/api/s/{token}/handin", json={**answers, "photos": names}, headers={"x-csrf-token": web.csrf}
        )
        assert handed.status_code == 200, handed.text
    page = web.get(f"/batches/{batch.id}/sheets/{index}").text
    assert f"/photos/{first}" in page and f"/photos/{second}" in page and f"/photos/{earlier}" not in page
    assert "The photos the student handed in" in page


@pytest.mark.parametrize("light", ["shadow", "both", "uneven"])
def test_a_photo_s_light_made_even_leaves_no_band_at_a_shadow_s_edge(light):
    """The paper under a shadow over a third of the page (or light falling off across it) is as light,
    once evened, as the paper in the light: no band along the shadow's edge that the reader would
    take for ink (a stroke's core is at least INK_DIFF darker than the paper)."""
    from generator.scan.characters import INK_DIFF
    from generator.scan.photo import evened

    page = np.full((1600, 1200), 235, np.uint8)
    for y in range(200, 1400, 100):  # a sheet's writing, so that the paper's light is read around ink
        cv2.putText(page, "12/34 5,6", (100, y), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 30, 3)
    paper = evened(lit(page, light))[page == 235]
    assert float(paper.min()) > 235 - INK_DIFF[0] / 2, float(paper.min())
