"""Characters apart: the ink in a box's crop apart from the print, and its pieces as characters.

What is darker than the print nearby (the sheet's own blank render of the same crop) is ink. Ink
falls apart into characters by connected pieces: a small piece over a bigger one is part of it (a
5's bar), and pieces stacked in the same columns, or side by side with the faint traces of lost
hairlines closing a loop between them, are one character whose thin strokes vanished; a blot too
light to be ink is a written point where it lies between two characters at their foot. A piece
that is two characters run together can be cut in two where the least ink crosses (`cuts`);
scan/recognize.py says when. Pure pictures: no network here.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MIN_AREA = 6
"""Smaller pieces of ink are dust or a scanner's noise (a pen's point is 10 or more; a fainter
one is `Ink.points`)."""
INK_DIFF = (30, 60)
"""How much darker than the print nearby a stroke's core must be to be ink (greys 0–255): at
least the first (a scanner's noise stays below it), at most the second (a pen's ink, far darker,
is then taken whole); its faint edges count from half that."""


@dataclass(frozen=True)
class Glyph:
    """One character's ink: its bounding box in the part and its pixels."""

    x0: int
    y0: int
    x1: int
    y1: int
    mask: np.ndarray
    """The ink inside the bounding box (uint8, 0 or 1)."""
    shade: np.ndarray
    """How dark its ink is inside the bounding box (float32, 0–1, 0 off the mask): a loop a
    blurred scan fills in is still lighter than the strokes around it."""

    @property
    def area(self) -> int:
        return int(self.mask.sum())


@dataclass(frozen=True)
class Ink:
    """The ink in a crop: its pieces as OpenCV labels them, and which of them are ink."""

    labels: np.ndarray
    stats: np.ndarray
    """OpenCV's stats of each piece: x, y, width, height, area."""
    keep: np.ndarray
    """Per piece: ink (True), or the background, a scanner's noise, the print's remains."""
    shade: np.ndarray
    """Per pixel, how much darker than the print it is, against the crop's darkest ink (0–1)."""
    faint: np.ndarray
    """Per pixel, the faint line it lies on (OpenCV's labels, 0 none): the ink with the faint
    traces between its pieces, where a copier all but lost a hairline (a piece lies on one)."""
    points: np.ndarray
    """Per piece: a blot too light to be ink that is a written point where it lies between two
    characters at their foot (`segment` says)."""


