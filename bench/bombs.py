"""Hostile piles: small files that declare far more pixels or pages than a class's scans.

`python bench/bombs.py FOLDER` writes them and reads each with `attnsheet scan` in a process of
its own, printing its peak memory (the process's own high-water mark of resident memory, VmHWM),
its exit code and its last line. The tests build the
same files (tests/server/test_upload_limits.py), so what is measured here is what they refuse.

- tiff-frames.tif: 30 frames of 8,000 × 10,000 one-bit pixels, Group 4 (≈ 165 KB); each frame
  is under the per-picture limit, together 2.4 billion pixels.
- pdf-picture.pdf: one page holding one 32,000 × 32,000 picture (≈ 122 KB).
- pdf-pages.pdf: 3,000 empty pages (over the pile's page limit).
- tiff-noise.tif: 3 frames of 5,700 × 6,300 pixels (just under the per-page limit), three
  tenths of each ink at random: the most one page can ask of the reader.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zlib
from pathlib import Path


def tiff_frames(path: Path, frames: int = 30, size: tuple[int, int] = (8000, 10000)) -> Path:
    """A multi-page TIFF of white one-bit frames, each `size` pixels, Group 4 compressed."""
    from PIL import Image

    first = Image.new("1", size, 1)
    first.save(path, compression="group4", save_all=True, append_images=[first] * (frames - 1))
    return path


def tiff_noise(path: Path, frames: int = 3, size: tuple[int, int] = (5700, 6300)) -> Path:
    """A multi-page TIFF of frames just under the per-page limit, each three tenths ink at random
    (the most a page can ask of the reader: every piece of ink a piece to look at)."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(1)
    pages = [Image.fromarray(rng.random((size[1], size[0])) >= 0.3) for _ in range(frames)]
    pages[0].save(path, compression="group4", save_all=True, append_images=pages[1:])
    return path


def pdf_picture(path: Path, side: int = 32000) -> Path:
    """A one-page PDF whose one picture is `side` × `side` white one-bit pixels (Flate)."""
    import pikepdf

    pdf = pikepdf.new()
    row = b"\xff" * ((side + 7) // 8)
    picture = pikepdf.Stream(pdf, zlib.compress(row * side, 9))
    picture.Type, picture.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    picture.Width, picture.Height, picture.BitsPerComponent = side, side, 1
    picture.ColorSpace, picture.Filter = pikepdf.Name.DeviceGray, pikepdf.Name.FlateDecode
    page = pdf.add_blank_page(page_size=(595, 842))
    page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=picture))
    page.Contents = pdf.make_stream(b"q 595 0 0 842 0 0 cm /Im0 Do Q")
    pdf.save(path)
    return path


def pdf_pages(path: Path, pages: int = 3000) -> Path:
    """A PDF of `pages` empty A4 pages (each one shared content stream)."""
    import pikepdf

    pdf = pikepdf.new()
    for _ in range(pages):
        pdf.add_blank_page(page_size=(595, 842))
    pdf.save(path)
    return path


BOMBS = {"tiff-frames.tif": tiff_frames, "pdf-picture.pdf": pdf_picture, "pdf-pages.pdf": pdf_pages}
"""The hostile piles (the tests build these)."""
PILES = {**BOMBS, "tiff-noise.tif": tiff_noise}
"""What bench/bombs.py measures: the bombs, and a pile of pages at the limit, full of ink."""


HIGH_WATER = """
import atexit, sys
out = sys.argv.pop(1)

def said():
    # The peak of this process's own memory since it began (VmHWM): not the parent's it was forked from.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            with open(out, "w") as handle:
                handle.write(line.split()[1])

atexit.register(said)
exec(sys.argv.pop(1))
"""
"""Runs Python code (its first argument) and writes the process's peak memory in kB to a file
(the argument before it). The operating system's own count of a finished child (wait4's
ru_maxrss) carries the peak of the process it was forked from: a test suite of a gigabyte would
show as a gigabyte."""


def peak(code: str, *args: str, cwd=None) -> tuple[float, int, str]:
    """Python `code` run in a process of its own with `args`: its peak memory in MB, its exit code,
    what it printed."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "peak"
        done = subprocess.run(
            [sys.executable, "-c", HIGH_WATER, str(out), code, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=900,
        )
        kb = int(out.read_text()) if out.exists() else 0
    return kb / 1024, done.returncode, done.stdout + done.stderr


ATTNSHEET = "import sys; sys.argv[0] = 'attnsheet'; from generator.__main__ import main; main()"
"""`attnsheet` itself, for `peak`: its arguments are the command line's."""


def measure(pile: Path, out: Path) -> tuple[float, int, str]:
    """`attnsheet scan pile` in a process of its own: its peak memory in MB, its exit code, its last line."""
    mb, code, said = peak(ATTNSHEET, "scan", str(pile), "--out", str(out), "--force")
    lines = said.strip().splitlines()
    return mb, code, lines[-1] if lines else ""


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "output/bombs")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'pile':<18} {'size':>8} {'peak MB':>8} {'exit':>4}  last line")
    for name, build in PILES.items():
        pile = build(folder / name)
        mb, code, line = measure(pile, folder / f"out-{pile.stem}")
        print(f"{name:<18} {pile.stat().st_size // 1024:>6} KB {mb:>8.0f} {code:>4}  {line[:100]}")


if __name__ == "__main__":
    main()
