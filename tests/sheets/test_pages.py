"""Every page as printed, read back from the PDF's word boxes (poppler's pdftotext -bbox):
the default sheet fits one page in every convention, language and paper; nothing leaves the
margins; no two words overlap."""

from __future__ import annotations

import itertools
import json
import re
import subprocess

import pytest

from generator.sheet.style import MARGINS_MM

MARGIN_PT = MARGINS_MM[1] * 72 / 25.4
WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')
PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)


def pages(pdf) -> list[tuple[float, float, list[tuple[float, float, float, float, str]]]]:
    """Each page's size and its words' boxes, in points."""
    xml = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return [
        (float(w), float(h), [(*map(float, m.groups()[:4]), m.group(5)) for m in WORD.finditer(body)])
        for w, h, body in PAGE.findall(xml)
    ]


def ink(word) -> tuple[float, float]:
    """A word's height as its letters and digits take it: its font box without the room above
    the capitals (for accents, a quarter of the box in both fonts) and below the baseline (a
    sixth), where a key's small unreduced fraction may sit under the fraction above it."""
    y0, y1 = word[1], word[3]
    return y0 + 0.26 * (y1 - y0), y1 - 0.17 * (y1 - y0)


def overlapping(words) -> list:
    """Pairs of words whose ink overlaps by more than a hair."""
    found = []
    for a, b in itertools.combinations(words, 2):
        (a0, a1), (b0, b1) = ink(a), ink(b)
        if min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a1, b1) - max(a0, b0) > 0.5:
            found.append((a[4], b[4]))
    return found


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_default_sheet_is_one_page_inside_its_margins(run, tmp_path, convention, lang, paper):
    args = ("--count", "2", "--seed", "11", "--convention", convention, "--lang", lang, "--paper", paper)
    assert run("generate", *args, "--out", str(tmp_path), "--jobs", "1").code == 0
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert len(found) == 2, (name, len(found))  # one page a sheet
        for width, height, words in found:
            for x0, y0, x1, y1, text in words:
                assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5, (name, text, x0, x1)
                assert 0 <= y0 and y1 <= height, (name, text)
            assert not overlapping(words), (name, overlapping(words)[:5])


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_worked_key_keeps_every_expression_whole_and_inside_the_page(run, tmp_path, convention, lang):
    from generator.core.registry import solve
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.draw.search import draw
    from generator.kinds.attention.sheet.rules import worked_example

    args = ("--seed", "11", "--convention", convention, "--lang", lang, "--worked")
    assert run("generate", *args, "--out", str(tmp_path), "--jobs", "1").code == 0
    found = pages(tmp_path / "answer-keys.pdf")
    lines: dict[tuple[int, float], list] = {}
    for p, (width, _, words) in enumerate(found):
        assert not overlapping(words), overlapping(words)[:5]
        for x0, y0, x1, y1, text in words:
            assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5, (text, x0, x1)
            lines.setdefault((p, round(y0)), []).append(text)
    printed = [" ".join(words) for words in lines.values()]
    problem = draw(DrawOptions(convention=convention), 11)[0]
    for line in worked_example(problem, solve(problem), lang):
        for expression in line:
            # Whole on one printed line: never broken inside an expression, but for a sum too
            # long for its box, broken before a term ("+ ..."), each term whole.
            if any(expression in text for text in printed):
                continue
            first, *terms = expression.split(" + ")
            assert terms, expression
            for piece in [first, *(f"+ {term}" for term in terms)]:
                assert any(piece in text for text in printed), (expression, piece)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_worked_row_key_keeps_its_example_with_the_output_never_alone(run, tmp_path, lang, paper):
    # It used to follow the output onto a page of its own. Now the key's lines give it room on
    # the first page (A4), or the output starts the second page with the example below it.
    args = (
        "--count",
        "3",
        "--seed",
        "5",
        "--convention",
        "row",
        "--lang",
        lang,
        "--paper",
        paper,
        "--worked",
        "--split",
    )
    assert run("generate", *args, "--out", str(tmp_path), "--jobs", "1").code == 0
    for key in sorted((tmp_path / "keys").iterdir()):
        found = pages(key)
        assert len(found) <= 2, key
        last = " ".join(w[4] for w in found[-1][2])
        assert ("Worked out" if lang == "en" else "Resuelto paso a paso") in last
        assert "A·V" in last.split(), last[:200]  # Z's caption: the output is on that page
    if paper == "a4":  # the first sheet of this batch fits on one page, as measured
        assert len(pages(sorted((tmp_path / "keys").iterdir())[0])) == 1


