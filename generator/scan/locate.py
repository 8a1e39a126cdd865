"""Finding a scanned page: its four registration marks, the page mapped upright, its QR code read.

The marks are four solid squares (sheet/marks.py): dark, filled, square, alike in size, at the
scan's four extremes. Their centres give the homography that maps the page upright at
`PX_MM`; which way up it is the QR code says (the marks look the same every way round): it
is read in the top right band of the page mapped each way, a small picture, so a page costs
one full-page warp and a few small QR reads, never a search of the whole scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import cv2
import numpy as np

from generator.scan.printed import Footer, read_footer
from generator.sheet.look import MM
from generator.sheet.marks import QrIdentity, read_qr_text
from generator.sheet.style import MARGINS_MM, QR_MM

PX_PT = 200 / 72
"""Pixels a point on the page as it is read: 200 dpi."""


def qr_zone_mm(margins: tuple[float, ...] = MARGINS_MM) -> tuple[float, float, float, float]:
    """Where the QR code is on a page of `margins`, with room for the scan's slack: top, bottom, and
    left and right from the page's right edge (the first page's badge and the later pages' own are both in it)."""
    return (1.0, margins[0] + QR_MM + 4.0, margins[1] + QR_MM + 5.0, margins[1] - 4.0)


class NotFound(Exception):
    """A page that cannot be read, and why (one line)."""


@dataclass(frozen=True)
class Located:
    """A scanned page, found: upright at PX_PT, and what its QR code says."""

    page: np.ndarray
    """The page mapped upright, grey, PX_PT pixels a point."""
    qr: Optional[QrIdentity]
    """What its QR code says; None when only its footer could be read."""
    turned: int
    """How far the scan was turned (0, 90, 180 or 270 degrees)."""
    footer: Optional[Footer] = None
    """Its printed footer, read where its QR code could not be: the catalogue says which sheet
    it names, and the page is held to its blank print."""


def _marks(grey: np.ndarray) -> list[tuple[float, float, float]]:
    """Dark filled squares in `grey`: (centre x, centre y, side), in pixels."""
    long = max(grey.shape)
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    _, dark = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    found = []
    for c in contours:
        x, y, w, h = cv2.boundingRect(c)
        if not (0.006 * long <= max(w, h) <= 0.05 * long) or not 0.6 <= w / h <= 1.67:
            continue
        (cx, cy), (rw, rh), _ = cv2.minAreaRect(c)
        if min(rw, rh) < 0.75 * max(rw, rh):
            continue
        area = cv2.contourArea(c)
        filled = cv2.countNonZero(dark[y : y + h, x : x + w]) / float(w * h)
        if area < 0.85 * rw * rh or filled < 0.7 * (rw * rh) / (w * h):
            continue
        m = cv2.moments(dark[y : y + h, x : x + w], binaryImage=True)
        if m["m00"]:
            cx, cy = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        found.append((float(cx), float(cy), float(np.sqrt(area))))
    return found


def corners(grey: np.ndarray, aspect: Optional[float] = None) -> np.ndarray:
    """The four marks' centres as the scan has them (top left, top right, bottom left, bottom
    right): the likeliest of `candidates`; NotFound with the reason when there is none."""
    return next(iter(candidates(grey, aspect)))


def candidates(grey: np.ndarray, aspect: Optional[float] = None) -> list[np.ndarray]:
    """Where the four marks' centres may be, likeliest first: four alike marks at the scan's
    extremes; then, with `aspect` (the marks' rectangle, width over height), three alike marks at
    a right angle in the page's proportions, the fourth where they say (a corner cut off by a
    skewed copy or a tight crop, or a mark smudged). NotFound when there is none."""
    marks = _marks(grey)
    if len(marks) < 3 or (len(marks) < 4 and aspect is None):
        raise NotFound(f"found {len(marks)} of the 4 registration marks")
    sides = np.array([m[2] for m in marks])
    pts = np.array([(m[0], m[1]) for m in marks])
    least = 0.1 * grey.shape[0] * grey.shape[1]
    best = None
    for side in np.unique(np.round(sides)):  # the four must be alike in size
        alike = pts[(sides > 0.7 * side) & (sides < 1.45 * side)]
        if len(alike) < 4:
            continue
        quad = _ordered(alike)
        area = _area(quad)
        if len({tuple(p) for p in quad}) == 4 and (best is None or area > best[0]):
            best = (area, quad)
    found = [best[1]] if best is not None and best[0] >= least else []
    if aspect is not None:
        found += [
            q
            for q in _three(pts, sides, aspect, least)
            if not any(np.abs(q - f).max() < 0.01 * max(grey.shape) for f in found)
        ]
    if found:
        return found
    if len(marks) < 4:
        raise NotFound(f"found {len(marks)} of the 4 registration marks")
    raise NotFound("the 4 registration marks are not at the page's corners")


