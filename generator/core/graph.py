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

from generator.core.degenerate import NONE, Degenerate, repeated
from generator.core.degenerate import trivial as degenerate_where_true_is_not
from generator.core.faces import N_, Face, Op
from generator.core.grade import BLANK, Chain, Grid, StepGrade
from generator.core.numbers import Number, normalize

Key = tuple[Optional[int], str]
"""A grid's place: (head, name), head 1-based or None for a grid outside the heads (the givens
of a head are keyed by their head too: (2, "W_Q"))."""

Values = list[list[Optional[Number]]]
"""A grid of values, None where a value cannot be had (a factor missing, or out of range)."""


@dataclass(frozen=True)
class Skip:
    """Cells a step leaves empty by another grid's value (a route): chosen by the student's own
    grid when grading, so an error there carries (the cells their route asks for are graded)."""

    key: Key
    """The grid that chooses (the route)."""
    cells: Callable[[Values, Values], frozenset]
    """The cells (row, col) left empty, from the choosing grid as used and as it truly is (for
    a column the used grid says nothing of: a blank or impossible route)."""
    words: str = ""
    """Why such a cell is empty, for a student (a message id)."""


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
    face: Optional[Face] = field(default=None, compare=False)
    """How its grid shows on a sheet (symbol, labels, caption, tone, form)."""
    op: Optional[Op] = field(default=None, compare=False)
    """The arithmetic of each of its cells, as a student works it."""
    skip: Optional[Skip] = field(default=None, compare=False)
    """Cells another grid's value leaves empty (a route's), beside the fixed `masked` ones."""

    def masks(self, used: Mapping[Key, Values], true: Mapping[Key, Values]) -> frozenset:
        """The cells not graded: the fixed mask, and those its skip leaves empty by `used`."""
        if self.skip is None:
            return self.masked
        return self.masked | self.skip.cells(used[self.skip.key], true[self.skip.key])


@dataclass(frozen=True)
class Evaluated:
    """What `evaluate` found: every grid's true value, and, when cells were given, each step's grade."""

    values: dict[Key, Values]
    """Every given and every step, by key (column convention)."""
    grades: tuple[StepGrade, ...] = ()
    """One grade per step, in working order (column convention); empty when solving."""
    skipped: dict[Key, frozenset] = field(default_factory=dict)
    """The cells each step with a skip truly leaves empty (a key shows them empty)."""


def evaluate(steps: Sequence[Step], given: Mapping[Key, Values],
             cells: Optional[Mapping[Key, Grid]] = None, carry: bool = True, trivial: str = "none") -> Evaluated:
    """Run the steps in order on the givens: their true values, and with `cells` (what a student
    wrote, by key; a missing grid is blank) a grade per step with error carried forward.

    A step's carried value is its compute on the values the student's own earlier cells give
    (the written value where one is read, else the carried one); where those are the true
    values, no arithmetic is done: carried = true. Where the student's inputs leave the step
    degenerate (core/degenerate: its operation's rule), its carried cells are "trivial" and earn
    the `trivial` credit, as does everything carried on from a step left wholly degenerate.
    """
    true: dict[Key, Values] = dict(given)
    skipped = {}
    if cells is None:
        for step in steps:
            true[step.key] = step.compute(*[true[k] for k in step.inputs])
            if step.skip is not None:
                skipped[step.key] = step.masks(true, true) - step.masked
        return Evaluated(true, skipped=skipped)
    chain = Chain(carry)
    used: dict[Key, Values] = dict(given)
    grades = []
    hollow: set[Key] = set()  # steps the student's own numbers left wholly degenerate: what follows is too
    made_up: set[Key] = set()  # grids the student made up, and those carried from them
    for step in steps:
        value = true[step.key] = step.compute(*[true[k] for k in step.inputs])
        if step.skip is not None:
            skipped[step.key] = step.masks(true, true) - step.masked
        # The cells to write are those of the student's own choice (their route): a wrong one carries.
        masked = step.masks(used, true)
        same = all(used[k] is true[k] or same_values(used[k], true[k]) for k in step.inputs)
        carried = None if same else step.compute(*[used[k] for k in step.inputs])
        if carried is not None and same_values(carried, value):
            carried = None
        written = cells.get(step.key)
        if written is None:
            written = tuple(tuple(BLANK for _ in row) for row in value)
        easy = _trivial(step, carried, value, [used[k] for k in step.inputs], [true[k] for k in step.inputs],
                        masked, hollow, made_up)
        verdicts, used[step.key] = chain.step(written, value, carried, masked, easy.cells)
        wrong = sum(v == "wrong" for row in verdicts for v in row)
        # Made up: two cells or more wrong, and most of them, or the grid one value or one row or column
        # repeated (K written as 1s where the key has 1s in half its cells); one slip never is.
        if (wrong >= 2 and (2 * wrong > len(_cells(value, masked)) or repeated(used[step.key], masked))) or (
                carried is not None and any(k in made_up for k in step.inputs)):
            made_up.add(step.key)
        # The student followed the step's degenerate arithmetic: nothing carried on from it counts.
        graded = _cells(value, masked)
        if easy.cells and easy.cells >= frozenset(graded) and all(used[step.key][i][j] == carried[i][j]
                                                                  for i, j in graded):
            hollow.add(step.key)
        grades.append(StepGrade(step.key[0], step.key[1], _frozen(verdicts), _frozen(value),
                                _frozen(value if carried is None else carried), written, trivial,
                                easy.why if easy.cells else ""))
    return Evaluated(true, tuple(grades), skipped)


