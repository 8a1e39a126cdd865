"""Scanning bench: pages a second end to end on one core at 200 dpi, and memory over 300 pages.

Makes classes of synthetic scans (sheets filled by the project's writers, scanned at 200 dpi
into a copier PDF), then times `attnsheet scan` pinned to one core, process start included,
on a class of 30 and on a class of 300, and takes its peak memory on the big class's first 30
pages and on all 300 (the same manifest): flat means the 300-page run needs no more than a
quarter more than the 30-page one. Targets (issue 25): at least 4
pages/s; memory flat. Prints one table; exits 1 when a target is missed.

    python bench/scan.py [--pages 300]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from generator.scan.synthetic import filled_sheets, pdf_of  # noqa: E402

ATTNSHEET = [sys.executable, "-m", "generator"]


def make_class(folder: Path, count: int, first: int, seed: int) -> tuple[Path, Path]:
    """A batch of `count` default sheets and its scans as 200 dpi PDFs: its first `first` pages,
    and all of them; their paths (the batch in folder/batch)."""
    folder.mkdir()
    batch = folder / "batch"
    subprocess.run(
        [*ATTNSHEET, "generate", "--count", str(count), "--seed", str(seed), "--out", str(batch)],
        check=True,
        capture_output=True,
    )
    pages = [
        cv2.imencode(".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, 80])[1]  # held small until written
        for sheet in filled_sheets(batch, seed, scan=dict(dpi=200, angle=1.5, quality=80))
        for page in sheet.pages
    ]
    small, every = folder / f"scans{first}.pdf", folder / f"scans{count}.pdf"
    pdf_of((cv2.imdecode(p, cv2.IMREAD_UNCHANGED) for p in pages[:first]), small)
    pdf_of((cv2.imdecode(p, cv2.IMREAD_UNCHANGED) for p in pages), every)
    return small, every


def run_scan(pdf: Path, out: Path) -> tuple[float, int]:
    """Seconds and peak memory (kB) of one `attnsheet scan` on one core."""
    pin = ["taskset", "-c", "0"] if os.path.exists("/usr/bin/taskset") else []
    manifest = pdf.parent / "batch" / "manifest.json"  # the class the PDF was made from
    # A small process starts the scan and reports its peak: a child forked from this one (which
    # made the scans) would count this one's memory as its own until it runs the scan.
    wrapper = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            wrapper,
            *pin,
            *ATTNSHEET,
            "scan",
            str(pdf),
            "--manifest",
            str(manifest),
            "--out",
            str(out),
            "--force",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    seconds, peak = result.stdout.split()
    return float(seconds), int(peak)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _, class30 = make_class(folder / "class30", 30, 30, 31)
        first30, every = make_class(folder / "big", args.pages, 30, 32)
        os.sync()  # the scans just written are on disk: a run's own fsync does not wait for them
        seconds, _ = run_scan(class30, folder / "out-class30")
        _, small_rss = run_scan(first30, folder / "out-first30")
        big_seconds, big_rss = run_scan(every, folder / "out-big")
    rate, big_rate = 30 / seconds, args.pages / big_seconds
    growth = big_rss / small_rss
    rows = [
        ("pages/s, a class of 30, one core, 200 dpi", f"{rate:.2f}", ">= 4", rate >= 4),
        (f"pages/s, a class of {args.pages}", f"{big_rate:.2f}", ">= 4", big_rate >= 4),
        (f"peak memory, 30 pages of {args.pages} (MB)", f"{small_rss / 1024:.0f}", "", True),
        (f"peak memory, all {args.pages} pages (MB)", f"{big_rss / 1024:.0f}", "", True),
        (f"memory {args.pages} / 30 pages", f"{growth:.2f}", "<= 1.25", growth <= 1.25),
    ]
    for name, value, target, ok in rows:
        print(f"{name:<42} {value:>8}  {target:<8} {'ok' if ok else 'MISSED'}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
