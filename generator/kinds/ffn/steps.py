"""The feed-forward layer as a graph of steps: H_pre = W1·X + b1, H = ReLU(H_pre), Y = W2·H + b2, out = X + Y."""

from __future__ import annotations

from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.faces import ADD, AFFINE, RULE, N_, Face, Op, given_faces
from generator.core.fields import (
    checked_object,
    code_and_metrics,
    flag,
    int_matrix,
    int_vector,
    prefixed,
    with_code_and_metrics,
)
from generator.core.graph import Key, Step, Values, evaluate
from generator.core.ops import add, affine, relu
from generator.core.numbers import Matrix, encode_matrix
from generator.core.problem import IntMatrix, Tokens, check_convention, check_shaped, shape, transpose

KIND = "ffn"
FINAL_STEPS = ("H_pre", "H", "Y", "out")
"""Its grids, in the order a student works them (out only with the residual)."""


@dataclass(frozen=True)
class Layers(Tokens):
    """What every problem with a feed-forward part holds: its input, two layers' weights and biases."""

    X: IntMatrix
    """Token features: d_model × n (column convention) or n × d_model (row)."""
    W1: IntMatrix
    """First layer: d_ff × d_model (column convention)."""
    b1: tuple[int, ...]
    """First bias: d_ff entries, added to every token."""
    W2: IntMatrix
    """Second layer: d_model × d_ff (column convention)."""
    b2: tuple[int, ...]
    """Second bias: d_model entries."""

    @property
    def d_ff(self) -> int:
        """Hidden units of the first layer."""
        return len(self.b1)


