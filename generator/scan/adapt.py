"""Reading a hand by its own other characters: the sheet's key says what most of its boxes hold.

A network learns from many hands, and a hand it never saw can write a digit the way another
hand writes a different one (a 3 as others write a 5). But one sheet is one writer, and most of
what a student writes is what the key says: the characters of every box whose count of
characters is that of its key's value are, nearly all, examples of that writer's own 0s, 1s, 2s.
A character is then read also by the examples nearest its shape — from the sheet's other steps,
never its own box or step, so that neither a box nor a step misunderstood throughout is its own
evidence — and where they agree and lie near it, their class weighs with the network's. A
student's wrong digit lies among that writer's own examples of the digit written (a 7 among the
7s), not among the key's; where a hand wrote no other example of it, nothing lies near and the
network's read stands alone. What the key says is not what a student who went wrong early wrote
in the boxes after: their characters are named the second time by what the sheet's own
verification says each box holds (`in_own_hand`). Pure: no pictures.
"""

from __future__ import annotations

import numpy as np

from generator.core.numbers import cell_str, decimal_str
from generator.scan.verify import CLASSES, CellRead, Key, key_values, packed, part_probabilities, verify

LOOK_SIZE = 100
"""Bytes of a character's shape (recognize.LOOK squared)."""
NEIGHBOURS = 5
"""Examples a character is read by."""
FEWEST = 30
"""Examples a sheet needs before its hand is read by them."""
REACH = 3.0
"""Examples further than this many times the writer's usual spacing say nothing of a character."""
SMOOTH = 0.02
"""Votes every class has before any example's: a few close examples weigh as much as the
network, never so much that one class is impossible."""
SURE = 0.9
"""A class this likely is what the network, or the writer's examples, say a character is."""
LABELS = "0123456789-/"
"""The characters a key's value names for certain (a decimal separator is a point or a comma)."""


