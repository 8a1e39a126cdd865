"""A teacher's round in a real browser, in Spanish (issue 33): the form says every choice in Spanish
and warns that this server's QR codes open only here; a batch from a roster with accented names;
its handout; every gradebook downloaded from the class page, the whole roster in each, read by the
csv module in its declared dialect; the batch renamed, archived, brought back and deleted."""

from __future__ import annotations

import csv
import io

from playwright.sync_api import expect
from procs import Served
from pypdf import PdfReader

from generator.app.store import Store

# The school's e-mail as each student's id: Google Classroom matches students by e-mail.
ROSTER = (
    "name,id,group\nZoë Álvarez,zoe@school.example,3B\nJosé Núñez,jose@school.example,3B\nAi Lin,ai@school.example,3C\n"
)
NAMES = ["Zoë Álvarez", "José Núñez", "Ai Lin"]
ENGLISH = {"easy", "medium", "hard", "hand", "exact", "none", "verdicts", "full", "now", "later", "attention"}


def test_a_spanish_teacher_makes_prints_exports_and_puts_away_a_batch(browser, tmp_path):
    served = Served(Store(tmp_path / "data"))
    roster = tmp_path / "clase.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="es-ES")
        page.goto(served.url + "/")
        expect(page.locator("h1")).to_have_text("Sus clases")
        # Every choice of the form in Spanish: no option says an English word.
        for select in page.locator("#options select").all():
            for option in select.locator("option").all():
                assert option.inner_text().strip().lower() not in ENGLISH, option.inner_text()
        expect(page.locator("#only-here")).to_be_visible()  # 127.0.0.1: no phone opens these QR codes

        page.set_input_files("#f-roster", str(roster))
        page.select_option("#f-lang", "es")
        page.fill("#f-seed", "4")
        page.click("#options button[type=submit]")
        page.wait_for_url("**/batches/batch-*")
        expect(page.locator("#handout")).to_be_visible(timeout=120_000)  # the job done, the batch's page shown
        expect(page.locator("#only-here")).to_be_visible()
        batch_url = page.url

        # The handout: a card for each student, their name and PIN on it.
        pdf = page.request.get(served.url + page.locator("#handout").get_attribute("href"))
        assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.body())).pages)
        pins = [cell.inner_text() for cell in page.locator("#gradebook tr td:last-child").all()]
        assert len(pins) == 3 and all(name in text for name in NAMES) and all(pin in text for pin in pins)

        # Every gradebook from the class page's form, in its declared dialect, the whole roster.
        page.goto(batch_url + "/class")
        systems = page.locator("#gradebooks select[name=system] option").all()
        assert len(systems) == 4
        for value in [o.get_attribute("value") for o in systems]:
            page.select_option("#gradebooks select[name=system]", value)
            page.select_option("#gradebooks select[name=scale]", "20")
            with page.expect_download() as download:
                page.click("#gradebooks button[type=submit]")
            body = open(download.value.path(), encoding="utf-8-sig").read()
            dialect = csv.excel if value != "attnsheet" else type("semicolons", (csv.excel,), {"delimiter": ";"})
            rows = list(csv.reader(io.StringIO(body), dialect=dialect))
            assert len({len(row) for row in rows if row}) == 1, value  # one table, every row as wide
            flat = "\n".join(";".join(row) for row in rows)
            people = (
                NAMES
                if value in ("attnsheet", "canvas")
                else ["zoe@school.example", "jose@school.example", "ai@school.example"]
            )  # by the roster's id
            assert all(person in flat for person in people), (value, flat)
            if value == "attnsheet":
                assert rows[0][:2] == ["código", "nombre"] and [r[1] for r in rows[1:]] == NAMES
                assert {r[-1] for r in rows[1:]} == {"falta"}  # nobody handed in: all there, marked missing

        # Renamed, archived, brought back, deleted (a wrong id refused first, nothing lost).
        page.goto(batch_url)
        page.fill("input[name=label]", "3.º B — atención")
        page.click("form:has(input[name=label]) button[type=submit]")
        page.goto(served.url + "/")
        expect(page.locator("body")).to_contain_text("3.º B — atención")
        page.goto(batch_url)
        page.click("button[value=archive]")
        page.goto(served.url + "/")
        expect(page.locator("#archived")).to_be_visible()
        page.click("#archived")
        expect(page.locator("body")).to_contain_text("3.º B — atención")
        page.goto(batch_url)
        page.click("button[value=unarchive]")
        batch_id = batch_url.rstrip("/").rsplit("/", 1)[1]
        page.fill("#delete input[name=confirm]", "batch-9999")
        page.click("#delete button[type=submit]")
        expect(page.locator(".error")).to_be_visible()
        assert page.request.get(batch_url).ok
        page.goto(batch_url)
        page.fill("#delete input[name=confirm]", batch_id)
        page.click("#delete button[type=submit]")
        page.goto(served.url + "/")
        expect(page.locator("body")).not_to_contain_text("3.º B — atención")
        assert page.request.get(batch_url).status == 404
        page.close()
    finally:
        served.stop()
