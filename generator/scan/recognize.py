"""Reading what is written in one box: its characters (scan/characters.py finds them) classified.

The box is a crop of the scan mapped onto the page at `PX_MM` (200 dpi), beside the same crop
of the sheet's own blank render; scan/characters.py takes its ink apart into characters. Each
character is classified by a small convolutional network the project trains on handwriting
(scan/train.py, weights in model.npz), into a digit, minus, slash, point, comma, or "not a
character" (a scribble, digits run together: a piece wide enough to be two is cut where the least
ink crosses, one as wide as several into the pieces read surest). A box read unsure is read again
with a hand's lost hairlines as ink (scan/characters.py's `traced`). The reads a box can be are the
best strings of those characters, each with its probability; each character's shape is kept
small beside them, for the same writer's other characters to be compared with (scan/adapt.py).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import cv2
import numpy as np

from generator.scan.characters import Glyph, Ink, between, columns, cuts, ink, segment, traced
from generator.scan.verify import CLASSES, best_strings

PX_MM = 200 / 25.4
"""Pixels a millimetre on the page as it is read (200 dpi), whatever the scan's resolution."""
SIDE = 20
"""A character is read as a SIDE × SIDE picture of its shape, its longer side 18 pixels."""
LOOK = 10
"""A character's shape is compared with the same hand's others as a LOOK × LOOK picture."""
MODEL = Path(__file__).with_name("model.npz")
RUN_TOGETHER = 1.05
"""A tall piece wider than this against its height is characters run together."""


