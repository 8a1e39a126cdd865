"""A sheet of any kind worked in front of a class, one cell at a time: which factors to light up, the arithmetic, the value.

Derived from the kind's graph alone: each step's operation says how a cell is made (core/ops: a
product lights the row of its left factor and the column of the one above; a rule the same cell
of its input; a sum a column...), its face what it is called. The graph is in the column convention; a
row-convention sheet shows every grid transposed, so every frame is transposed with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from generator.core.graph import Key, evaluate
from generator.core.registry import kind_of, part
from generator.core.numbers import sheet_value
from generator.sheet.i18n import translations

Lit = tuple[Optional[int], str, Optional[int], Optional[int]]
"""A grid lit up: (head, its name, a row or None for every row, a column or None for every column)."""


@dataclass(frozen=True)
class Frame:
    """One moment of the walk-through: a cell revealed, the cells it comes from lit up."""

    place: tuple[Optional[int], str]
    """The grid the cell is in: (head, its step's name)."""
    cell: tuple[int, int]
    """The cell, in the sheet's layout (row, column), 0-based; (-1, -1): the whole grid at once (a copy)."""
    lit: tuple[Lit, ...]
    """What it comes from, in the sheet's layout."""
    text: str
    """What is worked out, in the sheet's language: the rule, the products and their sum."""
    value: str
    """The cell's value, as the key writes it."""
    step: str
    """The step it belongs to (frames of one step are walked through together with a step key)."""
    transposed: bool = False
    """A whole-grid frame whose grid is its source's transpose (Kᵀ)."""


def frames(problem, solution=None, lang: str = "en") -> tuple[Frame, ...]:
    """Every cell of a sheet of any kind, in the order a student works it, with what it comes from."""
    _ = translations(lang).gettext
    kind = kind_of(problem)
    work = kind.column_twin(problem)
    steps = kind.steps(work)
    solved = evaluate(steps, kind.given(work))
    row = problem.convention == "row"
    shown_in = getattr(part(problem.kind, "sheet"), "SHOWN_IN", {})
    symbols = {s.key: s.face.symbol for s in steps if s.face is not None}
    out: list[Frame] = []
    for step in steps:
        if step.op is None:
            continue
        out += _step_frames(step, solved.values, row, _, shown_in, solved.skipped.get(step.key, frozenset()), symbols)
    return tuple(out)


def _step_frames(
    step, values: dict, row: bool, _, shown_in: dict, skipped: frozenset = frozenset(), symbols: Optional[dict] = None
) -> list[Frame]:
    """One step's frames, in the sheet's layout (`skipped`: the cells its route leaves empty;
    `symbols`: the steps' symbols, by key)."""
    head, name = step.key
    op, result = step.op, values[step.key]
    frames: list[Frame] = []

    def place(k: Key) -> tuple[Optional[int], str]:
        # Inputs keyed outside the heads (X) are drawn again in every head: the head's own copy lights;
        # a given drawn inside another grid (a bias in its weights' last column) lights that grid.
        return (k[0] if k[0] is not None else head, shown_in.get(k[1], k[1]))

    def add(i: int, j: int, lit: list[tuple[Key, Optional[int], Optional[int]]], text: str) -> None:
        value = sheet_value(result[i][j])
        here = [(*place(k), r, c) for k, r, c in lit]
        if row:
            i, j = j, i
            here = [(h, n, c, r) for h, n, r, c in here]
        frames.append(Frame((head, name), (i, j), tuple(here), f"{text} = {value}", value, name))

    if op.operation.whole:
        lit = tuple((*place(k), None, None) for k in step.inputs)
        return [Frame((head, name), (-1, -1), lit, _(step.face.caption_in(row)), "", name, op.operation.transposes)]
    for i, r in enumerate(result):
        for j, x in enumerate(r):
            if (i, j) in step.masked or (i, j) in skipped or x is None:
                continue  # struck out by the causal mask, or left empty by the route: nothing to work
            add(i, j, *op.operation.work(op, step, values, i, j, symbols or {}, _))
    return frames


def frames_json(all_frames: tuple[Frame, ...]) -> list[dict]:
    """Frames as the projector page's script reads them (heads as strings, "" outside the heads)."""

    def key(head: Optional[int], name: str) -> str:
        return f"{head or ''}:{name}"

    return [
        {
            "box": key(*f.place),
            "i": f.cell[0],
            "j": f.cell[1],
            "step": f.step,
            "text": f.text,
            "value": f.value,
            "transposed": f.transposed,
            "lit": [{"box": key(hd, name), "i": i, "j": j} for hd, name, i, j in f.lit],
        }
        for f in all_frames
    ]
