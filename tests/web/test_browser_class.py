"""The class page in a real browser (issue 56, item 6): as wide as its window, each graded sheet in view, its columns named as the sheets name their grids."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from procs import Served
from test_students import typed

from generator.app.classroom import save_sheet
from generator.app.store import Store


@pytest.mark.parametrize("lang, copied", [("en", "Q, copied"), ("es", "Q, copiada")])
def test_the_class_page_fits_its_window_and_names_its_columns_as_the_sheets_do(browser, tmp_path, lang, copied):
    served = Served(Store(tmp_path / "data"))
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(served.url + "/")
        page.fill("#f-count", "3")
        page.fill("#f-seed", "5")
        page.select_option("#f-lang", lang)
        page.click("#options button[type=submit]")
        page.wait_for_url("**/batches/batch-*")
        expect(page.locator("a.student-link").first).to_be_visible(timeout=120_000)
        batch = served.store.batch(page.url.rsplit("/", 1)[1])
        for sheet in batch.sheets:
            save_sheet(served.store, batch, sheet, typed(sheet), "teacher")
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{served.url}/batches/{batch.id}/class")
            headers = page.locator("#class-gradebook th").all_inner_texts()
            assert copied in headers and not {"Q_copy", "K_T", "scaled"} & set(headers), headers
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            link = page.locator("#class-gradebook a").first.bounding_box()
            assert link["x"] + link["width"] <= width, link
        csv_text = page.request.get(f"{served.url}/batches/{batch.id}/class/gradebook.csv").text()
        assert copied in csv_text.splitlines()[0] and "Q_copy" not in csv_text
    finally:
        served.stop()
