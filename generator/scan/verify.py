"""Reading by verification: a box's reads checked against what that box should hold.

For every box the grader knows two values: the true one, and the one carried forward from the
student's own earlier cells. Steps are taken in working order, so a box's carried value comes
from the cells before it as accepted, as confirmed by a person, or, for a box in review whose
reads agree on one value (a wrong value, clearly written), as read: the boxes after a student's
mistake follow it, as the student did. But a read no one has accepted is never its own evidence:
a carried value that is the very number of a box in review of a grid it comes from (its copy,
its ReLU) is not accepted,
since the same hand's same digits misread the same way agree too (a European 1 read as 4, then
its copy "carried"). A person's correction verifies the later boxes again. A read is accepted only
when the recognizer's reads that stand for one of those values, in any form the grader takes (3/8,
9/24, 0.38, 0,375), hold nearly all the probability of the reads that are numbers at all, and more
still for a value other than the key's (the costlier claim: a point lost); anything else goes to
a person. A blank box is blank. Pure: no pictures here.
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass
from typing import Optional

import numpy as np

from generator.core.cells import read_cell_text
from generator.core.grade import BLANK, Answers, Entry, matches
from generator.core.registry import grade, grid_shapes, heads_of, kind_of
from generator.core.numbers import normalize, sheet_value
from generator.core.student import Student

ACCEPT = 0.9
"""The share of the number-like reads' probability that must stand for the true value."""
ACCEPT_OTHER = 0.97
"""The share that must stand for a carried value other than the true one: saying the student
erred costs them a point, so it needs the stronger read."""

Key = tuple[Optional[int], str, int, int]
"""A box: head (None outside the heads), step, row and column (0-based, the sheet's layout; sums one row)."""
Reads = tuple[tuple[str, float], ...]
"""A part's likeliest strings with their probabilities; empty where the part is blank."""
CLASSES = "0123456789-/.,x"
"""What a character can be (scan/recognize.py's network's classes); x: not one."""
STRINGS = 24
"""Reads kept per part: enough that the likeliest numbers are all among them."""


@dataclass(frozen=True)
class CellRead:
    """What the recognizer makes of one box: its parts (the whole box, or a fraction and its
    decimals), each as its characters' class probabilities (a row a character, none where
    blank; kept small until the box is verified) or as its reads."""

    parts: tuple
    looks: tuple = ()
    """Each part's characters' shapes (recognize.looks's bytes, a row a character), where read from
    a picture: the writer's other characters are compared with them (scan/adapt.py)."""
    stray: bool = False
    """A digit in it is unlike every character its writer wrote elsewhere, beside one like them
    (adapt.strays): a value struck out beside the one meant, maybe, whatever the network says."""

    @property
    def blank(self) -> bool:
        return not any(len(part) for part in self.parts)

    def reads(self) -> tuple[Reads, ...]:
        """Each part's likeliest strings."""
        return tuple(
            part
            if isinstance(part, tuple)
            else tuple(best_strings(part_probabilities(part), STRINGS))
            if len(part)
            else ()
            for part in self.parts
        )


def packed(probs: np.ndarray) -> bytes:
    """A part's class probabilities as a CellRead keeps them: float16 bytes (a class's reads stay small)."""
    return probs.astype(np.float16).tobytes()


def part_probabilities(part) -> np.ndarray:
    """A part's probabilities, a row a character, from an array or its packed bytes."""
    if isinstance(part, bytes):
        return np.frombuffer(part, np.float16).reshape(-1, len(CLASSES))
    return part


def best_strings(probs: np.ndarray, k: int = 5) -> list[tuple[str, float]]:
    """The `k` most probable strings, one class a row (a beam over the rows)."""
    beam: list[tuple[float, str]] = [(0.0, "")]
    for row in probs:
        # Classes a thousand times less likely than the best never make a top read: left out.
        likely = [(math.log(float(row[c])), CLASSES[c]) for c in np.flatnonzero(row >= row.max() * 1e-3)]
        beam = heapq.nlargest(k, ((s + lp, text + c) for s, text in beam for lp, c in likely))
    return [(text, math.exp(s)) for s, text in beam]


@dataclass(frozen=True)
class Decision:
    """One box, decided."""

    key: Key
    verdict: str
    """accepted, blank or review."""
    value: str = ""
    """What is written, as accepted."""
    reads: Reads = ()
    """The best reads of the whole box (its parts joined), for a person to look at."""
    expected: str = ""
    """The value it was checked against and matched (accepted) or would be (review: the carried, else the
    true), as the sheet prints it."""
    holds: object = None
    """That value itself (a decimal under the exact rules, which its printed two places are not)."""


def as_number(text: str):
    """The entry a read stands for when it is a number, else None."""
    entry = read_cell_text(text)
    return entry if entry.kind == "value" else None


def unlike(text: str) -> bool:
    """Whether a number read is one no one writes: a number that starts with a 0 before another
    digit ("01", "-05", "3/08") is a misread (a 6 read as a 0 beside a 1 is not the student's 1).
    It stands for no value, and it still counts among the number-like reads: the box is unclear."""
    return LEADING_ZERO.search(text) is not None


