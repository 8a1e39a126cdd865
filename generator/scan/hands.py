"""People's own hands where a package brings them: fonts, handwriting faces and scikit-learn's digits.

Beside the project's stroke writers (`handwriting`), the recognizer learns from and is measured on
hands it did not draw: OpenCV's stroke fonts and TrueType handwriting faces (Debian's fonts, some
learned from and some held out), and people's digits (scikit-learn's, in its wheel, part held out).
Each writes a value into a box as `handwriting.write` does: centred, shrunk once to fit.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from generator.scan.handwriting import SHAPES, WIDTH, Writer, write

HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
)
"""OpenCV's own stroke fonts (in its wheel), two of them script: a neat hand, or a tidy one."""


def write_font(
    canvas: np.ndarray,
    text: str,
    box: tuple[float, float, float, float],
    px_mm: float,
    rng: np.random.Generator,
    font: Optional[object] = None,
) -> list[tuple[str, float, float]]:
    """Writes `text` into `box` of `canvas` in a font (a Hershey stroke font, or a TrueType font
    `font` from PIL), as tidy writers and other tools print digits; each character with its left
    and right, as `write` returns them."""
    chars = [c for c in text.replace("\u2212", "-") if c in SHAPES]
    if not chars:
        return []
    x0, y0, bw, bh = box
    height = min(rng.uniform(2.4, 4.6) * px_mm, bh * 0.72)
    ink = int(rng.choice([0, 30, 60, 100, 140]))
    spacing = rng.uniform(0.0, 0.2)
    if font is None:
        hershey = int(rng.choice(HERSHEY)) | (cv2.FONT_ITALIC if rng.random() < 0.3 else 0)
        pen = rng.uniform(0.15, 0.45) * px_mm / height  # a stroke's width against the height
    while True:
        gap = spacing * height
        if font is None:
            thick = max(1, int(round(pen * height)))
            face, scale = hershey, height / max(cv2.getTextSize("8", hershey, 1.0, thick)[0][1], 1)
            widths = [cv2.getTextSize(c, face, scale, thick)[0][0] for c in chars]
        else:
            face = sized(font, int(round(height)))
            widths = [face.getlength(c) for c in chars]
        total = sum(widths) + gap * (len(chars) - 1)
        if total <= bw * 0.9:
            break
        if height < 4:
            return []
        # A long value is written as large as the box lets it, as the other hands write it: once
        # shrunk to fit (a face's sizes are whole points, so perhaps a step more), never drawn again.
        height *= min(0.97, bw * 0.9 / total)
    x, base = x0 + (bw - total) / 2, y0 + (bh + height) / 2 + rng.normal(0, bh * 0.03)
    placed = []
    for c, w in zip(chars, widths):
        if font is None:
            cv2.putText(canvas, c, (int(round(x)), int(round(base))), face, scale, ink, thick, cv2.LINE_AA)
        else:
            _pil_text(canvas, c, x, base, face, ink)
        placed.append((c, x, x + w))
        x += w + gap
    return placed


