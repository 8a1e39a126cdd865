"""The web app in a real browser: Debian's chromium driven by Playwright, against a real server.

The server binds to 127.0.0.1 on a free port and is stopped at the end of the test module.
"""

from __future__ import annotations

import io
import json
import re
import shutil

import pytest
from playwright.sync_api import expect
from procs import Served
from pypdf import PdfReader
from test_grade import work

from generator.app.store import Store
from generator.core.formats import problem_from_json
from generator.kinds.attention.draw.presets import DrawOptions
from generator.draw.search import draw

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    served = Served(Store(tmp_path_factory.mktemp("web")))
    yield served.url
    served.stop()


def test_a_teacher_makes_a_batch_enters_a_sheet_and_sees_the_gradebook(server, browser):
    page = browser.new_page()
    page.goto(server + "/")
    # The preview follows the options: another preset, another sheet.
    frame, sheet_head = page.locator("#preview"), page.frame_locator("#preview").locator("[data-code]")
    medium, easy = (draw(DrawOptions(preset=preset), 1)[0].code for preset in ("medium", "easy"))
    expect(sheet_head).to_have_attribute("data-code", medium)
    page.select_option("#f-preset", "easy")
    expect(frame).to_have_attribute("src", re.compile("preset=easy"))  # (the CSP forbids evaluated scripts)
    expect(sheet_head).to_have_attribute("data-code", easy)

    # Make a batch of three through the form.
    page.fill("#f-count", "3")
    page.fill("#f-seed", "11")
    page.click("button[type=submit]")
    page.wait_for_url("**/batches/batch-*")
    # Rendered as a job: the page shows its progress, then opens the batch by itself.
    expect(page.locator("a", has_text="answer-keys.pdf")).to_be_visible(timeout=120_000)
    batch_url = page.url
    for name in ("worksheets.pdf", "answer-keys.pdf"):
        response = page.request.get(f"{batch_url}/files/{name}")
        assert response.ok and len(PdfReader(io.BytesIO(response.body())).pages) == 3
    manifest = json.loads(page.request.get(f"{batch_url}/files/manifest.json").text())
    assert manifest["options"]["preset"] == "easy" and len(manifest["sheets"]) == 3

    # Enter sheet 1 with the keyboard: one slip in Q, followed through as a student would.
    problem = problem_from_json(manifest["sheets"][0]["problem"])
    written = work(problem, slip=(1, "Q", 0, 0))
    page.goto(f"{batch_url}/sheets/1")
    cells = page.locator("input.cell")
    assert cells.count() == 152
    page.locator("input.cell").first.focus()
    for k in range(cells.count()):
        cell = cells.nth(k)
        step, i, j = (
            cell.get_attribute("data-step"),
            int(cell.get_attribute("data-i")),
            int(cell.get_attribute("data-j")),
        )
        grid = written["heads"][0][step]
        value = grid[i + j] if step == "sums" else grid[i][j]
        if value is not None:
            page.keyboard.type(str(value))
        page.keyboard.press("Enter")  # to the next box, in the order a student works
    expect(page.locator("#score")).to_have_text("151 / 152", timeout=10_000)
    first_q = page.locator('input.cell[data-step="Q"][data-i="0"][data-j="0"]')
    expect(first_q).to_have_attribute("data-verdict", "wrong")
    expect(page.locator('input.cell[data-step="Q_copy"][data-i="0"][data-j="0"]')).to_have_attribute(
        "data-verdict", "carried"
    )
    page.click("#save")
    expect(page.locator("#saved")).to_have_text("saved (151 / 152)")

    # The gradebook shows the student's score.
    page.goto(batch_url)
    expect(page.locator("#gradebook")).to_contain_text("151/152")
    page.close()


