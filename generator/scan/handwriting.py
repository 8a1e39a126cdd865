"""Handwriting from varied writers: what the recognizer learns from and what tests write.

No handwriting data set can be downloaded, so the project draws its own: each character is one
of a few shapes people write it in (a 1 with or without its flag, the European 1 with a long
one, a 4 open or closed, a 7 with or without a bar), as strokes in a unit box, bent by the
writer (slant, size, width, thickness, pressure) and by each stroke's own wobble, then drawn
anti-aliased. A `Writer` is a seeded person: the same seed writes the same way. Beside them,
people's own hands where a package brings them: handwriting faces (Debian's fonts, some learned
from and some held out) and people's digits (scikit-learn's, in its wheel, part held out).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

Stroke = list[tuple[float, float]]
"""Points in a unit box: x from the left, y from the top; the box is the character's body (0–1)."""


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float, n: int = 14) -> Stroke:
    """Points on an ellipse's arc, angles in degrees, clockwise on the page (y down)."""
    return [
        (cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a))) for a in np.linspace(start, end, n)
    ]


SHAPES: dict[str, list[list[Stroke]]] = {
    "0": [[_arc(0.5, 0.5, 0.36, 0.5, -100, 262, 22)], [_arc(0.5, 0.5, 0.3, 0.5, -80, 285, 22)]],
    "1": [
        [[(0.5, 0.0), (0.5, 1.0)]],
        [[(0.25, 0.25), (0.55, 0.0), (0.55, 1.0)]],
        [[(0.3, 0.22), (0.55, 0.0), (0.55, 1.0)], [(0.3, 1.0), (0.8, 1.0)]],
        [[(0.08, 0.45), (0.62, 0.0), (0.62, 1.0)]],
    ],  # the European 1: a long flag, no foot
    "2": [
        [_arc(0.5, 0.3, 0.32, 0.3, 190, 380, 12) + [(0.15, 1.0), (0.88, 1.0)]],
        [_arc(0.48, 0.3, 0.3, 0.3, 200, 390, 12) + [(0.18, 0.98), (0.3, 0.92), (0.85, 1.0)]],
    ],
    "3": [
        [_arc(0.48, 0.27, 0.3, 0.27, 200, 450, 12) + _arc(0.48, 0.74, 0.34, 0.26, 270, 500, 12)],
        [[(0.2, 0.02), (0.8, 0.02), (0.45, 0.42)] + _arc(0.48, 0.7, 0.34, 0.3, 280, 500, 12)],
    ],
    "4": [
        [[(0.62, 0.0), (0.1, 0.68), (0.92, 0.68)], [(0.68, 0.3), (0.68, 1.0)]],
        [[(0.22, 0.0), (0.15, 0.62), (0.9, 0.62)], [(0.7, 0.0), (0.7, 1.0)]],
    ],
    "5": [
        [[(0.8, 0.02), (0.25, 0.02), (0.2, 0.45)] + _arc(0.48, 0.7, 0.34, 0.3, 220, 490, 14)],
        [[(0.25, 0.02), (0.2, 0.45)] + _arc(0.48, 0.7, 0.34, 0.3, 220, 490, 14), [(0.25, 0.02), (0.82, 0.02)]],
    ],
    "6": [
        [[(0.78, 0.05), (0.5, 0.0), (0.25, 0.2), (0.15, 0.6)] + _arc(0.48, 0.72, 0.33, 0.28, 180, 530, 18)],
        [[(0.7, 0.0), (0.3, 0.35), (0.17, 0.68)] + _arc(0.48, 0.72, 0.32, 0.28, 180, 530, 18)],
    ],
    "7": [
        [[(0.12, 0.02), (0.88, 0.02), (0.38, 1.0)]],
        [[(0.12, 0.02), (0.88, 0.02), (0.42, 1.0)], [(0.35, 0.52), (0.78, 0.52)]],
        [[(0.1, 0.12), (0.2, 0.02), (0.86, 0.04), (0.5, 0.55), (0.4, 1.0)]],
    ],
    "8": [
        [_arc(0.5, 0.26, 0.27, 0.24, 90, 450, 16) + _arc(0.5, 0.74, 0.33, 0.26, -90, 270, 16)],
        [_arc(0.5, 0.25, 0.3, 0.25, 0, 360, 16), _arc(0.5, 0.74, 0.35, 0.26, 0, 360, 16)],
    ],
    "9": [
        [_arc(0.48, 0.3, 0.32, 0.28, 0, 360, 16) + [(0.8, 0.3), (0.72, 1.0)]],
        [_arc(0.48, 0.3, 0.32, 0.28, 10, 370, 16) + [(0.8, 0.35), (0.78, 0.7), (0.6, 1.0)]],
    ],
    "-": [[[(0.05, 0.55), (0.95, 0.55)]], [[(0.1, 0.5), (0.9, 0.56)]]],
    "/": [[[(0.15, 1.05), (0.85, -0.05)]], [[(0.25, 1.05), (0.75, -0.05)]]],
    ".": [[[(0.5, 0.95), (0.52, 0.97), (0.5, 0.98)]]],
    ",": [[[(0.55, 0.9), (0.55, 1.0), (0.42, 1.2)]]],
}
"""The characters a sheet's cells are written in, each in a few shapes; strokes in a unit box."""

WIDTH = {"-": 0.75, "/": 0.65, ".": 0.25, ",": 0.25, "1": 0.4}
"""How wide a character is against a digit's body (a digit's is 0.62 of its height)."""


