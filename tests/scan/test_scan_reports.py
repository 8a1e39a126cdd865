"""What a scan says of the pile as a whole: every sheet that never arrived named, every page missing of
one that did, and one manifest only (issue 36)."""

from __future__ import annotations

import json

import pytest

from generator.scan.synthetic import filled_sheets, pdf_of


@pytest.fixture
def roster_batch(run, tmp_path):
    (tmp_path / "roster.csv").write_text("name\nAda Lovelace\nAlan Turing\nGrace Hopper\n", encoding="utf-8")
    r = run(
        "generate",
        "--roster",
        str(tmp_path / "roster.csv"),
        "--seed",
        "4",
        "--out",
        str(tmp_path / "batch"),
        "--kind",
        "transformer",
        "--attention",
        "computed",
    )
    assert r.code == 0, r.err
    return tmp_path


def test_sheets_that_never_arrived_and_pages_missing_are_named(run, roster_batch):
    folder = roster_batch
    sheets = list(filled_sheets(folder / "batch", seed=2, scan=dict(dpi=200, angle=1.0, quality=80)))
    assert all(len(s.pages) == 2 for s in sheets)  # a computed block: two pages each
    # Ada's two pages and Alan's first; Grace's sheet never came back.
    pdf_of([*sheets[0].pages, sheets[1].pages[0]], folder / "pile.pdf")
    manifest = str(folder / "batch" / "manifest.json")
    r = run("scan", str(folder / "pile.pdf"), "--manifest", manifest, "--out", str(folder / "out"), "--json")
    assert r.code == 0, r.err
    summary = json.loads(r.out)
    assert summary["missing"] == [f"{sheets[2].code} (Grace Hopper)"]
    assert summary["incomplete"] == [f"{sheets[1].code} (Alan Turing) page 2 of 2"]
    r = run("scan", str(folder / "pile.pdf"), "--manifest", manifest, "--out", str(folder / "out"), "--force")
    assert r.code == 0 and f"1 sheets never arrived: {sheets[2].code} (Grace Hopper)" in r.err, r.err
    assert f"pages missing: {sheets[1].code} (Alan Turing) page 2 of 2" in r.err


def test_a_whole_pile_names_nothing_missing(run, roster_batch):
    folder = roster_batch
    sheets = list(filled_sheets(folder / "batch", seed=2, scan=dict(dpi=200, angle=1.0, quality=80)))
    pdf_of([page for s in sheets for page in s.pages], folder / "pile.pdf")
    r = run(
        "scan",
        str(folder / "pile.pdf"),
        "--manifest",
        str(folder / "batch" / "manifest.json"),
        "--out",
        str(folder / "out"),
        "--json",
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["missing"] == [] and json.loads(r.out)["incomplete"] == []


@pytest.mark.parametrize("command", [["scan", "pile.pdf", "--out", "out"], ["grade", "a.json"], ["answers", "--all"]])
def test_a_second_manifest_is_refused_not_silently_taken(run, tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("generate", "--count", "2", "--seed", "3", "--out", "batch").code == 0
    assert run("answers", "--manifest", "batch/manifest.json", "--all", "--out", "a.json").code == 0
    (tmp_path / "pile.pdf").write_bytes((tmp_path / "batch" / "worksheets.pdf").read_bytes())
    r = run(*command, "--manifest", "batch/manifest.json", "--manifest", "batch/manifest.json")
    assert r.code == 2 and "--manifest given 2 times: give it once" in r.err and r.err.count("\n") == 1, r.err
    assert not (tmp_path / "out").exists()


def _stderr_of(args: list[str], cwd, tty: bool) -> str:
    """attnsheet's stderr, on a terminal (a pseudo-terminal) or into a pipe."""
    import os
    import pty
    import subprocess
    import sys

    if not tty:
        return subprocess.run(
            [sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, timeout=120
        ).stderr
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "generator", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=child,
        stdin=subprocess.DEVNULL,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(120)
    os.close(main)
    return b"".join(chunks).decode(errors="replace")


def test_a_scan_shows_its_pages_read_on_a_terminal_and_nothing_extra_in_a_pipe(run, tmp_path):
    assert run("generate", "--count", "3", "--seed", "3", "--out", str(tmp_path / "batch")).code == 0
    args = ["scan", "batch/worksheets.pdf", "--manifest", "batch/manifest.json", "--out", "out", "--force"]
    shown = _stderr_of(args, tmp_path, tty=True)
    assert "reading pages" in shown and "3/3" in shown and "read 3 pages" in shown, shown
    piped = _stderr_of(args, tmp_path, tty=False)
    assert "reading pages" not in piped and piped.count("\n") == 1 and "read 3 pages" in piped, piped
