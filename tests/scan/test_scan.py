"""Scanning: sheets made for it, the box geometry, and reading synthetic scans end to end.

The scans are the project's own (generator/scan/synthetic.py): sheets filled in by writers of
varied hands, right values, carried values, wrong values, blanks and crossed-out values, then
"scanned" at 150–300 dpi, turned ±5° or upside down, scaled ±5 %, blurred, noised, JPEG 50–90,
in colour and grey, and one photographed at an angle. What each box holds is known, so every
figure of the issue's "done when" is measured here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np
import pytest

from generator.core.answers import put_cell
from generator.core.cells import read_cell_text
from generator.core.registry import grid_shapes, heads_of, solve
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.output.boxes import worksheet_boxes
from generator.scan.locate import read_qr
from generator.scan.pipeline import Catalogue, Source
from generator.scan.recognize import CLASSES, model
from generator.scan.run import scan_folder
from generator.scan.synthetic import filled_sheets, pdf_of
from generator.scan.train import dataset
from generator.scan.verify import CellRead, verify
from generator.sheet.marks import QrIdentity, read_qr_text
from generator.sheet.model import Settings

ATTNSHEET = [sys.executable, "-m", "generator"]

CONDITIONS = {
    "150 dpi, JPEG 50, turned 5°": dict(dpi=150, quality=50, angle=5.0),
    "300 dpi, turned −5°": dict(dpi=300, angle=-5.0, quality=70),
    "a phone's photo at an angle": dict(dpi=200, photo=True, quality=70, angle=2.0),
    "upside down": dict(dpi=200, upside_down=True, angle=-3.0, quality=80),
    "colour, 5 % larger": dict(dpi=200, colour=True, scale=1.05, quality=90),
    "150 dpi, 5 % smaller, turned −4°": dict(dpi=150, scale=0.95, angle=-4.0, quality=55),
    "a phone held sideways": dict(dpi=200, quarter=True, angle=1.0, quality=75),
    "a light pencil at 150 dpi, JPEG 50": dict(dpi=150, quality=50, angle=2.0),
    "digits printed in fonts, 150 dpi, JPEG 60": dict(dpi=150, quality=60, angle=-3.0),
}
PENCIL = "a light pencil at 150 dpi, JPEG 50"
FONTS = "digits printed in fonts, 150 dpi, JPEG 60"


# --- sheets made for scanning --------------------------------------------------------------------


def test_a_qr_code_says_the_sheet_and_the_page_and_an_old_one_the_sheet_alone():
    assert read_qr_text("72Y2-F 2/3") == QrIdentity("72Y2-F", 2, 3)
    assert read_qr_text("72Y2-F") == QrIdentity("72Y2-F")  # printed before pages were numbered: page 1
    assert read_qr_text("https://school.example/s/abc") == QrIdentity("https://school.example/s/abc")
    assert read_qr_text("72Y2-F 4/3") is None and read_qr_text("two words here") is None


def test_every_page_of_a_worksheet_carries_a_qr_code_of_its_code_and_page(tmp_path):
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", "1", "--seed", "5", "--heads", "3", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    import pypdfium2 as pdfium

    manifest = json.loads((tmp_path / "manifest.json").read_text())
    code, pages = manifest["sheets"][0]["code"], manifest["sheets"][0]["worksheet"]["pages"]
    assert pages > 1
    pdf = pdfium.PdfDocument(str(tmp_path / "worksheets.pdf"))
    for n in range(pages):
        grey = pdf[n].render(scale=150 / 72, grayscale=True).to_numpy()
        zone = grey[: int(grey.shape[0] * 0.12), grey.shape[1] // 2 :]
        assert read_qr(np.ascontiguousarray(zone)) == QrIdentity(code, n + 1, pages)
    pdf.close()


# --- the box geometry --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, settings",
    [
        (DrawOptions(), Settings()),
        (DrawOptions(convention="row", causal=True), Settings(paper="letter", lang="es")),
        (DrawOptions(heads=2, output_projection=True), Settings()),
    ],
)
def test_the_boxes_are_every_cell_a_student_writes_once_on_the_page(options, settings):
    problem = draw(options, 3)[0]
    pages = worksheet_boxes(problem, solve(problem), Student(), settings)
    shapes, final = grid_shapes(problem)
    cells = {
        (h, name, r, c)
        for h in range(1, heads_of(problem) + 1)
        for name, (rows, cols) in shapes.items()
        for r in range(rows)
        for c in range(cols)
    }
    cells |= {(None, name, r, c) for name, (rows, cols) in final.items() for r in range(rows) for c in range(cols)}
    found = [(b.head, b.step, b.row - 1, b.col - 1) for p in pages for b in p.boxes]
    assert len(found) == len(set(found)) and set(found) <= cells
    masked = cells - set(found)  # the causal mask's struck-out cells, and only those
    assert all(step in ("scores", "scaled", "powers", "A") for _, step, _, _ in masked)
    assert bool(masked) == options.causal
    for p in pages:
        assert len(p.marks) == 4
        for b in p.boxes:
            assert 0 < b.x and b.x + b.w < p.width and 0 < b.y and b.y + b.h < p.height
            # Fractions with their decimals: a head's A and Z, and the output (the concatenation copies fractions alone).
            assert (b.split is not None) == ((b.head is not None and b.step in ("A", "Z")) or b.step == "output")


def test_boxes_prints_the_contract_as_json():
    out = subprocess.run([*ATTNSHEET, "boxes", "72Y2-F", "--json"], check=True, capture_output=True, text=True)
    value = json.loads(out.stdout)
    assert value["format"] == "attnsheet/boxes@1" and value["code"] == "72Y2-F"
    boxes = value["pages"][0]["boxes"]
    assert len(boxes) == 152 and set(boxes[0]) >= {"head", "step", "row", "col", "page", "x", "y", "w", "h"}
    a = next(b for b in boxes if b["step"] == "A")
    fraction, decimal = a["parts"]["fraction"], a["parts"]["decimal"]
    assert fraction[1] == a["y"] and abs(decimal[1] + decimal[3] - (a["y"] + a["h"])) < 0.02


# --- reading by verification ---------------------------------------------------------------------


def test_the_network_reads_unseen_writers_characters():
    x, y = dataset(600, seed=99, mixed=False)  # the project's stroke writers, ones it never saw
    p = model().probabilities(x)
    assert (p.argmax(1) == y).mean() >= 0.92  # pen and light pencil, neat and hurried hands
    # Sure reads are rarely wrong (the labels of run-together pieces are themselves a guess);
    # a cell is accepted only when its whole read stands for its value, tested below. Having
    # learned people's digits and faces too, the network is sure of fewer strokes (0.70 before).
    sure = p.max(1) >= 0.99
    assert sure.mean() >= 0.65 and (p.argmax(1)[sure] != y[sure]).mean() <= 0.01


def _read(*parts: str) -> CellRead:
    return CellRead(tuple(((text, 0.97), ("7", 0.02)) if text else () for text in parts))


def test_a_box_is_accepted_when_its_read_is_its_true_or_carried_value_and_reviewed_otherwise():
    problem = draw(DrawOptions(), 7)[0]
    sol = solve(problem)
    q = sol.heads[0].Q
    k = sol.heads[0].K
    wrong = q[0][0] + 1
    reads = {
        (1, "Q", 0, 0): _read(str(wrong)),  # a wrong value, clearly written: review
        (1, "Q", 0, 1): _read(str(q[0][1])),  # right: accepted
        (1, "Q", 1, 0): _read(""),  # blank
        (1, "Q_copy", 0, 0): _read(str(wrong)),  # its copy: the same number, unconfirmed: review
        (1, "K", 0, 0): _read(str(k[0][0]), "x"),
    }  # a part that is no number: review
    decided = {d.key: d for d in verify(problem, reads)}
    assert decided[(1, "Q", 0, 0)].verdict == "review" and decided[(1, "Q", 0, 0)].reads[0][0] == str(wrong)
    assert decided[(1, "Q", 0, 1)].verdict == "accepted" and decided[(1, "Q", 0, 1)].value == str(q[0][1])
    assert decided[(1, "Q", 1, 0)].verdict == "blank"
    # A box in review is no evidence for its own copy: a misread agrees with itself (issue 36).
    assert decided[(1, "Q_copy", 0, 0)].verdict == "review"
    assert decided[(1, "K", 0, 0)].verdict == "review"
    # Once a person says the first box holds the wrong value, its copy is carried and accepted...
    mistake = {d.key: d for d in verify(problem, reads, confirmed={(1, "Q", 0, 0): str(wrong)})}
    assert mistake[(1, "Q_copy", 0, 0)].verdict == "accepted"
    # ...and once they say it holds the true one, the copy of the wrong one is not carried.
    again = {d.key: d for d in verify(problem, reads, confirmed={(1, "Q", 0, 0): str(q[0][0])})}
    assert again[(1, "Q_copy", 0, 0)].verdict == "review"


def _sure(text: str, p: float = 0.995) -> CellRead:
    return CellRead((((text, p), ("7", 1 - p)),))


def test_a_value_other_than_the_keys_needs_the_stronger_read_and_a_computed_cell_still_carries():
    from generator.scan.verify import ACCEPT, ACCEPT_OTHER

    problem = draw(DrawOptions(), 7)[0]
    h = solve(problem).heads[0]
    wrong = h.Q[0][0] + 1
    # The student's genuine mistake, confirmed, copied: a read just strong enough for the key's
    # value is not enough for the student's error.
    middle = (ACCEPT + ACCEPT_OTHER) / 2
    confirmed = {(1, "Q", 0, 0): str(wrong)}
    weak = {(1, "Q_copy", 0, 0): _sure(str(wrong), middle), (1, "Q_copy", 0, 1): _sure(str(h.Q[0][1]), middle)}
    decided = {d.key: d for d in verify(problem, weak, confirmed=confirmed)}
    assert decided[(1, "Q_copy", 0, 0)].verdict == "review" and decided[(1, "Q_copy", 0, 1)].verdict == "accepted"
    # A score computed from a Q in review is still carried: its number is no copy of the unconfirmed one.
    reads = {(1, "Q", r, 0): _sure(str(wrong if r == 0 else h.Q[r][0])) for r in range(problem.d_k)}
    reads |= {(1, "Q_copy", r, 0): _sure(str(wrong if r == 0 else h.Q[r][0])) for r in range(problem.d_k)}
    reads |= {(1, "K", r, c): _sure(str(h.K[r][c])) for r in range(problem.d_k) for c in range(problem.n_tokens)}
    reads |= {(1, "K_T", c, r): _sure(str(h.K[r][c])) for r in range(problem.d_k) for c in range(problem.n_tokens)}
    carried = sum(h.K[r][0] * (wrong if r == 0 else h.Q[r][0]) for r in range(problem.d_k))
    if carried in (wrong, h.scores[0][0]):
        pytest.skip("the drawn numbers make the carried score a copy or the key")
    reads[(1, "scores", 0, 0)] = _sure(str(carried))
    decided = {d.key: d for d in verify(problem, reads)}
    assert decided[(1, "Q", 0, 0)].verdict == "review" and decided[(1, "Q_copy", 0, 0)].verdict == "review"
    assert decided[(1, "scores", 0, 0)].verdict == "accepted" and decided[(1, "scores", 0, 0)].value == str(carried)


def test_a_read_with_a_leading_zero_is_no_number_a_student_wrote():
    # A 6 misread as a 0 beside a 1 reads "01"; people write 1, so "01" stands for no value, not
    # for 1 (issue 36: a false accept in the held-out faces).
    from generator.scan.verify import decide

    misread = CellRead(((("01", 0.6), ("61", 0.3), ("6/", 0.1)),))
    assert decide(misread, 1, None)[0] == "review"
    assert decide(misread, 61, None)[0] == "review"  # and 61 holds too little of what is left
    written = (("0.5", Fraction(1, 2)), ("-0,25", Fraction(-1, 4)), ("100", 100), ("0", 0), ("3/10", Fraction(3, 10)))
    for text, value in written:
        assert decide(CellRead((((text, 0.99),),)), value, None)[0] == "accepted", text
    assert decide(CellRead(((("3/08", 0.99),),)), Fraction(3, 8), None)[0] == "review"


def test_a_fraction_and_its_decimals_are_read_as_two_parts():
    problem = draw(DrawOptions(), 7)[0]
    a = solve(problem).heads[0].A[0][0]
    from generator.core.numbers import sheet_decimal, sheet_value

    frac, dec = sheet_value(a).replace("\u2212", "-"), sheet_decimal(a).replace("\u2212", "-")
    reads = {(1, "A", 0, 0): _read(frac, dec), (1, "A", 0, 1): _read("", dec.replace(".", ","))}
    decided = {d.key: d for d in verify(problem, reads)}
    assert decided[(1, "A", 0, 0)].verdict == "accepted" and decided[(1, "A", 0, 0)].value == f"{frac} {dec}"
    a01 = solve(problem).heads[0].A[0][1]
    expected = "accepted" if read_cell_text(dec.replace(".", ",")).decimal and a01 == a else None
    if expected:
        assert decided[(1, "A", 0, 1)].verdict == expected


# --- synthetic scans, end to end ---------------------------------------------------------------


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scan")
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", str(len(CONDITIONS)), "--seed", "41", "--out", str(folder / "batch")],
        check=True,
        capture_output=True,
    )
    return folder


@pytest.fixture(scope="module")
def scanned_class(batch):
    """Each sheet of the batch scanned its own way, the pages shuffled into one copier's PDF."""
    sheets = list(filled_sheets(batch / "batch", seed=3))
    pictures = []
    for sheet, (name, settings) in zip(sheets, CONDITIONS.items()):
        again = next(
            s
            for s in filled_sheets(batch / "batch", seed=3, scan=settings, pencil=name == PENCIL, font=name == FONTS)
            if s.code == sheet.code
        )
        pictures.append((name, again))
    order = [p for _, s in pictures for p in s.pages][::-1]
    pdf_of(order[:3], batch / "copier.pdf")
    for n, page in enumerate(order[3:]):
        cv2.imwrite(str(batch / f"phone-{n}.jpg"), page)
    paths = [batch / "copier.pdf", *sorted(batch.glob("phone-*.jpg"))]
    manifest = json.loads((batch / "batch" / "manifest.json").read_text())
    from generator.output.manifest import read_manifest

    listed = read_manifest(json.dumps(manifest), "m")
    sources = [Source(item.code, n + 1, item.problem, item.student) for n, item in enumerate(listed.values())]
    summary = scan_folder(paths, Catalogue(sources, Settings()), batch / "out")
    return batch / "out", dict(pictures), summary


