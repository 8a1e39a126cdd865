"""The entry page's layout in a real browser, for every registered kind in both languages: captions
clear of each other (a step's ✓ included), a box in focus that keeps its place however much is
typed in it, and verdicts told by a mark as well as by colour (issue 33, item 7)."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect
from procs import Served
from waiting import ready

from generator.app.store import Store
from generator.core.registry import kinds


class Web:
    """Just enough of a client for `waiting.ready`: a page's text from the real server."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=60) as answer:
            return type("Page", (), {"text": answer.read().decode()})


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    served = Served(Store(tmp_path_factory.mktemp("layout") / "data"))
    web = Web(served.url)
    csrf = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
    made = {}
    for kind in sorted(kinds()):
        for lang in ("en", "es"):
            form = urllib.parse.urlencode({"csrf": csrf, "count": 1, "seed": 3, "kind": kind, "lang": lang}).encode()
            with urllib.request.urlopen(
                urllib.request.Request(served.url + "/batches", data=form), timeout=60
            ) as answer:
                location = urllib.parse.urlparse(answer.url).path  # the batch's page, after the redirect
            ready(web, location)
            made[kind, lang] = location
    yield served.url, made
    served.stop()


def overlap(a: dict, b: dict) -> bool:
    """Whether two boxes (x, y, width, height) share more than a hairline."""
    return (
        min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > 0.5
        and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > 0.5
    )


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("kind", sorted(kinds()))
def test_captions_boxes_and_verdicts_stay_legible(batches, browser, kind, lang):
    url, made = batches
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url + made[kind, lang] + "/sheets/1")
    captions = page.locator("#entry .caption")
    boxes = [captions.nth(k).bounding_box() for k in range(captions.count())]
    texts = [captions.nth(k).inner_text() for k in range(captions.count())]
    assert len(boxes) >= 3
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not overlap(boxes[a], boxes[b]), (texts[a], texts[b])

    # Start from the key, then one box wrong and a long value typed in another.
    page.click("#fromkey")
    cells = page.locator("input.cell")
    expect(cells.first).not_to_have_value("")
    cells.nth(0).fill("99")
    target = cells.nth(cells.count() // 2)
    before = target.bounding_box()
    target.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("12345/678 18.21")
    expect(target).to_have_attribute("data-verdict", "wrong")
    after = target.bounding_box()
    assert after == before  # the box keeps its place and its size
    size = target.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size < 13  # set smaller to fit (10pt is 13.3 px)
    k_target = cells.count() // 2
    for k in range(cells.count()):
        if k != k_target:
            assert not overlap(after, cells.nth(k).bounding_box()), k

    # Every verdict shows its own mark, whatever the colour.
    marks = {}
    for k in range(cells.count()):
        verdict, image = cells.nth(k).evaluate("e => [e.dataset.verdict, getComputedStyle(e).backgroundImage]")
        if verdict in ("blank", "masked"):  # nothing to write there (a route's empty cell): nothing to mark
            continue
        assert f"v-{verdict}.svg" in image, (k, verdict, image)
        marks.setdefault(verdict, image)
    assert {"correct", "wrong"} <= set(marks) and len(set(marks.values())) == len(marks)
    for verdict in marks:
        assert page.request.get(f"{url}/static/v-{verdict}.svg").ok
    page.close()
