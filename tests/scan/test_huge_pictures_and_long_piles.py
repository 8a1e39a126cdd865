"""Scans that could hold the server (issue 32): a picture declaring ten billion pixels, and a long pile that never holds the class's batches."""

from __future__ import annotations

import json
import struct
import threading
import time
from pathlib import Path

import pytest
from waiting import ready
from schoolclient import cli, new_school

from generator.output.files import STAGE_PREFIX
from generator.app.turns import Turns


@pytest.fixture
def school(tmp_path):
    """A web class of three sheets and its teacher's client."""
    return new_school(tmp_path)


# --- 7. a picture that declares a huge size ---------------------------------------------------------


def huge_tiff(path: Path) -> Path:
    """210 bytes that declare 100,000 × 100,000 grey pixels."""
    entries = [
        (256, 4, 1, 100000),
        (257, 4, 1, 100000),
        (258, 3, 1, 8),
        (259, 3, 1, 1),
        (262, 3, 1, 1),
        (273, 4, 1, 8),
        (277, 3, 1, 1),
        (278, 4, 1, 100000),
        (279, 4, 1, 1),
    ]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + struct.pack("<I", 0)
    path.write_bytes(b"II*\x00" + struct.pack("<I", 9) + b"\x00" + ifd)
    return path


def test_a_picture_declaring_ten_billion_pixels_is_one_line_and_nothing_half_written(tmp_path):
    assert cli("generate", "--count", "1", "--seed", "3", "--out", str(tmp_path / "b")).returncode == 0
    r = cli(
        "scan",
        str(huge_tiff(tmp_path / "big.tif")),
        "--manifest",
        str(tmp_path / "b" / "manifest.json"),
        "--out",
        str(tmp_path / "out"),
    )
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    pages = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert "too big" in pages[0]["why"]
    assert not list((tmp_path / "out").glob(f"{STAGE_PREFIX}*")) and not list((tmp_path / "out" / "crops").iterdir())


def test_the_web_app_reads_such_a_picture_as_a_page_it_cannot_use(school, tmp_path):
    store, teacher, csrf, batch = school
    r = teacher.post(
        f"/batches/{batch.id}/scans",
        data={"csrf": csrf},
        files=[("scans", ("big.tif", huge_tiff(tmp_path / "big.tif").read_bytes(), "image/tiff"))],
    )
    assert r.status_code == 303
    assert "read 1 pages: 0 identified, 1 not" in ready(teacher, r.headers["location"])


# --- 13. a long pile never holds the class's batches ------------------------------------------------------


def test_a_batch_waiting_behind_a_pile_goes_at_the_next_slice():
    turns, events = Turns(), []

    def pile():
        with turns:
            for page in range(1, 41):
                events.append(("page", page))
                time.sleep(0.01)
                if page % 8 == 0:
                    turns.hand_on()

    reader = threading.Thread(target=pile)
    reader.start()
    while not events:
        time.sleep(0.001)

    with turns:  # a batch, asked for after the pile began
        events.append(("batch", 0))
    reader.join()
    at = events.index(("batch", 0))
    assert at < 17, events[: at + 1]  # within the next slice of 8 pages, never after all 40


def test_a_web_scan_hands_the_render_lock_on_between_slices(school, tmp_path, monkeypatch):
    from generator.scan.synthetic import filled_sheets, pdf_of

    store, teacher, csrf, batch = school
    filled = list(filled_sheets(batch.folder, seed=4, scan=dict(dpi=150)))
    pages = [p for f in filled for p in f.pages] * 6  # 18 pages
    pdf_of(pages, tmp_path / "pile.pdf")
    calls = []
    monkeypatch.setattr(Turns, "hand_on", lambda self: calls.append(1))
    r = teacher.post(
        f"/batches/{batch.id}/scans",
        data={"csrf": csrf},
        files=[("scans", ("pile.pdf", (tmp_path / "pile.pdf").read_bytes(), "application/pdf"))],
    )
    assert r.status_code == 303
    ready(teacher, r.headers["location"])
    assert len(calls) == len(pages) // 8
