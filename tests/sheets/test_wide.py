"""A concatenation too wide for a portrait page prints on a landscape page of its own, and one
too tall for any page whole continues on the next (issue 34, item 4): both PDF paths, both
papers and languages; its boxes big enough to write in; its scan identified whichever way the
copier fed it. A shape too big even for that is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import pytest
from test_pages import MARGIN_PT, pages

from generator.scan.synthetic import filled_sheets, pdf_of

ATTNSHEET = [sys.executable, "-m", "generator"]
WIDE = ("--heads", "3", "--output-projection", "--convention", "row")
"""3 heads with W_O in the row convention: Z_concat·W_O is 811 pt wide where a portrait frame has 500."""


@pytest.mark.parametrize("paper, lang, title", [("a4", "en", ""), ("letter", "es", ""), ("a4", "en", "注意力 3B")])
def test_the_wide_concatenation_prints_on_a_landscape_page_of_its_own(tmp_path, paper, lang, title):
    # A title the sheets' font cannot print is laid out by WeasyPrint: the other PDF path.
    args = [*WIDE, "--paper", paper, "--lang", lang, "--seed", "5", "--out", str(tmp_path)] + (
        ["--title", title] if title else []
    )
    done = subprocess.run([*ATTNSHEET, "generate", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert [w > h for w, h, _ in found] == [False] * (len(found) - 1) + [True], name
        width, height, words = found[-1]
        assert {round(width), round(height)} == ({842, 595} if paper == "a4" else {792, 612})
        texts = " ".join(w[4] for w in words)
        assert "Z_concat·W_O" in texts or "Z_concat·W_O" in texts.replace(" ", "")
        for x0, y0, x1, y1, text in words:  # everything inside the landscape page's margins
            assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5 and 0 <= y0 and y1 <= height, text
    if title:
        return  # boxes@1 comes from the sheets' own layout
    code = json.loads((tmp_path / "manifest.json").read_text())["sheets"][0]["code"]
    boxes = json.loads(
        subprocess.run(
            [*ATTNSHEET, "boxes", code, "--paper", paper, "--lang", lang, "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    last = boxes["pages"][-1]
    assert last["width"] > last["height"] and last["boxes"]
    assert {b["step"] for b in last["boxes"]} == {"Z", "output"}
    for b in last["boxes"]:  # every box on the page and as big as a portrait page's (24 x 20 pt)
        assert 0 < b["x"] and b["x"] + b["w"] < last["width"] and 0 < b["y"] and b["y"] + b["h"] < last["height"]
        assert b["w"] >= 24 and b["h"] >= 19.9, b


def test_a_landscape_page_is_read_back_fed_sideways_or_upside_down(tmp_path):
    subprocess.run(
        [*ATTNSHEET, "generate", *WIDE, "--count", "2", "--seed", "5", "--out", str(tmp_path / "batch")],
        check=True,
        capture_output=True,
    )
    sheets = list(filled_sheets(tmp_path / "batch", seed=3, scan=dict(dpi=200, angle=1.5, quality=80)))
    assert [p.shape[1] > p.shape[0] for p in sheets[0].pages] == [False, False, False, True]
    pile = [p for s in sheets for p in s.pages]
    pile[3] = cv2.rotate(pile[3], cv2.ROTATE_90_CLOCKWISE)  # a copier that took it in portrait
    pile[7] = cv2.rotate(pile[7], cv2.ROTATE_180)
    pdf_of(pile, tmp_path / "pile.pdf")
    summary, accepted = _scanned(tmp_path, sheets)
    assert summary["identified"] == 8 and summary["missing"] == [] and summary["incomplete"] == []
    found = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert [(p["sheet_page"], p["turned"]) for p in found if p["sheet_page"] == 4] == [(4, 270), (4, 180)]
    # Of 2 x 60 boxes, slips and copies among them: a reader at work there, not one that gave up.
    assert accepted["Z"] + accepted["output"] >= 15, accepted


def _scanned(tmp_path, sheets) -> tuple[dict, dict[str, int]]:
    """tmp_path/pile.pdf scanned against tmp_path/batch: the summary, and how many boxes of the
    grid after the heads were accepted, each as written (never a written box read as blank)."""
    done = subprocess.run(
        [
            *ATTNSHEET,
            "scan",
            str(tmp_path / "pile.pdf"),
            "--manifest",
            str(tmp_path / "batch" / "manifest.json"),
            "--out",
            str(tmp_path / "out"),
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(p.read_text()) for p in sorted((tmp_path / "out" / "answers").glob("*.json"))]
    accepted = {"Z": 0, "output": 0}
    for doc, sheet in zip(answers, sheets):  # read as written, or left to review
        for (head, step, r, c), parts in sheet.written.items():
            if head is not None or step not in accepted:
                continue
            value = doc[step][r][c]
            if not any(parts):
                assert value in ("", None), (step, r, c, value)
                continue
            assert value != "", (step, r, c, parts)  # never a written box read as blank
            if value is not None:
                accepted[step] += 1
                assert value.split()[0] == parts[0].replace("\u2212", "-"), (step, r, c, value, parts)
    return json.loads(done.stdout), accepted


TALL = ("--heads", "4", "--d-v", "6", "--output-projection")
"""4 heads of d_v 6 with W_O: Z_concat (24 rows) over W_O·Z_concat is 706 pt tall, where a
landscape page has 479 and its bands 835 pt wide: the concatenation on a portrait page, the
projection on a landscape one after it."""


@pytest.mark.parametrize("paper, lang, title", [("a4", "en", ""), ("letter", "es", ""), ("a4", "en", "注意力 4B")])
def test_a_concatenation_too_tall_for_any_page_continues_on_the_next(tmp_path, paper, lang, title):
    args = [*TALL, "--paper", paper, "--lang", lang, "--seed", "3", "--out", str(tmp_path)]
    args += ["--title", title] if title else []
    done = subprocess.run([*ATTNSHEET, "generate", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    then = "Then project" if lang == "en" else "Después proyecta"
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert [w > h for w, h, _ in found] == [False] * (len(found) - 1) + [True], name
        before = " ".join(w[4] for w in found[-2][2])
        last = " ".join(w[4] for w in found[-1][2])
        # The concatenation alone on its page, its title without the projection; W_O and the
        # output on the next, saying where the concatenation is.
        assert "Z_concat" in before and then not in before and "W_O" not in before.replace(" ", ""), name
        assert then in last and "W_O·Z_concat" in last.replace(" ", ""), name
        for width, height, words in found[-2:]:
            for x0, y0, x1, y1, text in words:  # everything inside its page's margins
                assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5 and 0 <= y0 and y1 <= height, text
    if title:
        return
    code = json.loads((tmp_path / "manifest.json").read_text())["sheets"][0]["code"]
    boxes = json.loads(
        subprocess.run(
            [*ATTNSHEET, "boxes", code, "--paper", paper, "--lang", lang, "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    before, last = boxes["pages"][-2:]
    assert {b["step"] for b in before["boxes"] if b["head"] is None} == {"Z"} and len(before["boxes"]) == 24 * 4
    assert {b["step"] for b in last["boxes"]} == {"output"} and len(last["boxes"]) == 6 * 4
    for page in (before, last):  # every box on its page, and big enough to write in
        for b in page["boxes"]:
            assert 0 < b["x"] and b["x"] + b["w"] < page["width"] and 0 < b["y"] and b["y"] + b["h"] < page["height"]
            assert b["w"] >= 24 and b["h"] >= 19.9, b


def test_a_parted_concatenation_is_read_back_from_its_two_pages(tmp_path):
    subprocess.run(
        [*ATTNSHEET, "generate", *TALL, "--count", "2", "--seed", "3", "--out", str(tmp_path / "batch")],
        check=True,
        capture_output=True,
    )
    # No slips: W_O·Z_concat carried through 24 rows of a slip is a fraction no one writes by hand.
    sheets = list(filled_sheets(tmp_path / "batch", seed=4, wrong=0.0, scan=dict(dpi=200, angle=1.0, quality=80)))
    pages_of = len(sheets[0].pages)
    assert [p.shape[1] > p.shape[0] for p in sheets[0].pages] == [False] * (pages_of - 1) + [True]
    pile = [p for s in sheets for p in s.pages]
    pile[pages_of - 1] = cv2.rotate(pile[pages_of - 1], cv2.ROTATE_90_COUNTERCLOCKWISE)  # fed in portrait
    pdf_of(pile, tmp_path / "pile.pdf")
    summary, accepted = _scanned(tmp_path, sheets)
    assert summary["identified"] == 2 * pages_of and summary["missing"] == [] and summary["incomplete"] == []
    assert accepted["Z"] >= 100 and accepted["output"] >= 30, accepted  # of 2 x 96 and 2 x 24: at work on both pages


def test_a_concatenation_too_big_even_for_a_landscape_page_is_refused_in_one_line(tmp_path):
    # W_O with 16 rows (two lines each, beside the output's fractions) is taller than a landscape page.
    done = subprocess.run(
        [*ATTNSHEET, "generate", *TALL, "--d-model", "16", "--seed", "3", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "pt tall where a landscape page has 479" in done.stderr and "use fewer --heads" in done.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