def _pil_text(canvas: np.ndarray, char: str, x: float, base: float, face, ink: int) -> None:
    """One character of a TrueType font on a grey canvas, its baseline at `base` (what falls
    outside the canvas is cut off, as a pen stops at the paper's edge)."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = face.getbbox(char, anchor="ls")
    x0, y0 = int(x + left) - 2, int(base + top) - 2
    w, h = right - left + 4, bottom - top + 4
    patch = Image.new("L", (w, h), 255)
    ImageDraw.Draw(patch).text((x - x0, base - y0), char, font=face, fill=ink, anchor="ls")
    drawn = np.asarray(patch)
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx1 > cx0 and cy1 > cy0:
        canvas[cy0:cy1, cx0:cx1] = np.minimum(canvas[cy0:cy1, cx0:cx1], drawn[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0])


@functools.lru_cache(maxsize=256)
def sized(font: str, height: int):
    """A TrueType face at the size at which its digits stand `height` pixels tall (faces draw
    digits anywhere from half to nearly all of their size: a hand writes them as tall as it means)."""
    from PIL import ImageFont

    probe = ImageFont.truetype(font, 100)
    _, top, _, bottom = probe.getbbox("0123456789", anchor="ls")
    return ImageFont.truetype(font, max(8, int(round(100 * height / max(bottom - top, 1)))))


FACES = {
    # Handwriting faces in Debian's packages (bench/README.md says which): each a person's hand.
    # The network learns from the first; the second are writers it never sees, for bench/writers.py.
    "learn": (
        "opentype/bwht/BecauseWeBuild-Regular.otf",
        "opentype/bwht/BecauseWeConnect-Regular.otf",
        "opentype/bwht/BecauseWeCreate-Regular.otf",
        "opentype/bwht/BecauseWeMentor-Regular.otf",
        "opentype/comic-neue/ComicNeue-Regular.otf",
        "truetype/breip/Breip.ttf",
        "truetype/fifthhorseman/dkg.ttf",
        "truetype/klee/KleeOne-Regular.ttf",
        "truetype/rufscript/Rufscript010.ttf",
        "truetype/tomsontalks/TomsonTalks.ttf",
        "truetype/seto/setofont.ttf",
        "truetype/kiloji/kiloji.ttf",
        "truetype/kiloji/kiloji_p.ttf",
        "truetype/linex/Abecedario.ttf",
        "truetype/linex/AbecedarioNegrita.ttf",
        "opentype/fantasque-sans/Normal/OTF/FantasqueSansMono-Italic.otf",
        "truetype/staypuft/StayPuft.ttf",
        "opentype/havana/Havana-Regular.otf",
        "truetype/leckerli-one/LeckerliOne-Regular.ttf",
        "opentype/lobster/lobster.otf",
    ),
    "held out": (
        "opentype/bwht/BecauseWeLearn-Regular.otf",
        "opentype/bwht/BecauseWeOrganize-Regular.otf",
        "opentype/dancingscript/DancingScript-Regular.otf",
        "opentype/kaushanscript/KaushanScript-Regular.otf",
        "truetype/humor-sans/Humor-Sans.ttf",
        "truetype/kristi/Kristi.ttf",
        "truetype/ecolier-court/Ecolier-court.ttf",
    ),
}
"""Handwriting faces by use, under /usr/share/fonts: learned from, or held out."""


def faces(use: str) -> list[str]:
    """The handwriting faces of `use` ("learn" or "held out") this system has."""
    return [str(p) for p in (Path("/usr/share/fonts") / f for f in FACES[use]) if p.is_file()]


HELD_OUT_DIGITS = 0.4
"""The share of scikit-learn's digits (the last ones) the network never learns from."""


@functools.lru_cache(maxsize=2)  # read from scikit-learn's file once a process; never changed
def real_digits(use: str) -> dict[str, list[np.ndarray]]:
    """Digits written by people (scikit-learn's, 8×8 from a form's scans, in its wheel), by
    character: the first part to learn from, or the last (`use` "held out"); {} without it."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        return {}
    data = load_digits()
    cut = int(len(data.images) * (1 - HELD_OUT_DIGITS))
    part = slice(cut, None) if use == "held out" else slice(0, cut)
    out: dict[str, list[np.ndarray]] = {}
    for image, target in zip(data.images[part], data.target[part]):
        out.setdefault(str(target), []).append(image.astype(np.float32) / 16.0)
    return out


def write_digits(
    canvas: np.ndarray,
    text: str,
    writer: Writer,
    box: tuple[float, float, float, float],
    px_mm: float,
    rng: np.random.Generator,
    digits: dict[str, list[np.ndarray]],
) -> list[tuple[str, float, float]]:
    """Writes `text` into `box` with people's own digits (`digits`, as `real_digits` gives them),
    the signs and points by `writer`'s hand; each character with its left and right, as `write`."""
    chars = [c for c in text.replace("\u2212", "-") if c in SHAPES]
    x0, y0, bw, bh = box
    height = min(writer.size * px_mm * rng.uniform(0.95, 1.2), bh * 0.75)
    widths = [(WIDTH.get(c, 0.75) if c not in digits else 0.8) * height for c in chars]
    gap = writer.spacing * height * 0.5
    total = sum(widths) + gap * (len(chars) - 1)
    if total > bw * 0.92:  # a long value is written smaller
        shrink = bw * 0.92 / total
        height, widths, gap, total = height * shrink, [w * shrink for w in widths], gap * shrink, bw * 0.92
    x, base = x0 + (bw - total) / 2, y0 + (bh + height) / 2 + rng.normal(0, bh * 0.03)
    placed = []
    for c, w in zip(chars, widths):
        if c in digits:
            sample = digits[c][int(rng.integers(0, len(digits[c])))]
            # The 8×8 scan of a 32×32 form cell: the digit fills it, a little margin around.
            size = (max(2, int(round(w))), max(2, int(round(height))))
            ink = cv2.resize(sample, size, interpolation=cv2.INTER_CUBIC).clip(0, 1)
            ink = np.where(ink > 0.35, np.minimum(1.0, (ink - 0.35) / 0.3), 0.0)
            top, left = int(round(base - height)), int(round(x))
            region = canvas[top : top + size[1], left : left + size[0]]
            if region.shape == ink.shape[:2]:
                shade = 255 - (255 - writer.ink) * ink
                canvas[top : top + size[1], left : left + size[0]] = np.minimum(region, shade).astype(canvas.dtype)
            placed.append((c, x, x + w))
        else:
            placed += write(canvas, c, writer, (x, base - height * 1.15, w, height * 1.3), px_mm, rng)
        x += w + gap
    return placed