LEADING_ZERO = re.compile(r"(?<![0-9.,])0[0-9]")


def _posterior(reads: Reads, v, marked: bool = False) -> tuple[float, str]:
    """The share of the number-like reads that stand for v, and the best of those (`marked`: a
    read with a mark that is no character beside another number counts too, against v)."""
    total, mass, best = max(0.0, 1.0 - sum(p for _, p in reads)), 0.0, ""
    for text, p in reads:
        entry = as_number(text)
        if entry is None:
            total += p if marked and _another(text, v) else 0.0
            continue
        total += p
        if matches(entry, v) and not unlike(text):
            mass += p
            best = best or text
    return (mass / total if total else 0.0), best


def _another(text: str, v) -> bool:
    """Whether a read that is no number, for a mark no character ("x0"), is a number other than v
    where the mark is left out: the mark may be a stray one, and the box that number ("0", not "40")."""
    kept = " ".join(text.replace("x", "").split())
    entry = as_number(kept) if "x" in text and kept else None
    return entry is not None and not unlike(kept) and not matches(entry, v)


def _joint(fraction: Reads, decimal: Reads, v) -> tuple[float, str]:
    """A fraction's box read whole: the share of its number-like reads (a fraction and its
    decimals, read together) that stand for v, and the best of those. People write the decimals
    of the fraction they wrote: a pair that disagrees counts INCONSISTENT as much, so where a
    stroke could be a 1 or a slash, the decimals below say which."""
    unseen, pairs = _pairs(fraction, decimal)
    total = unseen + sum(weight for weight, _, _ in pairs)
    found = [(weight, text) for weight, text, entry in pairs if matches(entry, v) and not unlike(text)]
    return (sum(w for w, _ in found) / total if total else 0.0), (found[0][1] if found else "")


def _pairs(fraction: Reads, decimal: Reads) -> tuple[float, list]:
    """A fraction's box's reads paired with its decimals' (PAIRS of each): the probability no pair
    holds, and each pair that is a number, (its weight, its text, the entry it is), best first read."""
    top = fraction[:PAIRS], decimal[:PAIRS]
    seen = sum(p for _, p in top[0]) * sum(q for _, q in top[1])
    pairs = [(p * q, f"{f} {d}") for f, p in top[0] for d, q in top[1]]
    numbers = [(w, t, entry) for w, t in pairs if (entry := as_number(t)) is not None]
    return max(0.0, 1.0 - seen), [(w * agreement(e), t, e) for w, t, e in numbers]


def agreement(entry: Optional[Entry]) -> float:
    """How likely a fraction's box read as `entry` is against one whose fraction and decimals agree:
    people write the decimals of the fraction they wrote, so a pair that disagrees counts less."""
    agrees = entry is not None and entry.exact is not None and matches(entry, entry.exact)
    return 1.0 if agrees else INCONSISTENT


PAIRS = 8
"""Reads of each line of a fraction's box paired up."""
INCONSISTENT = 0.05
"""How much less likely a fraction and decimals that disagree are than a pair that agrees."""


def decide(read: CellRead, true, carried, unconfirmed: frozenset = frozenset()) -> tuple[str, str, object]:
    """(verdict, value written, value it stands for) for one box with its true and carried values;
    a carried value among `unconfirmed` (the numbers of boxes in review of the grids it comes from)
    is not one it may be accepted as."""
    if read.blank:
        return "blank", "", None
    parts = read.reads()
    for v in dict.fromkeys(x for x in (true, carried) if x is not None):
        if v != true and v in unconfirmed:
            continue
        need = ACCEPT if v == true else ACCEPT_OTHER
        if len(parts) == 2 and all(parts):  # a fraction and its decimals: read together
            share, text = _joint(parts[0], parts[1], v)
            if share >= need:
                return "accepted", text, v
            continue
        found = [_posterior(part, v) for part in parts if part]
        if all(share >= need for share, _ in found):
            return "accepted", " ".join(text for _, text in found), v
    shown = carried if carried is not None else true
    return "review", "", shown


def clear_read(read: CellRead) -> str:
    """What a box says when its reads agree on one value, whatever it is (else ""): a box in
    review carries that forward for the boxes after it, until a person says otherwise."""
    reads = read.reads()
    text = _tops(reads)
    entry = read_cell_text(text)
    if not text or entry.kind != "value":
        return ""
    parts = [part for part in reads if part]
    return text if all(_posterior(part, _value(entry))[0] >= ACCEPT for part in parts) else ""


def _tops(reads: tuple[Reads, ...]) -> str:
    """Each written part's likeliest read that is a number someone writes, joined ("" if a part has none)."""
    tops = [next((t for t, _ in part if as_number(t) is not None and not unlike(t)), "") for part in reads if part]
    return " ".join(tops) if tops and all(tops) else ""


def _value(entry: Entry):
    """The value a written entry stands for (a decimal's, where it names no fraction)."""
    return entry.exact if entry.exact is not None else normalize(entry.decimal[0])