def ink(scan: np.ndarray, blank: np.ndarray, border: int = 2) -> Ink:
    """The ink in a crop of the scan, given the same crop of the blank sheet: the print (lines,
    tints) taken out, with a little slack for the scan's registration; `border` pixels along
    the edges never count (the box's own lines).

    What is darker than the print nearby is ink, by hysteresis: a stroke is kept where some of
    it is clearly dark (its core) and grown along what is a little dark (its faint edges), so
    a light pencil stroke at 150 dpi is as whole as a pen's, and a scanner's noise, never
    clearly dark over a stroke's length, is not ink. The thresholds follow the crop's darkest
    ink: half of it, within INK_DIFF's bounds. A thin line flat against the crop's side is
    what is left of the box's lines or a matrix's bracket where the scan sits a pixel off."""
    printed = cv2.erode(blank, KERNEL)  # the darkest print within 2 pixels
    # A scan is lighter or darker than the print's own greys (the scanner's levels, the paper):
    # its box is brought to the blank box's level by their medians, mostly background either way.
    gain = min(max(_quantile(blank, 0.5) / max(_quantile(scan, 0.5), 1.0), 0.7), 1.5)
    diff = printed.astype(np.float32) - scan.astype(np.float32) * gain
    if border:
        diff[:border, :] = diff[-border:, :] = 0
        diff[:, :border] = diff[:, -border:] = 0
    darkest = _quantile(np.clip(diff, 0, 255).astype(np.uint8), 0.995)
    high = min(max(0.5 * darkest, INK_DIFF[0]), INK_DIFF[1])
    weak = (diff > high * FAINT).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(weak, connectivity=8)
    keep = np.zeros(n, bool)
    shade = np.clip(diff * (1.0 / max(darkest, 2 * high)), 0, 1)
    if n <= 1:
        return Ink(labels, stats, keep, shade, labels, np.zeros(n, bool))
    keep[np.unique(labels[diff > high])] = True
    keep[0] = False
    h, w = weak.shape
    x, y, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    along_side = (bw <= 3) & ((x < EDGE) | (x + bw > w - EDGE))
    along_top = (bh <= 3) & ((y < EDGE) | (y + bh > h - EDGE))
    keep &= ~(along_side | along_top)
    # A written point is a blot the scan's blur spreads both ways: its core is lighter than a
    # stroke's (DancingScript's at 200 dpi: five pixels, 85 % of a stroke's threshold).
    points = np.zeros(n, bool)
    side = max(4, h // 10)
    for k in np.flatnonzero(~keep & ~along_side & ~along_top & (stats[:, 4] >= POINT[0]) & (bw <= side) & (bh <= side)):
        box = (slice(y[k], y[k] + bh[k]), slice(x[k], x[k] + bw[k]))
        points[k] = k > 0 and float(diff[box][labels[box] == k].max()) > POINT[1] * high
    # A hairline a copier all but lost still joins its character's pieces: a trace a few grey
    # levels dark once the scan's grain is blurred away, too faint to be ink.
    trace = cv2.GaussianBlur(diff, (0, 0), 0.7) > max(TRACE[0], TRACE[1] * high)
    _, faint = cv2.connectedComponents(trace.astype(np.uint8) | weak, connectivity=8)
    return Ink(labels, stats, keep, shade, faint, points)


def traced(found: Ink) -> Ink:
    """The ink with its faint traces as ink too: each faint line that holds ink one piece, its
    traces as light strokes. A hand whose hairlines a copier all but lost (Ecolier's 0 is its
    left side; its 4 a slash beside a stem) is read again this way where it read unsure."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((found.faint > 0).astype(np.uint8), connectivity=8)
    inked = found.keep[found.labels]
    keep = np.zeros(n, bool)
    keep[np.unique(labels[inked])] = True  # the lines that hold ink
    keep[0] = False
    shade = found.shade.copy()
    trace = (labels > 0) & ~inked
    shade[trace] = np.maximum(shade[trace], TRACE_SHADE)
    points = np.zeros(n, bool)
    points[np.unique(labels[found.points[found.labels]])] = True  # the faint lines a point lies on
    return Ink(labels, stats, keep, shade, labels, points & ~keep)


TRACE_SHADE = 0.3
"""How dark a trace is drawn where ink is read with its traces (a light stroke: as dark, the
held-out faces read the same)."""
TRACE = (8.0, 0.2)
"""A hairline's trace: this many grey levels darker than the print at least, and this share of
the core's threshold (far below the ink's own: a trace joins pieces, it is never ink)."""
POINT = (4, 0.7)
"""A written point's least area (pixels), and how dark its core is at least against a stroke's threshold."""
FAINT = 0.5
"""A stroke's faint edges and thinnest stretches count as ink from this share of its core's threshold."""
KERNEL = np.ones((5, 5), np.uint8)
EDGE = 6
"""Pixels from a crop's edge within which a thin line along it is print, not ink."""


def _quantile(grey: np.ndarray, q: float) -> float:
    """The `q` quantile of a grey picture's values, from its histogram (no sort)."""
    counts = np.bincount(grey.ravel(), minlength=256).cumsum()
    return float(np.searchsorted(counts, q * counts[-1]))


