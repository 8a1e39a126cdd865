"""Handwriting from varied writers: what the recognizer learns from and what tests write.

No handwriting data set can be downloaded, so the project draws its own: each character is one
of a few shapes people write it in (a 1 with or without its flag, the European 1 with a long
one, a 4 open or closed, a 7 with or without a bar), as strokes in a unit box, bent by the
writer (slant, size, width, thickness, pressure) and by each stroke's own wobble, then drawn
anti-aliased. A `Writer` is a seeded person: the same seed writes the same way. People's own
hands, where a package brings them, are in `hands`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
