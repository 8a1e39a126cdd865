"""A page the scan cannot identify is finished with one word from the teacher: the summary names it
and says how, and `scan --assign FILE:PAGE=CODE/PAGE` reads it into that sheet, whichever way up
it lies (issue 36)."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from generator.scan.synthetic import filled_sheets, pdf_of

ATTNSHEET = [sys.executable, "-m", "generator"]


def _without_codes(page: np.ndarray) -> np.ndarray:
    """The page with its QR code painted out (a smudge, a staple, a copier's streak), and the code
    printed in its footer too: nothing on it says which sheet it is."""
    points = _qr_corners(page)
    assert points is not None, "the synthetic page should have a readable QR code to paint out"
    low, high = points.min(axis=0), points.max(axis=0)
    pad = max(12, int(0.2 * (high - low).max()))  # its quiet zone and a little more: no module left to read
    x0, y0 = low.astype(int) - pad
    x1, y1 = high.astype(int) + pad
    page = page.copy()
    page[max(0, y0) : y1, max(0, x0) : x1] = 255
    # The footer, the bottom fifteenth of the scan between its corner marks, either way up.
    h, w = page.shape[:2]
    top = int(h * 0.93) if (y0 + y1) / 2 < h / 2 else 0
    page[top : top + int(h * 0.07), int(w * 0.1) : int(w * 0.9)] = 255
    return page


def _qr_corners(page: np.ndarray):
    """The corners of the QR code atop an upright page, in its pixels, or None. A server's sheet
    holds a longer link with smaller modules, which each detector misses for some links: both are
    tried on the page's top right quarter as scanned, then twice and three times as big."""
    h, w = page.shape[:2]
    zone = page[: h // 4, w // 2 :]
    for scale in (1, 2, 3):
        picture = zone if scale == 1 else cv2.resize(zone, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
            found, points = detector.detect(picture)
            if found:
                return points.reshape(-1, 2) / scale + (w // 2, 0)
    return None


@pytest.fixture(scope="module")
def pile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("assign")
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", "3", "--seed", "31", "--out", str(folder / "batch")],
        check=True,
        capture_output=True,
    )
    sheets = list(filled_sheets(folder / "batch", seed=8, scan=dict(dpi=200, angle=1.0, quality=80)))
    assert all(len(s.pages) == 1 for s in sheets)
    pages = [
        _without_codes(sheets[0].pages[0]),
        cv2.rotate(_without_codes(sheets[1].pages[0]), cv2.ROTATE_180),
        sheets[2].pages[0],
    ]
    pdf_of(pages, folder / "pile.pdf")
    return folder, sheets


def _scan(folder, out, *extra):
    return subprocess.run(
        [
            *ATTNSHEET,
            "scan",
            str(folder / "pile.pdf"),
            "--manifest",
            str(folder / "batch" / "manifest.json"),
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
    )


def test_the_summary_names_each_page_not_identified_and_how_to_assign_it(pile, tmp_path):
    folder, sheets = pile
    done = _scan(folder, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip()
    assert "1 identified, 2 not" in line
    assert f"not identified: {folder / 'pile.pdf'} page 1, {folder / 'pile.pdf'} page 2" in line
    assert f"--assign {folder / 'pile.pdf'}:1=CODE/PAGE" in line
    as_json = json.loads(_scan(folder, tmp_path / "again", "--json").stdout)
    assert as_json["unidentified"] == [
        {"file": str(folder / "pile.pdf"), "page": 1},
        {"file": str(folder / "pile.pdf"), "page": 2},
    ]


def test_pages_assigned_by_hand_are_read_into_their_sheets_whichever_way_up(pile, tmp_path):
    folder, sheets = pile
    done = _scan(
        folder,
        tmp_path / "out",
        "--json",
        "--assign",
        f"{folder / 'pile.pdf'}:1={sheets[0].code}/1",
        "--assign",
        f"pile.pdf:2={sheets[1].code}",
    )  # by the file's name alone, the page left out
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["identified"] == 3 and summary["unidentified"] == [] and summary["missing"] == []
    found = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert [p["code"] for p in found] == [s.code for s in sheets]
    assert [p.get("why", "") for p in found] == ["assigned by hand", "assigned by hand", ""]
    assert [p["turned"] for p in found] == [0, 180, 0]
    # Read as well as a page found by its QR code: most of what was written is accepted.
    written = sum(1 for s in sheets[:2] for v in s.written.values() if v)
    assert summary["accepted"] >= 0.8 * sum(len(s.written) for s in sheets) - 0.2 * written
    answers = sorted((tmp_path / "out" / "answers").glob("*.json"))
    assert len(answers) == 3
    first = json.loads(answers[0].read_text())
    assert first["code"] == sheets[0].code and any(
        v not in ("", None)
        for head in first["heads"]
        for grid in head.values()
        if isinstance(grid, list)
        for row in grid
        for v in row
    )


def test_a_page_assigned_to_a_sheet_it_is_not_like_is_not_read(pile, tmp_path):
    folder, sheets = pile
    blank = np.full_like(sheets[0].pages[0], 255)
    cv2.putText(blank, "a letter to parents", (200, 400), cv2.FONT_HERSHEY_SIMPLEX, 3, 0, 6)
    pdf_of([blank], tmp_path / "other.pdf")
    done = subprocess.run(
        [
            *ATTNSHEET,
            "scan",
            str(tmp_path / "other.pdf"),
            "--manifest",
            str(folder / "batch" / "manifest.json"),
            "--out",
            str(tmp_path / "out"),
            "--json",
            "--assign",
            f"other.pdf:1={sheets[0].code}",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["identified"] == 0
    why = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"][0]["why"]
    assert why.startswith(f"not assigned to {sheets[0].code}")


@pytest.mark.parametrize(
    "value, says, exit_code",
    [
        # A value not of the option's form is a misused option (2); one naming what is not there, bad input (1).
        ("pile.pdf=7352-Y", "is not FILE:PAGE=CODE/PAGE", 2),
        ("pile.pdf:0=7352-Y", "pages count from 1", 2),
        ("pile.pdf:1=", "is not FILE:PAGE=CODE/PAGE", 2),
        ("other.pdf:1={code}", "other.pdf is not one of the files scanned", 1),
        ("pile.pdf:4={code}", "pile.pdf has 3 pages", 1),
        ("pile.pdf:1=0000-A", "is not in the manifest", 1),
        ("pile.pdf:1={code}/2", "has 1 page", 1),
    ],
)
def test_a_bad_assignment_is_refused_in_one_line_before_anything_is_read(pile, tmp_path, value, says, exit_code):
    folder, sheets = pile
    done = _scan(folder, tmp_path / "out", "--assign", value.format(code=sheets[0].code))
    assert done.returncode == exit_code
    assert says in done.stderr and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "pages.json").exists()


def test_the_same_page_assigned_twice_is_refused(pile, tmp_path):
    folder, sheets = pile
    done = _scan(
        folder,
        tmp_path / "out",
        "--assign",
        f"pile.pdf:1={sheets[0].code}",
        "--assign",
        f"{folder / 'pile.pdf'}:1={sheets[1].code}",
    )
    assert done.returncode == 1 and "assigned twice" in done.stderr