def segment(found: Ink) -> list[Glyph]:
    """The characters in a crop's ink, left to right."""
    stats = found.stats
    pieces = [
        (
            int(stats[k, 0]),
            int(stats[k, 1]),
            int(stats[k, 0] + stats[k, 2]),
            int(stats[k, 1] + stats[k, 3]),
            int(stats[k, 4]),
            int(k),
        )
        for k in np.flatnonzero(found.keep)
        if stats[k, 4] >= MIN_AREA
    ]
    if not pieces:
        return []
    tall = max(p[3] - p[1] for p in pieces)
    pieces.sort(key=lambda p: -p[4])  # the biggest first: smaller pieces join them
    groups: list[list] = []
    for p in pieces:
        x0, y0, x1, y1, area, _ = p
        dot = (y1 - y0) < 0.3 * tall and (x1 - x0) < 0.3 * tall
        home = None
        if not dot:
            for g in groups:
                gx0, gx1 = min(q[0] for q in g), max(q[2] for q in g)
                overlap = min(x1, gx1) - max(x0, gx0)
                if area < 0.4 * sum(q[4] for q in g) and overlap >= 0.6 * (x1 - x0):
                    home = g
                    break
        if home is None:
            groups.append([p])
        else:
            home.append(p)
    glyphs = []
    for g in _with_points(_broken_joined(groups, tall, found), found):
        x0, y0 = min(q[0] for q in g), min(q[1] for q in g)
        x1, y1 = max(q[2] for q in g), max(q[3] for q in g)
        crop = np.isin(found.labels[y0:y1, x0:x1], [q[5] for q in g]).astype(np.uint8)
        glyphs.append(Glyph(x0, y0, x1, y1, crop, found.shade[y0:y1, x0:x1] * crop))
    return glyphs


def _with_points(groups: list[list], found: Ink) -> list[list]:
    """The groups with each faint point that lies between two of them, clear of both, in the
    lowest part of their line: a decimal point, not a lost hairline's remains beside a digit."""
    if len(groups) < 2 or not found.points.any():
        return groups
    boxes = [_box(g) for g in groups]
    top, foot = min(b[1] for b in boxes), max(b[3] for b in boxes)
    out = list(groups)
    for k in np.flatnonzero(found.points):
        x0, y0, w, h, area = (int(v) for v in found.stats[k])
        x1, y1 = x0 + w, y0 + h
        between = any(b[2] <= x0 for b in boxes) and any(b[0] >= x1 for b in boxes)
        clear = all(b[2] <= x0 or b[0] >= x1 for b in boxes)
        if between and clear and (y0 + y1) / 2 >= top + FOOT * (foot - top):
            out.append([(x0, y0, x1, y1, area, int(k))])
    return sorted(out, key=_middle)


FOOT = 0.6
"""A point lies below this share of its line's height."""


def _closes_loop(found: Ink, a: list, b: list) -> bool:
    """Whether two groups of pieces lie on one faint line that closes a loop they do not close
    by themselves: a school face's 0 whose hairlines a copier lost is its two sides, joined
    above and below by their traces; two 1s side by side close nothing."""
    x0, y0, x1, y1 = _box(a + b)
    x0, y0, x1, y1 = max(x0 - 1, 0), max(y0 - 1, 0), x1 + 1, y1 + 1  # a loop's outside all round
    labels, faint = found.labels[y0:y1, x0:x1], found.faint[y0:y1, x0:x1]
    lines = [set(np.unique(faint[np.isin(labels, [q[5] for q in group])]).tolist()) for group in (a, b)]
    shared = list(lines[0] & lines[1])
    if not shared:
        return False
    own = np.isin(labels, [q[5] for q in a + b]).astype(np.uint8)
    with_traces = np.isin(faint, shared).astype(np.uint8) | own
    return _holes(with_traces) > _holes(own)


def _holes(mask: np.ndarray) -> int:
    """The holes in a 0/1 picture (background not reaching its edge) of at least HOLE pixels."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(1 - mask, connectivity=4)
    h, w = mask.shape
    x, y, bw, bh, area = (stats[1:, i] for i in range(5))
    return int(((area >= HOLE) & (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)).sum())


HOLE = 3
"""Pixels a loop's inside has at least (fewer: the grain between two strokes)."""


def _broken_joined(groups: list[list], tall: int, found: Ink) -> list[list]:
    """Groups of pieces left to right, neighbours that are one character broken joined: a
    school face's hairlines or a dry pen's thin strokes vanish at 200 dpi, and a 3 or a 4 falls
    apart into pieces stacked in the same columns. Two neighbours are one character when they
    are together no wider than tall, neither is a point's size (a decimal point under a digit's
    edge is a character of its own), and either they share at least half the narrower's columns
    and neither is as tall as the two together (a 1 beside a slash is two), or the faint traces
    between them close a loop (`_closes_loop`)."""
    out = sorted(groups, key=_middle)
    i = 0
    while i < len(out) - 1:
        a, b = _box(out[i]), _box(out[i + 1])
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a, b
        shared = min(ax1, bx1) - max(ax0, bx0)
        width, height = max(ax1, bx1) - min(ax0, bx0), max(ay1, by1) - min(ay0, by0)
        point = any(y1 - y0 < 0.3 * tall and x1 - x0 < 0.3 * tall for x0, y0, x1, y1 in (a, b))
        stacked = shared >= BROKEN * min(ax1 - ax0, bx1 - bx0) and min(ay1 - ay0, by1 - by0) < WHOLE * height
        if width <= height and not point and (stacked or _closes_loop(found, out[i], out[i + 1])):
            out[i : i + 2] = [out[i] + out[i + 1]]
            i = max(i - 1, 0)  # the joined character may join its left neighbour too
        else:
            i += 1
    return out


