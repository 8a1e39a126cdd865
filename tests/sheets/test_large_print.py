"""Large print for students with low vision (issue 56): a sheet laid out on a page of its own and
printed 1.5 times as large on A3 (1.45 times on tabloid for Letter), or twice as large on either
turned sideways, for the whole class or the students whose class list says so; its scans and photos
read like any sheet's."""

from __future__ import annotations

import json

import pytest
from test_pages import lonely_titles, overlapping, pages, products_apart

from generator.core.errors import LayoutError
from generator.core.student import DOUBLE_PRINT, LARGE_PRINT, Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.output.enlarge import check_large
from generator.app.batches import make_sheets
from generator.sheet.model import Settings
from generator.sheet.roster import RosterError, parse_roster
from generator.sheet.style import margins_of

MM = 72 / 25.4
PAPER_PT = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}
LARGE_PT = {
    ("a4", "1.5"): (841.89, 1190.55),
    ("letter", "1.5"): (792.0, 1224.0),
    ("a4", "2"): (1190.55, 841.89),
    ("letter", "2"): (1224.0, 792.0),
}
"""Each paper's large print's paper, by print size: A3 or tabloid, turned sideways for twice."""
SCALE = {("a4", "1.5"): 1.5, ("letter", "1.5"): 1.45, ("a4", "2"): 2.0, ("letter", "2"): 2.0}
PAGE = {"1.5": "large", "2": "double"}
"""A print size's pages (sheet/model.LARGE_PAPERS: a4-large, a4-double) and the class list's word for it."""
SIZES = ("1.5", "2")
KINDS = ("attention", "ffn", "transformer", "rnn", "moe", "mlp", "backprop", "norm", "gcn", "conv")


def sizes(pdf) -> list[tuple[int, int]]:
    return [(round(w), round(h)) for w, h, _ in pages(pdf)]


def side_pt(paper: str, size: str) -> float:
    """A large print's side margin on its paper, in points."""
    margins = margins_of(f"{paper}-{PAGE[size]}")
    return min(margins[1], margins[3]) * MM * SCALE[paper, size]


def on_its_paper(paper: str, size: str) -> set[tuple[int, int]]:
    """A large print's paper, either way round (a concatenation too wide turns its page)."""
    width, height = LARGE_PT[paper, size]
    return {(round(width), round(height)), (round(height), round(width))}


def test_a_class_list_says_who_prints_large_and_refuses_what_is_no_size():
    roster = parse_roster('name,print\nAna,\nBo,large\nCe,150%\nDi,"1,5"\nEd,normal\nFe,2\nGi,Double\nHo,200%\n')
    assert [s.print_size for s in roster.students] == ["", *[LARGE_PRINT] * 3, "", *[DOUBLE_PRINT] * 3]
    with pytest.raises(RosterError, match=r"line 3: print: '3' is no print size"):
        parse_roster("name,print\nAna,\nBo,3\n")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_large_print_is_its_papers_size_and_everything_as_much_larger(run, tmp_path, paper, size):
    roster = tmp_path / "roster.csv"
    roster.write_text(f"name,print\nAna Normal,\nBo Large,{PAGE[size]}\n", encoding="utf-8")
    out = tmp_path / "out"
    r = run("generate", "--roster", str(roster), "--seed", "5", "--paper", paper, "--out", str(out), "--jobs", "1")
    assert r.code == 0, r.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["student"].get("print_size", "") for s in manifest["sheets"]] == ["", size]
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        normal, *large = pages(out / name)  # the class's sheet is one page; a large one as many as its page holds
        assert (round(normal[0]), round(normal[1])) == tuple(round(v) for v in PAPER_PT[paper])
        assert {(round(w), round(h)) for w, h, _ in large} == {tuple(round(v) for v in LARGE_PT[paper, size])}
        # The same words, each as wide as before times the scale (the sheets' numbers differ: the title's do not).
        title = {words[4]: words[2] - words[0] for words in normal[2] if words[4] in ("Self-attention", "Rules")}
        grown = {words[4]: words[2] - words[0] for words in large[0][2] if words[4] in title}
        assert title and all(abs(grown[w] / title[w] - SCALE[paper, size]) < 0.01 for w in title), (title, grown)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("paper, size", [("a4", "1.5"), ("letter", "1.5"), ("a4", "2"), ("letter", "2")])
def test_every_kind_prints_large_inside_its_paper(run, tmp_path, kind, paper, size):
    out = tmp_path / "out"
    r = run(
        "generate",
        "--kind",
        kind,
        "--count",
        "1",
        "--seed",
        "3",
        "--paper",
        paper,
        "--large-print",
        size,
        "--lang",
        "es" if paper == "letter" else "en",
        "--out",
        str(out),
        "--jobs",
        "1",
    )
    assert r.code == 0, r.err
    side = side_pt(paper, size)
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        for width, height, words in pages(out / name):
            assert (round(width), round(height)) in on_its_paper(paper, size)
            assert words, f"{name}: an empty page"
            for x0, y0, x1, y1, text in words:
                assert side - 0.5 <= x0 and x1 <= width - side + 0.5, (name, text, x0, x1)
                assert 0 <= y0 and y1 <= height, (name, text)
            assert not overlapping(words), (name, overlapping(words)[:3])


