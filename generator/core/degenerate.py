"""When a step, worked on given numbers, leaves no arithmetic worth credit: one rule per operation.

Error carried forward credits a cell for the right arithmetic on the student's own wrong inputs.
Some inputs leave nothing to work: a softmax column whose scores are all equal, a ReLU that
zeroes nothing or everything, a product whose factor is constant, a copy of a constant, a route
decided by a tie. Each operation (core/ops) says which of its cells such inputs make degenerate, by the rules here; the
grader (graph.evaluate) marks a carried cell "trivial" where the student's inputs make it so and
the true inputs do not, and everything carried on from a step made wholly degenerate is trivial
too. Every kind inherits the rule from the operations its steps declare.

The rule looks only downstream of numbers the student made up (a grid written with two cells or
more wrong, and most of them or one value or one row or column throughout; and what is carried
from it): one slip's trail that happens to make a grid constant (a 3 where the key's column is
3, 3, 2) is carried as every slip's trail is.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from generator.core.words import N_

Grid = Sequence[Sequence]
Cell = tuple[int, int]


@dataclass(frozen=True)
class Degenerate:
    """The cells of a step's grid that its inputs leave degenerate, and why (a message id)."""

    cells: frozenset[Cell]
    why: str = ""

    def __bool__(self) -> bool:
        return bool(self.cells)


NONE = Degenerate(frozenset())


def cells(grid: Grid, masked: frozenset) -> list[Cell]:
    """A grid's cells outside the mask."""
    return [(i, j) for i, row in enumerate(grid) for j in range(len(row)) if (i, j) not in masked]


def values(grid: Grid, masked: frozenset = frozenset()) -> list:
    """A grid's values outside the mask."""
    return [grid[i][j] for i, j in cells(grid, masked)]


def constant(grid: Grid, masked: frozenset = frozenset()) -> bool:
    """Whether a grid of at least two cells holds one value throughout (missing values tell nothing)."""
    found = values(grid, masked)
    return len(found) >= 2 and None not in found and all(x == found[0] for x in found)


def _lines_alike(lines: list[list]) -> bool:
    """Whether at least two lines of at least two values each are one line repeated."""
    return len(lines) >= 2 and len(lines[0]) >= 2 and all(None not in line and line == lines[0] for line in lines)


def repeated(grid: Grid, masked: frozenset = frozenset()) -> bool:
    """Whether a grid is one value throughout, one row repeated or one column repeated (each cell
    outside the mask): every cell of it the same computation as another's."""
    if constant(grid, masked):
        return True
    rows = [[x for j, x in enumerate(r) if (i, j) not in masked] for i, r in enumerate(grid)]
    columns = [[x for i, x in enumerate(c) if (i, j) not in masked] for j, c in enumerate(zip(*grid))]
    # Under a mask the rows differ in length: only a full grid's rows and columns are compared.
    return not masked and (_lines_alike(rows) or _lines_alike(columns))


def whole(output: Grid, masked: frozenset, why: str) -> Degenerate:
    """Every cell of a step's output outside the mask, degenerate for one reason."""
    return Degenerate(frozenset(cells(output, masked)), why)


def _output_rule(output: Grid, masked: frozenset) -> Degenerate:
    """Any step: a grid that is one value, or one row or one column repeated, is one computation done again."""
    if repeated(output, masked):
        return whole(output, masked, N_("one value, or one row or column, throughout"))
    return NONE


Rule = Callable[[Any, Sequence[Grid], Grid, frozenset], Degenerate]
"""An operation's rule: (the step's op, its inputs, its output, its mask) → the cells it leaves degenerate."""


def degenerate(op: Optional[Any], inputs: Sequence[Grid], output: Grid, masked: frozenset = frozenset()) -> Degenerate:
    """The cells of a step's `output`, worked by `op` on `inputs`, that leave nothing worth crediting."""
    found = findings(op, inputs, output, masked)
    return Degenerate(frozenset().union(*(f.cells for f in found)), found[0].why) if found else NONE


def findings(
    op: Optional[Any], inputs: Sequence[Grid], output: Grid, masked: frozenset = frozenset()
) -> list[Degenerate]:
    """What each rule of the step finds degenerate (its operation's own rule, then the rule every
    step has), leaving out the rules that find nothing."""
    if not output or not output[0]:
        return []
    found = [rule(op, inputs, output, masked) for rule in (op.operation.rules if op is not None else ())]
    if op is None or not op.operation.choice:  # a route repeated is no computation repeated
        found.append(_output_rule(output, masked))
    return [f for f in found if f]


def trivial(
    op: Optional[Any],
    used: Sequence[Grid],
    carried: Grid,
    inputs: Sequence[Grid],
    true: Grid,
    masked: frozenset = frozenset(),
) -> Degenerate:
    """The cells the student's inputs (`used`, giving `carried`) leave degenerate where the true
    `inputs` (giving `true`) do not, rule by rule: what the problem itself makes so is no one's fault
    (a ReLU the key's numbers give nothing to zero), but another rule's finding still counts."""
    nature = {f.why: f.cells for f in findings(op, inputs, true, masked)}
    kept = [Degenerate(f.cells - nature.get(f.why, frozenset()), f.why) for f in findings(op, used, carried, masked)]
    kept = [f for f in kept if f]
    return Degenerate(frozenset().union(*(f.cells for f in kept)), kept[0].why) if kept else NONE
