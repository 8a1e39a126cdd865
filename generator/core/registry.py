"""The exercise kinds, found as plug-ins; solving, grading and answers' shapes go through here.

A kind is a package above the core (the built-in ones in generator/kinds/, a teacher's own in a
package of their own) whose `Kind` object its package declares in the `attnsheet.kinds`
entry-point group: its parts, each in its layer — `steps` (its problem, the graph of its steps,
problem@1 and solution@1: pure, as core is), `draw` (its options, presets, guarantees and
seeded draw), `sheet` (where its grids go, its words), `settings` (what a teacher chooses, with
its help). The built-in kinds are registered exactly as a third party's are. The core imports
none of them: they are loaded the first time a kind is asked for, each checked against the
protocol (kinds.protocol); one that lacks a member, raises as it loads, or claims another's
code number is refused in one line, and the tool goes on with the others.

The code that serves every kind asks for a kind's part (`part`) and never names a kind.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from generator.core.errors import ProblemError
from generator.core.grade import Answers, Grade, Grid, StepGrade
from generator.core.problem import transpose

GROUP = "attnsheet.kinds"
"""The entry-point group every kind is registered in, built-in or not."""
PARTS = ("steps", "draw", "sheet", "settings")
"""A kind's parts, each a module (or any object) with its layer's members (kinds.protocol)."""

if TYPE_CHECKING:
    from generator.core.graph import Key


@dataclass(frozen=True)
class Kind:
    """One exercise: its name in problem@1's `kind`, its sheet-code number, where the form lists it,
    and its parts, each loaded when first asked for (`solve` needs the steps alone: the draw and
    the sheet load numpy and the layout) and checked against its protocol then."""

    name: str
    """Its name in problem@1 (`kind`) and on the command line (`--kind`)."""
    code: int
    """Its number in sheet codes: never another kind's, never reused (a clash is refused)."""
    load: Callable[[str], Any]
    """load(part) -> the part (steps, draw, sheet or settings): a module with its protocol's members."""
    order: int = 1000
    """Where the form and `--kind` list it (the built-in ones first, a plug-in after them)."""
    default: bool = False
    """The kind of a problem@1 that names none (every file written before there were kinds)."""
    later: tuple[int, ...] = ()
    """The numbers its later draws' codes carry, in order (`code` is its first draw's): a code
    keeps rebuilding what its draw drew when a later draw changes a guarantee."""
    _parts: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def numbers(self) -> tuple[int, ...]:
        """Every number its codes carry, its first draw's first."""
        return (self.code, *self.later)

    def part(self, which: str) -> Any:
        """One of its parts, loaded and checked once; ProblemError, in one line, if it breaks the protocol."""
        if which not in self._parts:
            from generator.core.protocol import part_lacks

            found = self.load(which)
            missing = part_lacks(which, found)
            if missing:
                raise ProblemError(f"kind {self.name!r}: its {which} lacks {', '.join(missing)}")
            self._parts[which] = found
        return self._parts[which]

    @property
    def steps(self) -> Any:
        """Its problem, step graph, problem@1 and solution@1, its words for the solve text (pure)."""
        return self.part("steps")

    @property
    def draw(self) -> Any:
        """Its options, presets, guarantees, seeded draw and sheet-code fields."""
        return self.part("draw")

    @property
    def sheet(self) -> Any:
        """Where its grids go on a sheet, the entry form's blocks, its words."""
        return self.part("sheet")

    @property
    def settings(self) -> Any:
        """What a teacher chooses for it (its settings, their help, its title)."""
        return self.part("settings")


def parted(settings: Any, steps: Callable[[], Any], heavy: Callable[[], tuple[Any, Any]]) -> Callable[[str], Any]:
    """A kind's `load` from its settings, at hand (what a teacher chooses: every start reads them),
    `steps()`, which loads its problem and graph when first asked for (solving loads no other
    kind's), and `heavy()`, which loads its draw and its sheet (numpy and the layout, which solving
    never needs)."""

    def load(which: str) -> Any:
        if which == "settings":
            return settings
        if which == "steps":
            return steps()
        draw, sheet = heavy()
        return draw if which == "draw" else sheet

    return load


_lock = threading.Lock()
_kinds: Optional[dict[str, Kind]] = None
_refused: list[str] = []


def _load() -> dict[str, Kind]:
    """Every kind registered in GROUP, checked; loaded once."""
    global _kinds
    if _kinds is not None:
        return _kinds
    with _lock:
        if _kinds is None:
            found, refused = _found(_points())
            _refused[:] = refused
            if refused:
                import logging  # only to say a kind was refused: the tool starts without it

                for line in refused:
                    logging.getLogger("attnsheet.kinds").warning(line)
            _kinds = found
    return _kinds


