"""Exercises as graphs of steps: one evaluator solves them on true values and grades a student's cells.

A kind declares its steps once (name, inputs, compute, the cells its mask leaves out); `evaluate`
runs them in order. Without written cells it is the solver. With them it is the grader with
error carried forward: each step's carried value is the same compute applied to the student's
own cells of its inputs, so every kind gets ECF grading from its declaration alone.

Pure: no I/O. Grids are in the column convention, rows first; a kind transposes at its edges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

from generator.core.degenerate import NONE, Degenerate, repeated
from generator.core.degenerate import trivial as degenerate_where_true_is_not
from generator.core.faces import N_, Face, Op
from generator.core.ops.base import Values
from generator.core.grade import BLANK, Chain, Grid, StepGrade
from generator.core.numbers import Number

Key = tuple[Optional[int], str]
"""A grid's place: (head, name), head 1-based or None for a grid outside the heads (the givens
of a head are keyed by their head too: (2, "W_Q"))."""


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


def evaluate(
    steps: Sequence[Step],
    given: Mapping[Key, Values],
    cells: Optional[Mapping[Key, Grid]] = None,
    carry: bool = True,
    trivial: str = "none",
) -> Evaluated:
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
        easy = _trivial(
            step,
            carried,
            value,
            [used[k] for k in step.inputs],
            [true[k] for k in step.inputs],
            masked,
            hollow,
            made_up,
        )
        verdicts, used[step.key] = chain.step(written, value, carried, masked, easy.cells)
        wrong = sum(v == "wrong" for row in verdicts for v in row)
        # Made up: two cells or more wrong, and most of them, or the grid one value or one row or column
        # repeated (K written as 1s where the key has 1s in half its cells); one slip never is.
        if (wrong >= 2 and (2 * wrong > len(_cells(value, masked)) or repeated(used[step.key], masked))) or (
            carried is not None and any(k in made_up for k in step.inputs)
        ):
            made_up.add(step.key)
        # The student followed the step's degenerate arithmetic: nothing carried on from it counts.
        graded = _cells(value, masked)
        if (
            easy.cells
            and easy.cells >= frozenset(graded)
            and all(used[step.key][i][j] == carried[i][j] for i, j in graded)
        ):
            hollow.add(step.key)
        grades.append(
            StepGrade(
                step.key[0],
                step.key[1],
                _frozen(verdicts),
                _frozen(value),
                _frozen(value if carried is None else carried),
                written,
                trivial,
                easy.why if easy.cells else "",
            )
        )
    return Evaluated(true, tuple(grades), skipped)


def _cells(grid: Values, masked: frozenset) -> list[tuple[int, int]]:
    return [(i, j) for i, row in enumerate(grid) for j in range(len(row)) if (i, j) not in masked]


def _trivial(
    step: Step,
    carried: Optional[Values],
    true: Values,
    used: Sequence[Values],
    inputs: Sequence[Values],
    masked: frozenset,
    hollow: set,
    made_up: set,
) -> Degenerate:
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
