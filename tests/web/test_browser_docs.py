"""The guides' screenshots are the app as it is: this test takes them (`make screenshots` keeps them in docs/img/), and every one the guides show is one it takes."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from procs import Served
from test_students import typed

from generator.app.classroom import save_sheet
from generator.app.store import Store

ROOT = Path(__file__).resolve().parents[2]
GUIDES = ("docs/teachers.md", "docs/es/teachers.md", "docs/students.md")

SHOTS = {"home": 1280, "batch": 1280, "class": 1280, "entry": 1280, "student": 390, "projector": 1280}
"""The pages the guides show, and the window's width each is taken at."""


CLASSES = {"en": ("3B, Monday", "attention"), "es": ("3B, lunes", "attention")}
"""Each guide's class: its name and exercise, in its language."""


@pytest.fixture(scope="module")
def school(tmp_path_factory, browser):
    """A served class of 3 in each language, named by its teacher, one sheet entered; a practice sheet to project."""
    served = Served(Store(tmp_path_factory.mktemp("docs") / "data"))
    made = {}
    for lang, (name, kind) in CLASSES.items():
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(served.url + f"/?ui={lang}")
        page.fill("#f-label", name)
        page.fill("#f-count", "3")
        page.fill("#f-seed", "2026")
        page.select_option("#f-lang", lang)
        page.click("#options button[type=submit]")
        page.wait_for_url("**/batches/batch-*")
        expect(page.locator("a.student-link").first).to_be_visible(timeout=120_000)
        batch = served.store.batch(page.url.rsplit("/", 1)[1])
        save_sheet(served.store, batch, batch.sheets[0], typed(batch.sheets[0]), "teacher")
        page.goto(served.url + f"/practice?kind={kind}&ui={lang}")
        made[lang] = (batch, page.url.rsplit("/", 1)[1].split("?")[0])
        page.close()
    yield served, made
    served.stop()


def urls(served, batch, code) -> dict[str, str]:
    at = f"{served.url}/batches/{batch.id}"
    token = served.store.links(batch)[1].token
    return {
        "home": served.url + "/",
        "batch": at,
        "class": at + "/class",
        "entry": at + "/sheets/1",
        "student": f"{served.url}/s/{token}",
        "projector": f"{served.url}/present/{code}",
    }


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_guides_show_the_pages_this_test_takes(school, browser, tmp_path, lang):
    served, made = school
    keep = os.environ.get("ATTNSHEET_SHOTS")
    where = urls(served, *made[lang])
    for name, width in SHOTS.items():
        page = browser.new_page(viewport={"width": width, "height": 800}, locale="es-ES" if lang == "es" else "en-US")
        url = where[name]
        page.goto(url + ("&" if "?" in url else "?") + f"ui={lang}")
        page.wait_for_load_state("networkidle")
        file = f"{'es-' if lang == 'es' else ''}{name}.png"
        data = page.screenshot()
        page.close()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000, name  # a page drawn, not a blank
        if keep:
            (ROOT / keep / file).write_bytes(data)
    shown = set()
    for guide in GUIDES:
        shown |= set(re.findall(r"\]\((?:\.\./)*img/([\w-]+\.png)\)", (ROOT / guide).read_text(encoding="utf-8")))
    taken = {f"{'es-' if lang == 'es' else ''}{name}.png" for name in SHOTS}
    mine = {name for name in shown if name.startswith("es-") == (lang == "es")}
    assert mine <= taken, f"the guides show screenshots this test does not take: {sorted(mine - taken)}"
    assert all((ROOT / "docs" / "img" / name).is_file() for name in mine), "run make screenshots"