def features(glyphs: list[Glyph], height: int, only: Optional[range] = None) -> np.ndarray:
    """Each glyph as the network reads it: its ink as dark as the scan shows it, SIDE × SIDE (a
    small loop a blurred scan fills is lighter inside than its strokes, where the ink's outline
    alone is a blot: people's held-out digits 85.6 → 88.0 %, bench/writers.py's 14-sheet piles),
    then its size and place against the part's tallest character (a point is small and low, a
    minus flat and middling); `only`: just those glyphs' rows, still sized and placed against them all."""
    tall = max(max((g.y1 - g.y0) for g in glyphs), 0.3 * height, 1)
    mid = np.mean([(g.y0 + g.y1) / 2 for g in glyphs if (g.y1 - g.y0) > 0.5 * tall] or [height / 2])
    chosen = [glyphs[k] for k in (only if only is not None else range(len(glyphs)))]
    out = np.zeros((len(chosen), SIDE * SIDE + 4), np.float32)
    for i, g in enumerate(chosen):
        h, w = g.mask.shape
        f = 18 / max(h, w)
        small = cv2.resize(g.shade, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
        sh, sw = small.shape
        top, left = (SIDE - sh) // 2, (SIDE - sw) // 2
        pic = np.zeros((SIDE, SIDE), np.float32)
        pic[top : top + sh, left : left + sw] = small
        out[i, : SIDE * SIDE] = pic.ravel() / max(pic.max(), 1e-6)
        out[i, SIDE * SIDE :] = (h / tall, w / tall, ((g.y0 + g.y1) / 2 - mid) / tall, math.log(max(w, 1) / max(h, 1)))
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
        pic = x[:, : SIDE * SIDE].reshape(n, SIDE, SIDE, 1)
        p1, r1 = convolve(pic, self.c1, self.b1, 5)
        p2, r2 = convolve(pool(r1), self.c2, self.b2, 3)
        flat = np.concatenate([pool(r2).reshape(n, -1), x[:, SIDE * SIDE :]], axis=1)
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
    ink: Optional[Ink] = None
    """The crop's ink, for a part read unsure to be read again with its faint traces."""


def find(scan: np.ndarray, blank: np.ndarray) -> Found:
    """The characters in one crop (`blank`: the same crop of the blank sheet)."""
    return _found(ink(scan, blank), scan.shape[0])


def _found(found: Ink, height: int) -> Found:
    """The characters in a crop's ink, `height` pixels tall."""
    glyphs = segment(found)
    x = features(glyphs, height) if glyphs else np.zeros((0, SIDE * SIDE + 4), np.float32)
    return Found(glyphs, x, height, found)


BATCH = 128
"""Characters read by the network at once."""


def read_parts(found: list[Found], net: Model) -> list[PartRead]:
    """Parts read by one pass of the network over all their characters (a page's at once: a
    pass's own cost outweighs a few characters'); a part read unsure (a character below
    TRACED_SURE, or not a character) read again with its faint traces as ink
    (`characters.traced`), which stands where its least sure character is surer than the first
    read's: a hand whose hairlines a copier all but lost (bench/writers.py's 14-sheet held-out
    faces 81.9 → 83.4 %, Ecolier 64.8 → 71 %; seed 171's 85.6 → 87.1 %; false accepts 1 → 2 and
    3 → 2; people's digits and the project's writers as before)."""
    reads = _read(found, net)
    again = [
        i
        for i, (f, r) in enumerate(zip(found, reads))
        if f.ink is not None and not r.blank and _weakest(r) < TRACED_SURE
    ]
    retraced = [_found(traced(found[i].ink), found[i].height) for i in again]
    for i, r in zip(again, _read(retraced, net)):
        if not r.blank and _weakest(r) > _weakest(reads[i]):
            reads[i] = r
    return reads


TRACED_SURE = 0.9
"""How sure of each character a part's read must be not to be read again with its traces."""


def _weakest(r: PartRead) -> float:
    """How sure the network is of a part's least sure character (0 where one is no character); a
    point read as one is left out: a faint point is no lost hairline, and its traces join it to a digit."""
    p = r.probabilities
    top = p.argmax(axis=1)
    sure = np.where(top == JUNK, 0.0, p.max(axis=1))[(top != POINT) & (top != COMMA)]
    return float(sure.min(initial=1.0))


JUNK, POINT, COMMA, MINUS, ONE, SLASH = (CLASSES.index(c) for c in "x.,-1/")


def _read(found: list[Found], net: Model) -> list[PartRead]:
    """Parts read by one pass of the network, pieces run together cut (`_split`)."""
    x = np.concatenate([f.x for f in found]) if found else np.zeros((0, SIDE * SIDE + 4), np.float32)
    probs, shapes = _probabilities(net, x), looks(x)
    out, start = [], 0
    for f in found:
        end = start + len(f.glyphs)
        out.append(_part_read(f.glyphs, probs[start:end], shapes[start:end]))
        start = end
    return _split(found, out, net)


def _probabilities(net: Model, x: np.ndarray) -> np.ndarray:
    """The network's class probabilities for features `x`, a row a character."""
    if not len(x):
        return np.zeros((0, len(CLASSES)), np.float32)
    # In batches: a convolution's patches are a hundred floats a pixel, kept small.
    return np.concatenate([net.probabilities(x[i : i + BATCH]) for i in range(0, len(x), BATCH)])


def _too_wide(g: Glyph) -> bool:
    """Whether a piece is wider against its height than one character is (RUN_TOGETHER)."""
    return g.x1 - g.x0 > RUN_TOGETHER * (g.y1 - g.y0)


def _split(found: list[Found], reads: list[PartRead], net: Model) -> list[PartRead]:
    """Parts read again where a piece the network calls no character, or one wider than a
    character is, may be two run together (a hand that joins its digits: "50", "1/"): the piece
    is cut where the fewest ink pixels cross (`characters.cuts`), and the cut whose halves the
    network reads surest as characters stands for it, if each is surely one character, nearly as
    surely which (a 1 or a slash counts as one: the decimals say which), neither a minus after the
    first, and neither too wide for one. Else the piece stays as read (`_wide_junk` for one too wide)."""
    trials = []  # (part, piece) of each cut tried, its halves' two rows in `rows`
    rows = []
    for i, (f, r) in enumerate(zip(found, reads)):
        tall = max((g.y1 - g.y0 for g in f.glyphs), default=0)
        for k, g in enumerate(f.glyphs):
            h, w = g.y1 - g.y0, g.x1 - g.x0
            if h < 0.6 * tall or not (_too_wide(g) or (r.probabilities[k].argmax() == JUNK and w >= SPLIT_WIDE * h)):
                continue
            for halves in cuts(g):
                if any(map(_too_wide, halves)):
                    continue  # a half too wide for one character: not the cut between two
                trials.append((i, k))
                rows.append(features(f.glyphs[:k] + list(halves) + f.glyphs[k + 1 :], f.height, range(k, k + 2)))
    if not trials:
        return _apart(found, [_wide_junk(f, r) for f, r in zip(found, reads)], net)
    x = np.concatenate(rows)
    probs, shapes = _probabilities(net, x), looks(x)
    best: dict[tuple[int, int], tuple[float, int]] = {}
    for t, (i, k) in enumerate(trials):
        pair = probs[2 * t : 2 * t + 2]
        # Each half must surely be one character (SPLIT_SURE) and nearly as surely which
        # (SPLIT_WHICH): a scribble's zigzag cut in two reads as halves of no digit in particular
        # ("4" at 0.52, the rest spread over 7 and 9); a flagged 1 cut from the digit it touches
        # reads "1" at 0.8 and "/" the rest.
        # A minus is only ever first: a barred 7 cut in two is no "7-".
        which = pair.copy()
        which[:, JUNK] = 0.0
        stroke = which[:, ONE] + which[:, SLASH]  # a 1 or a slash: the decimals say which (verify)
        sure, tops = float(np.maximum(which.max(axis=1), stroke).min()), which.argmax(axis=1)
        one = float(pair[:, JUNK].max()) <= 1.0 - SPLIT_SURE
        if tops[1] == MINUS or (tops[0] == MINUS and k > 0) or not one:
            continue
        if sure >= SPLIT_WHICH and sure > best.get((i, k), (0.0, -1))[0]:
            best[(i, k)] = (sure, t)
    out = [_wide_junk(f, r, {k for j, k in best if j == i}) for i, (f, r) in enumerate(zip(found, reads))]
    for i in sorted({i for i, _ in best}):
        r, p, s = out[i], [], []
        for k in range(len(r.probabilities)):
            t = best.get((i, k), (0.0, -1))[1]
            p.extend(probs[2 * t : 2 * t + 2] if t >= 0 else r.probabilities[k : k + 1])
            s.extend(shapes[2 * t : 2 * t + 2] if t >= 0 else r.shapes[k : k + 1])
        out[i] = PartRead(r.ink, np.array(p, np.float32), np.array(s, np.uint8))
    return _apart(found, out, net, set(best))


def _apart(found: list[Found], reads: list[PartRead], net: Model, cut: set = frozenset()) -> list[PartRead]:
    """Parts read again where a piece still no character is as wide as several run together (a long
    fraction written small): cut apart (`_pieces`); `cut`: the pieces `_split` cut in two."""
    out = []
    for i, (f, r) in enumerate(zip(found, reads)):
        rows, looked, row = list(r.probabilities), list(r.shapes), 0
        tall = max((g.y1 - g.y0 for g in f.glyphs), default=0)
        for k, g in enumerate(f.glyphs):
            width, h = g.x1 - g.x0, g.y1 - g.y0
            if (i, k) in cut:
                row += 2
                continue
            pieces = None
            if row < len(rows) and rows[row].argmax() == JUNK and h >= 0.6 * tall and width >= MANY * h:
                pieces = _pieces(f, k, net)
            if pieces is not None:
                rows[row : row + 1], looked[row : row + 1] = list(pieces[0]), list(pieces[1])
                row += len(pieces[0])
            else:
                row += 1
        out.append(PartRead(r.ink, np.array(rows, np.float32), np.array(looked, np.uint8)) if row else r)
    return out


def _pieces(f: Found, k: int, net: Model) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """Glyph `k` cut at its columns of least ink into the pieces the network reads surest as one character
    each: their classes' probabilities and shapes; None where not RUN_SURE together, or uneven."""
    g = f.glyphs[k]
    h, ends = g.y1 - g.y0, columns(g)
    spans = [(a, b) for n, a in enumerate(ends) for b in ends[n + 1 :] if 0.2 * h <= b - a <= 1.1 * h]
    spans = [(a, b, p) for a, b in spans if (p := between(g, a, b)) is not None]
    if not spans:
        return None
    others = f.glyphs[:k] + f.glyphs[k + 1 :]
    x = np.concatenate([features(others[:k] + [p] + others[k:], f.height, range(k, k + 1)) for _, _, p in spans])
    probs, shapes = _probabilities(net, x), looks(x)
    which = np.where(np.arange(len(CLASSES)) == JUNK, 0.0, probs)
    sure = np.maximum(which.max(axis=1), which[:, ONE] + which[:, SLASH]) * (1.0 - probs[:, JUNK])
    best: dict[int, tuple[float, list[int]]] = {0: (0.0, [])}
    for n, (a, b, _) in sorted(enumerate(spans), key=lambda t: t[1][0]):  # left to right: a path's start known
        if a in best and (score := best[a][0] + math.log(max(float(sure[n]), 1e-12))) > best.get(b, (-math.inf,))[0]:
            best[b] = (score, best[a][1] + [n])
    score, path = best.get(ends[-1], (-math.inf, []))
    read = [(CLASSES[c], (spans[n][2].y1 - spans[n][2].y0) / h) for n, c in zip(path, which[path].argmax(axis=1))]
    # Digits as tall as each other; a minus first and flat (a zigzag's stroke is neither).
    even = all(
        t >= EVEN if c.isdigit() or c == "/" else c != "-" or (m == 0 and t <= 0.5) for m, (c, t) in enumerate(read)
    )
    if len(path) < 2 or math.exp(score) < RUN_SURE or not even:
        return None
    return probs[path], shapes[path]


EVEN = 0.8
"""How tall against the run each of its digits and slashes must stand: digits written together are
as tall as each other, a zigzag's strokes cut apart are not (of 42 zigzags, none kept)."""
MANY = 1.5
"""A piece read as no character, this wide against its height or wider, may be several run together."""
RUN_SURE = 0.15
"""How sure the network must be of a run's pieces together (their sureness multiplied): a run read
less surely is read all the same (its reads stay unsure, the student picks the right one)."""
SPLIT_WIDE = 0.7
"""A piece read as no character, this wide against its height or wider, may be two run together."""
SPLIT_SURE = 0.99
"""How sure the network must be that each half of a cut is one character."""
SPLIT_WHICH = 0.97
"""How sure it must be of which character each half is, a 1 or a slash as one (before, 0.99 of one
alone: bench/writers.py's 14-sheet held-out faces 83.6 → 83.9 %, seed 171's 87.5 → 87.6 %, the
project's writers 90.0 → 90.1 %; at 0.9 a hundredth scribble was cut into "01")."""


def _wide_junk(f: Found, r: PartRead, cut: set = frozenset()) -> PartRead:
    """A part's read with its pieces too wide for one character (`_too_wide`) and as tall as the
    digits beside it taken as characters run together ("00" reads as an 8), "not a character" —
    unless the network is WIDE_SURE of the one character it is (a barred 7 wider than tall, as
    a school hand writes it) and no cut of it reads as two (`cut`: the pieces that were)."""
    if r.blank:
        return r
    tall = max(g.y1 - g.y0 for g in f.glyphs)
    probs = r.probabilities.copy()
    for i, g in enumerate(f.glyphs):
        if i in cut or not (_too_wide(g) and g.y1 - g.y0 > 0.6 * tall):
            continue
        if np.delete(probs[i], JUNK).max() < WIDE_SURE:
            probs[i] = 0.0
            probs[i, JUNK] = 1.0
    return PartRead(r.ink, probs, r.shapes)


WIDE_SURE = 0.99
"""How sure the network must be of a piece wider than tall to read it as one character (held-out
faces 81.1 → 81.6 % on bench/writers.py's 14-sheet pile: a hand whose 7 is short and barred; never
sure, every such piece is "not a character", as before)."""


def _part_read(glyphs: list, probs: np.ndarray, shapes: np.ndarray) -> PartRead:
    if not glyphs:
        return PartRead(0, np.zeros((0, len(CLASSES)), np.float32))
    return PartRead(sum(g.area for g in glyphs), probs, shapes)


def looks(x: np.ndarray) -> np.ndarray:
    """Each character's shape, small and a little blurred (a pen's wobble is not a difference), as
    bytes to compare with the same writer's other characters (scan/adapt.py)."""
    small = x[:, : SIDE * SIDE].reshape(-1, LOOK, SIDE // LOOK, LOOK, SIDE // LOOK).mean(axis=(2, 4))
    k = cv2.getGaussianKernel(3, 0.8).ravel().astype(np.float32)
    padded = np.pad(small, ((0, 0), (1, 1), (1, 1)), mode="reflect")
    rows = k[0] * padded[:, :-2] + k[1] * padded[:, 1:-1] + k[2] * padded[:, 2:]
    blurred = k[0] * rows[:, :, :-2] + k[1] * rows[:, :, 1:-1] + k[2] * rows[:, :, 2:]
    return np.clip(blurred.reshape(len(x), LOOK * LOOK) * 255, 0, 255).astype(np.uint8)
