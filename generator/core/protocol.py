"""What a kind must provide, part by part: the contract every kind is checked against, built-in or not.

Each part is a `typing.Protocol` whose members the code that serves every kind uses; a module
satisfies one by having them (a kind's `steps.py` is its `Steps`). `lacking` names what a kind
lacks to be registered (its name, code number and steps): the registry refuses such a kind at
start-up, in one line; a draw, sheet or settings part is checked when first loaded, and the
conformance test (tests/core/test_kind_protocol.py) loads and checks every part of every registered kind.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Steps(Protocol):
    """A kind's arithmetic (pure): its problem, the graph of its steps, problem@1 and solution@1."""

    FINAL_STEPS: tuple[str, ...]
    """The grids outside the heads, in working order: answers@1's keys."""

    def from_json(self, value: Any, prefix: str = "") -> Any:
        """problem@1 (a parsed JSON object) read into the kind's problem; ProblemError if malformed."""

    def to_json(self, problem: Any) -> dict:
        """The kind's problem as problem@1."""

    def solution_to_json(self, solution: Any) -> dict:
        """A solution as solution@1."""

    def column_twin(self, problem: Any) -> Any:
        """A row-convention problem rewritten in the column convention (the problem itself otherwise)."""

    def given(self, problem: Any) -> dict:
        """The given grids of a column-convention problem, by key."""

    def steps(self, problem: Any) -> list:
        """Every step of a column-convention problem (graph.Step), in working order."""

    def solve(self, problem: Any) -> Any:
        """Every step's exact value (the kind's solution)."""

    def grid_shapes(self, problem: Any) -> tuple[dict, dict]:
        """(rows, columns) of every grid a student writes, per head and outside the heads."""

    def describe(self, problem: Any) -> list[str]:
        """The solve text's header: what the sheet asks, in a line or two."""

    def metrics(self, problem: Any, solution: Any = None) -> dict:
        """Difficulty figures of one problem."""

    def figures(self, metrics: dict) -> dict:
        """What `draw --stats` shows of a problem's metrics."""


@runtime_checkable
class Draw(Protocol):
    """A kind's draw: its options, presets and guarantees, its seeded draw, its sheet codes (whose
    head names the kind by its registry number, Kind.code; the first three kinds' codes, printed
    before there were numbers, name theirs by LEGACY_INDEX or CODE_VERSIONS)."""

    OPTIONS: type
    """Its options (a frozen dataclass with `kind`, `preset` and its own fields)."""

    def options(self, values: dict, given: set) -> Any:
        """Its options from a teacher's settings (`given`: those set explicitly)."""

    def draw_keys(self, options: Any, keys: list) -> list:
        """The problems for (seed, index) pairs, in order, each with its sheet code."""

    def code_head(self, options: Any, writer: Any) -> None:
        """Its options packed into a sheet code's head."""

    def read_code(self, version: int, reader: Any, code: str) -> Any:
        """Its options read back from a sheet code's head."""

    def blank(self, options: Any) -> Any:
        """A problem of the options' shape with no numbers (a blank template)."""

    def manifest(self, options: Any) -> dict:
        """What a manifest records of the options."""


@runtime_checkable
class Sheet(Protocol):
    """A kind's sheet: where its grids go (the by-hand layout) and the entry form's blocks."""

    def view(self, problem: Any, solution: Any, student: Any, settings: Any, key: bool, graded: Any) -> Any:
        """The sheet's view (its panels, in the common layout model)."""

    def check_fits(self, problem: Any, solution: Any, settings: Any) -> None:
        """LayoutError when the sheet cannot be printed legibly."""

    def form_blocks(self, problem: Any, solution: Any, lang: str) -> list:
        """The entry form's blocks of boxes, in working order."""


@runtime_checkable
class Settings(Protocol):
    """What a teacher chooses for a kind."""

    TITLE: str
    """Its name for a teacher (a message id)."""
    TAKES: tuple[str, ...]
    """The settings it takes."""
    DECLARED: tuple
    """The settings it declares itself (beside the shared ones)."""
    DEFAULT_SHAPE: dict
    """Its default for each shape setting."""


PROTOCOLS = {"steps": Steps, "draw": Draw, "sheet": Sheet, "settings": Settings}
"""Each part's protocol, by the part's name in registry.Kind."""
OPTIONAL = {
    "steps.HEAD_STEPS": "the grids of a head, in working order (none: a kind without heads)",
    "steps.FLAT": "grids written as one row in both conventions, a flat list in answers@1 (none by default)",
    "steps.FACES": "how each grid shows (graph.Face by name), for the solve text and the explanations",
    "steps.notes": "notes(all_metrics) -> lines `draw --stats` adds to its figures",
    "draw.remedy": "remedy(error, options, seed, count) -> what to say when a draw is infeasible",
    "sheet.SHOWN_IN": "the grids shown inside another on the projector",
    "settings.CHOICE_WORDS": "a choice setting's values in a teacher's words",
}
"""Members a kind may leave out (the code that uses them has a default)."""


def lacking(kind: Any) -> list[str]:
    """What a kind lacks before it can be registered: a name, a code number, steps that keep
    their protocol (the other parts are checked as each is first loaded: see `every_part_lacks`)."""
    missing = []
    if not isinstance(getattr(kind, "name", None), str) or not kind.name:
        missing.append("a name")
    if not isinstance(getattr(kind, "code", None), int) or kind.code < 0:
        missing.append("a code number")
    return missing + [f"steps.{m}" for m in part_lacks("steps", kind.load("steps"))]


def part_lacks(which: str, part: Any) -> list[str]:
    """The members of its protocol a part lacks."""
    return [member for member in _wanted(PROTOCOLS[which]) if not hasattr(part, member)]


def every_part_lacks(kind: Any) -> list[str]:
    """What any part of a kind lacks, as `part.member` names (every part loaded): the conformance test's check."""
    return [f"{which}.{member}" for which in PROTOCOLS for member in part_lacks(which, kind.load(which))]


def _wanted(protocol: type) -> list[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")}
    return sorted(names)
