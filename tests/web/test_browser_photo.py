"""A student hands in a photo of their paper from a phone at 390 px (issue 58), and the teacher sees it (a real browser)."""

from __future__ import annotations

import json

import cv2
from playwright.sync_api import expect
from procs import Served
from test_browser_a11y import axe_violations

from generator.app.store import Store
from generator.scan.synthetic import filled_sheets


def test_a_student_photographs_confirms_corrects_and_hands_in_and_the_teacher_sees_the_photo(browser, tmp_path):
    served = Served(Store(tmp_path / "data"))
    try:
        teacher = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # axe is added
        teacher.goto(served.url + "/")
        teacher.fill("#f-count", "1")
        teacher.fill("#f-seed", "5")
        teacher.click("#options button[type=submit]")
        teacher.wait_for_url("**/batches/batch-*")
        expect(teacher.locator("a.student-link").first).to_be_visible(timeout=120_000)
        batch = served.store.batch(teacher.url.rsplit("/", 1)[1])
        filled = next(filled_sheets(batch.folder, seed=3, scan={"dpi": 200, "quality": 70, "photo": True, "angle": 6}))
        picture = tmp_path / "IMG_2031.jpg"
        picture.write_bytes(cv2.imencode(".jpg", filled.pages[0], [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes())
        phone = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True
        ).new_page()
        phone.goto(f"{served.url}/s/{served.store.links(batch)[1].token}")
        phone.screenshot(path=str(tmp_path / "photo-1-choosing.png"), full_page=False)
        phone.locator(".photo-file:not([capture])").set_input_files(str(picture))
        status = phone.locator("#photo-status")
        expect(status).to_contain_text("Read from your photo", timeout=60_000)
        phone.screenshot(path=str(tmp_path / "photo-2-confirming.png"), full_page=False)
        unsure = phone.locator("input.cell.unsure")
        assert unsure.count() >= 2
        # A box with other reads: tapped, they are offered above the keys; a tap on one fills the box.
        offered = phone.locator(
            "input.cell.unsure[data-others]"
        ).first.element_handle()  # it stays this box once confirmed
        picks = json.loads(offered.get_attribute("data-others"))
        offered.tap()
        expect(phone.locator("#others")).to_be_visible()
        phone.screenshot(path=str(tmp_path / "photo-2b-other-reads.png"), full_page=False)
        assert not axe_violations(phone)  # the unsure boxes and the other reads offered, as they stand
        phone.locator("#others button").first.tap()
        assert offered.input_value() == picks[0].replace("-", "−")
        expect(phone.locator("#others")).to_be_hidden()
        left = unsure.count()
        unsure.first.tap()
        unsure.first.tap()  # two guesses confirmed, one tap each
        expect(unsure).to_have_count(left - 2)
        phone.click("#handin")  # not yet: boxes still to check
        expect(phone.locator("#status")).to_contain_text("still to check")
        while unsure.count():
            unsure.first.tap()
        expect(status).to_contain_text("Every box checked")
        sure = [c for c in phone.locator("input.cell").all() if c.input_value().strip()][0]
        sure.tap()
        sure.fill("99")  # one box corrected on the phone: the paper says otherwise
        phone.click("#handin")
        expect(phone.locator("#status")).to_contain_text("Handed in", timeout=30_000)
        phone.screenshot(path=str(tmp_path / "photo-3-handed-in.png"), full_page=False)
        teacher.goto(f"{served.url}/batches/{batch.id}/sheets/1")
        expect(teacher.locator("#photos img")).to_be_visible()
        assert teacher.locator("#photos img").evaluate("i => i.complete && i.naturalWidth > 500")
        expect(teacher.locator("input.cell.differs")).to_have_count(1)
        assert not axe_violations(teacher)  # the photo, the changed box and the boxes to look at
        expect(teacher.locator("#photos")).to_contain_text("handed in 99")
        teacher.screenshot(path=str(tmp_path / "photo-4-teacher.png"), full_page=True)
    finally:
        served.stop()
