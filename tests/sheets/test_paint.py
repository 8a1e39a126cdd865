"""Painted panels: a page whose grids generator.paint paints looks and reads like the page
WeasyPrint draws from the same HTML with the grids in it (both rasterised and compared)."""

from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from PIL import Image, ImageChops
from pypdf import PdfReader

from generator.core.registry import solve
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw
from generator.output.html import document_html, page_css_text
from generator.output.paint import Painter, PanelMark
from generator.output.pdf import renderer
from generator.sheet.look import MM
from generator.sheet.marks import INSET_MM, PAGE_QR_MM, is_scanned, registration_marks
from generator.sheet.model import Settings
from generator.sheet.panel import Layer, PanelView
from generator.sheet.sheets import sheet_view
from generator.sheet.style import MARGINS_MM, QR_PT

CASES = {
    "column": (DrawOptions(), Settings()),
    "row": (DrawOptions(convention="row"), Settings(lang="es")),
    "multihead": (DrawOptions(heads=2, output_projection=True), Settings(worked=True)),
    "causal": (DrawOptions(causal=True, preset="hard"), Settings(paper="letter")),
    # Too wide for the page: scaled down, one band at a time, over several pages.
    "big": (DrawOptions(tokens=8, d_model=10, d_k=4, d_v=4), Settings(paper="letter")),
}


def both(view: dict, settings: Settings) -> tuple[bytes, bytes]:
    """The sheet painted, and drawn by WeasyPrint alone from the HTML with the grids in it."""
    r = renderer()
    painted = r.pdf([r.sheet(view, settings)])
    drawn = r.pdf(
        [r.render(document_html([view], settings, page_css=False), page_css_text(settings, scanned=is_scanned(view)))]
    )
    return painted, drawn


def raster(pdf: bytes, tmp_path, name: str) -> list[Image.Image]:
    (tmp_path / f"{name}.pdf").write_bytes(pdf)
    subprocess.run(
        ["pdftoppm", "-r", "100", "-gray", "-png", str(tmp_path / f"{name}.pdf"), str(tmp_path / name)], check=True
    )
    return [Image.open(p) for p in sorted(tmp_path.glob(f"{name}-*.png"))]


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (make test installs it)")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("key", [False, True])
def test_a_painted_page_looks_like_the_page_weasyprint_draws(case, key, tmp_path):
    options, settings = CASES[case]
    problem = draw(options, 7)[0]
    view = sheet_view(problem, solve(problem), Student("Ada Lovelace"), settings, key)
    painted, drawn = both(view, settings)
    ours, theirs = raster(painted, tmp_path, "painted"), raster(drawn, tmp_path, "drawn")
    assert len(ours) == len(theirs) and (case != "big" or len(ours) > 1)
    for n, (a, b) in enumerate(zip(ours, theirs)):
        # The registration marks are the painter's alone (WeasyPrint draws none): left out here,
        # checked by test_marks.py.
        # So are the QR codes' pages (the HTML's badge holds the code alone): checked there too.
        width, height = a.width * 72 / 100, a.height * 72 / 100
        scanned = [(m.x, m.y, m.x + m.size, m.y + m.size) for m in registration_marks(width, height)]
        if n == 0:  # the badge's QR code, at the header's right
            right = width - MARGINS_MM[1] * MM
            scanned.append((right - QR_PT, MARGINS_MM[0] * MM, right, MARGINS_MM[0] * MM + QR_PT))
        else:
            right = width - MARGINS_MM[1] * MM
            scanned.append((right - PAGE_QR_MM * MM, INSET_MM * MM, right, (INSET_MM + PAGE_QR_MM) * MM))
        for box in scanned if is_scanned(view) else ():
            a.paste("white", tuple(round(v * 100 / 72) + d for v, d in zip(box, (-1, -1, 1, 1))))
            b.paste("white", tuple(round(v * 100 / 72) + d for v, d in zip(box, (-1, -1, 1, 1))))
        # Anti-aliasing may differ a little at an edge; a glyph or a line out of place by even
        # half a point leaves pixels a full shade apart.
        off = ImageChops.difference(a, b).point(lambda v: 255 if v > 80 else 0)
        assert off.getbbox() is None, (case, key, off.getbbox())
    words = [sorted(page.extract_text().split()) for page in PdfReader(io.BytesIO(painted)).pages]
    assert words == [sorted(page.extract_text().split()) for page in PdfReader(io.BytesIO(drawn)).pages]


def test_painted_values_can_be_read_back_and_leave_no_destinations():
    problem = draw(DrawOptions(), 2026)[0]
    solution = solve(problem)
    view = sheet_view(problem, solution, Student("Ada"), Settings(), True)
    painted, _ = both(view, Settings())
    reader = PdfReader(io.BytesIO(painted))
    text = reader.pages[0].extract_text()
    for row in solution.heads[0].A:
        for x in row:
            assert f"{x.numerator}/{x.denominator}".replace("-", "−") in text
    # The ids that find the panels on the page are not left behind as named destinations.
    assert reader.named_destinations == {}