@dataclass(frozen=True)
class Writer:
    """One person's hand: how big, how slanted, how thick, how shaky, which shapes."""

    seed: int
    size: float
    """A digit's height, in millimetres."""
    slant: float
    """Shear of the whole hand (positive leans right)."""
    width: float
    """How wide digits are against their height."""
    thickness: float
    """The pen's line, in millimetres."""
    wobble: float
    """How far each point strays, against the height."""
    spacing: float
    """Gap between characters, against the height."""
    ink: int
    """The ink's grey (0 black, 90–150 a pencil)."""
    shapes: tuple[int, ...]
    """Which shape of each character, by its index in SHAPES' order."""

    @staticmethod
    def random(seed: int, neat: bool = True) -> "Writer":
        """A writer drawn from `seed`: neat ones vary less."""
        r = np.random.default_rng(seed)
        loose = 1.0 if neat else 1.7
        return Writer(
            seed=seed,
            size=float(r.uniform(3.2, 4.6)),
            slant=float(r.normal(0.12, 0.12 * loose)),
            width=float(r.uniform(0.5, 0.72)),
            thickness=float(r.uniform(0.18, 0.5)),
            wobble=float(r.uniform(0.01, 0.03) * loose),
            spacing=float(r.uniform(0.12, 0.35)),
            ink=int(r.choice([0, 20, 40, 70, 90, 120, 150])),
            shapes=tuple(int(r.integers(0, 6)) for _ in SHAPES),
        )

    def shape(self, char: str) -> list[Stroke]:
        """This writer's way of writing `char`."""
        choices = SHAPES[char]
        return choices[self.shapes[list(SHAPES).index(char)] % len(choices)]


def write(
    canvas: np.ndarray,
    text: str,
    writer: Writer,
    box: tuple[float, float, float, float],
    px_mm: float,
    rng: np.random.Generator,
) -> list[tuple[str, float, float]]:
    """Writes `text` by `writer` into `box` (x, y, w, h in pixels) of a grey `canvas`, in place:
    centred, shrunk to fit when it would not, each character a little different. Returns each
    character with its left and right, in pixels."""
    chars = [c for c in text.replace("\u2212", "-") if c in SHAPES]
    placed: list[tuple[str, float, float]] = []
    if not chars:
        return placed
    x0, y0, bw, bh = box
    height = min(writer.size * px_mm * rng.uniform(0.9, 1.1), bh * 0.72)
    widths = [WIDTH.get(c, writer.width) * height for c in chars]
    gap = writer.spacing * height
    total = sum(widths) + gap * (len(chars) - 1) + abs(writer.slant) * height
    if total > bw * 0.9:  # a long value is written smaller, as people do in a small box
        shrink = bw * 0.9 / total
        height, widths, gap, total = height * shrink, [w * shrink for w in widths], gap * shrink, total * shrink
    x = x0 + (bw - total) / 2 + rng.normal(0, bw * 0.03) + max(0.0, -writer.slant) * height
    base = y0 + (bh + height) / 2 + rng.normal(0, bh * 0.04)
    thick = max(1, int(round(writer.thickness * px_mm * rng.uniform(0.85, 1.15))))
    for c, w in zip(chars, widths):
        top = base - height + rng.normal(0, height * 0.03)
        lo, hi = math.inf, -math.inf
        for stroke in writer.shape(c):
            pts = np.array(stroke, dtype=np.float64)
            pts += rng.normal(0, writer.wobble, pts.shape)
            pts = _smooth(pts)
            xs = x + pts[:, 0] * w + writer.slant * (1 - pts[:, 1]) * height
            ys = top + pts[:, 1] * height
            line = np.stack([xs, ys], axis=1)
            lo, hi = min(lo, float(xs.min()) - thick / 2), max(hi, float(xs.max()) + thick / 2)
            if c in ".,":  # a dot is pressed, not drawn: a little blob
                cv2.circle(
                    canvas,
                    (int(round(xs[0] * 16)), int(round(ys[0] * 16))),
                    int(thick * 16 * 0.8),
                    writer.ink,
                    -1,
                    cv2.LINE_AA,
                    4,
                )
                if c == ".":
                    continue
            cv2.polylines(canvas, [np.round(line * 16).astype(np.int32)], False, writer.ink, thick, cv2.LINE_AA, 4)
        placed.append((c, lo, hi))
        x += w + gap * rng.uniform(0.7, 1.3)
    return placed


def _smooth(pts: np.ndarray) -> np.ndarray:
    """Points a little smoothed (a hand moves in curves); the ends stay."""
    if len(pts) < 4:
        return pts
    out = pts.copy()
    out[1:-1] = (pts[:-2] + 2 * pts[1:-1] + pts[2:]) / 4
    return out


def cross_out(
    canvas: np.ndarray, box: tuple[float, float, float, float], writer: Writer, px_mm: float, rng: np.random.Generator
) -> None:
    """Strikes through what is in `box` the way people do: a scribble of two or three lines."""
    x0, y0, bw, bh = box
    thick = max(1, int(round(writer.thickness * px_mm)))
    for _ in range(int(rng.integers(2, 4))):
        a = (x0 + bw * rng.uniform(0.05, 0.2), y0 + bh * rng.uniform(0.2, 0.8))
        b = (x0 + bw * rng.uniform(0.8, 0.95), y0 + bh * rng.uniform(0.2, 0.8))
        cv2.line(
            canvas,
            (int(a[0] * 16), int(a[1] * 16)),
            (int(b[0] * 16), int(b[1] * 16)),
            writer.ink,
            thick,
            cv2.LINE_AA,
            4,
        )


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
