"""A kind's problem declared by its givens: problem@1 read and written, its column twin and its solution, once for every kind.

A kind lists its givens (`Given`: a matrix or a vector of integers, its shape in words) and its
yes-or-no fields; `read_problem`, `problem_json`, `twin`, `solve_graph` and `solution_json` do
what each kind's problem@1 reader and writer, its row-to-column rewriting and its solver did by
hand. problem@1's keys are written in one order for every kind: format, kind, convention, the
givens in their declared order (an absent optional one as null), the flags, then code and metrics.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable, NamedTuple, Sequence

from generator.core.errors import ProblemError
from generator.core.faces import Face
from generator.core.fields import (
    checked_fraction,
    checked_object,
    choice,
    code_and_metrics,
    flag,
    int_matrix,
    int_scalar,
    int_vector,
    prefixed,
    with_code_and_metrics,
)
from generator.core.graph import evaluate
from generator.core.numbers import Matrix, encode, encode_matrix
from generator.core.problem import transpose


@dataclass(frozen=True)
class Given:
    """A given of a problem: a matrix of integers (`shape`: its rows and columns in words, in the
    column convention) or a vector (`shape`: its length in words), optional or not."""

    name: str
    """Its key in problem@1 and its field in the problem."""
    shape: tuple[str, ...]
    """("d_h", "d_x"): a matrix of d_h rows, d_x columns; ("d_h",): a vector of d_h entries; (): one
    integer (or, with `items`, a list of objects)."""
    optional: bool = False
    """It may be absent (null in problem@1, None in the problem)."""
    caption: str = ""
    """What it is, in a few words (a message id), for the solve text and the explanations."""
    tone: str = "weight"
    """Its colour family on a sheet (sheet/style.TONES)."""
    items: tuple["Given", ...] = ()
    """A list of objects, each of these givens (a mixture's experts, {W1, b1, W2} each): `shape` is ()."""
    of: Any = None
    """The type each object of the list is read into (its fields: `items`' names)."""

    @property
    def face(self) -> Face:
        """How it shows: its name as its symbol and its label in both conventions."""
        return Face(self.name, (self.name, self.name), self.caption, self.tone)

    @property
    def matrix(self) -> bool:
        """Whether it is a matrix (the row convention transposes it), not a vector."""
        return len(self.shape) == 2

    @property
    def listed(self) -> bool:
        """Whether it is a list of objects of givens."""
        return bool(self.items)

    def words(self, row: bool) -> str:
        """Its shape in words, in a convention: "d_h × d_x" (column), "d_x × d_h" (row)."""
        return " × ".join(reversed(self.shape) if row else self.shape)

    def read(self, value: Any, where: str, row: bool) -> Any:
        """Its value from problem@1, checked (integers, rectangular)."""
        if value is None and self.optional:
            return None
        if self.listed:
            names = ", ".join(g.name for g in self.items)
            if not isinstance(value, list) or not value:
                raise ProblemError(f"{where}: expected a non-empty list of {self.name} ({{{names}}} each)")
            return tuple(self._item(obj, f"{where}[{k}]", row) for k, obj in enumerate(value))
        if not self.shape:
            return int_scalar(value, where)
        reader = int_matrix if self.matrix else int_vector
        return reader(value, where, self.words(row))

    def _item(self, obj: Any, where: str, row: bool) -> Any:
        checked_object(obj, where, tuple(g.name for g in self.items))
        for g in self.items:
            if g.name not in obj and not g.optional:
                raise ProblemError(f"{where}.{g.name}: missing")
        return self.of(**{g.name: g.read(obj.get(g.name), f"{where}.{g.name}", row) for g in self.items})

    def written(self, value: Any) -> Any:
        """Its value as problem@1 writes it."""
        if value is None:
            return None
        if self.listed:
            return [{g.name: g.written(getattr(item, g.name)) for g in self.items} for item in value]
        if not self.shape:
            return value
        return [list(r) for r in value] if self.matrix else list(value)

    def turned(self, value: Any) -> Any:
        """Its value written in the other convention (a matrix transposed; a list, each object's)."""
        if value is None or not (self.matrix or self.listed):
            return value
        if self.listed:
            return tuple(
                replace(item, **{g.name: g.turned(getattr(item, g.name)) for g in self.items}) for item in value
            )
        return transpose(value)


def read_problem(cls: type, obj: dict, prefix: str, givens: Sequence[Given], flags: dict[str, Any] = {}) -> Any:  # noqa: B006  (read, never written to)
    """A problem of `cls` from a problem@1 object of its kind, every field checked: its givens,
    its other fields (`flags`, name: default: true or false, or a word the problem's type checks)
    and convention, code and metrics."""
    from generator.core.formats import check_format  # formats reads every kind's problems through here

    check_format(obj, prefix)
    keys = ("format", "kind", "convention", *(g.name for g in givens), *flags, "code", "metrics")
    checked_object(obj, prefix.rstrip(".") or "problem", keys)
    row = obj.get("convention", "column") == "row"
    for g in givens:
        if g.name not in obj and not g.optional:
            raise ProblemError(f"{prefix}{g.name}: missing")
    code, metrics = code_and_metrics(obj, prefix)
    values = {g.name: g.read(obj.get(g.name), prefix + g.name, row) for g in givens}
    values.update({name: _field(obj, name, prefix, default) for name, default in flags.items()})
    with prefixed(prefix):
        return cls(**values, convention=obj.get("convention", "column"), code=code, metrics=metrics)


def _field(obj: dict, name: str, prefix: str, default: Any) -> Any:
    """A field of problem@1 besides the givens, by its default's type: true or false, a whole
    number, a word (whose values the problem's type checks), or (default None) a fraction from 0
    to 1 or null."""
    if default is None:
        value = obj.get(name)
        return None if value is None else checked_fraction(value, prefix + name)
    if isinstance(default, bool):
        return flag(obj, name, prefix, default)
    if isinstance(default, int):
        return int_scalar(obj.get(name, default), prefix + name)
    return choice(obj, name, prefix + name, default)


def _written(value: Any) -> Any:
    """A field's value as problem@1 writes it: a fraction as "p/q", anything else as it is."""
    return encode(value) if isinstance(value, Fraction) else value


def problem_json(problem: Any, givens: Sequence[Given], flags: Sequence[str] = ()) -> dict:
    """A problem as problem@1, every default filled in."""
    out: dict[str, Any] = {"format": "attnsheet/problem@1", "kind": problem.kind, "convention": problem.convention}
    out.update({g.name: g.written(getattr(problem, g.name)) for g in givens})
    out.update({name: _written(getattr(problem, name)) for name in flags})
    return with_code_and_metrics(out, problem)


def twin(problem: Any, givens: Sequence[Given], convention: str) -> Any:
    """The problem written in the other convention: every matrix transposed (the problem itself
    if it is written in `convention` already)."""
    if problem.convention == convention:
        return problem
    moved = {g.name: g.turned(getattr(problem, g.name)) for g in givens}
    return replace(problem, **moved, convention=convention)


@dataclass(frozen=True)
class Solved:
    """A problem with every step of its answer, in the problem's convention."""

    problem: Any
    """The problem solved."""
    grids: dict[str, Matrix]
    """Every grid a student writes, by its step's name (None in a cell a route leaves empty)."""
    empty: dict[str, frozenset] = field(default_factory=dict)
    """The cells the true route leaves empty, by step, in the problem's convention."""

    def __getitem__(self, name: str) -> Matrix:
        return self.grids[name]


def solve_graph(
    problem: Any, column_twin: Callable[[Any], Any], steps: Callable[[Any], list], given: Callable[[Any], dict]
) -> Solved:
    """A problem solved exactly by its kind's graph of steps (a kind without heads)."""
    work = column_twin(problem)
    graph = steps(work)
    solved = evaluate(graph, given(work))
    row = problem.convention == "row"
    shown = transpose if row else (lambda m: tuple(map(tuple, m)))
    grids, empty = {}, {}
    for s in graph:
        name, skipped = s.key[1], solved.skipped.get(s.key, frozenset())
        grids[name] = shown(
            [[None if (i, j) in skipped else x for j, x in enumerate(r)] for i, r in enumerate(solved.values[s.key])]
        )
        empty[name] = frozenset((j, i) for i, j in skipped) if row else skipped
    return Solved(problem, grids, empty)


def solution_json(solution: Solved, to_json: Callable[[Any], dict]) -> dict:
    """A solution as solution@1: its kind, its problem and its steps by name."""
    return {
        "format": "attnsheet/solution@1",
        "kind": solution.problem.kind,
        "problem": to_json(solution.problem),
        **{name: encode_matrix(grid) for name, grid in solution.grids.items()},
    }


def shapes(solution: Solved) -> dict[str, tuple[int, int]]:
    """(rows, columns) of every grid a student writes, in the sheet's layout."""
    return {name: (len(grid), len(grid[0])) for name, grid in solution.grids.items()}


def blank_problem(cls: type, givens: Sequence[Given], sizes: dict[str, int], convention: str, **fields: Any) -> Any:
    """A problem of `cls` with every given 0, of the shape `sizes` names (word: size; an optional
    given with a size of 0 is absent), written in `convention` (a blank template prints no numbers)."""

    def zeros(g: Given) -> Any:
        dims = [sizes[word] for word in g.shape]
        if g.optional and 0 in dims:
            return None
        return tuple((0,) * dims[1] for _ in range(dims[0])) if g.matrix else (0,) * dims[0]

    return twin(cls(**{g.name: zeros(g) for g in givens}, **fields), givens, convention)


class Declared(NamedTuple):
    """The protocol's steps members a kind declared by its givens gets written once (see `declared`)."""

    column_twin: Callable[[Any], Any]
    """A row-convention problem rewritten in the column convention (every matrix transposed)."""
    solve: Callable[[Any], Solved]
    """Every step's exact value."""
    grid_shapes: Callable[[Any], tuple[dict, dict]]
    """(rows, columns) of every grid a student writes, in the sheet's layout (no heads)."""
    from_json: Callable[..., Any]
    """A problem from a problem@1 object of its kind, every field checked."""
    to_json: Callable[[Any], dict]
    """A problem as problem@1, every default filled in."""
    solution_to_json: Callable[[Solved], dict]
    """A solution as solution@1: its kind, its problem and its steps by name."""


def declared(
    cls: type,
    givens: Sequence[Given],
    steps: Callable[[Any], list],
    given: Callable[[Any], dict],
    flags: dict[str, Any] = {},
) -> Declared:  # noqa: B006  (read, never written to)
    """What the protocol asks of a kind's steps beyond its graph, for a kind without heads whose
    problem (`cls`) is its givens, its other fields (name: default, a flag or a word) and what
    every problem carries (Drawn)."""

    def column_twin(problem: Any) -> Any:
        return twin(problem, givens, "column")

    def solve(problem: Any) -> Solved:
        return solve_graph(problem, column_twin, steps, given)

    def to_json(problem: Any) -> dict:
        return problem_json(problem, givens, tuple(flags))

    return Declared(
        column_twin,
        solve,
        lambda problem: ({}, shapes(solve(problem))),
        lambda obj, prefix="": read_problem(cls, obj, prefix, givens, flags),
        to_json,
        lambda solution: solution_json(solution, to_json),
    )