@pytest.mark.parametrize(
    "args",
    [
        ("--worked",),
        ("--convention", "row", "--lang", "es", "--paper", "letter"),
        ("--heads", "2", "--d-k", "2", "--d-v", "2", "--output-projection"),
        ("--heads", "3", "--output-projection", "--convention", "row"),
    ],
)  # a landscape page
def test_html_output_prints_in_a_browser_where_the_pdf_puts_it(browser, tmp_path, args):
    # One layout, two serializers: the HTML a browser prints puts every word where our PDF
    # does, to two points (the browser sets a line's glyphs with its own rounding, up to a point
    # by a long line's end, and its PDF boxes the prose fonts a little taller, so the heights
    # are compared by their middles); a part out of place is off by far more.
    from collections import defaultdict

    from click.testing import CliRunner
    from test_pages import pages

    from generator.cli import cli

    for fmt in ("pdf", "html"):
        r = CliRunner().invoke(
            cli,
            [
                "generate",
                "--seed",
                "5",
                "--roster",
                str(roster(tmp_path)),
                "--out",
                str(tmp_path / fmt),
                "--format",
                fmt,
                "--jobs",
                "1",
                *args,
            ],
        )
        assert r.exit_code == 0, r.output
    html = (tmp_path / "html" / "answer-keys.html").read_text()
    assert 'class="sheet laid-out key"' in html and "Ada &lt;b&gt;" in html
    page = browser.new_page()
    page.goto((tmp_path / "html" / "answer-keys.html").as_uri())
    page.pdf(path=str(tmp_path / "chromium.pdf"), prefer_css_page_size=True, print_background=True)
    ours, theirs = pages(tmp_path / "pdf" / "answer-keys.pdf"), pages(tmp_path / "chromium.pdf")
    assert len(ours) == len(theirs)
    for mine, printed in zip(ours, theirs):
        # Each page its size (Chromium rounds it to a pixel), a landscape one too.
        assert abs(mine[0] - printed[0]) < 1 and abs(mine[1] - printed[1]) < 1, (mine[:2], printed[:2])
        placed = defaultdict(list)
        for *box, text in mine[2]:
            placed[text].append(box)
        assert len(mine[2]) == len(printed[2])
        for *box, text in printed[2]:
            nearest = min(placed[text], key=lambda b: abs(b[0] - box[0]) + abs(b[1] - box[1]))
            assert abs(nearest[0] - box[0]) < 2 and abs(nearest[2] - box[2]) < 2, (text, nearest, box)
            assert abs((nearest[1] + nearest[3]) - (box[1] + box[3])) / 2 < 5, (text, nearest, box)
            placed[text].remove(nearest)


def roster(tmp_path):
    path = tmp_path / "class.csv"
    path.write_text("name,group\nAda <b>Lovelace</b>,B&C\n", encoding="utf-8")
    return path


def test_the_form_keeps_the_roster_through_an_error_and_the_preview_says_what_is_wrong(server, browser):
    page = browser.new_page()
    page.goto(server + "/")
    page.set_input_files(
        "#f-roster",
        files=[{"name": "class.csv", "mimeType": "text/csv", "buffer": "name\nZoë Álvarez\nBen Ode\n".encode()}],
    )
    expect(page.locator("#held-roster-note")).to_contain_text("2 students, the first Zoë Álvarez")
    expect(page.frame_locator("#preview").locator("body")).to_contain_text("Zoë Álvarez")  # the roster's first name
    # An invalid field: the preview says so beside it, and the frame is no broken icon.
    page.fill("#f-tokens", "13")
    expect(page.locator("#live-error-tokens")).to_contain_text("13 is not in the range")
    expect(page.frame_locator("#preview").locator("body")).to_contain_text("No preview until these are fixed")
    page.fill("#f-tokens", "4")
    expect(page.locator("#live-error-tokens")).to_have_count(0)
    # Sent with an error: the roster stays, held by the server, and the page says so.
    page.fill("#f-tokens", "13")
    page.click("button[type=submit]")
    expect(page.locator("#error-tokens")).to_be_visible()
    expect(page.locator("#held-roster-note")).to_contain_text("Kept by the server: 2 students")
    page.fill("#f-tokens", "4")
    page.click("button[type=submit]")
    page.wait_for_url("**/batches/batch-*")
    expect(page.locator("a", has_text="manifest.json")).to_be_visible(timeout=120_000)
    manifest = json.loads(page.request.get(page.url + "/files/manifest.json").text())
    assert [s["student"]["name"] for s in manifest["sheets"]] == ["Zoë Álvarez", "Ben Ode"]
    page.close()