def _found(points) -> tuple[dict[str, Kind], list[str]]:
    """The kinds the entry points give, by name in their order, and a line for each refused."""
    from generator.core.protocol import lacking  # the protocol names every part's members

    kinds: list[Kind] = []
    refused: list[str] = []
    for point in points:
        try:
            kind = point.load()
        except Exception as error:  # a plug-in that fails as it loads never takes the tool down
            refused.append(
                f"kind {point.name!r} ({point.value}) refused: it fails to load: "
                f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"
            )
            continue
        try:
            missing = lacking(kind) if isinstance(kind, Kind) else ["a Kind (generator.core.registry.Kind)"]
        except Exception as error:  # its steps fail as they load
            missing = [
                f"steps that load ({type(error).__name__}: {str(error).splitlines()[0][:100] if str(error) else ''})"
            ]
        if missing:
            refused.append(f"kind {point.name!r} ({point.value}) refused: it lacks {', '.join(missing)}")
            continue
        kinds.append(kind)
    kinds.sort(key=lambda k: (k.order, k.name))
    out: dict[str, Kind] = {}
    numbers: dict[int, str] = {}
    for kind in kinds:
        if kind.name in out:
            refused.append(f"kind {kind.name!r} refused: another kind of that name is registered")
        elif any(n in numbers for n in kind.numbers):
            taken = next(n for n in kind.numbers if n in numbers)
            refused.append(f"kind {kind.name!r} refused: it claims code number {taken}, which is {numbers[taken]!r}'s")
        else:
            out[kind.name] = kind
            numbers.update({n: kind.name for n in kind.numbers})
    return out, refused


def registered(points=None) -> tuple[dict[str, Kind], list[str]]:
    """The kinds given entry points would register, and the lines refusing the others (for a test,
    or a teacher's check of their own package)."""
    return _found(_points() if points is None else points)


def _points():
    """The entry points of GROUP: read when a kind is first asked for (the metadata reader is not light)."""
    from importlib.metadata import entry_points

    return entry_points(group=GROUP)


def refused() -> list[str]:
    """The lines of the kinds refused when the registry loaded (each says which and why)."""
    _load()
    return list(_refused)


def kinds() -> tuple[str, ...]:
    """Every kind by name, in the order the form offers them."""
    return tuple(_load())


def default_kind() -> str:
    """The kind of a problem@1 without `kind`."""
    loaded = _load()
    return next((k.name for k in loaded.values() if k.default), next(iter(loaded), ""))


def kind(name: str) -> Kind:
    """The kind of `name`; ProblemError for a name no kind has."""
    loaded = _load()
    if name not in loaded:
        if not loaded:
            raise ProblemError(
                "no exercise kind is installed (the attnsheet.kinds entry points): "
                "install attnsheet again (pip install -e .)"
            )
        raise ProblemError(f"kind: expected one of {', '.join(loaded)}, got {name!r}")
    return loaded[name]


def part(name: str, which: str):
    """A kind's part (steps, draw, sheet, settings)."""
    if which not in PARTS:
        raise ValueError(which)
    return kind(name).part(which)


def by_code(number: int) -> Optional[Kind]:
    """The kind whose sheet-code number is `number`, if one is registered."""
    return next((k for k in _load().values() if number in k.numbers), None)


def steps_of(name: str):
    """A kind's steps: its problem type, graph, JSON and solution."""
    return kind(name).steps


def _names(member: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for k in _load().values() for n in getattr(k.steps, member, ())))


def head_steps() -> tuple[str, ...]:
    """Every name a grid in a head can have, in any kind (what an answers file may name)."""
    return _names("HEAD_STEPS")


def final_steps() -> tuple[str, ...]:
    """Every name a grid outside the heads can have, in any kind."""
    return _names("FINAL_STEPS")


def flat_steps() -> frozenset[str]:
    """Grids written as one row in both conventions, a flat list in answers@1 and grade@1 (attention's sums)."""
    return frozenset(_names("FLAT"))


def kind_of(problem):
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
    kind_ = kind_of(problem)
    work = kind_.column_twin(problem)
    row = problem.convention == "row"
    flat = flat_steps()

    def twin(name: str, grid: Grid) -> Grid:
        return grid if name in flat or not row else transpose(grid)

    cells: dict[Key, Grid] = {(None, name): twin(name, grid) for name, grid in answers.final.items()}
    for h, grids in enumerate(answers.heads[: heads_of(problem)], start=1):
        cells.update({(h, name): twin(name, grid) for name, grid in grids.items()})
    from generator.core.graph import evaluate  # the graph and its operations load once there is work

    graded = evaluate(kind_.steps(work), kind_.given(work), cells, carry, trivial).grades
    if row:
        graded = tuple(_row_layout(g, flat) for g in graded)
    return Grade(steps=graded, carry=carry, code=answers.code, student=answers.student, trivial=trivial)


def _row_layout(g: StepGrade, flat: frozenset) -> StepGrade:
    """A step's grade in the row convention's layout (flat grids stay one row)."""
    if g.step in flat:
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
    kind_ = kind_of(problem)
    return getattr(kind_, "HEAD_STEPS", ()), kind_.FINAL_STEPS


def step_inputs(problem) -> dict[Key, tuple[Key, ...]]:
    """Each step's inputs, by key: the givens and the earlier steps its cells are computed from."""
    kind_ = kind_of(problem)
    return {step.key: step.inputs for step in kind_.steps(kind_.column_twin(problem))}


def heads_of(problem) -> int:
    """How many heads a problem's sheet has (0 for a kind without attention to work)."""
    return len(getattr(problem, "heads", ()) or ())
