"""When a step, worked on given numbers, leaves no arithmetic worth credit: one rule per operation.

Error carried forward credits a cell for the right arithmetic on the student's own wrong inputs.
Some inputs leave nothing to work: a softmax column whose scores are all equal, a ReLU that
zeroes nothing or everything, a product whose factor is constant, a copy of a constant, a route
decided by a tie. Each operation says here which of its cells such inputs make degenerate; the
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
from typing import Callable, Optional, Sequence

from generator.core.faces import ADD, AFFINE, ARGMAX, DIVIDE, N_, PRODUCT, ROUTED, RULE, SCALE, Op

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


def _cells(grid: Grid, masked: frozenset) -> list[Cell]:
    return [(i, j) for i, row in enumerate(grid) for j in range(len(row)) if (i, j) not in masked]


def _values(grid: Grid, masked: frozenset = frozenset()) -> list:
    return [grid[i][j] for i, j in _cells(grid, masked)]


def constant(grid: Grid, masked: frozenset = frozenset()) -> bool:
    """Whether a grid of at least two cells holds one value throughout (missing values tell nothing)."""
    values = _values(grid, masked)
    return len(values) >= 2 and None not in values and all(x == values[0] for x in values)


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


def _whole(output: Grid, masked: frozenset, why: str) -> Degenerate:
    return Degenerate(frozenset(_cells(output, masked)), why)


def _output_rule(output: Grid, masked: frozenset) -> Degenerate:
    """Any step: a grid that is one value, or one row or one column repeated, is one computation done again."""
    if repeated(output, masked):
        return _whole(output, masked, N_("one value, or one row or column, throughout"))
    return NONE


def _factors(op: Op, inputs: Sequence[Grid]) -> Sequence[Grid]:
    """The grids a step multiplies (not a bias, not a route)."""
    if op.name == AFFINE:
        return inputs[:-1]
    if op.name == ROUTED:
        return inputs[1:]
    return inputs


def _product_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A product whose factor is one value throughout (zeros, ones): every cell is a row's or a
    column's sum scaled, or nothing."""
    if any(constant(f) for f in _factors(op, inputs)):
        return _whole(output, masked, N_("a factor of one value throughout"))
    return NONE


def _sum_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A sum of grids one of which is one value throughout (zeros, ones): one number added to every cell."""
    if any(constant(grid) for grid in inputs):
        return _whole(output, masked, N_("one value added throughout"))
    return NONE


def _unchanged_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A rule cell by cell that gives its input back unchanged (a ReLU that zeroes nothing)."""
    for grid in inputs:
        if len(grid) == len(output) and all(len(a) == len(b) for a, b in zip(grid, output)) and \
                all(grid[i][j] == output[i][j] for i, j in _cells(output, masked)) and _cells(output, masked):
            return _whole(output, masked, N_("its input given back unchanged"))
    return NONE


def _zeroed_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A rule cell by cell that gives zero everywhere (a ReLU that zeroes everything)."""
    values = _values(output, masked)
    if values and all(x == 0 for x in values):
        return _whole(output, masked, N_("every value zeroed"))
    return NONE


def _softmax_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A division by column sums whose column is one value throughout: every weight 1/n."""
    top = inputs[0]
    cells = set()
    for j in range(len(output[0]) if output else 0):
        column = [(i, j) for i in range(len(output)) if (i, j) not in masked]
        values = [top[i][j] for i, _ in column]
        if len(values) >= 2 and None not in values and all(x == values[0] for x in values):
            cells.update(column)
    return Degenerate(frozenset(cells), N_("a column of equal values, each weight 1/n")) if cells else NONE


def _argmax_rule(op: Op, inputs: Sequence[Grid], output: Grid, masked: frozenset) -> Degenerate:
    """A choice by the largest value where two are largest: decided by the tie, not the numbers."""
    cells = set()
    for j, column in enumerate(zip(*inputs[0])):
        if None not in column and sum(x == max(column) for x in column) > 1:
            cells.add((0, j))
    return Degenerate(frozenset(cells), N_("a choice decided by a tie")) if cells else NONE


Rule = Callable[[Op, Sequence[Grid], Grid, frozenset], Degenerate]
RULES: dict[str, tuple[Rule, ...]] = {
    PRODUCT: (_product_rule,),
    AFFINE: (_product_rule,),
    ROUTED: (_product_rule,),
    SCALE: (_product_rule,),
    RULE: (_zeroed_rule, _unchanged_rule),
    ADD: (_sum_rule,),
    DIVIDE: (_softmax_rule,),
    ARGMAX: (_argmax_rule,),
}
"""Each operation's own rule, beside the rule every step has (its grid one computation repeated)."""
CHOICES = frozenset((ARGMAX,))
"""Operations whose cells are choices, not computations: a route repeated is no computation repeated."""


def degenerate(op: Optional[Op], inputs: Sequence[Grid], output: Grid, masked: frozenset = frozenset()) -> Degenerate:
    """The cells of a step's `output`, worked by `op` on `inputs`, that leave nothing worth crediting."""
    found = findings(op, inputs, output, masked)
    return Degenerate(frozenset().union(*(f.cells for f in found)), found[0].why) if found else NONE


def findings(op: Optional[Op], inputs: Sequence[Grid], output: Grid, masked: frozenset = frozenset()) -> list[Degenerate]:
    """What each rule of the step finds degenerate (its operation's own rule, then the rule every
    step has), leaving out the rules that find nothing."""
    if not output or not output[0]:
        return []
    found = [rule(op, inputs, output, masked) for rule in (RULES.get(op.name, ()) if op is not None else ())]
    if op is None or op.name not in CHOICES:
        found.append(_output_rule(output, masked))
    return [f for f in found if f]


def trivial(op: Optional[Op], used: Sequence[Grid], carried: Grid, inputs: Sequence[Grid], true: Grid,
            masked: frozenset = frozenset()) -> Degenerate:
    """The cells the student's inputs (`used`, giving `carried`) leave degenerate where the true
    `inputs` (giving `true`) do not, rule by rule: what the problem itself makes so is no one's fault
    (a ReLU the key's numbers give nothing to zero), but another rule's finding still counts."""
    nature = {f.why: f.cells for f in findings(op, inputs, true, masked)}
    kept = [Degenerate(f.cells - nature.get(f.why, frozenset()), f.why) for f in findings(op, used, carried, masked)]
    kept = [f for f in kept if f]
    return Degenerate(frozenset().union(*(f.cells for f in kept)), kept[0].why) if kept else NONE
