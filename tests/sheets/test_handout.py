"""The handout (issue 33): each student's link, QR code and PIN on a card to cut out, read back from
the PDF by OpenCV at a copier's 150 dpi, names printed as text and never as markup."""

from __future__ import annotations

import io
import re

import cv2
import numpy as np
import pypdfium2
import pytest
from pypdf import PdfReader
from starlette.testclient import TestClient
from waiting import made

from generator.app.store import Store
from generator.output.handout import CARD_HEIGHTS_MM, COLUMNS, MARGINS_MM, ROWS
from generator.sheet.style import PAPER_WIDTHS_PT
from generator.web.app import create_app

NAMES = [
    "Zoë Álvarez-Núñez",
    "<b>Ben</b> & Ode",
    "Chidi Okafor",
    "Dana Ólafsdóttir",
    "Eun-ji Park",
    "Femi Adé",
    "Gro Øvrebø",
    "Hana Novák",
    "Ivo Ilić",
    "Jana Šimková",
    "Kofi Mensah",
    "Lena Müller",
]


def _client(tmp_path, base: str, public_url: str = "") -> TestClient:
    client = TestClient(
        create_app(Store(tmp_path / "data"), public_url=public_url, allowed_hosts=("192.168.1.20",)),
        base_url=base,
        follow_redirects=False,
    )
    client.csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    return client


def _qr_links(pdf: bytes, paper: str = "a4", dpi: int = 150) -> list[str]:
    """Every card's QR code, as OpenCV reads it from its card's top left of the page drawn at `dpi`."""
    found = []
    mm = dpi / 25.4
    column = (PAPER_WIDTHS_PT[paper] / 72 * 25.4 - 2 * MARGINS_MM[1]) / COLUMNS
    # Both of OpenCV's detectors, and the card again at twice the scale, as a phone's reader tries
    # more than one way: of 2,400 clean cards at 150 dpi the classic detector missed 38, the other
    # 108, both 2 (a test of 22 cards failed about one run in fifty); read again at twice the scale, none.
    detectors = (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())
    for page in pypdfium2.PdfDocument(pdf):
        grey = np.asarray(page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L"))
        for row in range(ROWS):
            for col in range(COLUMNS):
                top, left = MARGINS_MM[0] + 4 + row * CARD_HEIGHTS_MM[paper], MARGINS_MM[1] + col * column
                crop = grey[int(top * mm) : int((top + 45) * mm), int(left * mm) : int((left + 45) * mm)]
                tries = (crop, cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
                text = next((t for picture in tries for d in detectors if (t := d.detectAndDecode(picture)[0])), "")
                if text:
                    found.append(text)
    return found


@pytest.mark.parametrize("lang, paper", [("en", "a4"), ("es", "letter")])
def test_every_student_has_a_card_whose_qr_opens_their_own_sheet(tmp_path, lang, paper):
    web = _client(tmp_path, "http://192.168.1.20:8000")
    roster = ("roster", ("class.csv", ("name\n" + "\n".join(f'"{n}"' for n in NAMES) + "\n").encode(), "text/csv"))
    page = web.get(
        made(
            web,
            web.post("/batches", data={"csrf": web.csrf, "seed": "4", "lang": lang, "paper": paper}, files=[roster]),
        )
    ).text
    url = re.search(r'<a href="([^"]+)" id="handout">', page).group(1)
    answer = web.get(url)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/pdf"
    store = Store(tmp_path / "data")
    batch = store.batch("batch-0001")
    links = store.links(batch)
    reader = PdfReader(io.BytesIO(answer.content))
    assert len(reader.pages) == 2  # ten cards a page
    text = " ".join(p.extract_text() for p in reader.pages)
    for sheet in batch.sheets:
        link = links[int(sheet["index"])]
        assert link.pin in text and sheet["code"] in text and link.token in text
    assert "<b>Ben</b> & Ode" in text  # the name as written, not as markup
    words = "Recorta" if lang == "es" else "Cut along"
    assert words in text
    wanted = sorted(f"http://192.168.1.20:8000/s/{links[int(s['index'])].token}" for s in batch.sheets)
    assert sorted(_qr_links(answer.content, paper)) == wanted


def test_the_handout_follows_the_servers_public_address(tmp_path):
    web = _client(tmp_path, "http://127.0.0.1:8000", public_url="https://attnsheet.school.example")
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "3"}))
    pdf = web.get(f"{location}/handout.pdf").content
    assert all(link.startswith("https://attnsheet.school.example/s/") for link in _qr_links(pdf))
    assert len(_qr_links(pdf)) == 2
    assert (
        "https://attnsheet.school.example/s " in " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
        or "https://attnsheet.school.example/s" in PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    )


def test_the_handout_is_made_once_for_what_it_prints(tmp_path):
    web = _client(tmp_path, "http://127.0.0.1:8000")
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "3"}))
    first = web.get(f"{location}/handout.pdf").content
    folder = tmp_path / "data" / "batches" / location.rsplit("/", 1)[1]
    kept = sorted(folder.glob(".handout-*.pdf"))
    assert len(kept) == 1 and kept[0].read_bytes() == first
    kept[0].write_bytes(first + b"%kept")  # served from the kept file, not made again
    assert web.get(f"{location}/handout.pdf").content == first + b"%kept"
    # A new name is printed on the cards: made again, the old file gone.
    assert (
        web.post(f"{location}/manage", data={"csrf": web.csrf, "action": "rename", "label": "Monday 3B"}).status_code
        == 303
    )
    again = web.get(f"{location}/handout.pdf").content
    assert (
        again != first and b"%kept" not in again and "Monday 3B" in PdfReader(io.BytesIO(again)).pages[0].extract_text()
    )
    assert len(list(folder.glob(".handout-*.pdf"))) == 1