@dataclass(frozen=True)
class FFNProblem(Layers):
    """A feed-forward exercise: the input, two layers' weights and biases. Shapes are checked."""

    kind: ClassVar[str] = KIND
    """problem@1's `kind`."""
    residual: bool = False
    """Whether the sheet adds the input back: out = X + Y."""
    convention: str = "column"
    """column: tokens are columns; row: tokens are rows (every matrix transposed)."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""

    def __post_init__(self) -> None:
        check_ffn(self, "")


def check_ffn(p: Any, prefix: str) -> None:
    """Check the FFN part of a problem (an FFN, or a transformer block's): every shape agrees."""
    check_convention(p.convention, prefix)
    row = p.convention == "row"
    t = transpose if row else (lambda m: m)
    d_model, _ = shape(t(p.X))
    d_ff = len(p.b1)
    check_shaped(f"{prefix}W1", t(p.W1), (d_ff, d_model), ("d_ff", "d_model"), row)
    check_shaped(f"{prefix}W2", t(p.W2), (d_model, d_ff), ("d_model", "d_ff"), row)
    if len(p.b2) != d_model:
        raise ProblemError(f"{prefix}b2: expected {d_model} entries (d_model), got {len(p.b2)}")


def column_twin(problem: FFNProblem) -> FFNProblem:
    """A row-convention problem rewritten in the column convention (every matrix transposed)."""
    if problem.convention == "column":
        return problem
    t = transpose
    return FFNProblem(
        X=t(problem.X), W1=t(problem.W1), b1=problem.b1, W2=t(problem.W2), b2=problem.b2, residual=problem.residual
    )


def given(problem: Any) -> dict[Key, Values]:
    """The given matrices of a column-convention problem, by key (a bias as a column)."""
    return {
        (None, "X"): problem.X,
        (None, "W1"): problem.W1,
        (None, "b1"): [[b] for b in problem.b1],
        (None, "W2"): problem.W2,
        (None, "b2"): [[b] for b in problem.b2],
    }


def ffn_steps(source: Key, residual: bool) -> list[Step]:
    """The FFN's steps on the grid at `source` (X, or a block's R): its layers, ReLU and residual."""
    x = source[1]
    steps = [
        Step(
            (None, "H_pre"),
            ((None, "W1"), source, (None, "b1")),
            _layer,
            face=Face("H_pre", (f"H_pre = W1·{x} + b1", f"H_pre = {x}·W1 + b1"), N_("first layer"), "score"),
            op=Op(AFFINE),
        ),
        Step(
            (None, "H"),
            ((None, "H_pre"),),
            relu,
            face=Face("H", ("H = ReLU(H_pre)", "H = ReLU(H_pre)"), N_("negatives to 0"), "score"),
            op=Op(RULE, N_("ReLU(%(x)s)")),
        ),
        Step(
            (None, "Y"),
            ((None, "W2"), (None, "H"), (None, "b2")),
            _layer,
            face=Face("Y", ("Y = W2·H + b2", "Y = H·W2 + b2"), N_("second layer"), "out"),
            op=Op(AFFINE),
        ),
    ]
    if residual:
        steps.append(
            Step(
                (None, "out"),
                (source, (None, "Y")),
                add,
                face=Face("out", (f"out = {x} + Y", f"out = {x} + Y"), N_("residual"), "out"),
                op=Op(ADD),
            )
        )
    return steps


FACES = {
    **given_faces({"X": N_("inputs")}, "input"),
    **given_faces(
        {
            "W1": N_("weights, bias last"),
            "b1": N_("first bias"),
            "W2": N_("weights, bias last"),
            "b2": N_("second bias"),
        }
    ),
}
"""How the FFN's givens show (its steps' faces are declared with them: their labels name their input)."""


def _layer(w: Values, x: Values, bias: Values) -> Values:
    """w·x + b: by hand, [w | b]·[x ; 1]."""
    return affine(w, x, [b[0] for b in bias])


def steps(problem: FFNProblem) -> list[Step]:
    """Every step of a column-convention FFN problem."""
    return ffn_steps((None, "X"), problem.residual)


@dataclass(frozen=True)
class FFNSolution:
    """An FFN problem with every step of its answer, in the problem's convention."""

    problem: FFNProblem
    """The problem solved."""
    H_pre: Matrix
    """W1·X + b1."""
    H: Matrix
    """ReLU(H_pre)."""
    Y: Matrix
    """W2·H + b2."""
    out: Optional[Matrix] = None
    """X + Y, when the problem has the residual."""


def describe(p: FFNProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    return [
        f"Feed-forward layer, {p.convention} convention" + (", with the residual" if p.residual else ""),
        f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_ff = {p.d_ff}",
    ]


def solve(problem: FFNProblem) -> FFNSolution:
    """Solve an FFN problem exactly."""
    values = evaluate(steps(column_twin(problem)), given(column_twin(problem))).values
    t = transpose if problem.convention == "row" else (lambda m: tuple(map(tuple, m)))
    return FFNSolution(
        problem,
        *(t(values[(None, name)]) for name in ("H_pre", "H", "Y")),
        out=t(values[(None, "out")]) if problem.residual else None,
    )


def grid_shapes(problem: FFNProblem) -> tuple[dict, dict[str, tuple[int, int]]]:
    """(rows, columns) of every grid a student writes, in the sheet's layout (no heads)."""
    n, d_model, d_ff = problem.n_tokens, problem.d_model, problem.d_ff
    final = {"H_pre": (d_ff, n), "H": (d_ff, n), "Y": (d_model, n)}
    if problem.residual:
        final["out"] = (d_model, n)
    if problem.convention == "row":
        final = {k: (s[1], s[0]) for k, s in final.items()}
    return {}, final


# --- problem@1 and solution@1 -------------------------------------------------------------------

KEYS = ("format", "kind", "convention", "X", "W1", "b1", "W2", "b2", "residual", "code", "metrics")


def from_json(obj: dict, prefix: str) -> FFNProblem:
    """An FFN problem from a problem@1 object whose kind is ffn, every field checked."""
    from generator.core.formats import check_format

    check_format(obj, prefix)
    checked_object(obj, prefix.rstrip(".") or "problem", KEYS)
    convention = obj.get("convention", "column")
    code, metrics = code_and_metrics(obj, prefix)
    with prefixed(prefix):
        return FFNProblem(
            **layer_fields(obj, prefix, convention == "row"),
            residual=flag(obj, "residual", prefix, False),
            convention=convention,
            code=code,
            metrics=metrics,
        )


def layer_fields(obj: dict, prefix: str, row: bool) -> dict:
    """X, W1, b1, W2 and b2 of a problem@1 object, each checked (missing, or not integers)."""
    for key in ("X", "W1", "b1", "W2", "b2"):
        if key not in obj:
            raise ProblemError(f"{prefix}{key}: missing")
    return dict(
        X=int_matrix(obj["X"], prefix + "X", "n × d_model" if row else "d_model × n"),
        W1=int_matrix(obj["W1"], prefix + "W1", "d_model × d_ff" if row else "d_ff × d_model"),
        b1=int_vector(obj["b1"], prefix + "b1", "d_ff"),
        W2=int_matrix(obj["W2"], prefix + "W2", "d_ff × d_model" if row else "d_model × d_ff"),
        b2=int_vector(obj["b2"], prefix + "b2", "d_model"),
    )


def to_json(problem: FFNProblem) -> dict:
    """An FFN problem as problem@1, every default filled in."""
    out: dict[str, Any] = {
        "format": "attnsheet/problem@1",
        "kind": KIND,
        "convention": problem.convention,
        "X": [list(r) for r in problem.X],
        "W1": [list(r) for r in problem.W1],
        "b1": list(problem.b1),
        "W2": [list(r) for r in problem.W2],
        "b2": list(problem.b2),
        "residual": problem.residual,
    }
    return with_code_and_metrics(out, problem)


def solution_to_json(solution: FFNSolution) -> dict:
    """An FFN solution as solution@1: its kind and its steps by name."""
    out = {
        "format": "attnsheet/solution@1",
        "kind": KIND,
        "problem": to_json(solution.problem),
        "H_pre": encode_matrix(solution.H_pre),
        "H": encode_matrix(solution.H),
        "Y": encode_matrix(solution.Y),
    }
    if solution.out is not None:
        out["out"] = encode_matrix(solution.out)
    return out


def metrics(problem, solution=None, leave_out: tuple = ()) -> dict:
    """Figures for one problem: the largest number written and the products to work out
    (core/metrics), the cells ReLU sets to 0, the largest denominator (R's, in a block)."""
    from generator.core.registry import kind_of
    from generator.core.metrics import largest_number, multiplications, worked

    steps, values = worked(kind_of(problem), problem)
    written = [
        x
        for s in steps
        if s.op is not None and s.op.operation.new_numbers and s.key[1] not in leave_out
        for row in values[s.key]
        for x in row
    ]
    return {
        "largest_number": largest_number(steps, values, leave_out),
        "multiplications": multiplications(steps, values),
        "relu_zeros": sum(1 for row in values[(None, "H_pre")] for x in row if x < 0),
        "largest_denominator": max(Fraction(x).denominator for x in written if x is not None),
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return {
        "largest number written": m["largest_number"],
        "multiplications": m["multiplications"],
        "cells ReLU sets to 0": m["relu_zeros"],
        "largest denominator": m["largest_denominator"],
    }
