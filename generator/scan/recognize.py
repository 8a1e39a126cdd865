"""Reading what is written in one box: ink apart from print, characters apart, each one classified.

The box is a crop of the scan mapped onto the page at `PX_MM` (200 dpi), beside the same crop
of the sheet's own blank render: what is darker than the print nearby is ink. Ink falls apart
into characters by connected pieces (a small piece over a bigger one is part of it: a 5's
bar; pieces stacked in the same columns are one character whose thin stroke vanished); each
character is classified by a small convolutional network the project trains on handwriting
(scan/train.py, weights in model.npz), into a digit, minus, slash, point, comma,
or "not a character" (a scribble, two digits run together: a piece wide enough to be two is
cut where the least ink crosses and read again). The reads a box can be are the
best strings of those characters, each with its probability; each character's shape is kept
small beside them, for the same writer's other characters to be compared with (scan/adapt.py).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from generator.scan.verify import CLASSES, best_strings

PX_MM = 200 / 25.4
"""Pixels a millimetre on the page as it is read (200 dpi), whatever the scan's resolution."""
SIDE = 20
"""A character is read as a SIDE × SIDE picture of its shape, its longer side 18 pixels."""
LOOK = 10
"""A character's shape is compared with the same hand's others as a LOOK × LOOK picture."""
MIN_AREA = 6
"""Smaller pieces of ink are dust or a scanner's noise (a written point is 10 or more)."""
INK_DIFF = (30, 60)
"""How much darker than the print nearby a stroke's core must be to be ink (greys 0–255): at
least the first (a scanner's noise stays below it), at most the second (a pen's ink, far darker,
is then taken whole); its faint edges count from half that."""
MODEL = Path(__file__).with_name("model.npz")
RUN_TOGETHER = 1.05
"""A tall piece wider than this against its height is characters run together."""


@dataclass(frozen=True)
class Glyph:
    """One character's ink: its bounding box in the part and its pixels."""

    x0: int
    y0: int
    x1: int
    y1: int
    mask: np.ndarray
    """The ink inside the bounding box (uint8, 0 or 1)."""

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
    if n <= 1:
        return Ink(labels, stats, keep)
    keep[np.unique(labels[diff > high])] = True
    keep[0] = False
    h, w = weak.shape
    x, y, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    along_side = (bw <= 3) & ((x < EDGE) | (x + bw > w - EDGE))
    along_top = (bh <= 3) & ((y < EDGE) | (y + bh > h - EDGE))
    keep &= ~(along_side | along_top)
    return Ink(labels, stats, keep)


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
    pieces = [(int(stats[k, 0]), int(stats[k, 1]), int(stats[k, 0] + stats[k, 2]), int(stats[k, 1] + stats[k, 3]),
               int(stats[k, 4]), int(k)) for k in np.flatnonzero(found.keep) if stats[k, 4] >= MIN_AREA]
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
    for g in _broken_joined(groups, tall):
        x0, y0 = min(q[0] for q in g), min(q[1] for q in g)
        x1, y1 = max(q[2] for q in g), max(q[3] for q in g)
        crop = np.isin(found.labels[y0:y1, x0:x1], [q[5] for q in g]).astype(np.uint8)
        glyphs.append(Glyph(x0, y0, x1, y1, crop))
    return glyphs


def _broken_joined(groups: list[list], tall: int) -> list[list]:
    """Groups of pieces left to right, neighbours that are one character broken joined: a
    school face's hairlines or a dry pen's thin strokes vanish at 200 dpi, and a 3 or a 4 falls
    apart into pieces stacked in the same columns. Two neighbours are one character when they
    share at least half the narrower's columns, are together no wider than tall, neither is as
    tall as the two together (a 1 beside a slash is two), and neither is a point's size (a
    decimal point under a digit's edge is a character of its own)."""
    out = sorted(groups, key=lambda g: (min(q[0] for q in g) + max(q[2] for q in g)) / 2)
    i = 0
    while i < len(out) - 1:
        a, b = _box(out[i]), _box(out[i + 1])
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a, b
        shared = min(ax1, bx1) - max(ax0, bx0)
        width, height = max(ax1, bx1) - min(ax0, bx0), max(ay1, by1) - min(ay0, by0)
        point = any(y1 - y0 < 0.3 * tall and x1 - x0 < 0.3 * tall for x0, y0, x1, y1 in (a, b))
        if (shared >= BROKEN * min(ax1 - ax0, bx1 - bx0) and width <= height and not point
                and min(ay1 - ay0, by1 - by0) < WHOLE * height):
            out[i:i + 2] = [out[i] + out[i + 1]]
            i = max(i - 1, 0)  # the joined character may join its left neighbour too
        else:
            i += 1
    return out


