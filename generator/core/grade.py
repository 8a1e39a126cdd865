"""Grading with error carried forward: a verdict per written cell, points per step and in total.

Pure: no I/O. Each step's *carried value* is its formula applied to the student's own cells of
the steps it uses, so a later step done right from an earlier slip still earns its point.
Work is done in the column convention; a row-convention sheet is graded as its transposed twin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence

from generator.core.engine import hand_divisor, power
from generator.core.errors import ProblemError
from generator.core.numbers import Number, divide, normalize
from generator.core.problem import Problem, Rules, Solution, transpose
from generator.core.student import Student

HEAD_STEPS = ("Q", "K", "V", "Q_copy", "K_T", "V_copy", "scores", "scaled", "powers", "sums", "A", "Z")
"""A head's grids, in the order a student works them (and the keys of answers@1)."""
FINAL_STEPS = ("Z", "output")
"""The grids after the heads: their concatenation, and W_O's output."""
VERDICTS = ("correct", "carried", "wrong", "blank", "unreadable", "masked")
"""What a cell can be graded; only correct and carried earn a point, masked cells are not graded."""
CREDITED = frozenset(("correct", "carried"))

REL_TOL = 1e-9
"""Relative tolerance for exact-rules (real-valued) answers."""


@dataclass(frozen=True)
class Entry:
    """One cell as a student wrote it, once read."""

    kind: str
    """blank, unreadable or value."""
    exact: Optional[Number] = None
    """The integer or fraction written, if any."""
    decimal: Optional[tuple[Fraction, int]] = None
    """The decimal written, if any: its value and its number of places."""
    raw: str = ""
    """The text as written (trimmed)."""


BLANK = Entry("blank")
"""A cell with nothing in it."""

Grid = tuple[tuple[Entry, ...], ...]
"""A grid of written cells, rows first; `sums` is a grid of one row."""


@dataclass(frozen=True)
class Answers:
    """What a student wrote on one sheet, in the sheet's own layout (row convention: transposed)."""

    heads: tuple[dict[str, Grid], ...]
    """Per head, the grids written (a missing grid is blank); `sums` as a one-row grid."""
    final: dict[str, Grid]
    """The concatenation ("Z") and the output ("output"), where the sheet has them."""
    code: Optional[str] = None
    """The sheet's code, if known."""
    student: Student = Student()
    """Who wrote it."""


@dataclass(frozen=True)
class StepGrade:
    """One grid's verdicts, with what was expected, in the sheet's layout."""

    head: Optional[int]
    """1-based head, or None for the concatenation and the output."""
    step: str
    """The grid's name, as in answers@1."""
    verdicts: tuple[tuple[str, ...], ...]
    """One verdict per cell."""
    expected: tuple[tuple[Optional[Number], ...], ...]
    """The true value of each cell (None where masked)."""
    carried: tuple[tuple[Optional[Number], ...], ...]
    """The value the student's own earlier cells give each cell (None where none can be had)."""
    written: Grid = ()
    """What the student wrote in each cell, as read."""

    @property
    def points(self) -> int:
        """Cells correct or carried."""
        return sum(v in CREDITED for row in self.verdicts for v in row)

    @property
    def total(self) -> int:
        """Cells graded (every cell but the masked ones)."""
        return sum(v != "masked" for row in self.verdicts for v in row)


@dataclass(frozen=True)
class Grade:
    """A graded sheet."""

    steps: tuple[StepGrade, ...]
    """Every grid, heads first in working order, then the concatenation and the output."""
    carry: bool
    """Whether carried cells earned their point (error carried forward)."""
    code: Optional[str] = None
    """The sheet's code, if known."""
    student: Student = Student()
    """Who wrote it."""

    @property
    def points(self) -> int:
        """Points earned."""
        return sum(s.points for s in self.steps)

    @property
    def total(self) -> int:
        """Points available."""
        return sum(s.total for s in self.steps)

    @property
    def percent(self) -> float:
        """Points as a share of the total, in percent."""
        return 100.0 * self.points / self.total if self.total else 0.0

    def step(self, head: Optional[int], step: str) -> StepGrade:
        """The grade of one grid."""
        for s in self.steps:
            if s.head == head and s.step == step:
                return s
        raise KeyError((head, step))


