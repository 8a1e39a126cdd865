"""Exercises as graphs of steps: one evaluator solves them on true values and grades a student's cells.

A kind declares its steps once (name, inputs, compute, the cells its mask leaves out); `evaluate`
runs them in order. Without written cells it is the solver. With them it is the grader with
error carried forward: each step's carried value is the same compute applied to the student's
own cells of its inputs, so every kind gets ECF grading from its declaration alone.

Pure: no I/O. Grids are in the column convention, rows first; a kind transposes at its edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from operator import mul
from typing import Callable, Mapping, Optional, Sequence

from generator.core.grade import BLANK, Chain, Grid, StepGrade
from generator.core.numbers import Number, normalize

Key = tuple[Optional[int], str]
"""A grid's place: (head, name), head 1-based or None for a grid outside the heads (the givens
of a head are keyed by their head too: (2, "W_Q"))."""

Values = list[list[Optional[Number]]]
"""A grid of values, None where a value cannot be had (a factor missing, or out of range)."""


@dataclass(frozen=True)
class Step:
    """One grid a student writes: where it goes, what it is made from, and how."""

    key: Key
    """(head, name): the grid's place, as answers@1 and grade@1 name it."""
    inputs: tuple[Key, ...]
    """The given matrices or earlier steps it is computed from, in the order `compute` takes them."""
    compute: Callable[..., Values]
    """The step's formula on grids of its inputs (None where a value is missing): the same
    function gives the key's value and a student's carried value."""
    masked: frozenset = field(default=frozenset())
    """Cells (row, col) that are not graded (the causal mask): they pass their true value on."""


@dataclass(frozen=True)
class Evaluated:
    """What `evaluate` found: every grid's true value, and, when cells were given, each step's grade."""

    values: dict[Key, Values]
    """Every given and every step, by key (column convention)."""
    grades: tuple[StepGrade, ...] = ()
    """One grade per step, in working order (column convention); empty when solving."""


def evaluate(steps: Sequence[Step], given: Mapping[Key, Values],
             cells: Optional[Mapping[Key, Grid]] = None, carry: bool = True) -> Evaluated:
    """Run the steps in order on the givens: their true values, and with `cells` (what a student
    wrote, by key; a missing grid is blank) a grade per step with error carried forward.

    A step's carried value is its compute on the values the student's own earlier cells give
    (the written value where one is read, else the carried one); where those are the true
    values, no arithmetic is done: carried = true.
    """
    true: dict[Key, Values] = dict(given)
    if cells is None:
        for step in steps:
            true[step.key] = step.compute(*[true[k] for k in step.inputs])
        return Evaluated(true)
    chain = Chain(carry)
    used: dict[Key, Values] = dict(given)
    grades = []
    for step in steps:
        value = true[step.key] = step.compute(*[true[k] for k in step.inputs])
        same = all(used[k] is true[k] or same_values(used[k], true[k]) for k in step.inputs)
        carried = None if same else step.compute(*[used[k] for k in step.inputs])
        if carried is not None and same_values(carried, value):
            carried = None
        written = cells.get(step.key)
        if written is None:
            written = tuple(tuple(BLANK for _ in row) for row in value)
        verdicts, used[step.key] = chain.step(written, value, carried, step.masked)
        grades.append(StepGrade(step.key[0], step.key[1], _frozen(verdicts), _frozen(value),
                                _frozen(value if carried is None else carried), written))
    return Evaluated(true, tuple(grades))


def same_values(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> bool:
    """Whether two grids hold the same values, cell by cell."""
    return all(list(x) == list(y) for x, y in zip(a, b))


def _frozen(grid: Sequence[Sequence]) -> tuple[tuple, ...]:
    return tuple(map(tuple, grid))


# --- the arithmetic every kind's steps share: None wherever a value is missing ---------------


def guarded(compute: Callable, *args) -> Optional[Number]:
    """compute(*args), or None where a student's numbers leave the range of floats."""
    try:
        return compute(*args)
    except (OverflowError, ZeroDivisionError):
        return None


def dot(row: Sequence[Optional[Number]], col: Sequence[Optional[Number]]) -> Optional[Number]:
    """row · col, normalized; None when a factor is missing."""
    if None in row or None in col:
        return None
    return guarded(lambda: normalize(sum(map(mul, row, col))))


def product(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a·b, None wherever a factor is missing."""
    columns = list(zip(*b))
    if all(type(x) is int for r in a for x in r) and all(type(x) is int for c in columns for x in c):
        # Whole numbers throughout (the key's projections and scores): the hot path of every sheet.
        return [[sum(map(mul, row, col)) for col in columns] for row in a]
    if all(type(x) is int for r in a for x in r) and all(type(x) in (int, Fraction) for c in columns for x in c):
        # Whole numbers times exact fractions (V·A): each column over one denominator, so a cell is
        # an integer dot product and one division, not a Fraction per term (the same exact value).
        out = [[0] * len(columns) for _ in a]
        for j, col in enumerate(columns):
            den = math.lcm(*(x.denominator for x in col if type(x) is Fraction)) if any(
                type(x) is Fraction for x in col) else 1
            scaled = [x * den if type(x) is int else x.numerator * (den // x.denominator) for x in col]
            for i, row in enumerate(a):
                t = sum(map(mul, row, scaled))
                out[i][j] = t // den if t % den == 0 else Fraction(t, den)
        return out
    return [[dot(row, col) for col in columns] for row in a]


def affine(w: Sequence[Sequence[Optional[Number]]], x: Sequence[Sequence[Optional[Number]]],
           bias: Sequence[Optional[Number]]) -> Values:
    """w·x + bias, the bias added to every column: [w | b]·[x ; 1], as by hand."""
    ones = [1] * len(x[0]) if x else []
    return product([list(r) + [b] for r, b in zip(w, bias)], [list(r) for r in x] + [ones])


def add(a: Sequence[Sequence[Optional[Number]]], b: Sequence[Sequence[Optional[Number]]]) -> Values:
    """a + b, cell by cell; None where either is missing."""
    return [[None if x is None or y is None else guarded(lambda: normalize(x + y)) for x, y in zip(r, s)]
            for r, s in zip(a, b)]


def relu(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """max(0, x), cell by cell."""
    return [[None if x is None else (x if x > 0 else 0) for x in r] for r in a]


def copy(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grid as it is (a copy a student writes out again)."""
    return [list(r) for r in a]


def transposed(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grid's transpose."""
    return [list(r) for r in zip(*a)]


def stacked(*grids: Sequence[Sequence[Optional[Number]]]) -> Values:
    """The grids' rows, one grid after another (heads concatenated along the features)."""
    return [list(r) for g in grids for r in g]