def test_a_sheet_is_rebuilt_in_large_print_from_its_code(run, tmp_path):
    out = tmp_path / "out"
    r = run("key", "72Y2-F", "--large-print", "--out", str(out))
    assert r.code == 0, r.err
    assert sizes(out / "72Y2-F-worksheet.pdf") == [(842, 1191)] and sizes(out / "72Y2-F-key.pdf") == [(842, 1191)]
    r = run("key", "72Y2-F", "--large-print", "2", "--out", str(tmp_path / "twice"))
    assert r.code == 0, r.err
    for name in ("72Y2-F-worksheet.pdf", "72Y2-F-key.pdf"):  # half as tall a page: the sheet over more pages
        assert set(sizes(tmp_path / "twice" / name)) == {(1191, 842)} and len(sizes(tmp_path / "twice" / name)) > 1


@pytest.mark.parametrize("size", SIZES)
def test_what_would_pass_a_large_print_pages_edge_is_refused_before_any_file(monkeypatch, run, tmp_path, size):
    """No sheet drawn today passes its large-print page's margins (the test above and the grid below);
    were the page narrower than its sheet, the check would see it and the batch stop in one line."""
    from generator.sheet import style

    (sheet,) = make_sheets(DrawOptions(heads=2), 5, [Student(print_size=size)])
    check_large(sheet.problem, sheet.solution, sheet.student, Settings())  # fits as it is
    # The check measures against the page's margins as it looks them up: wider ones than the layout's
    # stand for a sheet wider than its page.
    narrower = {**style.PAPER_MARGINS_MM, f"a4-{PAGE[size]}": (12, 60, 14, 60)}
    monkeypatch.setattr(style, "margins_of", lambda paper: narrower.get(paper, style.MARGINS_MM))
    with pytest.raises(LayoutError, match="too large to print in large print"):
        check_large(sheet.problem, sheet.solution, sheet.student, Settings())
    check_large(sheet.problem, sheet.solution, Student(), Settings())  # the class's size: nothing to check
    out = tmp_path / "out"
    r = run("generate", "--heads", "2", "--seed", "5", "--large-print", size, "--out", str(out))
    assert r.code == 1 and r.err.count("\n") == 1 and "large print" in r.err, r.err
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("convention", ["column", "row"])
@pytest.mark.parametrize("heads, projected", [(1, False), (2, True), (3, True), (4, True)])
@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", SIZES)
def test_every_attention_layout_prints_large_inside_its_paper_or_is_refused(
    run, tmp_path, convention, heads, projected, paper, size
):
    args = ["--seed", "5", "--convention", convention, "--heads", str(heads), "--paper", paper, "--large-print", size]
    out = tmp_path / "out"
    r = run("generate", *args, *(["--output-projection"] if projected else []), "--out", str(out), "--jobs", "1")
    if r.code != 0:  # refused whole, in one line, before any file
        assert r.code == 1 and r.err.count("\n") == 1, r.err
        return
    side = side_pt(paper, size)
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        found = pages(out / name)
        assert not products_apart(found, convention), (name, products_apart(found, convention))
        assert not lonely_titles(found), (name, lonely_titles(found))
        for width, height, words in found:
            for x0, y0, x1, y1, text in words:
                assert side - 0.5 <= x0 and x1 <= width - side + 0.5, (name, text, x0, x1)
                assert 0 <= y0 and y1 <= height, (name, text)
            assert not overlapping(words), (name, overlapping(words)[:3])


def test_a_pile_reads_large_print_sheets_as_any_and_accepts_only_what_was_written(run, tmp_path):
    from test_scan import _outcomes

    from generator.output.manifest import read_manifest
    from generator.scan.pipeline import Catalogue, Source
    from generator.scan.run import scan_folder
    from generator.scan.synthetic import filled_sheets, pdf_of

    roster = tmp_path / "roster.csv"
    roster.write_text("name,print\nAna,\nBo,large\nCe,double\n", encoding="utf-8")
    out = tmp_path / "batch"
    assert run("generate", "--roster", str(roster), "--seed", "9", "--out", str(out), "--jobs", "1").code == 0
    filled = {f.code: f for f in filled_sheets(out, seed=4, scan={"dpi": 150, "angle": 1.5, "quality": 80})}
    photos = filled_sheets(out, seed=4, scan={"dpi": 200, "photo": True, "angle": 8, "upside_down": True})
    pdf_of([p for f in filled.values() for p in f.pages], tmp_path / "pile.pdf")
    listed = read_manifest((out / "manifest.json").read_text(), "m")
    sources = [Source(item.code, n + 1, item.problem, item.student) for n, item in enumerate(listed.values())]
    assert [s.student.print_size for s in sources] == ["", LARGE_PRINT, DOUBLE_PRINT]
    summary = scan_folder([tmp_path / "pile.pdf"], Catalogue(sources, Settings()), tmp_path / "read")
    assert summary.pages == summary.identified == sum(len(f.pages) for f in filled.values()) > 3
    counts = _outcomes(tmp_path / "read", filled)
    assert counts["false"] == 0 and counts["written_blank"] == 0, counts
    assert counts["accepted"] >= 0.8 * counts["written"], counts
    import cv2

    for photo in photos:  # a phone's photo of each sheet's last page, at an angle, turned over: a large one's too
        cv2.imwrite(str(tmp_path / f"{photo.code}.jpg"), photo.pages[-1])
    again = scan_folder(sorted(tmp_path.glob("*.jpg")), Catalogue(sources, Settings()), tmp_path / "photo")
    assert again.identified == 3