def step_label(head: Optional[int], step: str, heads: int) -> str:
    """A step's column name in the gradebook: 'Q', or 'h2 Q' on several heads; 'Z concat', 'output'."""
    if head is None:
        return "Z concat" if step == "Z" else step
    return f"h{head} {step}" if heads > 1 else step


def has_final(problem: Problem) -> bool:
    """Whether the sheet has the concatenation grid (several heads, or W_O)."""
    return len(problem.heads) > 1 or problem.W_O is not None


def grid_shapes(problem: Problem) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(rows, columns) of every head grid and every final grid, in the sheet's layout."""
    n, d_k, d_v, d_model, h = problem.n_tokens, problem.d_k, problem.d_v, problem.d_model, len(problem.heads)
    head = {"Q": (d_k, n), "K": (d_k, n), "V": (d_v, n), "Q_copy": (d_k, n), "K_T": (n, d_k),
            "V_copy": (d_v, n), "scores": (n, n), "scaled": (n, n), "powers": (n, n), "sums": (1, n),
            "A": (n, n), "Z": (d_v, n)}
    final = {}
    if has_final(problem):
        final["Z"] = (h * d_v, n)
        if problem.W_O is not None:
            final["output"] = (d_model, n)
    if problem.convention == "row":
        # Every grid is its column twin's transpose; sums stay a flat list, one per query.
        head = {k: (s if k == "sums" else (s[1], s[0])) for k, s in head.items()}
        final = {k: (s[1], s[0]) for k, s in final.items()}
    return head, final


# --- matching ---------------------------------------------------------------------------------


def _close(a: Number, b: Number) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=1e-12)
        except OverflowError:  # a number written beyond any float is no real-valued answer
            return False
    return a == b


def _decimal_matches(d: Fraction, places: int, v: Number) -> bool:
    """A decimal with `places` places stands for v: v rounds to it, with two places at least
    unless v is exactly that decimal (3/8: 0.38, 0.37 and 0.375 match, 0.4 does not)."""
    if isinstance(v, float):
        slack = 1e-12 * max(1.0, abs(v))
        try:
            off = abs(float(d) - v)
        except OverflowError:
            return False
        return off <= 0.5 * 10.0**-places + slack and (places >= 2 or off <= slack)
    off = abs(d - v)
    return off <= Fraction(1, 2 * 10**places) and (places >= 2 or off == 0)


def matches(entry: Entry, v: Optional[Number]) -> bool:
    """Whether every part a written cell holds stands for the value v."""
    if v is None or entry.kind != "value":
        return False
    if entry.exact is not None and not _close(entry.exact, v):
        return False
    return entry.decimal is None or _decimal_matches(*entry.decimal, v)


# --- the chain --------------------------------------------------------------------------------

Values = list[list[Optional[Number]]]


class _Chain:
    """Grades grids one step at a time, keeping the values later steps use."""

    def __init__(self, carry: bool) -> None:
        self.carry = carry

    def step(self, entries: Grid, true: Sequence[Sequence[Optional[Number]]],
             carried: Optional[Sequence[Sequence[Optional[Number]]]],
             masked: frozenset = frozenset()) -> tuple[list[list[str]], Values]:
        """Verdicts of a grid, and the values later steps use: what the student wrote where it
        can be read (the fraction when a cell holds both), else the carried value."""
        verdicts, used = [], []
        for i, row in enumerate(true):
            vrow, urow = [], []
            for j, t in enumerate(row):
                c = carried[i][j] if carried is not None else t
                e = entries[i][j]
                if (i, j) in masked:
                    # Later steps skip masked cells; the true value keeps a right sheet's inputs true.
                    vrow.append("masked")
                    urow.append(t)
                    continue
                if e.kind != "value":
                    vrow.append(e.kind)
                    urow.append(c)
                    continue
                right = matches(e, t)
                follows = not right and c is not None and matches(e, c)
                vrow.append("correct" if right else "carried" if follows and self.carry else "wrong")
                if e.exact is not None:
                    urow.append(e.exact)
                else:
                    # A decimal alone stands for the value it matches: later steps stay exact.
                    urow.append(t if right else c if follows else normalize(e.decimal[0]))
            verdicts.append(vrow)
            used.append(urow)
        return verdicts, used


