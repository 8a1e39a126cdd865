"""The exercise kinds, each one folder registered here by name; solving, grading and answers' shapes go through here.

A kind's folder holds every part of it, each in its layer: `steps` (its problem, the graph of
its steps, problem@1 and solution@1: pure, as core is), `draw` (its options, presets,
guarantees and seeded draw), `sheet` (where its grids go, its words), `settings` (what a
teacher chooses, with its help). The code that serves every kind asks for a kind's part by
name (`part`), in its own layer, and never names a kind.
"""

from __future__ import annotations

from importlib import import_module
from dataclasses import replace
from types import ModuleType

from generator.core.errors import ProblemError
from generator.core.grade import Answers, Grade, Grid, StepGrade
from generator.core.graph import Key, evaluate
from generator.core.problem import transpose

KINDS: tuple[str, ...] = ("attention", "ffn", "transformer", "rnn", "moe")
"""Every kind by its name in problem@1's `kind`, in the order the form offers them: a new kind is
its folder and its name here."""
DEFAULT_KIND = KINDS[0]
"""The kind of a problem@1 without `kind` (every file written before there were kinds)."""


def part(kind: str, name: str) -> ModuleType:
    """A kind's part by name (steps, draw, sheet, settings), loaded when first asked for."""
    if kind not in KINDS:
        raise ProblemError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    return import_module(f"{__name__}.{kind}.{name}")


def steps_of(kind: str) -> ModuleType:
    """A kind's steps: its problem type, graph, JSON and solution."""
    return part(kind, "steps")


_STEPS = [steps_of(kind) for kind in KINDS]  # pure, as core is: loaded with the registry
HEAD_STEPS = tuple(dict.fromkeys(name for kind in _STEPS for name in kind.HEAD_STEPS))
"""Every name a grid in a head can have, in any kind (what an answers file may name)."""
FINAL_STEPS = tuple(dict.fromkeys(name for kind in _STEPS for name in kind.FINAL_STEPS))
"""Every name a grid outside the heads can have, in any kind."""
FLAT_STEPS = frozenset(name for kind in _STEPS for name in kind.FLAT)
"""Grids written as one row in both conventions, a flat list in answers@1 and grade@1 (attention's sums)."""


def kind_of(problem) -> ModuleType:
    """The steps of a problem's kind."""
    return steps_of(problem.kind)


def metrics(problem, solution=None) -> dict:
    """Difficulty figures of one problem (its kind's: see its steps' `metrics`)."""
    return kind_of(problem).metrics(problem, solution)


def solve(problem):
    """Every step of a problem's answer, exactly."""
    return kind_of(problem).solve(problem)


def grade(problem, answers: Answers, carry: bool = True, trivial: str = "none") -> Grade:
    """Grade what a student wrote against the problem's true values, with error carried forward:
    the kind's steps evaluated on the student's own cells (see `graph.evaluate`).

    With `carry` off, a cell that follows from the student's own wrong cells counts as wrong; a
    cell carried from inputs that make its step trivial earns the `trivial` credit (none, half, full).
    Work is done in the column convention; a row-convention sheet is graded as its transposed
    twin, and its grades are given back in the sheet's layout.
    """
    kind = kind_of(problem)
    work = kind.column_twin(problem)
    row = problem.convention == "row"

    def twin(name: str, grid: Grid) -> Grid:
        return grid if name in FLAT_STEPS or not row else transpose(grid)

    cells: dict[Key, Grid] = {(None, name): twin(name, grid) for name, grid in answers.final.items()}
    for h, grids in enumerate(answers.heads[:heads_of(problem)], start=1):
        cells.update({(h, name): twin(name, grid) for name, grid in grids.items()})
    graded = evaluate(kind.steps(work), kind.given(work), cells, carry, trivial).grades
    if row:
        graded = tuple(_row_layout(g) for g in graded)
    return Grade(steps=graded, carry=carry, code=answers.code, student=answers.student, trivial=trivial)


def _row_layout(g: StepGrade) -> StepGrade:
    """A step's grade in the row convention's layout (flat grids stay one row)."""
    if g.step in FLAT_STEPS:
        return g
    t = transpose
    return replace(g, verdicts=t(g.verdicts), expected=t(g.expected), carried=t(g.carried), written=t(g.written))


def grid_shapes(problem) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(rows, columns) of every grid a student writes: per head, and outside the heads."""
    return kind_of(problem).grid_shapes(problem)


def has_final(problem) -> bool:
    """Whether a sheet has grids outside its heads."""
    return bool(grid_shapes(problem)[1])


def step_names(problem) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of a kind's head steps and of its steps outside the heads, in working order."""
    kind = kind_of(problem)
    return kind.HEAD_STEPS, kind.FINAL_STEPS


def step_inputs(problem) -> dict[Key, tuple[Key, ...]]:
    """Each step's inputs, by key: the givens and the earlier steps its cells are computed from."""
    kind = kind_of(problem)
    return {step.key: step.inputs for step in kind.steps(kind.column_twin(problem))}


def heads_of(problem) -> int:
    """How many heads a problem's sheet has (0 for a kind without attention to work)."""
    return len(getattr(problem, "heads", ()) or ())

