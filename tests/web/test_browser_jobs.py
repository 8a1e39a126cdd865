"""In a real browser: a teacher signs in, makes a batch, and watches its progress bar to the end."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect, sync_playwright
from procs import Served
from test_browser_pages import CHROMIUM, FLAGS

from generator.app.store import Store

PASSWORD = "ana-Secret-4711-pw"


@pytest.fixture
def served(tmp_path):
    store = Store(tmp_path / "data")
    store.add_teacher("ana", PASSWORD, admin=True)
    running = Served(store)
    yield running
    running.stop()
    store.close()


def test_a_teacher_signs_in_makes_a_batch_and_watches_its_progress_to_the_end(served):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(served.url + "/")
        page.wait_for_url("**/signin?next=/")
        page.fill("input[name=name]", "ana")
        page.fill("input[name=password]", PASSWORD)
        page.click("form.find button[type=submit]")
        page.wait_for_url(served.url + "/")
        expect(page.locator("#signed")).to_contain_text("ana")
        page.fill("#f-count", "120")
        page.fill("#f-seed", "7")
        page.click("form#options button[type=submit]")
        page.wait_for_url("**/batches/batch-0001")
        bar = page.locator("#job-bar")
        expect(bar).to_be_visible()
        seen, deadline = set(), time.monotonic() + 180
        while time.monotonic() < deadline:  # the bar, as the page moves it, until the page opens the batch
            try:
                if page.locator("#job-bar").count() == 0:
                    break
                value = int(float(bar.get_attribute("value", timeout=1000) or 0))
                words = page.locator("#job-words").inner_text(timeout=1000)
            except Exception:  # the page being loaded again as the batch is made
                continue
            seen.add((value, words))
            time.sleep(0.1)
        expect(page.locator("a", has_text="answer-keys.pdf")).to_be_visible(timeout=60000)
        values = sorted(value for value, _ in seen)
        # It moved: rendering "k of 240 documents", part-way, before the batch's page.
        assert any(0 < value < 240 for value in values), seen
        assert any("of 240 documents" in words for _, words in seen), seen
        assert page.url.endswith("/batches/batch-0001") and "batch-0001" in page.locator("h1").inner_text()
        page.screenshot(path=str(served.store.root / "batch.png"))
        browser.close()