def _guarded(compute, *args) -> Optional[Number]:
    """compute(*args), or None where the student's numbers leave the range of floats."""
    try:
        return compute(*args)
    except (OverflowError, ZeroDivisionError):
        return None


def _dot(row: Sequence[Optional[Number]], col: Sequence[Optional[Number]]) -> Optional[Number]:
    if any(x is None for x in row) or any(x is None for x in col):
        return None
    return _guarded(lambda: normalize(sum(x * y for x, y in zip(row, col))))


def _product(a: Values, b: Values) -> Values:
    """a·b, None wherever a factor is missing."""
    columns = list(zip(*b))
    return [[_dot(row, col) for col in columns] for row in a]


def _scale(x: Optional[Number], d_k: int, rules: Rules) -> Optional[Number]:
    """The sheet's scaling rule on any score a student wrote (a fractional one is floored too)."""
    if x is None or rules.scale == "none":
        return x
    if rules.scale == "floor":
        if isinstance(x, float):
            return math.floor(x / hand_divisor(d_k)) if math.isfinite(x) else None
        return math.floor(Fraction(x) / hand_divisor(d_k))
    root = math.isqrt(d_k)
    if root * root == d_k and not isinstance(x, float):
        return normalize(Fraction(x) / root)
    return _guarded(lambda: float(x) / math.sqrt(d_k))


def _power(x: Optional[Number], rules: Rules) -> Optional[Number]:
    """3^x (or e^x) of a scaled score a student wrote; None when it is far too large."""
    if x is None:
        return None
    try:
        return power(normalize(x), rules)
    except (ProblemError, OverflowError):
        return None


def _same(a: Values, b: Sequence[Sequence[Optional[Number]]]) -> bool:
    return all(list(x) == list(y) for x, y in zip(a, b))