def _box(group: list) -> tuple[int, int, int, int]:
    """A group of pieces' bounding box: x0, y0, x1, y1."""
    return (min(q[0] for q in group), min(q[1] for q in group), max(q[2] for q in group), max(q[3] for q in group))


BROKEN = 0.5
"""Pieces sharing this share of the narrower's columns may be one character broken."""
WHOLE = 0.75
"""A piece this tall against it and its neighbour together is a character of its own."""


def features(glyphs: list[Glyph], height: int) -> np.ndarray:
    """Each glyph as the network reads it: its shape, SIDE × SIDE, then its size and place
    against the part's tallest character (a point is small and low, a minus flat and middling)."""
    tall = max(max((g.y1 - g.y0) for g in glyphs), 0.3 * height, 1)
    mid = np.mean([(g.y0 + g.y1) / 2 for g in glyphs if (g.y1 - g.y0) > 0.5 * tall] or [height / 2])
    out = np.zeros((len(glyphs), SIDE * SIDE + 4), np.float32)
    for i, g in enumerate(glyphs):
        h, w = g.mask.shape
        f = 18 / max(h, w)
        small = cv2.resize(g.mask.astype(np.float32), (max(1, round(w * f)), max(1, round(h * f))),
                           interpolation=cv2.INTER_AREA)
        sh, sw = small.shape
        top, left = (SIDE - sh) // 2, (SIDE - sw) // 2
        pic = np.zeros((SIDE, SIDE), np.float32)
        pic[top:top + sh, left:left + sw] = small
        out[i, :SIDE * SIDE] = pic.ravel() / max(pic.max(), 1e-6)
        out[i, SIDE * SIDE:] = (h / tall, w / tall, ((g.y0 + g.y1) / 2 - mid) / tall, math.log(max(w, 1) / max(h, 1)))
    return out


