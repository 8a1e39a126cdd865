"""The web review's assignment of a page the scan could not identify, in Chromium (issue 36): the
teacher picks the student from the type-ahead list and the page, and the page is read like the
others; a phone's width keeps the form usable."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request

import cv2
from playwright.sync_api import expect
from procs import Served
from test_browser_layout import Web
from test_scan_assign import _without_codes
from waiting import ready

from generator.app.store import Store
from generator.scan.synthetic import filled_sheets, pdf_of


def test_a_teacher_says_whose_page_it_is_and_it_is_read(browser, tmp_path):
    store = Store(tmp_path / "data")
    served = Served(store)
    try:
        web = Web(served.url)
        csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
        roster = "name\nZoë Álvarez\nJosé Núñez\n"
        boundary = "----attnsheet"
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="seed"\r\n\r\n6\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="roster"; filename="r.csv"\r\n'
            f"Content-Type: text/csv\r\n\r\n{roster}\r\n--{boundary}--\r\n"
        ).encode()
        asked = urllib.request.Request(
            served.url + "/batches", data=body, headers={"content-type": f"multipart/form-data; boundary={boundary}"}
        )
        with urllib.request.urlopen(asked, timeout=60) as answer:
            location = urllib.parse.urlparse(answer.url).path
        ready(web, location)
        batch = store.batch(location.rsplit("/", 1)[1])
        filled = list(filled_sheets(batch.folder, seed=3, scan=dict(dpi=200, angle=1.0, quality=80)))
        pdf_of(
            [filled[0].pages[0], cv2.rotate(_without_codes(filled[1].pages[0]), cv2.ROTATE_180)], tmp_path / "pile.pdf"
        )

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(served.url + location)
        page.set_input_files("input[name=scans]", str(tmp_path / "pile.pdf"))
        page.click("form.scans button[type=submit]")
        expect(page.locator("#unidentified h2")).to_have_text("1 page not identified", timeout=120_000)
        expect(page.locator("p.summary")).to_contain_text("not identified: 001.pdf page 2")  # a name, not a path
        assert str(tmp_path) not in page.content()
        form = page.locator("form.assign").first
        expect(form.locator("img")).to_be_visible()
        assert form.locator("img").evaluate("i => i.naturalWidth") > 300  # the page's picture, whole
        box = form.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # within a phone's width
        page.screenshot(path=str(tmp_path / "assign-390.png"), full_page=True)
        # The type-ahead lists the class: the student's name picks their sheet.
        options = [o.get_attribute("value") for o in page.locator("#students option").all()]
        assert len(options) == 2 and options[1].startswith("2 · José Núñez · ")
        form.locator("input[name=sheet]").fill(options[1])
        form.locator("input[name=sheet_page]").fill("1")
        form.locator("button[type=submit]").click()
        expect(page.locator("#unidentified")).to_have_count(0, timeout=120_000)
        expect(page.locator("p.summary")).to_contain_text("2 identified, 0 not")
        # Both sheets now have their scan; the second's page was read upside down, as assigned.
        page.goto(served.url + location)
        expect(page.locator(f'a[href="{location}/scanned/2"]')).to_have_count(1)
        page.goto(served.url + f"{location}/scanned/2")
        expect(page.locator(".mark").first).to_be_attached()
        page.close()
    finally:
        served.stop()
