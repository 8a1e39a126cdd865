"""Sheets written straight from their layout (generator.output.direct) against the same sheets
laid out by WeasyPrint: the same words at the same places, the same picture; what the layout
does not cover goes to WeasyPrint; a class never loads it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pikepdf
import pytest
from PIL import Image, ImageChops

from generator.core.answers import parse_answers_json, skeleton
from generator.core.registry import grade, kinds, solve
from generator.draw.choose import kind_options
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.output import direct
from generator.output.documents import document
from generator.output.pdf import renderer
from generator.sheet.graded import graded_sheet
from generator.sheet.model import Settings
from generator.sheet.sheets import sheet_view
from test_pages import pages

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def both(tmp_path, view, settings, pages=1):
    """The sheet written directly and by WeasyPrint, as files (of `pages` pages, or any)."""
    ours = direct.document([view], settings)
    assert ours is not None, "the layout should cover this sheet"
    theirs = renderer().document([view], settings)
    paths = tmp_path / "direct.pdf", tmp_path / "weasy.pdf"
    paths[0].write_bytes(ours[0])
    paths[1].write_bytes(theirs[0])
    assert ours[1] == theirs[1] == ([pages] if pages else theirs[1])
    return paths


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("kind", ["worksheet", "key", "worked key"])
def test_every_word_is_where_weasyprint_puts_it(tmp_path, convention, lang, paper, kind):
    # Seed 5: a row key whose worked example fits the first page on A4 (on Letter it cannot).
    problem = draw(DrawOptions(convention=convention), 5 if kind == "worked key" else 11)[0]
    settings = Settings(paper=paper, lang=lang, title="Clase 3 · Atención", worked=kind == "worked key")
    view = sheet_view(problem, solve(problem), Student("Zoë Ødegård", "3B"), settings, kind != "worksheet")
    # On Letter a row key's output and worked example start a second page.
    same_words(*both(tmp_path, view, settings, pages=2 if view.heads[0].out_apart else 1))


def same_words(ours_path, theirs_path) -> None:
    """Every word of one PDF within a quarter point of the same word in the other."""
    ours, theirs = pages(ours_path), pages(theirs_path)
    assert [(w, h) for w, h, _ in ours] == [(w, h) for w, h, _ in theirs]
    for number, (mine, weasy) in enumerate(zip(ours, theirs), start=1):
        placed = defaultdict(list)
        for *box, text in mine[2]:
            placed[text].append(box)
        assert len(mine[2]) == len(weasy[2]), number
        for *box, text in weasy[2]:
            assert placed[text], f"{text!r} is missing from page {number} of the direct PDF"
            nearest = min(placed[text], key=lambda b: sum(abs(p - q) for p, q in zip(b, box)))
            assert max(abs(p - q) for p, q in zip(nearest, box)) < 0.25, (number, text, nearest, box)
            placed[text].remove(nearest)


@pytest.mark.parametrize("kind", [k for k in kinds() if k != "attention"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_every_kinds_key_is_written_directly(kind, lang, paper):
    # Every registered kind at its defaults: a glyph the bundled fonts lack, or a part the layout
    # does not cover, would send every sheet of the kind to WeasyPrint (slower by tens of times).
    problem = draw(kind_options(kind), 3)[0]
    settings = Settings(paper=paper, lang=lang, worked=True)
    view = sheet_view(problem, solve(problem), Student("Zoë Ødegård", "3B"), settings, True)
    written = direct.document([view], settings)
    assert written is not None and written[1] == [1], kind


@pytest.mark.parametrize("shape", ["two heads", "three heads", "one head with W_O", "three heads row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_framed_heads_over_pages_are_where_weasyprint_puts_them(tmp_path, shape, lang, paper):
    # Each framed head (and the concatenation) stays on one page: a frame that would cross a
    # page's foot starts the next, whose top margin repeats the name line.
    options = {
        "two heads": DrawOptions(heads=2, d_k=2, d_v=2, output_projection=True),
        "three heads": DrawOptions(heads=3, d_model=4, d_k=2, d_v=2, output_projection=True),
        "one head with W_O": DrawOptions(output_projection=True),
        # The first frame, with the worked example after its output, is too tall for a
        # page: that head flows, the others keep their frames on a page each.
        "three heads row": DrawOptions(heads=3, convention="row", d_model=4, d_k=2, d_v=2),
    }[shape]
    problem = draw(options, 11)[0]
    settings = Settings(paper=paper, lang=lang, worked=True)
    view = sheet_view(problem, solve(problem), Student("Zoë Ødegård", "3B"), settings, True)
    ours, theirs = both(tmp_path, view, settings, pages=None)
    same_words(ours, theirs)


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_a_head_flowing_over_pages_is_where_weasyprint_puts_it(tmp_path, convention, lang, paper):
    # Too big for a page: its grids a band at a time, a factor's band kept with its product's.
    problem = draw(DrawOptions(tokens=8, d_model=10, d_k=4, d_v=4, convention=convention), 7)[0]
    for key in (False, True):
        settings = Settings(paper=paper, lang=lang, worked=key)
        view = sheet_view(problem, solve(problem), Student("Zoë Ødegård", "3B"), settings, key)
        assert view.heads[0].stacked
        same_words(*both(tmp_path, view, settings, pages=None))


@pytest.mark.parametrize("convention", ["column", "row"])
def test_several_heads_flowing_over_pages_are_where_weasyprint_puts_them(tmp_path, convention):
    # Each head's frame is sliced where a page ends (open there), as WeasyPrint slices it.
    problem = draw(DrawOptions(heads=2, tokens=8, d_model=10, d_k=4, d_v=4, convention=convention), 7)[0]
    settings = Settings(lang="es", worked=True)
    view = sheet_view(problem, solve(problem), Student("Zoë Ødegård", "3B"), settings, True)
    assert all(head.stacked for head in view.heads)
    paths = both(tmp_path, view, settings, pages=None)
    same_words(*paths)
    images = []
    for path in paths:
        subprocess.run(["pdftoppm", "-png", "-r", "60", str(path), str(path.with_suffix(""))], check=True)
        images.append([Image.open(p).convert("L") for p in sorted(tmp_path.glob(f"{path.stem}-*.png"))])
    for ours, theirs in zip(*images):  # the frames' sides, tops and feet where WeasyPrint draws them
        assert (np.array(ImageChops.difference(ours, theirs)) > 64).mean() < 0.002


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_graded_sheet_is_written_directly_where_weasyprint_puts_it(tmp_path, paper):
    problem = draw(DrawOptions(), 5)[0]
    solution = solve(problem)
    written = skeleton(problem, problem.code, Student("Ada"))
    written["heads"][0]["Q"] = [[str(v) for v in row] for row in solution.heads[0].Q]
    written["heads"][0]["Q"][0][0] = "7"  # one slip, carried into the scores
    pending = parse_answers_json(json.dumps(written), "answers")[0]
    settings = Settings(paper=paper)
    g = grade(problem, pending.answers(problem, Student("Ada"), problem.code))
    view = sheet_view(problem, solution, g.student, settings, False, graded_sheet(g, problem))
    same_words(*both(tmp_path, view, settings))


def test_the_picture_is_weasyprints(tmp_path):
    # Words are checked above; this catches a rule, a box or a tint that moved or went missing.
    problem = draw(DrawOptions(), 5)[0]
    view = sheet_view(problem, solve(problem), Student("Ada"), Settings(), True)
    images = []
    for path in both(tmp_path, view, Settings()):
        subprocess.run(["pdftoppm", "-png", "-r", "60", str(path), str(path.with_suffix(""))], check=True)
        images.append(Image.open(f"{path.with_suffix('')}-1.png").convert("L"))
    differ = np.array(ImageChops.difference(*images)) > 64
    # What differs is the smoothing of a rule's edge pixels (WeasyPrint clips, we fill).
    assert differ.mean() < 0.002, differ.mean()


LONG_NAME = "Maximiliana Wilhelmina Fernández de la Concepción y Montenegro"


@pytest.mark.parametrize("case", ["very long name", "hebrew name", "long title"])
def test_what_the_layout_does_not_cover_goes_to_weasyprint(case):
    # What needs a text engine: a name cut with an ellipsis (longer than two of its lines), a
    # script the font lacks, a title that wraps.
    options = DrawOptions()
    settings = Settings(title="A very long title " * 5 if case == "long title" else "")
    name = {"very long name": " ".join([LONG_NAME] * 2), "hebrew name": "שרה כהן"}
    problem = draw(options, 3)[0]
    view = sheet_view(problem, solve(problem), Student(name.get(case, "Ada")), settings, True)
    assert direct.document([view], settings) is None
    data, counts = document([view], settings)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert str(pdf.docinfo["/Producer"]).startswith("WeasyPrint")
    assert sum(counts) >= 1


@pytest.mark.parametrize("key", [False, True])
def test_a_long_name_is_written_whole_and_smaller_on_its_line(key):
    """Issue 56, item 12: a long name was cut to "…Surnam…" on the worksheet."""
    from generator.output.prose import shaper
    from generator.sheet.layout import page_layout

    problem = draw(DrawOptions(), 3)[0]
    view = sheet_view(problem, solve(problem), Student(LONG_NAME), Settings(), key)
    pages = page_layout(view, Settings(), shaper())
    assert pages is not None
    (run,) = [r for r in pages[0].runs if r.text == LONG_NAME]
    ada = [
        r
        for r in page_layout(
            sheet_view(problem, solve(problem), Student("Ada"), Settings(), key), Settings(), shaper()
        )[0].runs
        if r.text == "Ada"
    ][0]
    assert run.prose.size < ada.prose.size and abs(run.baseline - ada.baseline) < 0.01  # smaller, on the same baseline
    data, _ = direct.document([view], Settings())
    assert LONG_NAME in "".join(p.extract_text() for p in __import__("pypdf").PdfReader(io.BytesIO(data)).pages)


def test_a_direct_file_says_what_it_is():
    problem = draw(DrawOptions(), 2)[0]
    settings = Settings(lang="es", title="Repaso", timestamp="2023-11-14T22:13:20Z")
    views = [sheet_view(problem, solve(problem), Student(n), settings, False) for n in ("Ana", "Luis")]
    data, counts = document(views, settings)
    pdf = pikepdf.open(io.BytesIO(data))
    assert counts == [1, 1] and len(pdf.pages) == 2
    assert str(pdf.docinfo["/Producer"]).startswith("attnsheet") and str(pdf.docinfo["/Title"]) == "Repaso"
    assert str(pdf.docinfo["/CreationDate"]) == "D:20231114221320Z" and str(pdf.Root.Lang) == "es"
    with pdf.open_outline() as outline:
        assert [item.title for item in outline.root] == ["Repaso", "Repaso"]
    text = "".join(page.extract_text() for page in __import__("pypdf").PdfReader(io.BytesIO(data)).pages)
    assert "Ana" in text and "Luis" in text and "Reglas" in text and problem.code in text


def test_a_class_batch_never_loads_weasyprint(tmp_path):
    script = (
        "import sys\nfrom generator.cli import main\n"
        "try:\n    main(['generate', '--count', '30', '--seed', '4', '--out', sys.argv[1], '--jobs', '1'])\n"
        "except SystemExit as e:\n    assert not e.code, e.code\n"
        "print(sorted(m for m in ('weasyprint', 'jinja2', 'fontTools.subset') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"
    assert len(pages(tmp_path / "out" / "answer-keys.pdf")) == 30
