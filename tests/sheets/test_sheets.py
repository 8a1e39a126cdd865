"""End to end: `generate` and `key` write PDFs that say what they should (read back with pypdf)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from generator.core.registry import solve
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.rebuild import rebuild
from generator.draw.search import draw
from generator.output.html import sheet_html
from generator.output.svg import panel_svg
from generator.sheet.model import Settings
from generator.sheet.sheets import sheet_view

A4 = (595, 842)
LETTER = (612, 792)


def pages_text(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


def page_size(path: Path) -> tuple[int, int]:
    box = PdfReader(path).pages[0].mediabox
    return round(float(box.width)), round(float(box.height))


def computed_texts(solution_doc: dict) -> set[str]:
    """Answers a worksheet must not show: the fractions of A and Z and their decimals."""
    out = set()
    for head in solution_doc["heads"]:
        for name in ("A", "Z"):
            for row in head[name]:
                for x in row:
                    if isinstance(x, str):
                        out.add(x.replace("-", "−"))
    return out


@pytest.fixture(scope="module")
def class_run(tmp_path_factory):
    """One class of three named students, rendered once for the tests below."""
    from generator.cli import main

    folder = tmp_path_factory.mktemp("class")
    roster = folder / "roster.csv"
    roster.write_text("name,id,group\nAda Lovelace,7,B\nJosé Núñez,8,B\nGrace Hopper,9,C\n", encoding="utf-8")
    out = folder / "out"
    try:
        main(["generate", "--roster", str(roster), "--seed", "5", "--out", str(out), "--worked"])
    except SystemExit as exit_:
        assert exit_.code in (0, None)
    return out


def test_combined_files_pages_and_names(class_run):
    ws, keys = pages_text(class_run / "worksheets.pdf"), pages_text(class_run / "answer-keys.pdf")
    assert len(ws) == 3 and len(keys) == 3
    manifest = json.loads((class_run / "manifest.json").read_text())
    for i, (sheet, name) in enumerate(zip(manifest["sheets"], ["Ada Lovelace", "José Núñez", "Grace Hopper"])):
        assert sheet["student"]["name"] == name and sheet["worksheet"]["first_page"] == i + 1
        assert name in ws[i] and name in keys[i]
        assert sheet["code"] in ws[i] and sheet["code"] in keys[i]
    assert page_size(class_run / "worksheets.pdf") == A4


def test_keys_show_exact_fractions_and_worksheets_none(class_run):
    manifest = json.loads((class_run / "manifest.json").read_text())
    ws, keys = pages_text(class_run / "worksheets.pdf"), pages_text(class_run / "answer-keys.pdf")
    for i, sheet in enumerate(manifest["sheets"]):
        answers = computed_texts(sheet["solution"])
        assert answers, "a sheet with no fractions teaches little"
        key_words, ws_words = (
            set(keys[i].split()),
            set(ws[i].split()),
        )  # whole words: "1/3." in the rules is not an answer
        assert answers <= key_words, answers - key_words
        assert not answers & ws_words
        sums = {str(s) for s in sheet["solution"]["heads"][0]["sums"] if isinstance(s, int) and s > 9}
        assert sums <= key_words
    assert "Worked out" in keys[0]


def test_manifest_solutions_equal_solve(class_run, run):
    manifest = json.loads((class_run / "manifest.json").read_text())
    problems = json.dumps([s["problem"] for s in manifest["sheets"]])
    solved = json.loads(run("solve", "-", "--json", stdin=problems).out)
    assert [s["solution"] for s in manifest["sheets"]] == solved
    assert manifest["seed"] == 5 and manifest["tool"]["name"] == "attnsheet"
    assert manifest["options"]["preset"] == "medium" and manifest["options"]["count"] == 3


def test_split_letter_spanish(run, tmp_path):
    r = run(
        "generate",
        "--count",
        "2",
        "--seed",
        "3",
        "--split",
        "--paper",
        "letter",
        "--lang",
        "es",
        "--out",
        str(tmp_path),
    )
    assert r.code == 0, r.err
    codes = [p.code.lower() for p in draw(DrawOptions(), 3, 2)]
    assert sorted(p.name for p in (tmp_path / "worksheets").iterdir()) == [f"01-{codes[0]}.pdf", f"02-{codes[1]}.pdf"]
    assert sorted(p.name for p in (tmp_path / "keys").iterdir()) == [f"01-{codes[0]}.pdf", f"02-{codes[1]}.pdf"]
    first = tmp_path / "worksheets" / f"01-{codes[0]}.pdf"
    assert page_size(first) == LETTER
    assert len(PdfReader(first).pages) == 1 and len(PdfReader(tmp_path / "keys" / f"01-{codes[0]}.pdf").pages) == 1
    text = pages_text(first)[0]
    assert "hoja de trabajo" in text.lower() and "Nombre" in text and "Reglas" in text
    assert "solucionario" in pages_text(tmp_path / "keys" / f"01-{codes[0]}.pdf")[0].lower()
    assert "wrote 5 files" in r.err


def test_key_rebuilds_a_sheet_from_its_code(run, tmp_path, class_run):
    manifest = json.loads((class_run / "manifest.json").read_text())
    sheet = manifest["sheets"][1]
    r = run("key", sheet["code"].lower(), "--out", str(tmp_path))
    assert r.code == 0, r.err
    rebuilt = json.loads((tmp_path / f"{sheet['code']}-manifest.json").read_text())["sheets"][0]
    assert rebuilt["problem"] == sheet["problem"] and rebuilt["solution"] == sheet["solution"]
    assert sheet["code"] in pages_text(tmp_path / f"{sheet['code']}-key.pdf")[0]


def test_existing_files_are_kept_without_force(run, tmp_path):
    assert run("generate", "--seed", "1", "--out", str(tmp_path), "--format", "html").code == 0
    before = (tmp_path / "worksheets.html").read_bytes()
    r = run("generate", "--seed", "2", "--out", str(tmp_path), "--format", "html")
    assert r.code == 1 and "already exists" in r.err
    assert (tmp_path / "worksheets.html").read_bytes() == before
    assert run("generate", "--seed", "2", "--out", str(tmp_path), "--format", "html", "--force").code == 0
    assert (tmp_path / "worksheets.html").read_bytes() != before
    assert (tmp_path / "fonts" / "OFL.txt").exists()


def test_count_and_roster_together_is_a_usage_error(run, tmp_path):
    roster = tmp_path / "r.csv"
    roster.write_text("name\nA\n")
    r = run("generate", "--count", "2", "--roster", str(roster), "--out", str(tmp_path))
    assert r.code == 2 and r.err.count("\n") == 1


LAYOUTS = {
    "column": DrawOptions(),
    "row": DrawOptions(convention="row"),
    "multihead": DrawOptions(heads=2, output_projection=True),
    "causal": DrawOptions(causal=True, preset="hard"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_golden_html(layout, golden):
    problem = draw(LAYOUTS[layout], 2026)[0]
    assert rebuild(problem.code) == problem
    solution = solve(problem)
    student = Student(name="Ada <Lovelace>", group="B&C")
    for key in (False, True):
        html = sheet_html(problem, solution, student, Settings(worked=key), key=key)
        golden(f"sheet-{layout}-{'key' if key else 'worksheet'}.html", html)
        assert "Ada &lt;Lovelace&gt;" in html and "B&amp;C" in html


def test_a_big_shape_flows_over_pages_without_splitting_a_matrix(tmp_path, run):
    r = run(
        "generate",
        "--seed",
        "7",
        "--tokens",
        "8",
        "--d-model",
        "10",
        "--d-k",
        "4",
        "--d-v",
        "4",
        "--out",
        str(tmp_path),
        "--paper",
        "letter",
    )
    assert r.code == 0, r.err
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["sheets"][0]["worksheet"]["pages"] > 1
    from test_pages import MARGIN_PT, pages

    for name in ("worksheets.pdf", "answer-keys.pdf"):  # every word of every page inside the margins
        for width, height, words in pages(tmp_path / name):
            assert words and all(MARGIN_PT - 0.5 <= w[0] and w[2] <= width - MARGIN_PT + 0.5 for w in words)
            assert all(0 <= w[1] and w[3] <= height for w in words)
    problem = rebuild(manifest["sheets"][0]["code"])
    head = sheet_view(problem, solve(problem), Student(), Settings(paper="letter"), True).heads[0]
    assert head.stacked  # one band after another, each as wide as the page allows


@pytest.mark.parametrize("preset", ["easy", "medium", "hard"])
@pytest.mark.parametrize("extra", [{}, {"causal": True}, {"convention": "row"}])
def test_default_shapes_keep_the_one_page_layout(preset, extra):
    from generator.sheet.fit import CONTENT_WIDTH_PT

    for problem in draw(DrawOptions(preset=preset, **extra), 99, 100):
        head = sheet_view(problem, solve(problem), Student(), Settings(), True).heads[0]
        assert not head.stacked, problem.code
        panels = head.panels
        assert panels and all(p.width_pt <= CONTENT_WIDTH_PT for p in panels), problem.code


@pytest.mark.parametrize("layout", LAYOUTS)
def test_panels_place_every_value_and_caption_without_collisions(layout):
    from generator.kinds.attention.sheet.arrangement import arrangement
    from generator.sheet.grid import grid
    from generator.sheet.panel import grid_panel, side_by_side
    from generator.kinds.attention.sheet.views import head_matrices

    for problem in draw(LAYOUTS[layout], 31, 25):
        solution = solve(problem)
        m = head_matrices(problem, solution, 0, True, "en")
        grids = {name: grid(rows) for name, rows in arrangement(problem.convention, m).items()}
        if "out" in grids:
            panels = [(grid_panel(grids[n]), grids[n].cells) for n in ("proj", "att", "out")]
        else:
            panels = [(side_by_side(grids["proj"], grids["att"]), grids["proj"].cells + grids["att"].cells)]
        for panel, cells in panels:
            text = {
                kind: "\n".join(layer.text for layer in panel.layers if layer.kind == kind)
                for kind in ("given", "answers", "captions")
            }
            values = "".join(line for c in cells for line in c.m.lines)
            written = text["given"] + text["answers"]
            # A value overwriting another would lose characters; none may be lost or added.
            assert sorted(written.replace(" ", "").replace("\n", "")) == sorted(values.replace(" ", ""))
            lines = [f" {line} " for line in text["captions"].split("\n")]
            for c in cells:  # whole, and apart from its neighbours
                assert any(f" {c.m.caption_text} " in line for line in lines), (problem.code, c.m.caption_text)
            drawing = panel_svg(panel)
            assert "<text" not in drawing and "href" not in drawing


def test_a_combined_file_joined_from_parts_keeps_order_bookmarks_and_metadata(run, tmp_path):
    from generator.output.batch import PART_SHEETS

    count = PART_SHEETS + 3
    r = run("generate", "--count", str(count), "--seed", "8", "--out", str(tmp_path), "--lang", "es")
    assert r.code == 0, r.err
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    for name, kind in (("worksheets.pdf", "worksheet"), ("answer-keys.pdf", "key")):
        reader = PdfReader(tmp_path / name)
        assert len(reader.pages) == count
        texts = [page.extract_text() for page in reader.pages]
        for i, sheet in enumerate(manifest["sheets"]):
            assert sheet[kind]["first_page"] == i + 1 and sheet["code"] in texts[i]
        marks = reader.outline
        assert len(marks) == count and [reader.get_destination_page_number(m) for m in marks] == list(range(count))
        assert reader.trailer["/Root"]["/Lang"] == "es" and reader.metadata["/Title"] == "Autoatención a mano"


@pytest.mark.parametrize("convention", ["column", "row"])
def test_a_key_shows_each_unreduced_fraction_that_reduces_beside_its_value(convention):
    from fractions import Fraction

    from generator.core.problem import transpose
    from generator.kinds.attention.sheet.unreduced import unreduced_forms

    shown = 0
    for problem in draw(DrawOptions(convention=convention), 3, 40):  # whole powers (no 3^-1)
        sol = solve(problem).heads[0]
        forms_a, forms_z = unreduced_forms(sol, convention == "row")
        for values, forms in ((sol.A, forms_a), (sol.Z, forms_z)):
            if convention == "row":  # compare by query columns, whatever the convention
                values, forms = transpose(values), transpose(forms)
            for i, line in enumerate(values):
                for j, value in enumerate(line):
                    form, reduces = forms[i][j], Fraction(value).denominator not in (1, sol.sums[j])
                    assert bool(form) == (reduces and value != 0), (value, form)
                    if form:  # "=p/s": the same value, over the query's column sum
                        p, s = form.removeprefix("=").replace("\u2212", "-").split("/")
                        assert Fraction(int(p), int(s)) == value and int(s) == sol.sums[j]
                        shown += 1
    assert shown > 100


def test_the_unreduced_fractions_print_on_the_key_only(tmp_path, run):
    assert run("generate", "--seed", "5", "--out", str(tmp_path)).code == 0
    key = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "answer-keys.pdf"), "-"], capture_output=True, text=True
    ).stdout
    sheet = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "worksheets.pdf"), "-"], capture_output=True, text=True
    ).stdout
    # Seed 5's first query: powers 9, 9, 3, 3 over a sum of 24 (worked by hand), Z's first entry 30/24.
    assert "=9/24" in key and "=3/24" in key and "=30/24" in key
    assert not re.search("=−?[0-9]+/[0-9]", sheet), sheet  # the worksheet's boxes are empty


def test_html_output_prints_each_sheet_from_its_layout_or_lets_it_flow(tmp_path, run):
    # A name the bundled font cannot print needs a text engine: that sheet flows, as its PDF
    # goes to WeasyPrint; the others are printed part by part from the layout, as their PDF.
    roster = tmp_path / "class.csv"
    roster.write_text("name\nAda <b>\nשרה כהן\n", encoding="utf-8")
    assert run("generate", "--roster", str(roster), "--seed", "5", "--format", "html", "--out", str(tmp_path)).code == 0
    html = (tmp_path / "worksheets.html").read_text()
    assert (
        html.count('<article class="sheet laid-out worksheet"') == 1
        and html.count('<article class="sheet worksheet"') == 1
    )
    assert "Ada &lt;b&gt;" in html and "<b>" not in html.split("<body>")[1]
    assert 'class="sheet-head"' in html  # the flowing one's header