def _cells(grid: Values, masked: frozenset) -> list[tuple[int, int]]:
    return [(i, j) for i, row in enumerate(grid) for j in range(len(row)) if (i, j) not in masked]


def _trivial(step: Step, carried: Optional[Values], true: Values, used: Sequence[Values],
             inputs: Sequence[Values], masked: frozenset, hollow: set, made_up: set) -> Degenerate:
    """The cells of a step whose carried value earns only the trivial credit: those the student's
    inputs, where made up (`made_up`), leave degenerate by the step's operation where the true
    inputs do not, and every cell of a step fed by one they left wholly degenerate (`hollow`)."""
    if carried is None or not any(k in made_up for k in step.inputs):
        return NONE
    if any(k in hollow for k in step.inputs):
        return Degenerate(frozenset(_cells(true, masked)), N_("carried from a step left with nothing to compute"))
    return degenerate_where_true_is_not(step.op, used, carried, inputs, true, masked)


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


def affine_pairs(*grids: Sequence[Sequence[Optional[Number]]]) -> Values:
    """w1·x1 + w2·x2 + … + bias (`grids`: w1, x1, w2, x2, …, the bias as a column): by hand one
    row · column, [w1 | w2 | … | b]·[x1 ; x2 ; … ; 1]."""
    *pairs, bias = grids
    weights = [sum((list(pairs[k][i]) for k in range(0, len(pairs), 2)), []) + [bias[i][0]]
               for i in range(len(bias))]
    inputs = [list(r) for k in range(1, len(pairs), 2) for r in pairs[k]]
    return product(weights, inputs + [[1] * len(pairs[1][0])])


def argmax_rows(a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """One row: for each column, the row (1-based) of its largest cell, a tie going to the first;
    None where the column has a missing cell."""
    out = []
    for col in zip(*a):
        out.append(None if None in col else 1 + max(range(len(col)), key=lambda i: (col[i], -i)))
    return [out]


def route_of(route: Sequence[Sequence[Optional[Number]]], j: int, choices: int) -> Optional[int]:
    """Column j's choice in a route's one row, 0-based; None where it names none of `choices`."""
    r = route[0][j] if route and j < len(route[0]) else None
    return int(r) - 1 if r is not None and r == int(r) and 1 <= r <= choices else None


def picked(route: Sequence[Sequence[Optional[Number]]], a: Sequence[Sequence[Optional[Number]]]) -> Values:
    """One row: for each column, its cell in the row its route names (None for no such row)."""
    out = []
    for j in range(len(a[0])):
        r = route_of(route, j, len(a))
        out.append(None if r is None else a[r][j])
    return [out]


def routed(route: Sequence[Sequence[Optional[Number]]], w: Sequence[Sequence[Optional[Number]]],
           x: Sequence[Sequence[Optional[Number]]], blocks: int) -> Values:
    """w·x with each column's sum over the block of x's rows its route names (and w's matching
    columns): x's rows are `blocks` equal blocks, one per choice; None where the route names none."""
    size = len(x) // blocks
    out = [[None] * len(x[0]) for _ in w]
    for j in range(len(x[0])):
        r = route_of(route, j, blocks)
        if r is None:
            continue
        col = [x[k][j] for k in range(r * size, (r + 1) * size)]
        for i, row in enumerate(w):
            out[i][j] = dot(list(row[r * size:(r + 1) * size]), col)
    return out


def scaled_columns(a: Sequence[Sequence[Optional[Number]]], s: Sequence[Sequence[Optional[Number]]]) -> Values:
    """Each column of a times its weight in s's one row; None where either is missing."""
    return [[None if x is None or s[0][j] is None else guarded(lambda: normalize(x * s[0][j]))
             for j, x in enumerate(r)] for r in a]


def routed_cells(route: Sequence[Sequence[Optional[Number]]], true: Sequence[Sequence[Optional[Number]]],
                 rows: int, blocks: int) -> frozenset:
    """The cells (row, col) of a grid of `blocks` blocks of rows (`rows` in all) that a route leaves
    empty: in each column every block but the one it names (the true route's where it names none)."""
    size = rows // blocks
    out = set()
    for j in range(len(true[0])):
        r = route_of(route, j, blocks)
        r = route_of(true, j, blocks) if r is None else r
        out |= {(i, j) for i in range(rows) if not r * size <= i < (r + 1) * size}
    return frozenset(out)


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