def examples(reads: dict[Key, CellRead], truth: dict[Key, object]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The writer's characters the key names: their shapes, classes and boxes (an index into
    `reads`' keys)."""
    shapes, classes, boxes = [], [], []
    for n, (key, read) in enumerate(reads.items()):
        v = truth.get(key)
        if v is None or read.blank or not read.looks:
            continue
        texts = (cell_str(v, 2),) if len(read.looks) == 1 else (cell_str(v, 2), decimal_str(v, 2))
        for looks, text in zip(read.looks, texts):
            seen = np.frombuffer(looks, np.uint8).reshape(-1, LOOK_SIZE)
            if len(seen) != len(text):
                continue
            for shape, char in zip(seen, text):
                if char in LABELS:
                    shapes.append(shape)
                    classes.append(CLASSES.index(char))
                    boxes.append(n)
    return (np.array(shapes, np.float32).reshape(-1, LOOK_SIZE), np.array(classes, np.int64), np.array(boxes, np.int64))


def adapted(reads: dict[Key, CellRead], truth: dict[Key, object]) -> dict[Key, CellRead]:
    """Every box's reads with each character's class weighed also by the writer's own examples
    nearest it (`truth`: what each box holds, by the key or by the sheet's verification)."""
    shapes, classes, boxes = examples(reads, truth)
    if len(shapes) < FEWEST:
        return reads
    near, step = _spacing(_distances(shapes, shapes), boxes), _steps(reads)
    # Every character of the sheet weighed at once: (box, part, characters) of each part read.
    where, probs, seen = [], [], []
    for n, read in enumerate(reads.values()):
        for j, (part, looks) in enumerate(zip(read.parts, read.looks)):
            p = part_probabilities(part)
            if len(p):
                where.append((n, j, len(p)))
                probs.append(p)
                seen.append(np.frombuffer(looks, np.uint8).reshape(-1, LOOK_SIZE))
    d = _distances(np.concatenate(seen).astype(np.float32), shapes)
    # A step's boxes are no evidence for each other: a student who misunderstood a step writes
    # its every box wrong alike, and what the key says of them is not what that hand's digits are.
    own = np.repeat([step[n] for n, _, _ in where], [count for _, _, count in where])
    d[own[:, None] == step[boxes][None, :]] = np.inf
    weighed = np.split(
        _weighed(np.concatenate(probs).astype(np.float32), d, classes, near),
        np.cumsum([count for _, _, count in where])[:-1],
    )
    parts = {(n, j): packed(w) for (n, j, _), w in zip(where, weighed)}
    return {
        key: CellRead(tuple(parts.get((n, j), part) for j, part in enumerate(read.parts)), read.looks)
        if any((n, j) in parts for j in range(len(read.parts)))
        else read
        for n, (key, read) in enumerate(reads.items())
    }


def in_own_hand(problem, reads: dict[Key, CellRead]) -> dict[Key, CellRead]:
    """Every box's reads weighed by the writer's own examples twice: named first by the key,
    then by what verifying those reads says each box holds — the value it was accepted as, else
    the one the student's own earlier cells carry to it. A student who went wrong early wrote
    most of the later boxes other than the key says, and named by the key their characters teach
    the wrong digits (bench/writers.py's 14-sheet held-out faces 83.9 → 85.1 %, seed 171's
    87.6 → 88.2 %; people's digits 88.0 → 88.3 %, the project's writers 90.1 → 90.5 %)."""
    first = adapted(reads, key_values(problem))
    return adapted(reads, {d.key: d.holds for d in verify(problem, first) if d.holds is not None})


def strays(reads: dict[Key, CellRead]) -> frozenset:
    """The boxes holding a digit unlike every one its writer wrote on the sheet's other steps
    (STRAY_FAR times their usual spacing away) beside a digit like them (within STRAY_NEAR): not
    all of one writing. A value struck out and written again beside it is such a box, its struck
    digits read surely as digits all the same (a 7 struck through reads 7). Key-free: what the
    digits look like, never what they are, so it says nothing of which boxes are right."""
    where, seen = [], []  # each digit's box, and its shape
    for n, read in enumerate(reads.values()):
        for part, looks in zip(read.parts, read.looks):
            if len(part):
                shapes = np.frombuffer(looks, np.uint8).reshape(-1, LOOK_SIZE)
                digits = shapes[part_probabilities(part).argmax(axis=1) < 10]
                where += [n] * len(digits)
                seen.append(digits)
    if len(where) < FEWEST:
        return frozenset()
    shapes, boxes = np.concatenate(seen).astype(np.float32), np.array(where)
    d = _distances(shapes, shapes)
    near, step = _spacing(d, boxes), _steps(reads)[boxes]
    d[step[:, None] == step[None, :]] = np.inf  # a step's boxes are no evidence for each other
    nearest, keys = d.min(axis=1) / near, list(reads)
    far, like = np.zeros(len(keys), bool), np.zeros(len(keys), bool)
    far[boxes[nearest >= STRAY_FAR]] = True
    like[boxes[nearest <= STRAY_NEAR]] = True
    return frozenset(keys[n] for n in np.flatnonzero(far & like))


STRAY_FAR, STRAY_NEAR = 5.0, 3.0
"""How far from every digit of the other steps a stray digit lies, and how near one its box's other
digit does, in the writer's usual spacing. 10 sheets of 152 boxes photographed by the project's writers,
one box in five struck out and written again beside it: of 23 boxes read surely other than written
(13 at A4, 10 printed 1.5 times as large), 22 are strays; of 2,346 read surely as written, 28; by the
held-out faces 8 of 1,275, by people's digits none of 1,346 (at 7, 6 of 23 and 1 of 2,346)."""


def _spacing(d: np.ndarray, boxes: np.ndarray) -> float:
    """How far apart a writer's examples of one character typically lie (`d`: their distances to
    each other): the median distance from each example to its nearest of another box (the same
    class or not: nearly all are the same)."""
    nearest = np.where(boxes[:, None] == boxes[None, :], np.inf, d).min(axis=1)
    # A grey level's difference at least: printed digits can repeat to the pixel.
    return max(float(np.median(nearest[np.isfinite(nearest)])) if np.isfinite(nearest).any() else 1.0, 1.0)


def _steps(reads: dict[Key, CellRead]) -> np.ndarray:
    """Each box's step, numbered in the order the sheet's grids come."""
    grids = {grid: n for n, grid in enumerate(dict.fromkeys(key[:2] for key in reads))}
    return np.array([grids[key[:2]] for key in reads], np.int64)


def _distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of a and of b."""
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.sqrt(np.maximum(sq, 0))


def _weighed(probs: np.ndarray, d: np.ndarray, classes: np.ndarray, near: float) -> np.ndarray:
    """Characters' class probabilities (a row each), each weighed by the examples nearest it (`d`:
    its distance to each, infinite where one may not count), as near as `near` is to how far apart
    the writer's examples lie."""
    nearest = np.argsort(d, axis=1)[:, :NEIGHBOURS]
    dist = np.take_along_axis(d, nearest, axis=1)
    close = dist <= REACH * near
    votes = np.zeros(probs.shape, np.float64)
    rows = np.arange(len(probs))
    weights = np.where(close, np.exp(-((np.where(close, dist, 0) / near) ** 2) / 2), 0)
    np.add.at(votes, (rows[:, None], classes[nearest]), weights)
    share = ((votes + SMOOTH) / (votes.sum(axis=1, keepdims=True) + SMOOTH * len(CLASSES))).astype(np.float32)
    said, looks = probs.argmax(axis=1), share.argmax(axis=1)
    # The network and the writer's own examples each say a different character, surely: neither
    # may carry the box (a 4 this hand writes as others write a 1 is not a 1).
    torn = (said != looks) & (probs[rows, said] >= SURE) & (share[rows, looks] >= SURE)
    mixed = probs * share
    out = np.where(torn[:, None], (probs + share) / 2, mixed / mixed.sum(axis=1, keepdims=True))
    # Not a character: what it looks like does not make it one; nothing near: nothing to say.
    alone = (probs[:, CLASSES.index("x")] > 0.5) | ~close.any(axis=1)
    return np.where(alone[:, None], probs, out)