def test_a_layer_the_panel_font_cannot_print_is_left_to_weasyprint():
    given = Layer("given", 0.0, 0.0, "1  −2\n3/4", 16.0)
    caption = Layer("captions", 0.0, 20.0, "Ω  omega", 12.0)  # not in the panel font: DejaVu prints it
    panel = PanelView(width_pt=50.0, height_pt=40.0, scale=1.0, shapes=_no_shapes(), layers=(given, caption))
    painter = Painter()
    slot = painter(panel)
    assert slot.layers == (caption,)
    assert painter.place(slot.anchor, (10.0, 20.0, 60.0, 60.0)).mark == PanelMark(panel, (given,))


def test_a_code_or_footer_the_panel_font_cannot_print_stays_html():
    painter = Painter()
    assert painter.badge("74ZU-J2H", "Ω code") is None and painter.foot("74ZU-J2H", "Ω") is None
    assert not painter.paints_footer and painter.marks == {}
    assert painter.badge("74ZU-J2H", "Código") and painter.foot("74ZU-J2H", "página") and painter.paints_footer
    with pytest.raises(ValueError):
        painter.foot("74ZU-J2H", "page")  # one footer per document: it is on every page


def test_every_page_of_a_long_sheet_has_its_painted_footer():
    options, settings = CASES["big"]
    problem = draw(options, 7)[0]
    view = sheet_view(problem, solve(problem), Student("Ada"), settings, True)
    painted, _ = both(view, settings)
    pages = PdfReader(io.BytesIO(painted)).pages
    assert len(pages) > 1
    for number, page in enumerate(pages, 1):
        text = page.extract_text()
        assert f"page {number} / {len(pages)}" in text and f"attnsheet · {problem.code}" in text


def test_the_qr_code_paints_exactly_the_dark_modules():
    import segno

    from generator.sheet.qr import qr_shapes

    code = draw(DrawOptions(), 7)[0].code
    dark = {
        (x, y) for y, row in enumerate(segno.make(code, error="m", micro=False).matrix) for x, v in enumerate(row) if v
    }
    ((colour, rects),) = qr_shapes(code).fills
    painted = [(int(x) + k, int(y)) for x, y, w, h in rects for k in range(int(w)) if h == 1]
    assert sorted(painted) == sorted(dark) and colour == "#000000"


def _no_shapes():
    from generator.sheet.panel import Shapes

    return Shapes(width=57.0, height=40.0, fills=(), strokes=())


def test_a_panel_cut_by_a_page_break_is_not_painted():
    # Laid out by the real WeasyPrint: what its anchors say is what the painter relies on.
    from generator.output.pdf import Unpaintable

    page_css = "@page { size: A4; margin: 0 }"

    def laid_out(top: float, height: float):
        p = PanelView(width_pt=60.0, height_pt=height, scale=1.0, shapes=_no_shapes(), layers=())
        painter = Painter()
        anchor = painter(p).anchor
        html = (
            f'<html><body style="margin: 0"><div style="height: {top}pt"></div>'
            f'<div id="{anchor}" style="width: 60pt; height: {height}pt"></div></body></html>'
        )
        return renderer().render(html, page_css, painter)

    ((placed,),) = laid_out(20, 300).placements  # one page, one panel: its box in points from the top left
    assert placed.box == pytest.approx((0, 20, 60, 320), abs=0.01)
    (), (moved,) = laid_out(700, 300).placements  # no room left: WeasyPrint moves it whole to page 2
    assert moved.page == 2 and moved.box == pytest.approx((0, 0, 60, 300), abs=0.01)
    with pytest.raises(Unpaintable):
        laid_out(0, 1000)  # taller than a page: it would run off the page's foot


def test_a_sheet_whose_boxes_cannot_be_painted_is_drawn_by_weasyprint(monkeypatch):
    import generator.output.pdf

    problem = draw(DrawOptions(), 7)[0]
    solution = solve(problem)
    view = sheet_view(problem, solution, Student("Ada"), Settings(), True)
    monkeypatch.setattr(generator.output.pdf, "_placements", lambda document, painter: None)
    r = renderer()
    rendered = r.sheet(view, Settings())
    assert rendered.placements == ((),)
    text = PdfReader(io.BytesIO(r.pdf([rendered]))).pages[0].extract_text()
    assert problem.code in text and "page 1 / 1" in text
    assert all(f"{x.numerator}/{x.denominator}".replace("-", "−") in text for x in solution.heads[0].A[0])


