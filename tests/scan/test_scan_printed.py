"""A page whose QR code cannot be read is identified by the code and page printed in its footer,
read by the glyphs they are printed in (issue 36): never a wrong sheet or page, never a guess."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.draw.codes import ALPHABET, checks, pack
from generator.scan.locate import PX_PT, NotFound, locate
from generator.scan.printed import Footer, glyphs, read_footer
from generator.scan.synthetic import filled_sheets, pdf_of
from generator.sheet.layout import PAPERS_PT
from generator.sheet.look import MM
from generator.sheet.marks import registration_marks
from generator.sheet.style import FOOT_PREFIX, MARGINS_MM

ATTNSHEET = [sys.executable, "-m", "generator"]


@pytest.fixture(scope="module")
def smudged(tmp_path_factory):
    """Four sheets of two heads (three pages each), every QR code smudged past reading, scanned
    as a copier's pile comes: 150–300 dpi, ±5°, ±5 %, some upside down, JPEG 50–90, some in colour."""
    folder = tmp_path_factory.mktemp("printed")
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", "4", "--heads", "2", "--seed", "21", "--out", str(folder / "batch")],
        check=True,
        capture_output=True,
    )
    sheets = list(filled_sheets(folder / "batch", seed=8, smudge=True))
    pdf_of([p for s in sheets for p in s.pages], folder / "pile.pdf")
    return folder, sheets


def _scan(folder, out, *extra):
    done = subprocess.run(
        [*ATTNSHEET, "scan", str(folder / "pile.pdf"), "--out", str(out), "--json", *extra],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), json.loads((out / "pages.json").read_text())["pages"]


def test_no_qr_code_is_read_on_the_smudged_pile(smudged):
    folder, sheets = smudged
    size = PAPERS_PT["a4"]
    centres = tuple(m.centre for m in registration_marks(*size))
    for page in (sheets[0].pages[0], sheets[1].pages[1]):
        grey = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY) if page.ndim == 3 else page
        assert locate(grey, centres, size).qr is None  # found by its footer alone


def test_every_page_with_its_qr_smudged_goes_to_its_own_sheet_and_page(smudged, tmp_path):
    folder, sheets = smudged
    summary, found = _scan(folder, tmp_path / "out", "--manifest", str(folder / "batch" / "manifest.json"))
    assert summary["identified"] == 12 and summary["missing"] == [] and summary["incomplete"] == [], found
    assert [(p["code"], p["sheet_page"]) for p in found] == [(s.code, k) for s in sheets for k in (1, 2, 3)]
    assert all("footer" in p["why"] for p in found)
    assert summary["accepted"] >= 0.75 * sum(len(s.written) for s in sheets)  # read as any page is


def test_without_a_manifest_the_check_character_says_which_code(smudged, tmp_path):
    folder, sheets = smudged
    summary, found = _scan(folder, tmp_path / "out")
    # 5 and S, 8 and B are alike in print: a code is taken only when one reading alone agrees
    # with its check character; never another sheet's.
    for p, (code, k) in zip(found, [(s.code, k) for s in sheets for k in (1, 2, 3)]):
        assert p.get("code") in (code, None) and p.get("sheet_page") in (k, None), p
    assert summary["identified"] >= 9, [p.get("why") for p in found]


def _footer_cell(page: np.ndarray, k: int) -> tuple[slice, slice]:
    """Where the k-th character of the code sits in an upright page's footer (as printed)."""
    g = glyphs()
    height = page.shape[0] / PX_PT
    margin = MARGINS_MM[2] * MM
    x = (MARGINS_MM[3] * MM) * PX_PT + (len(FOOT_PREFIX) + k) * g.advance
    y = (height - margin) * PX_PT
    return slice(round(y), round(y + margin * PX_PT)), slice(round(x), round(x + g.advance))


def test_a_footer_with_a_character_gone_is_refused_never_guessed(smudged, tmp_path):
    folder, sheets = smudged
    size = PAPERS_PT["a4"]
    centres = tuple(m.centre for m in registration_marks(*size))
    page = sheets[2].pages[1]
    grey = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY) if page.ndim == 3 else page
    upright = locate(grey, centres, size).page
    footer = read_footer(upright, *size)
    assert footer is not None and footer.fits(sheets[2].code) and footer.page_of(3) == 2
    for k in (0, 6, len(sheets[2].code) - 1):  # a character painted out: first, middle, the check
        damaged = upright.copy()
        rows, cols = _footer_cell(damaged, k)
        damaged[rows, cols] = 250
        read = read_footer(damaged, *size)
        assert read is None or not any(read.fits(s.code) for s in sheets), (k, read)
    # The whole footer smudged too: the page is not identified, and says why.
    damaged = grey.copy()
    with pytest.raises(NotFound, match="footer"):
        locate(_without_footers(damaged), centres, size)


def _without_footers(grey: np.ndarray) -> np.ndarray:
    """A scan with a grey band over its bottom and top eighths' middles (the footer, either way up)."""
    h, w = grey.shape
    out = grey.copy()
    for y0 in (int(h * 0.90), int(h * 0.02)):
        out[y0 : y0 + int(h * 0.08), int(w * 0.15) : int(w * 0.85)] = 180
    return out


def test_a_footer_fits_a_code_by_each_character_it_may_be():
    footer = Footer((("7",), ("L",), ("5", "S"), ("8", "B"), ("-",), ("U",)), frozenset({(2, 3), (2, 8)}))
    assert footer.fits("7L58-U") and footer.fits("7LSB-U") and not footer.fits("7L58-D")
    assert not footer.fits("7L58-U2") and not footer.fits("7L58")
    assert footer.page_of(3) == 2 and footer.page_of(8) == 2 and footer.page_of(4) is None
    assert Footer((("7",),), frozenset({(1, 3), (3, 3)})).page_of(3) is None  # read two ways: neither


@given(st.lists(st.integers(0, 1), min_size=5, max_size=60), st.data())
def test_a_check_character_catches_every_single_substitution(bits, data):
    code = pack(bits)
    assert checks(code)
    k = data.draw(st.sampled_from([i for i, ch in enumerate(code) if ch != "-"]))
    other = data.draw(st.sampled_from([ch for ch in ALPHABET if ch != code[k]]))
    assert not checks(code[:k] + other + code[k + 1 :])
