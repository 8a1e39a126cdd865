"""The linear layer as a graph of one step, Y = W·X + b: each token's column x gives y = W·x + b, [W | b]·[x ; 1] by hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from generator.core.faces import AFFINE, N_, Face, Op
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.ops import affine_pairs
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.schema import Given, declared

FINAL_STEPS = ("Y",)
"""The one grid a student writes."""
GIVENS = (
    Given("X", ("d_in", "n"), caption=N_("inputs"), tone="input"),
    Given("W", ("d_out", "d_in"), caption=N_("weights")),
    Given("b", ("d_out",), caption=N_("bias")),
)
"""Its givens in problem@1, in order: the inputs (a column per token), the weights, the bias."""


@dataclass(frozen=True)
class LinearProblem(Drawn):
    """A linear layer: the inputs, a column per token (column convention), its weights and its bias."""

    kind: ClassVar[str] = "linear"
    """problem@1's `kind`."""
    X: IntMatrix
    """The inputs: d_in × n (column convention) or n × d_in (row)."""
    W: IntMatrix
    """The weights: d_out × d_in (column convention)."""
    b: tuple[int, ...]
    """The bias: d_out entries."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        check_shaped("W", t(self.W), (len(self.b), shape(t(self.X))[0]), ("d_out", "d_in"), row)


def given(problem: LinearProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key (the bias as a column)."""
    return {(None, "X"): problem.X, (None, "W"): problem.W, (None, "b"): [[x] for x in problem.b]}


def steps(problem: LinearProblem) -> list[Step]:
    """The one step: Y = [W | b]·[X ; 1]."""
    face = Face("Y", ("Y = W·X + b", "Y = X·W + b"), N_("outputs"), "out")
    return [Step((None, "Y"), ((None, "W"), (None, "X"), (None, "b")), affine_pairs, op=Op(AFFINE), face=face)]


FACES = {g.name: g.face for g in GIVENS}
"""How its givens show in the solve text and the explanations."""

column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(LinearProblem, GIVENS, steps, given)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (attnsheet's core/schema)."""


def describe(p: LinearProblem) -> list[str]:
    """The solve text's header."""
    return [
        f"Linear layer Y = W·X + b, {p.convention} convention",
        f"n = {p.n_tokens} tokens, d_in = {p.d_model}, d_out = {len(p.b)}",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: attnsheet's shared ones (the largest number written, the products to work)."""
    from generator.core.registry import kind_of

    return shared(kind_of(problem), problem)[2]


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {})