def _ordered(points: np.ndarray) -> np.ndarray:
    """The points at the scan's extremes: top left, top right, bottom left, bottom right."""
    s, d = points.sum(1), points[:, 0] - points[:, 1]
    return np.array([points[s.argmin()], points[d.argmax()], points[d.argmin()], points[s.argmax()]])


def _area(quad: np.ndarray) -> float:
    """The area of a quadrilateral given as top left, top right, bottom left, bottom right."""
    return float(cv2.contourArea(quad[[0, 1, 3, 2]].astype(np.float32)))


THREE_TRIES = 4
"""The most three-mark placements tried on one scan."""


def _three(pts: np.ndarray, sides: np.ndarray, aspect: float, least: float) -> list[np.ndarray]:
    """Four corners from three alike marks that make a right angle with legs in the page's
    proportion (the fourth completes the parallelogram), the largest first."""
    from itertools import combinations

    want = max(aspect, 1 / aspect)
    found = []
    order = np.argsort(-sides)[:12]  # the largest dark squares: a few candidates, never a search of specks
    for trio in combinations(order, 3):
        if max(sides[list(trio)]) > 1.45 * min(sides[list(trio)]):
            continue
        for k in range(3):  # the right angle at each of the three in turn
            b = pts[trio[k]]
            a, c = (pts[trio[j]] for j in range(3) if j != k)
            u, v = a - b, c - b
            lu, lv = float(np.hypot(*u)), float(np.hypot(*v))
            if not lu or not lv or abs(float(u @ v)) > 0.04 * lu * lv:  # within about 2.3° of square
                continue
            if abs(max(lu, lv) / min(lu, lv) - want) > 0.04 * want:
                continue
            quad = _ordered(np.array([a, b, c, a + c - b]))
            area = _area(quad)
            if len({tuple(p) for p in quad}) == 4 and area >= least:
                found.append((area, quad))
    # A few at most: each costs a page's warp and its QR reads, and a picture that is no sheet
    # (a page of squares) must not cost hundreds.
    return [quad for _, quad in sorted(found, key=lambda f: -f[0])[:THREE_TRIES]]


def _placements(grey: np.ndarray, centres: tuple[tuple[float, float], ...], size: tuple[float, float]):
    """The page mapped upright at each likely placement of its marks, likeliest first, with how far
    the scan was turned before (a landscape picture of a portrait page is a quarter turn, and a
    portrait picture of a landscape page)."""
    tall, wide = grey.shape[0] > grey.shape[1] * 1.15, grey.shape[1] > grey.shape[0] * 1.15
    if tall if size[0] > size[1] else wide:  # the picture a quarter turn from the page
        grey, turned = cv2.rotate(grey, cv2.ROTATE_90_CLOCKWISE), 90
    else:
        turned = 0
    (left, top), (right, _), (_, bottom) = centres[0], centres[1], centres[2]
    width, height = round(size[0] * PX_PT), round(size[1] * PX_PT)
    target = np.array(centres, np.float32) * PX_PT
    for found in candidates(grey, (right - left) / (bottom - top)):
        h = cv2.getPerspectiveTransform(target, found.astype(np.float32))
        yield (
            cv2.warpPerspective(
                grey, h, (width, height), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR, borderValue=255
            ),
            turned,
        )