@pytest.mark.parametrize("size", SIZES)
def test_a_large_print_class_is_made_on_the_web_and_a_students_photo_of_it_is_read(tmp_path, size):
    import re

    import cv2
    from starlette.testclient import TestClient
    from test_photos import alike, send, token_of
    from waiting import made

    from generator.app.store import Store
    from generator.scan.synthetic import filled_sheets
    from generator.web.app import create_app

    store = Store(tmp_path / "data")
    web = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    web.csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    form = {"csrf": web.csrf, "count": "2", "seed": "5", "large_print": size}
    batch = store.batch(made(web, web.post("/batches", data=form)).rsplit("/", 1)[1])
    assert all(sheet["student"].get("print_size") == size for sheet in batch.sheets)
    assert set(sizes(batch.folder / "worksheets.pdf")) == {tuple(round(v) for v in LARGE_PT["a4", size])}
    filled = next(filled_sheets(batch.folder, seed=3, scan={"dpi": 200, "quality": 70, "photo": True, "angle": 6}))
    page = 1 if size == LARGE_PRINT else 2  # twice as large, the first page holds the title and the rules alone
    photo = cv2.imencode(".jpg", filled.pages[page - 1], [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
    read = send(web, token_of(store, batch, filled.code), photo, str(page))
    assert read.status_code == 200, read.text
    boxes = read.json()["boxes"]
    wrong = [
        b for b in boxes if b["sure"] and not alike(b["value"], filled.text((b["head"], b["step"], b["i"], b["j"])))
    ]
    assert not wrong, wrong[:3]  # the scans' rule: no box accepted other than what was written
    assert sum(b["sure"] for b in boxes) > len(boxes) / 2


def test_a_large_print_students_graded_sheet_prints_large_too(run, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,print\nAna,\nBo,large\nCe,double\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run("generate", "--roster", str(roster), "--seed", "5", "--out", str(out), "--jobs", "1").code == 0
    r = run("answers", "--manifest", str(out / "manifest.json"), "--all", "--out", str(tmp_path / "all.json"))
    assert r.code == 0, r.err
    r = run("grade", str(tmp_path / "all.json"), "--manifest", str(out / "manifest.json"), "--out", str(tmp_path / "g"))
    assert r.code == 0, r.err
    assert sizes(tmp_path / "g" / "graded" / "01-ana.pdf") == [(595, 842)]
    assert sizes(tmp_path / "g" / "graded" / "02-bo.pdf") == [(842, 1191)]
    assert set(sizes(tmp_path / "g" / "graded" / "03-ce.pdf")) == {(1191, 842)}
    assert "print_size" not in (tmp_path / "g" / "grades.json").read_text()  # grade@1 as it was


def test_what_may_not_be_split_and_is_taller_than_a_twice_as_large_page_is_refused_in_one_line(run, tmp_path):
    """The heads' concatenation with W_O is one product: twice as large, it is taller than its page
    (half as tall as A3 turned), so the sheet is refused before any file, naming the size that fits."""
    out = tmp_path / "out"
    args = ("--heads", "2", "--output-projection", "--seed", "5", "--out", str(out), "--jobs", "1")
    r = run("generate", *args, "--large-print", "2")
    assert r.code == 1 and r.err.count("\n") == 1, r.err
    assert "too large to print twice as large" in r.err and "1.5 times as large" in r.err, r.err
    assert not out.exists() or not any(out.iterdir())
    assert run("generate", *args, "--large-print").code == 0  # 1.5 times as large, it fits


def test_the_class_size_keeps_a_class_lists_larger_print():
    """A class printed 1.5 times as large keeps a student whose class list says twice at twice."""
    from generator.app.batches import Request, with_files

    req = Request("draw", None, (), Settings(), None, (), False, None, None, LARGE_PRINT)
    made = with_files(req, None, students=[Student("Ana", print_size=DOUBLE_PRINT), Student("Bo")])
    assert [s.print_size for s in made.students] == [DOUBLE_PRINT, LARGE_PRINT]
