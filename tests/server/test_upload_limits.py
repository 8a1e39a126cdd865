"""No upload can exhaust the server (issue 53, 1): every picture's declared size is checked before
it is decoded, frames and pages are read one at a time, and a pile has a page and pixel budget.

Peak memory is each process's own high-water mark (VmHWM: wait4's count would carry the test
process's own size into its children), never a time: these hold on a loaded machine as on a quiet one.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from generator.app.scans import check_pile
from generator.core.errors import InputError
from generator.scan.limits import MAX_PIXELS, Limits, survey
from generator.scan.pages import scan_pages

_spec = importlib.util.spec_from_file_location("bombs", ROOT / "bench" / "bombs.py")
bombs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bombs)

PEAK_MB = 500
"""What the issue allows any pile, however crafted."""


def peak(*args: str) -> tuple[float, int, str]:
    """`attnsheet ARGS` run to its end in a process of its own: its peak memory in MB (its own
    high-water mark, not the test process's it was forked from), its exit code, what it printed."""
    return bombs.peak(bombs.ATTNSHEET, *args, cwd=ROOT)


@pytest.fixture(scope="module")
def piles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs")
    return {name: build(folder / name) for name, build in bombs.BOMBS.items()}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    out = tmp_path_factory.mktemp("batch")
    done = subprocess.run(
        [sys.executable, "-m", "generator", "generate", "--count", "1", "--seed", "3", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return out / "manifest.json"


def test_the_bombs_are_as_small_as_the_issue_found_them(piles):
    assert piles["tiff-frames.tif"].stat().st_size < 400_000
    assert piles["pdf-picture.pdf"].stat().st_size < 200_000


@pytest.mark.parametrize("name", ["tiff-frames.tif", "pdf-picture.pdf"])
def test_a_small_file_declaring_huge_pictures_is_read_in_bounded_memory(piles, manifest, tmp_path, name):
    mb, code, said = peak("scan", str(piles[name]), "--manifest", str(manifest), "--out", str(tmp_path / "out"))
    assert code == 0 and "Traceback" not in said and said.count("\n") == 1, said
    assert mb < PEAK_MB, f"{name}: {mb:.0f} MB"
    pages = json.loads((tmp_path / "out" / "pages.json").read_text())["pages"]
    assert pages and all("too big" in page["why"] for page in pages), pages[:3]


def test_a_pile_over_the_page_limit_is_one_line_and_nothing_read_or_written(piles, manifest, tmp_path):
    mb, code, said = peak(
        "scan", str(piles["pdf-pages.pdf"]), "--manifest", str(manifest), "--out", str(tmp_path / "out")
    )
    assert code == 1 and "Traceback" not in said and said.count("\n") == 1, said
    assert "more than 2,000 pages" in said and mb < PEAK_MB
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_the_page_limit_is_the_teachers_to_set(piles, manifest, tmp_path):
    small = bombs.pdf_pages(tmp_path / "five.pdf", 5)
    _, code, said = peak(
        "scan", str(small), "--manifest", str(manifest), "--out", str(tmp_path / "out"), "--max-pages", "4"
    )
    assert code == 1 and "more than 4 pages" in said, said
    _, code, said = peak(
        "scan", str(small), "--manifest", str(manifest), "--out", str(tmp_path / "out"), "--max-pages", "5"
    )
    assert code == 0 and "read 5 pages" in said, said


def test_a_pile_is_counted_across_its_files_and_by_its_pixels(tmp_path):
    pdfs = [bombs.pdf_pages(tmp_path / f"{n}.pdf", 3) for n in range(3)]
    assert survey(pdfs, Limits(pages=9)) == 9
    with pytest.raises(InputError, match="more than 8 pages .at 2.pdf."):
        survey(pdfs, Limits(pages=8))
    # Two pages of 36 million pixels each fit a page's limit, not the budget of a two-page pile.
    big = bombs.tiff_frames(tmp_path / "big.tif", 2, (5700, 6300))
    with pytest.raises(InputError, match="million pixels"):
        check_pile([big], 2)
    assert check_pile([big], 9) == 2


def test_tiff_frames_are_decoded_one_at_a_time(tmp_path):
    """Each frame of a multi-page TIFF is its own page, decoded only when its turn comes."""
    import numpy as np
    from PIL import Image

    frames = [Image.fromarray(np.full((400, 300), v, np.uint8)) for v in (10, 100, 200)]
    frames[0].save(tmp_path / "three.tif", save_all=True, append_images=frames[1:])
    pages = scan_pages([tmp_path / "three.tif"])
    first = next(pages)
    assert first.number == 1 and first.grey[0, 0] == 10
    assert [(p.number, int(p.grey[0, 0])) for p in pages] == [(2, 100), (3, 200)]


def test_a_frame_over_the_limit_is_refused_alone(tmp_path):
    """One frame too big among good ones: that page's report, the others read."""
    from PIL import Image

    side = int(MAX_PIXELS**0.5) + 10
    small, huge = Image.new("1", (400, 500), 1), Image.new("1", (side, side), 1)
    small.save(tmp_path / "mixed.tif", compression="group4", save_all=True, append_images=[huge, small])
    pages = list(scan_pages([tmp_path / "mixed.tif"]))
    assert [p.number for p in pages] == [1, 2, 3]
    assert pages[0].grey is not None and pages[2].grey is not None
    assert pages[1].grey is None and "too big" in pages[1].problem


def test_a_pdf_page_whose_picture_is_drawn_among_others_is_checked_before_rendering(tmp_path):
    """A huge picture beside other objects is not the copier's one picture: the renderer would
    decode it whole all the same, so its declared size is checked first."""
    import pikepdf

    path = bombs.pdf_picture(tmp_path / "drawn.pdf", 12000)
    pdf = pikepdf.open(path, allow_overwriting_input=True)
    page = pdf.pages[0]
    page.Contents = pdf.make_stream(b"0 0 10 10 re f q 595 0 0 842 0 0 cm /Im0 Do Q")
    pdf.save(path)
    [only] = scan_pages([path])
    assert only.grey is None and "too big" in only.problem


def test_a_picture_whose_header_cannot_be_read_is_not_decoded(tmp_path):
    (tmp_path / "odd.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    [only] = scan_pages([tmp_path / "odd.png"])
    assert only.grey is None and "cannot read it" in only.problem


WEB = textwrap.dedent("""
    import json, os, re, sys, time
    from pathlib import Path
    from starlette.testclient import TestClient
    from generator.app.store import Store
    from generator.web.app import create_app
    sys.path.insert(0, "tests")
    from waiting import made, ready

    store = Store(Path(sys.argv[1]))
    client = TestClient(create_app(store), base_url="http://127.0.0.1", follow_redirects=False)
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    made(client, client.post("/batches", data={"csrf": csrf, "count": "1", "seed": "8"}))
    batch = store.batch("batch-0001")
    out = {}
    for path in sys.argv[2:]:
        name = Path(path).name
        with open(path, "rb") as handle:
            r = client.post(f"/batches/{batch.id}/scans", data={"csrf": csrf}, files=[("scans", (name, handle))])
        out[name] = [r.status_code, ready(client, r.headers["location"]) if r.status_code == 303 else r.text]
    out["runs"] = sorted(p.name for p in (batch.folder / "scans").iterdir()) if (batch.folder / "scans").exists() else []
    print(json.dumps(out))
""")


def test_the_web_app_reads_the_bombs_in_bounded_memory_and_refuses_a_pile_too_long(piles, tmp_path):
    mb, code, said = bombs.peak(WEB, str(tmp_path / "data"), *map(str, piles.values()), cwd=ROOT)
    assert code == 0, said[-2000:]
    out = json.loads(next(line for line in reversed(said.splitlines()) if line.startswith("{")))
    assert mb < PEAK_MB, f"{mb:.0f} MB"
    assert out["tiff-frames.tif"][0] == 303 and "read 30 pages: 0 identified, 30 not" in out["tiff-frames.tif"][1]
    assert out["pdf-picture.pdf"][0] == 303 and "read 1 pages: 0 identified, 1 not" in out["pdf-picture.pdf"][1]
    status, page = out["pdf-pages.pdf"]
    assert status == 400 and "more than 2,000 pages" in page and "Traceback" not in page
    assert len(out["runs"]) == 2  # the refused pile left no run behind
