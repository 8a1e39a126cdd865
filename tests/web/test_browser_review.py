"""A teacher reviews a class's scans with the keyboard alone (a real browser).

Thirty default sheets, filled in by the project's writers (about a tenth of the cells end in
review: the wrong values themselves, and what the reader was not sure of), scanned into one
copier PDF and uploaded from the batch page. On the review page the teacher says each box
with keys only: Enter when it holds the expected value, the value typed when not, b when blank.
The grades are then those of the same answers typed.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect, sync_playwright
from procs import Served
from test_browser_pages import CHROMIUM, FLAGS

from generator.app.classroom import create_batch, grade_sheet
from generator.app.scans import review_items
from generator.app.store import Store
from generator.core.cells import read_cell_text
from generator.core.student import Student
from generator.kinds.attention.draw.presets import DrawOptions
from generator.app.batches import make_sheets
from generator.output.batch import Batch
from generator.scan.synthetic import filled_sheets, pdf_of
from generator.sheet.model import Settings


@pytest.fixture(scope="module")
def class_of_30(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("review")
    store = Store(tmp / "data")
    sheets = make_sheets(DrawOptions(), 12, [Student(name=f"Student {n}") for n in range(1, 31)], secret=store.secret)
    batch = create_batch(store, Batch(sheets=sheets, settings=Settings(), out=store.root, jobs=1, seed=12))
    filled = list(filled_sheets(batch.folder, seed=12, scan=dict(dpi=200, angle=1.0, quality=85)))
    pdf_of([p for f in filled for p in f.pages], tmp / "pile.pdf")
    running = Served(store)
    yield running.url, store, batch, {f.code: f for f in filled}, tmp / "pile.pdf"
    running.stop()


def test_a_class_of_30_is_reviewed_with_the_keyboard_alone(class_of_30):
    base, store, batch, filled, pile = class_of_30
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{base}/batches/{batch.id}")
        page.set_input_files("input[name=scans]", str(pile))
        page.locator("form.scans button").press("Enter")
        page.wait_for_url("**/review?run=*", timeout=180_000)
        # The pile is read as a job: its page shows the progress and opens the review by itself.
        expect(page.locator(".summary")).to_contain_text(
            "read 30 pages: 30 identified, 0 not; 30 sheets", timeout=180_000
        )
        items = review_items(store, batch)
        cells = sum(len([k for k, parts in f.written.items()]) for f in filled.values())
        assert 0.05 * cells <= len(items) <= 0.2 * cells, (len(items), cells)
        cards = page.locator(".card")
        expect(cards).to_have_count(len(items))
        keys = {"enter": 0, "typed": 0, "blank": 0, "again": 0}
        for n in range(len(items)):
            card = cards.nth(n)
            expect(card.locator("input")).to_be_focused()  # the page moves on by itself
            head, step = int(card.get_attribute("data-head")) or None, card.get_attribute("data-step")
            row, col = int(card.get_attribute("data-row")), int(card.get_attribute("data-col"))
            written = filled[_code(batch, card)].text((head, step, row - 1, col - 1))
            expected = card.locator(".expected .value").inner_text()
            if not written:
                page.keyboard.press("b")
                keys["blank"] += 1
            elif expected and _same(written, expected):
                page.keyboard.press("Enter")
                if "changed" in (card.get_attribute("class") or ""):
                    # Its value moved after an earlier answer: said, and taken only on a second Enter.
                    expect(card.locator(".changed-note")).to_contain_text("expected changed")
                    expect(card.locator(".said-value")).to_contain_text("Enter again")
                    assert "done" not in card.get_attribute("class")
                    page.keyboard.press("Enter")
                    keys["again"] += 1
                keys["enter"] += 1
            else:
                page.keyboard.type(written)
                page.keyboard.press("Enter")
                keys["typed"] += 1
            expect(card).to_have_class("card done")
            if n == 0:  # undo: u opens the box just answered again, and it is answered anew
                page.keyboard.press("u")
                expect(card).to_have_class("card")
                expect(card.locator("input")).to_be_focused()
                expect(page.locator("#left")).to_contain_text(f"{len(items)} boxes left")
                page.keyboard.type(written or "7")
                page.keyboard.press("Enter")
                expect(card).to_have_class("card done")
                if not written:  # it was blank: say so again (u, then b)
                    page.keyboard.press("u")
                    page.keyboard.press("b")
                    expect(card).to_have_class("card done")
        expect(page.locator("#done-link")).to_be_focused()
        # Every box stays correctable after the review: a box in focus opens again with u.
        cards.nth(1).locator("input").focus()
        page.keyboard.press("u")
        expect(page.locator("#done")).to_be_hidden()
        expect(cards.nth(1).locator("input")).to_be_focused()
        page.keyboard.type(filled[_code(batch, cards.nth(1))].text(_key(cards.nth(1))) or "")
        page.keyboard.press("Enter" if filled[_code(batch, cards.nth(1))].text(_key(cards.nth(1))) else "b")
        expect(page.locator("#done-link")).to_be_focused()
        browser.close()
    assert review_items(store, batch) == [] and keys["enter"] > 0 and keys["typed"] > 0
    for sheet in batch.sheets:  # the grades are the same answers' typed
        typed = filled[sheet["code"]].typed(store.answers(batch, sheet))
        mine, want = store.saved(batch)[sheet["index"]], grade_sheet(sheet, typed).grade
        assert mine == want, repr(_differences(mine, want, store.answers(batch, sheet), typed))


def _key(card) -> tuple:
    head = int(card.get_attribute("data-head")) or None
    return (
        head,
        card.get_attribute("data-step"),
        int(card.get_attribute("data-row")) - 1,
        int(card.get_attribute("data-col")) - 1,
    )


def _code(batch, card) -> str:
    index = int(card.get_attribute("data-key").split(":")[0])
    return next(s["code"] for s in batch.sheets if int(s["index"]) == index)


def _same(written: str, expected: str) -> bool:
    """Whether what is written is exactly the expected value (Enter would save the same cell)."""
    a, b = read_cell_text(written), read_cell_text(expected)
    return written.replace("-", "−") == expected or (a.exact == b.exact and a.decimal is None and b.decimal is None)


def _differences(mine: dict, want: dict, saved: dict, typed: dict) -> list:
    """The cells whose verdicts differ, with what is saved and what is written."""
    out = []
    for h, (a, b) in enumerate(zip(mine["cells"]["heads"], want["cells"]["heads"]), start=1):
        for step in a:
            for r, (ra, rb) in enumerate(zip(a[step], b[step]) if step != "sums" else [(a[step], b[step])]):
                for c, (x, y) in enumerate(zip(ra, rb)):
                    if x != y:
                        cell = lambda g: g[c] if step == "sums" else g[r][c]  # noqa: E731
                        out.append(
                            (h, step, r, c, x, y, cell(saved["heads"][h - 1][step]), cell(typed["heads"][h - 1][step]))
                        )
    return out