def locate(
    grey: np.ndarray,
    centres: tuple[tuple[float, float], ...],
    size: tuple[float, float],
    qr_detector: Optional[cv2.QRCodeDetector] = None,
    margins: tuple[float, ...] = MARGINS_MM,
) -> Located:
    """`grey` (a scan) upright at PX_PT, for a page `size` points wide and high whose marks'
    centres are `centres` (in points) and whose margins are `margins` (mm); raises NotFound with the reason."""
    zone = tuple(round(v * MM * PX_PT) for v in qr_zone_mm(margins))
    width = round(size[0] * PX_PT)
    # The likeliest marks first; the next only when the page they map has no QR code where it
    # should be (four marks of which one is a square of the sheet's own, a corner cut off). A
    # smudged or too coarse QR code: the code and page printed in the footer, read by their glyphs.
    # Every placement's QR code before any footer: a wrong placement may still read its footer.
    tried = []
    for page, turned in _placements(grey, centres, size):
        for flip in (False, True):
            upright = cv2.rotate(page, cv2.ROTATE_180) if flip else page
            qr = read_qr(upright[zone[0] : zone[1], width - zone[2] : width - zone[3]], qr_detector)
            if qr is not None:
                return Located(upright, qr, (turned + (180 if flip else 0)) % 360)
            tried.append((upright, (turned + (180 if flip else 0)) % 360))
    for upright, way in tried:
        footer = read_footer(upright, *size, margins)
        if footer is not None:
            return Located(upright, None, way, footer)
    raise NotFound("no readable QR code at the page's top right, nor a readable code in its footer")


def placed(
    grey: np.ndarray,
    centres: tuple[tuple[float, float], ...],
    size: tuple[float, float],
    blank: np.ndarray,
    qr: QrIdentity,
) -> Located:
    """`grey` upright as the page a person says it is (`qr`, the identity they gave): of the marks'
    placements and either way up, the one most like that page's `blank` print; NotFound when
    none is like it at all (the marks are not found, or it is none of our pages)."""
    best = None
    for page, turned in _placements(grey, centres, size):
        for flip in (False, True):
            upright = cv2.rotate(page, cv2.ROTATE_180) if flip else page
            score = likeness(upright, blank)
            if best is None or score > best[0]:
                best = (score, Located(upright, qr, (turned + (180 if flip else 0)) % 360))
    if best is None or best[0] < LIKE_BLANK:
        raise NotFound("its marks do not place it as that page (is it another page, or none of ours?)")
    return best[1]


def likeness(upright: np.ndarray, blank: np.ndarray) -> float:
    """How alike a page mapped upright is to a page's blank print (a correlation, at an eighth of
    the size): the print correlates wherever it is; a student's ink only lowers it."""
    small = (blank.shape[1] // 8, blank.shape[0] // 8)
    want = _standard(cv2.resize(blank, small, interpolation=cv2.INTER_AREA))
    return float(np.mean(_standard(cv2.resize(upright, small, interpolation=cv2.INTER_AREA)) * want))


LIKE_BLANK = 0.5
"""How alike (a correlation) a page placed by hand must be to its blank print: a sheet filled in
is 0.7 or more, a page that is none of ours far less. Another sheet printed alike (same kind and
shapes) is as alike as its own: which student's it is, is the teacher's word."""


def _standard(picture: np.ndarray) -> np.ndarray:
    """A picture's pixels less their mean, over their spread (1 where all alike)."""
    pixels = picture.astype(np.float32)
    return (pixels - pixels.mean()) / (pixels.std() or 1.0)


_DETECTORS: list = []


def _tries(zone: np.ndarray):
    """The zone as the detectors are given it, cheapest first: as scanned, sharpened, twice as big;
    then, for a long link's small modules at 150 dpi (three pixels a module, blurred by JPEG and
    by the turn upright), three times as big, and twice as big thresholded against its neighbourhood."""
    yield zone, _DETECTORS
    yield (
        cv2.threshold(cv2.GaussianBlur(zone, (3, 3), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1],
        _DETECTORS[1:],
    )
    big = cv2.resize(zone, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    yield big, _DETECTORS
    yield cv2.resize(zone, None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC), _DETECTORS
    yield cv2.adaptiveThreshold(big, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 10), _DETECTORS


def read_qr(zone: np.ndarray, detector: Optional[cv2.QRCodeDetector] = None) -> Optional[QrIdentity]:
    """Our QR code in a small `zone` of a page, or None: two detectors on the zone at more than one
    scale and threshold (one finds what the other misses on a blurred or noisy scan)."""
    if not _DETECTORS:
        _DETECTORS.extend((cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()))
    for picture, detectors in _tries(zone):
        for d in detectors:
            try:
                text = d.detectAndDecode(picture)[0]
            except cv2.error:
                continue
            if text:
                return read_qr_text(text)
    return None


def is_blank(grey: np.ndarray) -> bool:
    """Whether a page holds (almost) nothing: the back of a one-sided sheet in a duplex scan."""
    small = cv2.resize(grey, (400, round(400 * grey.shape[0] / grey.shape[1])), interpolation=cv2.INTER_AREA)
    paper = np.percentile(small, 90)
    return float(np.mean(small < paper - 60)) < 0.002