@pytest.mark.parametrize("how", ["painting fails", "unsupported versions"])
def test_a_pdf_we_cannot_paint_into_is_drawn_by_weasyprint(monkeypatch, how):
    # Another WeasyPrint may lay its PDF out otherwise: never a traceback, the same sheet.
    import generator.output.pdf as pdf

    problem = draw(DrawOptions(), 7)[0]
    solution = solve(problem)
    view = sheet_view(problem, solution, Student("Ada"), Settings(), True)
    if how == "painting fails":

        def broken(*args):
            raise KeyError("/Resources")

        monkeypatch.setattr(pdf, "embed_mono", broken)
    else:
        monkeypatch.setattr(pdf, "PAINTS", False)
    data, pages = renderer().document([view], Settings())
    assert pages == [1]
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert problem.code in text and "page 1 / 1" in text
    assert all(f"{x.numerator}/{x.denominator}".replace("-", "−") in text for x in solution.heads[0].A[0])


def test_a_batch_shares_one_font_subset_per_weight():
    from generator.output.paint import fonts_for

    r = renderer()
    subsets = set()
    for problem in draw(DrawOptions(), 3, 12):  # twelve sheet codes, twelve sets of numbers
        for key in (False, True):
            rendered = r.sheet(sheet_view(problem, solve(problem), Student("Ada"), Settings(), key), Settings())
            subsets.update(id(font) for font in fonts_for(pl for page in rendered.placements for pl in page).values())
    assert len(subsets) == 2  # regular and bold: made once each, ~20 ms apiece


def test_a_combined_file_keeps_one_copy_of_each_panel_font():
    import pikepdf

    from generator.output.merge import merge

    r = renderer()
    parts = []
    for problems in (draw(DrawOptions(), 3, 2), draw(DrawOptions(), 4, 2)):
        parts.append(
            r.pdf([r.sheet(sheet_view(p, solve(p), Student("Ada"), Settings(), True), Settings()) for p in problems])
        )
    joined = pikepdf.open(io.BytesIO(merge(parts)))
    fonts: dict[str, set] = {}
    for page in joined.pages:
        for key, font in page.Resources.Font.items():
            fonts.setdefault(key, set()).add(font.objgen)
    assert len(fonts["/AttnMono400"]) == len(fonts["/AttnMono700"]) == 1
    texts = [page.extract_text() for page in PdfReader(io.BytesIO(merge(parts))).pages]
    assert len(texts) == 4 and all("page 1 / 1" in t and "attention" in t for t in texts)


def test_the_rules_text_is_laid_out_once_per_batch_and_stamped_as_text():
    from generator.output.pdf import Renderer

    r = Renderer()
    settings = Settings(lang="es", paper="letter")  # a paper and language no other test lays out first
    before = r.block.cache_info().misses
    problems = draw(DrawOptions(), 12, 6)
    views = [sheet_view(p, solve(p), Student("Ada"), settings, key) for p in problems for key in (False, True)]
    data, pages = r.document(views, settings)
    assert pages == [1] * 12
    # Once per text and width: the rules (worksheets' and keys'; a grid's width can move the
    # box's), and the kind and title of worksheets and of keys.
    laid_out = r.block.cache_info().misses - before
    assert laid_out == len({(v.rules, v.rules_width_pt) for v in views}) + 2 < len(views)
    texts = [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]
    assert all("Escalado: suelo(x/2)" in text and "Autoatención a mano" in text for text in texts)  # still text
    assert r.block("<p>" + "palabra " * 40_000 + "</p>", 200.0, "es") is None  # not one page: laid out in place


def test_a_combined_file_is_written_a_part_at_a_time():
    import pikepdf

    from generator.output.merge import merge_chunks

    r = renderer()
    asked = []

    def parts():
        for seed in (3, 4, 5):
            asked.append(seed)
            problems = draw(DrawOptions(), seed, 2)
            yield r.pdf(
                [r.sheet(sheet_view(p, solve(p), Student("Ada"), Settings(), True), Settings()) for p in problems]
            )

    chunks = merge_chunks(parts())
    written = [next(chunks), next(chunks)]  # the header, then the first part's first object
    assert asked == [3]  # the next part is not even rendered yet: memory stays one part's
    written += list(chunks)
    joined = pikepdf.open(io.BytesIO(b"".join(written)))
    assert asked == [3, 4, 5] and len(joined.pages) == 6 and joined.check_pdf_syntax() == []
    with joined.open_outline() as outline:
        assert [joined.pages.index(pikepdf.Page(item.destination[0])) for item in outline.root] == list(range(6))


def test_renumbering_leaves_strings_alone():
    from generator.output.merge import renumbered

    seen = []

    def ref(objgen):
        seen.append(objgen)
        return 100 + objgen[0]

    text = rb"<< /A 1 0 R /S (a (b) \) 2 0 R) /H <3120302052> /K [ 3 0 R 4 1 R ] /D << /E 5 0 R >> >>"
    assert renumbered(text, ref) == (
        rb"<< /A 101 0 R /S (a (b) \) 2 0 R) /H <3120302052> "
        rb"/K [ 103 0 R 104 0 R ] /D << /E 105 0 R >> >>"
    )
    assert seen == [(1, 0), (3, 0), (4, 1), (5, 0)]