def test_every_page_is_identified_and_assigned_to_its_own_sheet(scanned_class):
    out, pictures, summary = scanned_class
    pages = json.loads((out / "pages.json").read_text())["pages"]
    assert summary.pages == summary.identified == len(pages) == len(CONDITIONS)
    assert sorted(p["code"] for p in pages) == sorted(s.code for s in pictures.values())
    turned = {p["code"]: p["turned"] for p in pages}
    assert turned[pictures["upside down"].code] == 180 and turned[pictures["a phone held sideways"].code] == 90


def _outcomes(out: Path, pictures: dict) -> dict:
    answers = {json.loads(f.read_text())["code"]: json.loads(f.read_text()) for f in (out / "answers").glob("*.json")}
    counts = {"written": 0, "accepted": 0, "false": 0, "written_blank": 0, "blank": 0, "blank_review": 0}
    for sheet in pictures.values():
        a = answers[sheet.code]
        for (head, step, row, col), parts in sheet.written.items():
            grids = a if head is None else a["heads"][head - 1]
            value = grids[step][col] if step == "sums" else grids[step][row][col]
            text = " ".join(p for p in parts if p)
            if not text:
                counts["blank"] += 1
                counts["blank_review"] += value is None
                continue
            counts["written"] += 1
            if value == "":
                counts["written_blank"] += 1
            elif value is not None:
                counts["accepted"] += 1
                read, wrote = read_cell_text(value), read_cell_text(text)
                counts["false"] += (read.exact, read.decimal) != (wrote.exact, wrote.decimal)
    return counts


