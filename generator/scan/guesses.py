"""A box's likeliest reads as a person wrote them: the guesses a photo's unsure box offers its student.

Nothing here knows the key or the student's other boxes: a guess is made of the box's own reads,
so the guesses shown before a hand-in say nothing of which boxes are right (app/photos.py). What
the guesses do know is how a person writes: a fraction's box holds a fraction over its decimals,
and the two agree. Where a slash is read as a 1 or a 3 ("59049359086 1.00"), the likeliest read is
no fraction and no number that rounds to 1.00; the likeliest fraction, read by a beam that only
follows strings of that shape, is 59049/59086, whose decimals are the ones written. Pure: no pictures.
"""

from __future__ import annotations

import heapq
import math
import re

import numpy as np

from generator.scan.verify import (
    CLASSES,
    CellRead,
    agreement,
    as_number,
    joined,
    part_probabilities,
    unlike,
)

TWO_PLACES = re.compile(r"^(-?[0-9]+)([0-9]{2})$")
"""A decimals line's digits with no point: the point goes before the last two."""
SHAPED = 12
"""Reads of a fraction's line, and of its decimals line, that have that line's shape, added to its likeliest."""
PAIRED = 16
"""Reads of each line of a fraction's box paired up for its guesses."""

DIGITS = "0123456789"
DONE = 4
"""The state a line of its shape ends in."""


def _machine(point: str) -> dict[int, dict[str, int]]:
    """A line of one shape as a small machine over the characters read: from each state, the
    characters that may follow and the state each leads to (a minus first, digits, one of `point`
    between digits: a fraction's slash, or a decimal point or comma)."""
    digits, after = dict.fromkeys(DIGITS, 2), dict.fromkeys(DIGITS, DONE)
    return {0: {"-": 1, **digits}, 1: digits, 2: {**dict.fromkeys(point, 3), **digits}, 3: after, DONE: after}


FRACTION, DECIMALS = _machine("/"), _machine(".,")
INDEX = {c: i for i, c in enumerate(CLASSES)}


def shaped(probs: np.ndarray, machine: dict[int, dict[str, int]], k: int = SHAPED) -> list[tuple[str, float]]:
    """The `k` most probable strings of a line that `machine` takes to its end, one class a row
    (a beam that follows only what the machine allows; none where no read has that shape)."""
    beam: list[tuple[float, str, int]] = [(0.0, "", 0)]
    logs = np.log(np.maximum(probs.astype(np.float64), 1e-12))
    for row in logs:
        beam = heapq.nlargest(
            k,
            ((s + row[INDEX[c]], text + c, then) for s, text, state in beam for c, then in machine[state].items()),
        )
        if not beam:
            return []
    return [(text, math.exp(s)) for s, text, state in beam if state == DONE]


def likeliest(read: CellRead, k: int = 1) -> list[str]:
    """A box's `k` likeliest whole reads as a person would write them, best first: what the network
    calls no character (a crossed-out digit, a stray mark) left out, each a number someone writes.
    A fraction's box is read as a fraction over its decimals that agree, where its reads allow."""
    out: list[str] = []
    ranked = (
        _paired(read) if len(read.parts) == 2 and all(len(part) for part in read.parts) else joined(read, 2 * k + 4)
    )
    for text, _ in ranked:
        kept = text.replace("?", "").replace("x", "").split()
        if text and (way := _written(kept, len(read.parts) == 2)) and way not in out:
            out.append(way)
    return out[:k]


def _written(kept: list[str], fraction: bool) -> str:
    """A read's first way that is a number someone writes ("" if none): as read; a fraction's
    decimals to two places (a point too faint to read: 217 is 2.17); its fraction alone (a
    shadow's edge read as decimals)."""
    ways = [kept]
    if fraction and len(kept) == 2:
        ways += [[kept[0], TWO_PLACES.sub(r"\1.\2", kept[1])], kept[:1]]
    for way in map(" ".join, ways):
        if way and as_number(way) is not None and not unlike(way):
            return way
    return ""


def _paired(read: CellRead) -> list[tuple[str, float]]:
    """A fraction's box's reads: each line's likeliest and likeliest of its shape, paired, a pair
    whose fraction and decimals disagree counting INCONSISTENT as much (people write the decimals
    of the fraction they wrote), best first."""
    lines = []
    for part, machine, reads in zip(read.parts, (FRACTION, DECIMALS), read.reads()):
        found = dict(reads[:PAIRED])
        if not isinstance(part, tuple):
            for text, p in shaped(part_probabilities(part), machine):
                found.setdefault(text, p)
        lines.append(sorted(found.items(), key=lambda x: -x[1])[:PAIRED])
    scored = []
    for f, p in lines[0]:
        for d, q in lines[1]:
            text = f"{f} {d}".replace("x", "?")
            way = _written(text.replace("?", "").split(), True)
            scored.append((text, p * q * agreement(as_number(way) if " " in way else None)))
    return sorted(scored, key=lambda x: -x[1])
