"""Every page of the web app through axe-core in a real browser (issue 56, item 7): WCAG 2.0, 2.1 and 2.2, A and AA, English and Spanish, 390 and 1280 px; and what axe cannot see: given matrices read as tables, each verdict said, progress announced."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from procs import Served
from test_students import typed

from generator.app.classroom import save_sheet
from generator.app.store import Store

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="module")
def school(tmp_path_factory, browser):
    """A served school with a batch of 2 (one sheet saved, with scans' pages to review none yet) and a practice code."""
    served = Served(Store(tmp_path_factory.mktemp("a11y") / "data"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(served.url + "/")
    page.fill("#f-count", "2")
    page.fill("#f-seed", "6")
    page.click("#options button[type=submit]")
    page.wait_for_url("**/batches/batch-*")
    expect(page.locator("a.student-link").first).to_be_visible(timeout=120_000)
    batch = served.store.batch(page.url.rsplit("/", 1)[1])
    save_sheet(served.store, batch, batch.sheets[0], typed(batch.sheets[0]), "teacher")
    page.goto(served.url + "/practice?kind=attention")
    code = page.url.rsplit("/", 1)[1]
    page.close()
    yield served, batch, code
    served.stop()


def pages(served, batch, code) -> dict[str, str]:
    base, at = served.url, f"{served.url}/batches/{batch.id}"
    token = served.store.links(batch)[1].token
    return {
        "home": base + "/",
        "archived": base + "/?archived=1",
        "batch": at,
        "class": at + "/class",
        "entry": at + "/sheets/1",
        "review": at + "/review",
        "student": f"{base}/s/{token}",
        "find": f"{base}/s",
        "practice": f"{base}/practice/{code}",
        "projector": f"{base}/present/{code}",
        "not found": f"{base}/nowhere",
    }


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_breaks_a_wcag_22_aa_rule(school, browser, lang, width):
    served, batch, code = school
    script = AXE.read_text(encoding="utf-8")
    found = {}
    for name, url in pages(served, batch, code).items():
        page = browser.new_page(
            viewport={"width": width, "height": 900}, bypass_csp=True, locale="es-ES" if lang == "es" else "en-US"
        )
        page.goto(url + ("&" if "?" in url else "?") + f"ui={lang}")
        page.wait_for_load_state("networkidle")
        if violations := axe_violations(page, script):
            found[name] = violations
        page.close()
    assert not found, found


def axe_violations(page, script: str = "") -> list[str]:
    """What axe-core finds against WCAG 2.2 AA on a page as it stands (its page opened with bypass_csp)."""
    page.add_script_tag(content=script or AXE.read_text(encoding="utf-8"))
    return page.evaluate(
        """async (rules) => (await axe.run(document, {runOnly: {type: 'tag', values: rules}}))
        .violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))""",
        RULES,
    )


def test_a_given_matrix_is_a_table_with_its_headings_and_a_verdict_is_said(school, browser):
    served, batch, _ = school
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{served.url}/batches/{batch.id}/sheets/1")
    table = page.locator("table.sr-only", has=page.locator("caption", has_text="X"))
    expect(table).to_have_count(1)
    heads = table.locator("th[scope=col]").all_inner_texts()
    assert heads == ["x1", "x2", "x3", "x4"], heads  # the tokens as the paper heads the columns
    assert table.locator("th[scope=row]").all_inner_texts()[:2] == ["row 1", "row 2"]
    assert page.locator('.grid[aria-hidden="true"]').count() >= 4  # the drawn boxes not read twice
    cell = page.locator('input[data-step="Q"][data-i="0"][data-j="0"]')
    expect(cell).to_have_attribute("aria-description", re.compile("right|wrong"), timeout=15_000)
    page.close()


def test_progress_is_announced_and_its_bar_labelled(school):
    served, _, _ = school
    text = (ROOT / "templates" / "web" / "job.html").read_text(encoding="utf-8")
    assert '<p id="job-words" role="status" aria-live="polite">' in html.unescape(text)
    assert '<progress id="job-bar" aria-labelledby="job-words"' in text
