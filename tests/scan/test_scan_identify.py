"""A page is identified from any three of its four marks: a corner cut off by a skewed copy or a
tight crop is where the other three say it is, and the page still goes to its own sheet (issue 36)."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from generator.scan.locate import NotFound, _marks, candidates, corners
from generator.scan.synthetic import filled_sheets, pdf_of

ATTNSHEET = [sys.executable, "-m", "generator"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("identify")
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", "4", "--seed", "12", "--out", str(folder / "batch")],
        check=True,
        capture_output=True,
    )
    sheets = list(filled_sheets(folder / "batch", seed=6, scan=dict(dpi=200, angle=2.0, quality=75)))
    return folder, sheets


def _marks_by_corner(page: np.ndarray) -> list[tuple[float, float, float]]:
    """The page's four marks, nearest the scan's top left, top right, bottom left, bottom right."""
    found = sorted(_marks(page), key=lambda m: -m[2])[:4]
    h, w = page.shape
    return [min(found, key=lambda m: np.hypot(m[0] - x, m[1] - y)) for x, y in ((0, 0), (w, 0), (0, h), (w, h))]


def _without(page: np.ndarray, corner: int, cut: bool = False) -> np.ndarray:
    """The page with one corner mark gone: painted out, or cut through its middle as the paper's
    edge cuts it when a page cropped exactly to the paper is turned (the outer half gone)."""
    page = page.copy()
    x, y, side = _marks_by_corner(page)[corner]
    r = int(side)
    x0, x1, y0, y1 = max(0, int(x) - r), int(x) + r, max(0, int(y) - r), int(y) + r
    if cut:
        x0, x1 = (int(x), x1) if corner in (1, 3) else (x0, int(x))
    page[y0:y1, x0:x1] = 255
    return page


def test_three_marks_give_the_corners_four_give(pages):
    folder, sheets = pages
    page = sheets[0].pages[0]
    four = corners(page, 0.7)
    for corner in range(4):
        # The missing one lands where the mark was, within a few pixels at 200 dpi (a 2° turn, an affine map).
        near = [q for q in candidates(_without(page, corner), 0.7) if np.hypot(*(q - four).T).max() < 6.0]
        assert near, corner


def test_three_marks_alone_are_not_enough_without_the_pages_proportions(pages):
    folder, sheets = pages
    page = _without(sheets[0].pages[0], 2)
    truth = corners(sheets[0].pages[0], 0.7)
    try:
        found = candidates(page)
    except NotFound:
        return
    assert not any(np.hypot(*(q - truth).T).max() < 6.0 for q in found)


def test_pages_with_a_corner_cut_or_painted_out_go_to_their_own_sheets(pages, tmp_path):
    from generator.output.manifest import read_manifest
    from generator.scan.pipeline import Catalogue, Source
    from generator.scan.run import scan_folder
    from generator.sheet.model import Settings

    folder, sheets = pages
    damaged = [_without(s.pages[0], n % 4, cut=n >= 2) for n, s in enumerate(sheets)]
    damaged[3] = cv2.rotate(damaged[3], cv2.ROTATE_180)  # upside down, and its cut corner with it
    pdf_of(damaged, tmp_path / "pile.pdf")
    listed = read_manifest((folder / "batch" / "manifest.json").read_text(), "manifest")
    sources = [Source(item.code, n + 1, item.problem, item.student) for n, item in enumerate(listed.values())]
    summary = scan_folder([tmp_path / "pile.pdf"], Catalogue(sources, Settings()), tmp_path / "out")
    found = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert summary.identified == 4, [p.get("why") for p in found]
    assert [p["code"] for p in found] == [s.code for s in sheets]
    assert summary.accepted >= 0.8 * sum(len(s.written) for s in sheets)