@dataclass(frozen=True)
class Model:
    """A small convolutional network: the shape through two convolutions, each pooled, then its
    size and place beside them, through one hidden layer to CLASSES. Strokes are local: a
    convolution learns a stroke's bend wherever in the picture a hand puts it, which a layer over
    the whole picture learns only where its writers put it."""

    c1: np.ndarray
    """The first convolution's kernels, (5·5, F1)."""
    b1: np.ndarray
    c2: np.ndarray
    """The second's, (3·3·F1, F2)."""
    b2: np.ndarray
    w3: np.ndarray
    """The hidden layer, (5·5·F2 + 4, H)."""
    b3: np.ndarray
    w4: np.ndarray
    b4: np.ndarray

    def layers(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every layer's output for features `x` (training needs them all): the first and second
        convolutions' patches and rectified outputs before pooling, the hidden layer's input
        and output, and the class scores."""
        n = len(x)
        pic = x[:, :SIDE * SIDE].reshape(n, SIDE, SIDE, 1)
        p1, r1 = convolve(pic, self.c1, self.b1, 5)
        p2, r2 = convolve(pool(r1), self.c2, self.b2, 3)
        flat = np.concatenate([pool(r2).reshape(n, -1), x[:, SIDE * SIDE:]], axis=1)
        h = np.maximum(flat @ self.w3 + self.b3, 0)
        return p1, r1, p2, r2, flat, h, h @ self.w4 + self.b4

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Each row's probability of each class."""
        z = self.layers(x)[-1]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


def convolve(x: np.ndarray, kernels: np.ndarray, bias: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A k × k convolution over pictures (n, h, w, c), zero-padded to keep their size, rectified:
    its patches (n·h·w, c·k·k: training takes its gradient from them) and its output (n, h, w, f)."""
    n, h, w, _ = x.shape
    pad = k // 2
    padded = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    patches = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(1, 2)).reshape(n * h * w, -1)
    return patches, np.maximum(patches @ kernels + bias, 0).reshape(n, h, w, -1)


def pool(x: np.ndarray) -> np.ndarray:
    """The largest of each 2 × 2 block of pictures (n, h, w, c), h and w even."""
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


WEIGHTS = ("c1", "b1", "c2", "b2", "w3", "b3", "w4", "b4")
"""The network's arrays, in Model's order, by their names in model.npz."""


@functools.lru_cache(maxsize=1)
def model() -> Model:
    """The shipped weights (scan/train.py made them)."""
    with np.load(MODEL) as data:
        return Model(*(data[k].astype(np.float32) for k in WEIGHTS))


@dataclass(frozen=True)
class PartRead:
    """What one part of a box (the whole box, or a fraction's line) holds."""

    ink: int
    """Ink pixels, after dust."""
    probabilities: np.ndarray
    """Per character, the probability of each class (rows left to right)."""
    shapes: np.ndarray = field(default_factory=lambda: np.zeros((0, LOOK * LOOK), np.uint8))
    """Per character, its shape as `looks` gives it (rows left to right)."""

    @property
    def blank(self) -> bool:
        return len(self.probabilities) == 0

    def strings(self, k: int = 5) -> list[tuple[str, float]]:
        """The `k` likeliest reads, with their probabilities (characters taken as independent)."""
        return best_strings(self.probabilities, k)


@dataclass(frozen=True)
class Found:
    """A part's characters as found, before the network reads them."""

    glyphs: list
    x: np.ndarray
    """Their features (`features`)."""
    height: int = 0
    """The crop's height in pixels (`features` sizes the characters against it)."""


def find(scan: np.ndarray, blank: np.ndarray) -> Found:
    """The characters in one crop (`blank`: the same crop of the blank sheet)."""
    glyphs = segment(ink(scan, blank))
    x = features(glyphs, scan.shape[0]) if glyphs else np.zeros((0, SIDE * SIDE + 4), np.float32)
    return Found(glyphs, x, scan.shape[0])


BATCH = 128
"""Characters read by the network at once."""


def read_parts(found: list[Found], net: Model) -> list[PartRead]:
    """Parts read by one pass of the network over all their characters (a page's at once: a
    pass's own cost outweighs a few characters')."""
    x = np.concatenate([f.x for f in found]) if found else np.zeros((0, SIDE * SIDE + 4), np.float32)
    # In batches: a convolution's patches are a hundred floats a pixel, kept small.
    probs = np.concatenate([net.probabilities(x[i:i + BATCH]) for i in range(0, len(x), BATCH)]) if len(x) else \
        np.zeros((0, len(CLASSES)), np.float32)
    shapes = looks(x)
    out, start = [], 0
    for f in found:
        end = start + len(f.glyphs)
        out.append(_part_read(f.glyphs, probs[start:end], shapes[start:end]))
        start = end
    return _split(found, out, net)


def _split(found: list[Found], reads: list[PartRead], net: Model) -> list[PartRead]:
    """Parts read again where a piece the network calls no character is wide enough to be two
    run together (a hand that joins its digits: "50", "1/"): the piece is cut where the fewest
    ink pixels cross (`_cuts`), and the cut whose halves the network reads surest as characters
    stands for it, if both are characters and neither is itself too wide for one. Else the piece
    stays "not a character" and its box goes to a person, as before."""
    junk = CLASSES.index("x")
    trials = []  # (part, piece, halves), each with its two rows in `rows`
    rows = []
    for i, (f, r) in enumerate(zip(found, reads)):
        tall = max((g.y1 - g.y0 for g in f.glyphs), default=0)
        for k, g in enumerate(f.glyphs):
            h, w = g.y1 - g.y0, g.x1 - g.x0
            if r.probabilities[k].argmax() != junk or w < SPLIT_WIDE * h or h < 0.6 * tall:
                continue
            for halves in _cuts(g):
                trials.append((i, k, halves))
                rows.append(features(f.glyphs[:k] + list(halves) + f.glyphs[k + 1:], f.height)[k:k + 2])
    if not trials:
        return reads
    x = np.concatenate(rows)
    probs = np.concatenate([net.probabilities(x[i:i + BATCH]) for i in range(0, len(x), BATCH)])
    shapes = looks(x)
    best: dict[tuple[int, int], tuple[float, int]] = {}
    for t, (i, k, halves) in enumerate(trials):
        pair = probs[2 * t:2 * t + 2]
        sure = float(1 - pair[:, junk].max())
        if (pair.argmax(axis=1) != junk).all() and sure >= SPLIT_SURE and sure > best.get((i, k), (0.0, -1))[0] and \
                all(g.x1 - g.x0 <= RUN_TOGETHER * (g.y1 - g.y0) for g in halves):
            best[(i, k)] = (sure, t)
    out = list(reads)
    for i in sorted({i for i, _ in best}):
        r, p, s = reads[i], [], []
        for k in range(len(r.probabilities)):
            t = best.get((i, k), (0.0, -1))[1]
            p.extend(probs[2 * t:2 * t + 2] if t >= 0 else r.probabilities[k:k + 1])
            s.extend(shapes[2 * t:2 * t + 2] if t >= 0 else r.shapes[k:k + 1])
        out[i] = PartRead(r.ink, np.array(p, np.float32), np.array(s, np.uint8))
    return out


def _cuts(g: Glyph) -> list[tuple[Glyph, Glyph]]:
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


def _trimmed(g: Glyph, mask: np.ndarray):
    """The part `mask` of glyph `g` as a glyph of its own, trimmed to its ink; None if dust."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if int(mask.sum()) < MIN_AREA:
        return None
    return Glyph(g.x0 + int(cols[0]), g.y0 + int(rows[0]), g.x0 + int(cols[-1]) + 1, g.y0 + int(rows[-1]) + 1,
                 mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1].astype(np.uint8))


SPLIT_WIDE = 0.7
"""A piece read as no character, this wide against its height or wider, may be two run together."""
SLANTS = (-0.3, 0.0, 0.3)
"""The slants (x against y) of the lines a piece run together is cut along: upright, and as hands lean."""
CUTS = 3
"""The cuts of one piece the network reads."""
SPLIT_SURE = 0.99
"""How sure the network must be that each half of a cut is a character."""


def _part_read(glyphs: list, probs: np.ndarray, shapes: np.ndarray) -> PartRead:
    if not glyphs:
        return PartRead(0, np.zeros((0, len(CLASSES)), np.float32))
    # A digit is taller than it is wide: a piece as wide as it is tall and as tall as the digits
    # beside it is two characters run together ("00" reads as an 8), never one to accept.
    tall = max(g.y1 - g.y0 for g in glyphs)
    for i, g in enumerate(glyphs):
        if g.x1 - g.x0 > RUN_TOGETHER * (g.y1 - g.y0) and g.y1 - g.y0 > 0.6 * tall:
            probs[i] = 0.0
            probs[i, CLASSES.index("x")] = 1.0
    return PartRead(sum(g.area for g in glyphs), probs, shapes)


def looks(x: np.ndarray) -> np.ndarray:
    """Each character's shape, small and a little blurred (a pen's wobble is not a difference), as
    bytes to compare with the same writer's other characters (scan/adapt.py)."""
    small = x[:, :SIDE * SIDE].reshape(-1, LOOK, SIDE // LOOK, LOOK, SIDE // LOOK).mean(axis=(2, 4))
    k = cv2.getGaussianKernel(3, 0.8).ravel().astype(np.float32)
    padded = np.pad(small, ((0, 0), (1, 1), (1, 1)), mode="reflect")
    rows = k[0] * padded[:, :-2] + k[1] * padded[:, 1:-1] + k[2] * padded[:, 2:]
    blurred = k[0] * rows[:, :, :-2] + k[1] * rows[:, :, 1:-1] + k[2] * rows[:, :, 2:]
    return np.clip(blurred.reshape(len(x), LOOK * LOOK) * 255, 0, 255).astype(np.uint8)