SHAPES = [  # shapes that printed off the page or in an empty frame before (issue: classroom sheets)
    ("--heads", "4", "--d-v", "4", "--output-projection", "--seed", "3"),
    ("--heads", "4", "--d-v", "6", "--output-projection", "--seed", "3"),
    ("--heads", "3", "--d-v", "8", "--output-projection", "--seed", "3"),
    ("--heads", "3", "--output-projection", "--convention", "row", "--seed", "11"),
    ("--heads", "2", "--output-projection", "--convention", "row", "--seed", "11"),
    ("--heads", "2", "--output-projection", "--convention", "row", "--preset", "hard", "--seed", "2"),
    (
        "--tokens",
        "12",
        "--d-model",
        "8",
        "--heads",
        "4",
        "--d-v",
        "8",
        "--output-projection",
        "--max-score",
        "12",
        "--max-sum",
        "100000",
        "--seed",
        "1",
    ),
    ("--heads", "4", "--output-projection", "--seed", "1"),
    ("--heads", "3", "--output-projection", "--paper", "letter", "--lang", "es", "--seed", "5"),
]


@pytest.mark.parametrize("args", SHAPES, ids=lambda a: " ".join(a))
def test_a_big_shape_prints_inside_its_pages_or_is_refused_before_any_file(run, tmp_path, args):
    out = tmp_path / "out"
    r = run("generate", *args, "--out", str(out), "--jobs", "1")
    if r.code != 0:
        # Refused: one line saying what does not fit (a page, or hand size) and what to change; nothing written.
        assert r.code == 1 and r.err.count("\n") == 1 and ("use fewer" in r.err or "draws it" in r.err), r.err
        assert "would be" in r.err or "denominator of the output" in r.err, r.err
        assert not out.exists() or not any(out.iterdir())
        return
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        assert not lonely_titles(pages(out / name)), (name, lonely_titles(pages(out / name)))
        for width, height, words in pages(out / name):
            assert words, f"{name}: an empty page"
            for x0, y0, x1, y1, text in words:
                assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5, (name, text, x0, x1)
                assert 0 <= y0 and y1 <= height, (name, text, y0, y1)


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_sheet_over_several_pages_keeps_each_product_with_its_factors(run, tmp_path, convention, paper):
    args = (
        "--tokens",
        "8",
        "--d-model",
        "8",
        "--max-sum",
        "2000",
        "--convention",
        convention,
        "--paper",
        paper,
        "--count",
        "3",
        "--seed",
        "2",
    )
    assert run("generate", *args, "--out", str(tmp_path), "--jobs", "1").code == 0
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(tmp_path / name)
        assert len(found) > 3, name  # several pages a sheet: there are page ends to get wrong
        assert not products_apart(found, convention), (name, products_apart(found, convention))


def test_pages_after_the_first_carry_the_name_line(run, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nZoë Ødegård\nBen Ode\n", encoding="utf-8")
    args = ("--roster", str(roster), "--tokens", "8", "--d-model", "8", "--max-sum", "2000", "--seed", "1")
    assert run("generate", *args, "--out", str(tmp_path / "out"), "--jobs", "1").code == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        texts = [" ".join(w[4] for w in words) for _, _, words in pages(tmp_path / "out" / name)]
        for sheet in manifest["sheets"]:
            place = sheet["worksheet" if name == "worksheets.pdf" else "key"]
            first, count = place["first_page"] - 1, place["pages"]
            assert count > 1
            surname = sheet["student"]["name"].split()[-1]
            # Once on the first page (its header), once at the top of every later one.
            assert [texts[p].count(surname) for p in range(first, first + count)] == [1] * count, name


def test_a_big_row_sheet_stacks_its_elementwise_steps_and_keeps_its_numbers_legible(run, tmp_path):
    from generator.core.registry import solve
    from generator.core.student import Student
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.draw.search import draw
    from generator.sheet.model import Settings
    from generator.sheet.sheets import sheet_view

    options = DrawOptions(tokens=8, d_model=8, max_sum=2000, convention="row")
    for problem in draw(options, 1, 5):
        head = sheet_view(problem, solve(problem), Student(), Settings(), True).heads[0]
        # Five matrices abreast printed at 6.7 pt; S', E and the sums now go below the scores.
        assert head.stacked and all(p.scale >= 0.8 for name, band in head.bands if name == "att" for p in band), (
            problem.code
        )
    r = run(
        "generate",
        "--tokens",
        "10",
        "--d-model",
        "8",
        "--max-sum",
        "5000",
        "--max-score",
        "5",
        "--count",
        "5",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "t"),
        "--jobs",
        "1",
    )
    # Fractions like 4374/4999 on ten tokens would print under 7 pt: refused, before any file.
    assert r.code == 1 and "under 7 pt" in r.err and "use fewer --tokens" in r.err
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())


