"""Difficulty metrics of any kind's problem: how hard it is to work by hand, and their spread over a batch.

The figures every kind shares are derived from its graph: the largest number a student writes
(over every step a student computes, copies left out) and the multiplications to work out (each
product's and each affine map's terms, a bias's and a masked factor's left out). A kind adds its
own (its steps' `metrics`), and names what `draw --stats` shows of them (its `figures`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from generator.core.graph import evaluate


def worked(kind, problem) -> tuple[list, dict]:
    """A problem's steps in the column convention and every grid's value (`kind`: its steps module),
    None in the cells a route leaves empty (nothing is written there)."""
    work = kind.column_twin(problem)
    steps = kind.steps(work)
    solved = evaluate(steps, kind.given(work))
    values = dict(solved.values)
    for key, cells in solved.skipped.items():
        values[key] = [[None if (i, j) in cells else x for j, x in enumerate(r)] for i, r in enumerate(values[key])]
    return steps, values


def shared(kind, problem) -> tuple[list, dict, dict]:
    """A problem's steps and values (`worked`) and the figures every kind shares, by name:
    the largest number written and the multiplications."""
    steps, values = worked(kind, problem)
    return (
        steps,
        values,
        {"largest_number": largest_number(steps, values), "multiplications": multiplications(steps, values)},
    )


def figures_of(m: dict, own: dict[str, str]) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics: the shared figures, then the kind's own
    (`own`: their words, each with its metric's name)."""
    return {
        "largest number written": m["largest_number"],
        "multiplications": m["multiplications"],
        **{words: m[name] for words, name in own.items()},
    }


def largest_number(steps, values: dict, leave_out: Iterable[str] = ()) -> int:
    """The largest integer a student writes (for a fraction, its numerator or denominator), over
    every step they compute (copies, transposes and stacks write nothing new)."""
    return max(
        (
            size(x)
            for s in steps
            if s.op is not None and s.op.operation.new_numbers and s.key[1] not in leave_out
            for row in values[s.key]
            for x in row
        ),
        default=0,
    )


def multiplications(steps, values: dict) -> int:
    """Scalar multiplications a student works out, each step's operation counting its own
    (a product's terms, an affine map's but the bias's, a masked factor's left out)."""
    masks = {s.key: s.masked for s in steps}
    return sum(s.op.operation.multiplications(s, values, masks) for s in steps if s.op is not None)


def size(x) -> int:
    """A value's size as written: an integer's magnitude, a fraction's larger part."""
    if x is None:
        return 0
    if isinstance(x, Fraction):
        return max(abs(x.numerator), x.denominator)
    return abs(x)


def spread(all_metrics: list[dict], figures) -> list[tuple[str, float, float, float]]:
    """(name, min, median, max) of each figure over a batch (`figures(metrics)`: the kind's, by name)."""
    import statistics  # a batch's spread only: a problem's figures need none of it

    found: dict[str, list] = {}
    for m in all_metrics:
        for name, value in figures(m).items():
            found.setdefault(name, []).append(value)
    return [(name, min(v), statistics.median(v), max(v)) for name, v in found.items()]


def stats_text(all_metrics: list[dict], kind) -> str:
    """The spread of a batch's metrics as a small aligned table, and the kind's notes on them
    (`kind`: the batch's kind's steps, whose `figures` and `notes` say what to show)."""
    lines = [f"{'metric':<26}{'min':>8}{'median':>9}{'max':>8}"]
    for name, lo, mid, hi in spread(all_metrics, kind.figures):
        lines.append(f"{name:<26}{_num(lo):>8}{_num(mid):>9}{_num(hi):>8}")
    lines += kind.notes(all_metrics) if hasattr(kind, "notes") else []
    return "\n".join(lines)


def value_of(encoded) -> float:
    """A metric's "p/q" or number as a float."""
    if isinstance(encoded, str):
        num, den = encoded.split("/")
        return int(num) / int(den)
    return encoded


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"