def _middle(group: list) -> float:
    """A group of pieces' middle, left to right (groups are ordered by it)."""
    return (min(q[0] for q in group) + max(q[2] for q in group)) / 2


def _box(group: list) -> tuple[int, int, int, int]:
    """A group of pieces' bounding box: x0, y0, x1, y1."""
    return (min(q[0] for q in group), min(q[1] for q in group), max(q[2] for q in group), max(q[3] for q in group))


BROKEN = 0.5
"""Pieces sharing this share of the narrower's columns may be one character broken."""
WHOLE = 0.75
"""A piece this tall against it and its neighbour together is a character of its own."""


def cuts(g: Glyph) -> list[tuple[Glyph, Glyph]]:
    """The likeliest ways a piece that is two characters touching parts in two, best first: along
    a line upright or slanted as hands slant, crossing the fewest ink pixels, nearer the middle
    first, each half at least a speck of dust's size."""
    h, w = g.mask.shape
    ys = np.arange(h) - (h - 1) / 2
    lines = []
    for slant in SLANTS:
        for c in range(max(2, round(0.2 * w)), min(w - 2, round(0.8 * w)) + 1):
            xs = np.floor(c + slant * ys).astype(int)
            on = (xs >= 0) & (xs < w)
            lines.append((int(g.mask[np.flatnonzero(on), xs[on]].sum()), abs(c - w / 2), slant, c))
    out, seen = [], set()
    for _, _, slant, c in sorted(lines):
        left = np.arange(w)[None, :] < (c + slant * ys)[:, None]
        halves = [_trimmed(g, g.mask & side) for side in (left, ~left)]
        if any(half is None for half in halves) or (halves[0].x1, halves[1].x0) in seen:
            continue
        seen.add((halves[0].x1, halves[1].x0))
        out.append(tuple(halves))
        if len(out) == CUTS:
            break
    return out


def columns(g: Glyph) -> list[int]:
    """Where a piece that is several characters touching may be cut upright: its ends, and each
    column crossed by less ink than the columns either side (the ink's count a column, smoothed)."""
    profile = np.convolve(g.mask.sum(axis=0).astype(np.float32), np.ones(3, np.float32) / 3, mode="same")
    w = len(profile)
    inner = [c for c in range(2, w - 1) if profile[c] <= profile[c - 1] and profile[c] <= profile[c + 1]]
    return [0, *inner, w]


def between(g: Glyph, a: int, b: int):
    """The ink of glyph `g` between its columns `a` and `b`, as a glyph of its own; None if dust."""
    mask = np.zeros(g.mask.shape, bool)
    mask[:, a:b] = g.mask[:, a:b] > 0
    return _trimmed(g, mask)


def _trimmed(g: Glyph, mask: np.ndarray):
    """The part `mask` of glyph `g` as a glyph of its own, trimmed to its ink; None if dust."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if int(mask.sum()) < MIN_AREA:
        return None
    ys, xs = slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)
    return Glyph(
        g.x0 + int(cols[0]),
        g.y0 + int(rows[0]),
        g.x0 + int(cols[-1]) + 1,
        g.y0 + int(rows[-1]) + 1,
        mask[ys, xs].astype(np.uint8),
        g.shade[ys, xs] * mask[ys, xs],
    )


SLANTS = (-0.3, 0.0, 0.3)
"""The slants (x against y) of the lines a piece run together is cut along: upright, and as hands lean."""
CUTS = 3
"""The cuts of one piece the network reads."""