FACTORS = {  # a product's caption word, and the caption word of a factor it must share its page with
    "column": [("W_K·X", "X"), ("W_V·X", "X"), ("Kᵀ·Q", "Kᵀ"), ("V·A", "A")],
    "row": [("X·W_K", "W_K"), ("X·W_V", "W_V"), ("Q·Kᵀ", "Kᵀ"), ("A·V", "A")],
}


def lonely_titles(found) -> list:
    """Head titles ("Head 2", "Cabeza 2") with nothing under them on their page but the footer."""
    lonely = []
    for p, (_, height, words) in enumerate(found):
        body = [w for w in words if w[3] < height - MARGINS_MM[2] * 72 / 25.4]  # the footer left out
        for a, b in zip(body, body[1:]):
            if a[4] in ("Head", "Cabeza") and b[4].isdigit() and not any(w[1] > a[3] for w in body):
                lonely.append((p + 1, f"{a[4]} {b[4]}"))
    return lonely


def products_apart(found, convention: str) -> list:
    """Products printed on a page that lacks one of their factors (by caption words)."""
    apart = []
    for p, (_, _, words) in enumerate(found):
        texts = [w[4] for w in words]
        for product, factor in FACTORS[convention]:
            if texts.count(product) > texts.count(factor):
                apart.append((p + 1, product, factor))
    return apart


GRID = [
    (convention, heads, projected, paper, lang)
    for convention in ("column", "row")
    for heads in (1, 2, 3)
    for projected in (False, True)
    for paper in ("a4", "letter")
    for lang in ("en", "es")
    if heads > 1 or not projected or paper == "a4"
]


@pytest.mark.parametrize("convention, heads, projected, paper, lang", GRID)
def test_every_layout_prints_inside_its_pages_or_is_refused(run, tmp_path, convention, heads, projected, paper, lang):
    args = ["--seed", "5", "--convention", convention, "--heads", str(heads), "--paper", paper, "--lang", lang]
    args += ["--output-projection"] if projected else []
    out = tmp_path / "out"
    r = run("generate", *args, "--out", str(out), "--jobs", "1")
    if r.code != 0:  # refused whole, in one line, before any file
        assert r.code == 1 and r.err.count("\n") == 1 and "use fewer --heads" in r.err, r.err
        assert not out.exists() or not any(out.iterdir())
        return
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(out / name)
        assert len(found) <= 2 * heads + 1, (name, len(found))  # no page spent on a scrap
        assert not products_apart(found, convention), (name, products_apart(found, convention))
        assert not lonely_titles(found), (name, lonely_titles(found))
        for width, height, words in found:
            assert words, f"{name}: an empty page"
            for x0, y0, x1, y1, text in words:
                assert MARGIN_PT - 0.5 <= x0 and x1 <= width - MARGIN_PT + 0.5, (name, text, x0, x1)
                assert 0 <= y0 and y1 <= height, (name, text)
            assert not overlapping(words), (name, overlapping(words)[:3])


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_graded_sheet_keeps_its_worksheets_one_page_layout(run, tmp_path, paper):
    # The score in its header takes room from the lines (nobody writes on a graded sheet),
    # not the layout: it stays the page the student wrote on.
    batch, answers = tmp_path / "batch", tmp_path / "answers.json"
    assert (
        run("generate", "--count", "2", "--seed", "5", "--paper", paper, "--out", str(batch), "--jobs", "1").code == 0
    )
    assert run("answers", "--manifest", str(batch / "manifest.json"), "--all", "--out", str(answers)).code == 0
    r = run(
        "grade",
        str(answers),
        "--manifest",
        str(batch / "manifest.json"),
        "--out",
        str(tmp_path / "g"),
        "--paper",
        paper,
    )
    assert r.code == 0, r.err
    graded = sorted((tmp_path / "g" / "graded").glob("*.pdf"))
    assert len(graded) == 2
    for pdf in graded:
        found = pages(pdf)
        assert len(found) == 1, (pdf.name, len(found))
        width, _, words = found[0]
        assert all(MARGIN_PT - 0.5 <= w[0] and w[2] <= width - MARGIN_PT + 0.5 for w in words)
        assert not overlapping(words), overlapping(words)[:3]
