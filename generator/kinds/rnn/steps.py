"""The recurrent layer as a graph of steps: for t = 1…T, h_{t−1} copied in, a_t = W_x·x_t + W_h·h_{t−1} + b, h_t = ReLU(a_t), y_t = W_y·h_t."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, COPY, PRODUCT, RULE, N_, Face, Op
from generator.core.fields import checked_object, code_and_metrics, int_matrix, int_vector, prefixed, with_code_and_metrics
from generator.core.graph import Key, Step, Values, evaluate
from generator.core.ops import affine_pairs, copy, product, relu
from generator.core.numbers import Matrix, encode_matrix
from generator.core.problem import CONVENTIONS, IntMatrix, Tokens, shape, transpose

KIND = "rnn"
MAX_STEPS = 5
"""The longest sequence a sheet unrolls (answers@1 names every step's grids)."""
HEAD_STEPS: tuple[str, ...] = ()
"""A recurrent layer has no heads."""
FINAL_STEPS = tuple(name for t in range(1, MAX_STEPS + 1)
                    for name in ((f"h{t - 1}_copy",) if t > 1 else ()) + (f"a{t}", f"h{t}", f"y{t}"))
"""Its grids, in the order a student works them, step by step: h_{t−1} copied into step t's
input, a_t, h_t, and y_t with a readout."""
FLAT: tuple[str, ...] = ()
"""Every grid is a matrix."""


@dataclass(frozen=True)
class RNNProblem(Tokens):
    """A recurrent exercise: the inputs (a column per time step), the weights, the bias and an optional readout."""

    kind: ClassVar[str] = KIND
    """problem@1's `kind`."""
    X: IntMatrix
    """The inputs: d_x × T (column convention: x_t is column t) or T × d_x (row)."""
    W_x: IntMatrix
    """Input weights: d_h × d_x (column convention)."""
    W_h: IntMatrix
    """Recurrent weights: d_h × d_h."""
    b: tuple[int, ...]
    """The bias: d_h entries."""
    W_y: Optional[IntMatrix] = None
    """The readout: d_y × d_h, or None for none."""
    convention: str = "column"
    """column: x_t is a column; row: x_t is a row (every matrix transposed)."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ProblemError(f"convention: expected one of {', '.join(CONVENTIONS)}, got {self.convention!r}")
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        d_x, steps = shape(t(self.X))
        if not 1 <= steps <= MAX_STEPS:
            raise ProblemError(f"X: a sheet unrolls 1 to {MAX_STEPS} time steps, got {steps}")
        d_h = len(self.b)
        wants = {"W_x": ((d_h, d_x), ("d_h", "d_x")), "W_h": ((d_h, d_h), ("d_h", "d_h"))}
        if self.W_y is not None:
            wants["W_y"] = ((len(t(self.W_y)), d_h), ("d_y", "d_h"))
        for name, (want, words) in wants.items():
            got = shape(t(getattr(self, name)))
            if got != want:
                r, c = (want[1], want[0]) if row else want
                g = (got[1], got[0]) if row else got
                a, z = (words[1], words[0]) if row else words
                raise ProblemError(f"{name}: expected {r}×{c} ({a} × {z}), got {g[0]}×{g[1]}")

    @property
    def steps(self) -> int:
        """Time steps T."""
        return self.n_tokens

    @property
    def d_h(self) -> int:
        """Units of the state h."""
        return len(self.b)

    @property
    def d_y(self) -> int:
        """Outputs per step (0: no readout)."""
        if self.W_y is None:
            return 0
        return len(self.W_y[0]) if self.convention == "row" else len(self.W_y)


def column_twin(problem: RNNProblem) -> RNNProblem:
    """A row-convention problem rewritten in the column convention (every matrix transposed)."""
    if problem.convention == "column":
        return problem
    t = transpose
    return RNNProblem(X=t(problem.X), W_x=t(problem.W_x), W_h=t(problem.W_h), b=problem.b,
                      W_y=None if problem.W_y is None else t(problem.W_y))


def given(problem: RNNProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key: each x_t as a column, h₀ = 0, the bias as a column."""
    out: dict[Key, Values] = {(None, "X"): problem.X, (None, "W_x"): problem.W_x, (None, "W_h"): problem.W_h,
                              (None, "b"): [[x] for x in problem.b], (None, "h0"): [[0] for _ in problem.b]}
    out.update({(None, f"x{t + 1}"): [[r[t]] for r in problem.X] for t in range(problem.steps)})
    if problem.W_y is not None:
        out[(None, "W_y")] = problem.W_y
    return out


def steps(problem: RNNProblem) -> list[Step]:
    """Every step of a column-convention problem, time step after time step."""
    out: list[Step] = []
    for t in range(1, problem.steps + 1):
        state = (None, "h0") if t == 1 else (None, f"h{t - 1}_copy")
        if t > 1:
            out.append(Step(state, ((None, f"h{t - 1}"),), copy, op=Op(COPY),
                            face=Face(f"h{t - 1}", (f"h{t - 1}", f"h{t - 1}"), N_("the state, copied in"), "k")))
        out.append(Step((None, f"a{t}"), ((None, "W_x"), (None, f"x{t}"), (None, "W_h"), state, (None, "b")),
                        affine_pairs, op=Op(AFFINE),
                        face=Face(f"a{t}", (f"a{t} = W_x·x{t} + W_h·h{t - 1} + b", f"a{t} = x{t}·W_x + h{t - 1}·W_h + b"),
                                  N_("pre-activation"), "score")))
        out.append(Step((None, f"h{t}"), ((None, f"a{t}"),), relu, op=Op(RULE, N_("ReLU(%(x)s)")),
                        face=Face(f"h{t}", (f"h{t}", f"h{t}"), N_("the state: negatives to 0"), "q")))
        if problem.W_y is not None:
            out.append(Step((None, f"y{t}"), ((None, "W_y"), (None, f"h{t}")), product, op=Op(PRODUCT),
                            face=Face(f"y{t}", (f"y{t} = W_y·h{t}", f"y{t} = h{t}·W_y"), N_("output"), "out")))
    return out


FACES = {
    "X": Face("X", ("X", "X"), N_("inputs, a time step each"), "input"),
    "W_x": Face("W_x", ("W_x", "W_x"), N_("input weights"), "weight"),
    "W_h": Face("W_h", ("W_h", "W_h"), N_("recurrent weights"), "weight"),
    "b": Face("b", ("b", "b"), N_("bias"), "weight"),
    "W_y": Face("W_y", ("W_y", "W_y"), N_("readout weights"), "weight"),
    "h0": Face("h0", ("h0", "h0"), N_("the state before the first step: 0"), "k"),
    **{f"x{t}": Face(f"x{t}", (f"x{t}", f"x{t}"), N_("input"), "input", within="X") for t in range(1, MAX_STEPS + 1)},
}
"""How the recurrent layer's givens show (its steps' faces are declared with them)."""


@dataclass(frozen=True)
class RNNSolution:
    """A recurrent problem with every step of its answer, in the problem's convention."""

    problem: RNNProblem
    """The problem solved."""
    grids: dict[str, Matrix]
    """Every grid a student writes, by its step's name (h1_copy, a1, h1, y1, …)."""

    def __getitem__(self, name: str) -> Matrix:
        return self.grids[name]


def describe(p: RNNProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    readout = f", a readout of {p.d_y}" if p.W_y is not None else ""
    return [f"Recurrent layer (ReLU), {p.convention} convention{readout}",
            f"T = {p.steps} time steps, d_x = {p.d_model}, d_h = {p.d_h}, h0 = 0"]


def solve(problem: RNNProblem) -> RNNSolution:
    """Solve a recurrent problem exactly."""
    work = column_twin(problem)
    values = evaluate(steps(work), given(work)).values
    t = transpose if problem.convention == "row" else (lambda m: tuple(map(tuple, m)))
    return RNNSolution(problem, {s.key[1]: t(values[s.key]) for s in steps(work)})


def grid_shapes(problem: RNNProblem) -> tuple[dict, dict[str, tuple[int, int]]]:
    """(rows, columns) of every grid a student writes, in the sheet's layout (no heads)."""
    sizes = {"a": problem.d_h, "h": problem.d_h, "y": problem.d_y}
    final = {}
    for s in steps(column_twin(problem)):
        name = s.key[1]
        rows = problem.d_h if name.endswith("_copy") else sizes[name[0]]
        final[name] = (1, rows) if problem.convention == "row" else (rows, 1)
    return {}, final


# --- problem@1 and solution@1 -------------------------------------------------------------------

KEYS = ("format", "kind", "convention", "X", "W_x", "W_h", "b", "W_y", "code", "metrics")


def from_json(obj: dict, prefix: str) -> RNNProblem:
    """A recurrent problem from a problem@1 object whose kind is rnn, every field checked."""
    from generator.core.formats import check_format

    check_format(obj, prefix)
    checked_object(obj, prefix.rstrip(".") or "problem", KEYS)
    row = obj.get("convention", "column") == "row"
    for key in ("X", "W_x", "W_h", "b"):
        if key not in obj:
            raise ProblemError(f"{prefix}{key}: missing")
    code, metrics = code_and_metrics(obj, prefix)
    readout = obj.get("W_y")
    with prefixed(prefix):
        return RNNProblem(X=int_matrix(obj["X"], prefix + "X", "T × d_x" if row else "d_x × T"),
                          W_x=int_matrix(obj["W_x"], prefix + "W_x", "d_x × d_h" if row else "d_h × d_x"),
                          W_h=int_matrix(obj["W_h"], prefix + "W_h", "d_h × d_h"),
                          b=int_vector(obj["b"], prefix + "b", "d_h"),
                          W_y=None if readout is None else int_matrix(readout, prefix + "W_y",
                                                                      "d_h × d_y" if row else "d_y × d_h"),
                          convention=obj.get("convention", "column"), code=code, metrics=metrics)


def to_json(problem: RNNProblem) -> dict:
    """A recurrent problem as problem@1, every default filled in."""
    out: dict[str, Any] = {"format": "attnsheet/problem@1", "kind": KIND, "convention": problem.convention,
                           "X": [list(r) for r in problem.X], "W_x": [list(r) for r in problem.W_x],
                           "W_h": [list(r) for r in problem.W_h], "b": list(problem.b),
                           "W_y": None if problem.W_y is None else [list(r) for r in problem.W_y]}
    return with_code_and_metrics(out, problem)


def solution_to_json(solution: RNNSolution) -> dict:
    """A recurrent solution as solution@1: its kind and its steps by name."""
    return {"format": "attnsheet/solution@1", "kind": KIND, "problem": to_json(solution.problem),
            **{name: encode_matrix(grid) for name, grid in solution.grids.items()}}


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the largest number written and the products to work out
    (core/metrics), the entries ReLU sets to 0, the largest |a|."""
    from generator.core.registry import kind_of
    from generator.core.metrics import largest_number, multiplications, worked

    steps_, values = worked(kind_of(problem), problem)
    pre = [x for s in steps_ if s.key[1].startswith("a") for row in values[s.key] for x in row]
    return {"largest_number": largest_number(steps_, values), "multiplications": multiplications(steps_, values),
            "relu_zeros": sum(1 for x in pre if x < 0), "largest_pre": max(abs(x) for x in pre)}


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return {"largest number written": m["largest_number"], "multiplications": m["multiplications"],
            "cells ReLU sets to 0": m["relu_zeros"], "largest |a|": m["largest_pre"]}
