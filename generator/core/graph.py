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

from generator.core.faces import Face, Op
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
    values, no arithmetic is done: carried = true. Where the student's inputs make the step
    trivial (`trivial_step`), its carried cells are "trivial" and earn the `trivial` credit.
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
    flat: set[Key] = set()  # the grids a student's own numbers left degenerate
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
        easy = carried is not None and any(k in flat for k in step.inputs) and trivial_step(
            carried, value, [used[k] for k in step.inputs], [true[k] for k in step.inputs], masked)
        verdicts, used[step.key] = chain.step(written, value, carried, masked, easy)
        # A grid the student made degenerate (written so, mostly wrong) or that follows degenerate from
        # one: the steps after it may be trivial. A slip's coincidence (a uniform A from one wrong K) is not.
        wrong = sum(v == "wrong" for row in verdicts for v in row)
        if degenerate(used[step.key], value, masked) and (
                2 * wrong > len(_flat(value, masked)) or any(k in flat for k in step.inputs)):
            flat.add(step.key)
        grades.append(StepGrade(step.key[0], step.key[1], _frozen(verdicts), _frozen(value),
                                _frozen(value if carried is None else carried), written, trivial))
    return Evaluated(true, tuple(grades), skipped)


MIN_TRIVIAL_CELLS = 4
"""The fewest cells a grid needs for its values to be judged trivial."""


def _flat(grid: Values, masked: frozenset = frozenset()) -> list:
    return [x for i, r in enumerate(grid) for j, x in enumerate(r) if (i, j) not in masked and x is not None]


def _constant(grid: Values, masked: frozenset = frozenset()) -> bool:
    values = _flat(grid, masked)
    return len(values) >= 2 and all(x == values[0] for x in values)


def _same_columns(grid: Values, masked: frozenset = frozenset()) -> bool:
    columns = [[x for i, x in enumerate(col) if (i, j) not in masked] for j, col in enumerate(zip(*grid))]
    return len(columns) > 1 and len(columns[0]) > 1 and None not in columns[0] and all(c == columns[0] for c in columns)


def _sized(grid: Values, masked: frozenset = frozenset()) -> bool:
    """Whether a grid is large enough for a pattern in it to say anything: four cells, or a row of three (sums)."""
    return len(_flat(grid, masked)) >= (3 if len(grid) == 1 else MIN_TRIVIAL_CELLS)


def degenerate(grid: Values, true: Values, masked: frozenset = frozenset()) -> bool:
    """Whether a grid holds one value throughout, or the same column repeated, where its true one does not."""
    if not _sized(true, masked):
        return False
    return (_constant(grid, masked) and not _constant(true, masked)) or \
        (_same_columns(grid, masked) and not _same_columns(true, masked))


def trivial_step(carried: Values, true: Values, used: Sequence[Values], inputs: Sequence[Values],
                 masked: frozenset) -> bool:
    """Whether a student's own inputs make a step trivial where its true inputs do not (the caller
    checks that an input of theirs is degenerate: one value throughout, or a column repeated, as
    Q written as zeros), the step's carried grid degenerate too (a product with zeros, 3^0 everywhere, 1/n, each column one
    computation done once) or its input unchanged (a ReLU with nothing to zero, adding zeros) —
    with most of its cells moved from the true ones (one slip's trail is not a step made trivial).
    Copies are never trivial in this sense: their true grid is a copy too."""
    if any(same_values(t, true) or (t and same_values(transposed(t), true)) for t in inputs):
        return False  # a copy (or a transpose): it is its input by nature
    here = _flat(true, masked)
    moved = sum(c != t for c, t in zip(_flat(carried, masked), here))
    if not _sized(true, masked) or 2 * moved <= len(here):
        return False
    if degenerate(carried, true, masked):
        return True
    return any(len(u) == len(carried) and same_values(u, carried) and not same_values(t, true)
               for u, t in zip(used, inputs) if u and t and len(u[0]) == len(carried[0]))


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
