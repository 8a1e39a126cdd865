"""Registration marks: four solid squares in every worksheet page's corners, clear of all else; none on keys."""

from __future__ import annotations

import subprocess

import pytest
from PIL import Image

from generator.sheet.look import MM
from generator.sheet.marks import INSET_MM, MARK_MM, registration_marks
from generator.sheet.style import MARGINS_MM

DPI = 100


def pages(pdf, tmp_path) -> list[Image.Image]:
    stem = tmp_path / pdf.stem
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), str(stem)], check=True)
    return [Image.open(p).convert("L") for p in sorted(tmp_path.glob(f"{pdf.stem}-*.png"))]


def dark(image: Image.Image, x_pt: float, y_pt: float, w_pt: float, h_pt: float) -> float:
    """The share of dark pixels in a rectangle given in points."""
    k = DPI / 72
    box = image.crop((round(x_pt * k), round(y_pt * k), round((x_pt + w_pt) * k), round((y_pt + h_pt) * k)))
    data = box.tobytes()
    return sum(v < 128 for v in data) / max(len(data), 1)


@pytest.mark.parametrize(
    "args",
    [
        ("--count", "1", "--seed", "7"),  # written directly
        ("--count", "1", "--seed", "7", "--paper", "letter", "--lang", "es"),
        ("--count", "1", "--seed", "3", "--tokens", "8", "--d-model", "10", "--heads", "2", "--output-projection"),
        ("--kind", "transformer", "--attention", "computed", "--seed", "4"),
    ],
)
def test_every_worksheet_page_has_four_marks_and_nothing_near_them(run, tmp_path, args):
    out = tmp_path / "out"
    assert run("generate", *args, "--out", str(out)).code == 0
    worksheets, keys = pages(out / "worksheets.pdf", tmp_path), pages(out / "answer-keys.pdf", tmp_path)
    for image in worksheets:
        width, height = image.width * 72 / DPI, image.height * 72 / DPI
        for m in registration_marks(width, height):
            assert dark(image, m.x + 1, m.y + 1, m.size - 2, m.size - 2) > 0.95  # solid
            ring = 2.5 * MM  # clear all round: nothing printed within 2.5 mm of a mark
            around = [
                (m.x - ring, m.y - ring, m.size + 2 * ring, ring - 1),
                (m.x - ring, m.y + m.size + 1, m.size + 2 * ring, ring - 1),
                (m.x - ring, m.y, ring - 1, m.size),
                (m.x + m.size + 1, m.y, ring - 1, m.size),
            ]
            assert all(dark(image, *r) < 0.001 for r in around)
    for image in keys:  # a key is never scanned: no marks
        width, height = image.width * 72 / DPI, image.height * 72 / DPI
        assert all(
            dark(image, m.x + 1, m.y + 1, m.size - 2, m.size - 2) < 0.01 for m in registration_marks(width, height)
        )


def test_a_worksheet_that_needs_the_text_engine_has_its_marks_too(run, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\n王小明\n", encoding="utf-8")  # a name the panel font cannot print: WeasyPrint lays it out
    out = tmp_path / "out"
    assert run("generate", "--roster", str(roster), "--seed", "3", "--out", str(out)).code == 0
    (image,) = pages(out / "worksheets.pdf", tmp_path)
    width, height = image.width * 72 / DPI, image.height * 72 / DPI
    assert all(dark(image, m.x + 1, m.y + 1, m.size - 2, m.size - 2) > 0.95 for m in registration_marks(width, height))


def test_marks_are_in_the_margins_and_at_least_5_mm():
    for width, height in ((595.28, 841.89), (612.0, 792.0)):
        for m in registration_marks(width, height):
            assert m.size >= 5 * MM - 1e-9
            # Between the printer's reach (5 mm) and the content (margins 12-14 mm).
            assert min(m.x, m.y, width - m.x - m.size, height - m.y - m.size) >= INSET_MM * MM - 1e-9
    assert MARK_MM >= 5 and INSET_MM >= 4.2  # 4.2 mm: what most printers cannot reach
    assert INSET_MM + MARK_MM <= min(MARGINS_MM) - 2  # 2 mm or more from where the content starts


def test_the_html_for_a_browser_draws_the_marks_of_worksheets_only(run, tmp_path):
    out = tmp_path / "out"
    assert run("generate", "--count", "1", "--seed", "7", "--format", "html", "--out", str(out)).code == 0
    assert (out / "worksheets.html").read_text().count('class="rect mark"') == 4
    assert 'class="rect mark"' not in (out / "answer-keys.html").read_text()