def grade(problem: Problem, answers: Answers, carry: bool = True, solution: Optional[Solution] = None) -> Grade:
    """Grade what a student wrote against the problem's true values, with error carried forward.

    With `carry` off, a cell that follows from the student's own wrong cells counts as wrong.
    """
    if solution is None:
        from generator.core.engine import solve

        solution = solve(problem)
    row = problem.convention == "row"
    t = transpose if row else (lambda m: m)
    # The column twin of every true value and every written grid.
    chain = _Chain(carry)
    rules, causal, n, d_k = problem.rules, problem.causal, problem.n_tokens, problem.d_k
    masked = frozenset((i, j) for i in range(n) for j in range(n) if causal and i > j)
    shapes, final_shapes = grid_shapes(problem)
    steps: list[StepGrade] = []

    def written(grids: dict[str, Grid], name: str, shape: tuple[int, int]) -> Grid:
        grid = grids.get(name)
        if grid is None:
            grid = tuple(tuple(BLANK for _ in range(shape[1])) for _ in range(shape[0]))
        return grid if name == "sums" else t(grid)

    def record(head: Optional[int], name: str, verdicts, true, carried, entries: Grid) -> None:
        back = (lambda m: tuple(map(tuple, m))) if name == "sums" or not row else transpose
        steps.append(StepGrade(head, name, back(verdicts), back(true),
                               back(carried) if carried is not None else back(true), back(entries)))

    heads_used = []
    for h, (sol_row, grids) in enumerate(zip(solution.heads, _pad(answers.heads, len(problem.heads)))):
        sol = {name: t(getattr(sol_row, name)) for name in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")}
        true = {"Q": sol["Q"], "K": sol["K"], "V": sol["V"], "Q_copy": sol["Q"], "K_T": transpose(sol["K"]),
                "V_copy": sol["V"], "scores": sol["scores"], "scaled": sol["scaled"], "powers": sol["powers"],
                "sums": (tuple(sol_row.sums),), "A": sol["A"], "Z": sol["Z"]}
        used: dict[str, Values] = {}

        def run(name: str, inputs: tuple[str, ...], carried_from, mask: frozenset = frozenset()) -> None:
            # Where the student's inputs are the true ones, so is the carried value: no arithmetic.
            same = all(_same(used[i], true[i]) for i in inputs)
            carried = None if same else carried_from()
            if carried is not None and _same(carried, true[name]):
                carried = None
            e = written(grids, name, shapes[name])
            verdicts, used[name] = chain.step(e, true[name], carried, mask)
            record(h + 1, name, verdicts, true[name], carried, e)

        def sums() -> Values:
            columns = list(zip(*used["powers"]))
            return [[_dot([x for i, x in enumerate(col) if (i, j) not in masked], [1] * len(col))
                     for j, col in enumerate(columns)]]

        def attention() -> Values:
            total = used["sums"][0]
            return [[None if p is None or total[j] in (None, 0) else _guarded(divide, p, total[j])
                     for j, p in enumerate(r)] for r in used["powers"]]

        def weighted() -> Values:
            a = [[0 if (i, j) in masked else x for j, x in enumerate(r)] for i, r in enumerate(used["A"])]
            return _product(used["V_copy"], a)

        for name in ("Q", "K", "V"):
            run(name, (), lambda: None)  # products of the given data: their carried value is the true one
        run("Q_copy", ("Q",), lambda: used["Q"])
        run("K_T", ("K",), lambda: [list(r) for r in zip(*used["K"])])
        run("V_copy", ("V",), lambda: used["V"])
        run("scores", ("K_T", "Q_copy"), lambda: _product(used["K_T"], used["Q_copy"]), masked)
        run("scaled", ("scores",), lambda: [[_scale(x, d_k, rules) for x in r] for r in used["scores"]], masked)
        run("powers", ("scaled",), lambda: [[_power(x, rules) for x in r] for r in used["scaled"]], masked)
        run("sums", ("powers",), sums)
        run("A", ("powers", "sums"), attention, masked)
        run("Z", ("V_copy", "A"), weighted)
        heads_used.append(used["Z"])

    if final_shapes:
        concat_true = t(solution.Z)
        concat_carried = [r for z in heads_used for r in z]
        e = written(answers.final, "Z", final_shapes["Z"])
        carried = None if _same(concat_carried, concat_true) else concat_carried
        verdicts, concat_used = chain.step(e, concat_true, carried)
        record(None, "Z", verdicts, concat_true, carried, e)
        if "output" in final_shapes:
            out_true = t(solution.output)
            e = written(answers.final, "output", final_shapes["output"])
            carried = None
            if not _same(concat_used, concat_true):
                out_carried = _product([list(r) for r in t(problem.W_O)], concat_used)
                carried = None if _same(out_carried, out_true) else out_carried
            verdicts, _ = chain.step(e, out_true, carried)
            record(None, "output", verdicts, out_true, carried, e)
    return Grade(steps=tuple(steps), carry=carry, code=answers.code, student=answers.student)


def _pad(heads: Sequence[dict[str, Grid]], count: int) -> list[dict[str, Grid]]:
    """One dict of grids per head of the problem: heads the student never reached are blank."""
    return list(heads[:count]) + [{} for _ in range(count - len(heads))]