def test_boxes_are_read_as_the_issue_asks(scanned_class):
    out, pictures, summary = scanned_class
    c = _outcomes(out, pictures)
    assert c["written_blank"] == 0, "a written box read as blank"
    assert c["blank_review"] <= 0.005 * c["blank"] + 0.5
    assert c["false"] <= 0.005 * c["accepted"], c
    assert c["accepted"] >= 0.8 * c["written"], c


def test_review_items_point_at_their_crops_and_answers_leave_them_out(scanned_class):
    out, _, summary = scanned_class
    review = json.loads((out / "review.json").read_text())
    assert review["format"] == "attnsheet/review@1" and len(review["items"]) == summary.review
    for item in review["items"]:
        assert (out / item["crop"]).is_file()
        assert set(item) >= {"code", "page", "head", "step", "row", "col", "crop", "reads"}
    assert len(list((out / "crops").glob("*.png"))) == summary.review


def test_scan_then_grade_equals_the_same_answers_typed(scanned_class, batch):
    out, pictures, _ = scanned_class
    review = json.loads((out / "review.json").read_text())["items"]
    by_code = {s.code: s for s in pictures.values()}
    typed_dir, scanned_dir = batch / "typed", batch / "reviewed"
    typed_dir.mkdir(exist_ok=True)
    scanned_dir.mkdir(exist_ok=True)
    for f in (out / "answers").glob("*.json"):
        value = json.loads(f.read_text())
        sheet = by_code[value["code"]]
        typed = sheet.typed(value)
        for item in review:  # the person at the review says what is written
            if item["code"] == value["code"]:
                key = (item["head"], item["step"], item["row"] - 1, item["col"] - 1)
                put_cell(value, *key, sheet.text(key))
        (typed_dir / f.name).write_text(json.dumps(typed))
        (scanned_dir / f.name).write_text(json.dumps(value))
    manifest = str(batch / "batch" / "manifest.json")
    grades = []
    for folder in (typed_dir, scanned_dir):
        result = subprocess.run(
            [*ATTNSHEET, "grade", *map(str, sorted(folder.glob("*.json"))), "--manifest", manifest, "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
        grades.append([(g["code"], g["points"], g["total"], g["cells"]) for g in json.loads(result.stdout)])
    assert grades[0] == grades[1]


def test_pages_that_are_no_sheet_of_the_batch_are_reported_never_assigned(batch, tmp_path):
    blank = np.full((2339, 1654), 250, np.uint8)
    cv2.imwrite(str(tmp_path / "back.png"), blank)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", "1", "--seed", "77", "--out", str(tmp_path / "other")],
        check=True,
        capture_output=True,
    )
    stranger = next(filled_sheets(tmp_path / "other", seed=1, scan=dict(dpi=200))).pages[0]
    cv2.imwrite(str(tmp_path / "stranger.png"), stranger)
    mine = next(filled_sheets(batch / "batch", seed=1, scan=dict(dpi=200)))
    cv2.imwrite(str(tmp_path / "mine-1.png"), mine.pages[0])
    cv2.imwrite(str(tmp_path / "mine-2.png"), mine.pages[0])
    files = ["back.png", "notes.txt", "broken.pdf", "stranger.png", "mine-1.png", "mine-2.png"]
    result = subprocess.run(
        [
            *ATTNSHEET,
            "scan",
            *(str(tmp_path / f) for f in files),
            "--manifest",
            str(batch / "batch" / "manifest.json"),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    pages = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    why = {Path(p["file"]).name: p.get("why", "") for p in pages}
    assert "blank page" in why["back.png"] and "not a PDF" in why["notes.txt"] and "cannot" in why["broken.pdf"]
    assert "not in the manifest" in why["stranger.png"] and "code" not in {
        k for p in pages if p["file"].endswith("stranger.png") for k in p
    }
    assert "replaced by" in why["mine-1.png"] and "scanned again" in why["mine-2.png"]
    assert "read 6 pages: 2 identified, 4 not; 1 sheets" in result.stderr
    answers = list((tmp_path / "out" / "answers").glob("*.json"))
    assert [json.loads(a.read_text())["code"] for a in answers] == [mine.code]


def test_bad_input_gets_one_line_and_an_earlier_run_is_never_overwritten(batch, tmp_path):
    missing = subprocess.run(
        [*ATTNSHEET, "scan", str(tmp_path / "nope.pdf"), "--out", str(tmp_path / "o")], capture_output=True, text=True
    )
    assert missing.returncode != 0 and "Traceback" not in missing.stderr and "nope.pdf" in missing.stderr
    page = next(filled_sheets(batch / "batch", seed=1, scan=dict(dpi=200))).pages[0]
    cv2.imwrite(str(tmp_path / "p.png"), page)
    args = [
        *ATTNSHEET,
        "scan",
        str(tmp_path / "p.png"),
        "--manifest",
        str(batch / "batch" / "manifest.json"),
        "--out",
        str(tmp_path / "o"),
    ]
    assert subprocess.run(args, capture_output=True).returncode == 0
    before = (tmp_path / "o" / "pages.json").read_bytes()
    again = subprocess.run(args, capture_output=True, text=True)
    assert again.returncode != 0 and "--force" in again.stderr and "Traceback" not in again.stderr
    assert (tmp_path / "o" / "pages.json").read_bytes() == before
    assert subprocess.run([*args, "--force"], capture_output=True).returncode == 0
    assert CLASSES[-1] == "x"