def alone(read: CellRead) -> tuple[str, float]:
    """What a box says by its own reads, asking neither the key nor the student's other boxes: its
    likeliest number as written, and the share of the number-like reads that stand for it (a
    fraction and its decimals read together; a read of a mark no character beside another number
    counts against it: "x0" says the box may hold 0, so "40" is not sure). A mark made of this tells
    a student nothing of whether the box is right ("", 0.0 where no read is a number)."""
    parts = read.reads()
    if len(parts) == 2 and all(parts):
        unseen, pairs = _pairs(parts[0], parts[1])
        written = [(w, t, entry) for w, t, entry in pairs if not unlike(t)]
        if not written:
            return "", 0.0
        _, text, entry = max(written, key=lambda x: x[0])
        v = _value(entry)
        marks = sum(p * q for f, p in parts[0][:PAIRS] for d, q in parts[1][:PAIRS] if _another(f"{f} {d}", v))
        total = unseen + sum(w for w, _, _ in pairs) + marks
        return text, sum(w for w, _, e in written if matches(e, v)) / total if total else 0.0
    text = _tops(parts)
    entry = read_cell_text(text)
    if not text or entry.kind != "value":
        return "", 0.0
    return text, min(_posterior(part, _value(entry), marked=True)[0] for part in parts if part)


def joined(read: CellRead, k: int = 3) -> Reads:
    """The best reads of a whole box: its written parts' best strings, joined ("?" where no character)."""
    out: list[tuple[str, float]] = [("", 1.0)]
    for part in read.reads():
        if part:
            out = sorted(
                ((a + (" " if a else "") + b, p * q) for a, p in out for b, q in part[:k]), key=lambda x: -x[1]
            )[:k]
    # "x" is the network's "not a character": a person reads it as "?".
    return tuple((text.replace("x", "?"), round(p, 4)) for text, p in out if text)


def empty_grids(problem) -> dict[tuple[Optional[int], str], list[list[Entry]]]:
    """Every grid a student writes, blank: by (head, step)."""
    shapes, final = grid_shapes(problem)
    grids = {
        (h, name): [[BLANK] * c for _ in range(r)]
        for h in range(1, heads_of(problem) + 1)
        for name, (r, c) in shapes.items()
    }
    grids.update({(None, name): [[BLANK] * c for _ in range(r)] for name, (r, c) in final.items()})
    return grids


def answers_of(problem, grids: dict, code: Optional[str], student: Student) -> Answers:
    """Grids of written entries as the grader takes them."""
    frozen = {k: tuple(map(tuple, g)) for k, g in grids.items()}
    heads = tuple({name: g for (h, name), g in frozen.items() if h == n} for n in range(1, heads_of(problem) + 1))
    return Answers(
        heads=heads, final={name: g for (h, name), g in frozen.items() if h is None}, code=code, student=student
    )


def key_values(problem) -> dict[Key, object]:
    """Each box's value by the key."""
    steps = grade(problem, answers_of(problem, empty_grids(problem), None, Student())).steps
    return {(s.head, s.step, r, c): v for s in steps for r, row in enumerate(s.expected) for c, v in enumerate(row)}


def verify(
    problem,
    reads: dict[Key, CellRead],
    code: Optional[str] = None,
    student: Student = Student(),
    confirmed: Optional[dict[Key, str]] = None,
) -> list[Decision]:
    """Every read box decided, in working order; `confirmed`: boxes a person has settled (their
    text, "" for blank), which count as written and carry forward like accepted ones."""
    confirmed = confirmed or {}
    grids = empty_grids(problem)
    unconfirmed: dict = {}  # each grid's numbers its boxes in review were provisionally read as
    kind = kind_of(problem)
    inputs = {step.key: step.inputs for step in kind.steps(kind.column_twin(problem))}
    order = [(s.head, s.step) for s in grade(problem, answers_of(problem, grids, code, student)).steps]
    decisions = []
    for head, step in order:
        keys = sorted(k for k in set(reads) | set(confirmed) if (k[0], k[1]) == (head, step))
        if not keys:
            continue
        g = None
        if any(k not in confirmed and not reads[k].blank for k in keys):
            g = grade(problem, answers_of(problem, grids, code, student)).step(head, step)
        for key in keys:
            row, col = key[2], key[3]
            if key in confirmed:
                grids[(head, step)][row][col] = read_cell_text(confirmed[key])
                continue
            read = reads[key]
            if g is None or read.blank:
                decisions.append(Decision(key, "blank"))
                continue
            read = CellRead(read.reads())  # its strings made once: deciding, carrying and showing it each read them
            sources = frozenset().union(*(unconfirmed.get(k, ()) for k in inputs.get((head, step), ())))
            verdict, value, expected = decide(read, g.expected[row][col], g.carried[row][col], sources)
            if verdict == "accepted":
                grids[(head, step)][row][col] = read_cell_text(value)
            elif clear_read(read):  # provisionally: a person may say otherwise, and this is verified again
                entry = read_cell_text(clear_read(read))
                grids[(head, step)][row][col] = entry
                unconfirmed.setdefault((head, step), set()).add(_value(entry))
            decisions.append(Decision(key, verdict, value, joined(read), sheet_value(expected), expected))
    return decisions
