"""The mixture of experts as a graph of steps: gate scores G = W_g·X, a top-1 route r, each token through its expert's layers only, Y, and (weighted) out = Y·g.

Every expert's rows are written one below another (W1 = [W1₁ ; W1₂ ; …], W2 = [W2₁ | W2₂ | …]):
H_pre = [W1 | b1]·[X ; 1] is worked in column j only in the rows of expert r_j (the route's
skip leaves the others empty), H = ReLU(H_pre) likewise, and Y's column j is the chosen
expert's W2 on that block. Graded by the student's own route, so a token sent to the wrong
expert is judged by that expert's arithmetic on their numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, ARGMAX, DIVIDE, PICK, PRODUCT, ROUTED, RULE, SCALE, SUM, N_, Face, Op
from generator.core.graph import Key, Skip, Step, Values
from generator.core.ops import (
    affine_pairs,
    argmax_rows,
    guarded,
    picked,
    product,
    relu,
    routed,
    routed_cells,
    scaled_columns,
)
from generator.core.numbers import divide, normalize
from generator.core.schema import Given, declared
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose

FINAL_STEPS = ("G", "r", "powers", "totals", "A", "g", "H_pre", "H", "Y", "out")
"""Its grids, in the order a student works them (the softmax's and out only when weighted)."""
MAX_POWER = 12
"""The largest gate score a weighted sheet raises 3 to (a problem file's too)."""


@dataclass(frozen=True)
class Expert:
    """One expert: a feed-forward layer without a second bias (column convention shapes)."""

    W1: IntMatrix
    """First layer: d_ff × d."""
    b1: tuple[int, ...]
    """Its bias: d_ff entries."""
    W2: IntMatrix
    """Second layer: d × d_ff."""


@dataclass(frozen=True)
class MoEProblem(Drawn):
    """A mixture-of-experts exercise: the tokens, the gate, the experts. Shapes are checked."""

    kind: ClassVar[str] = "moe"
    """problem@1's `kind`."""
    X: IntMatrix
    """The tokens: d × n (column convention) or n × d (row)."""
    W_g: IntMatrix
    """The gate: E × d (column convention)."""
    experts: tuple[Expert, ...]
    """The experts, 1-based as the route names them."""
    weighted: bool = False
    """Whether each token's output is scaled by its expert's gate probability (out = Y·g)."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        d, _ = shape(t(self.X))
        if not 1 <= len(self.experts) <= 4:
            raise ProblemError(f"experts: a sheet takes 1 to 4 experts, got {len(self.experts)}")
        check_shaped("W_g", t(self.W_g), (len(self.experts), d), ("E", "d"), row)
        f = len(self.experts[0].b1)
        for e, expert in enumerate(self.experts, start=1):
            check_shaped(f"experts[{e - 1}].W1", t(expert.W1), (f, d), ("d_ff", "d"), row)
            check_shaped(f"experts[{e - 1}].W2", t(expert.W2), (d, f), ("d", "d_ff"), row)
            if len(expert.b1) != f:
                raise ProblemError(
                    f"experts[{e - 1}].b1: expected {f} entries (d_ff, as expert 1's), got {len(expert.b1)}"
                )
        if self.weighted:
            top = max(abs(x) for r in gate_scores(self) for x in r)
            if top > MAX_POWER:
                raise ProblemError(
                    f"W_g: a gate score of {top} is too large to raise 3 to by hand "
                    f"(at most {MAX_POWER}); use smaller entries, or no --weighted"
                )

    @property
    def E(self) -> int:
        """Experts."""
        return len(self.experts)

    @property
    def d_ff(self) -> int:
        """Hidden units of each expert."""
        return len(self.experts[0].b1)


def gate_scores(p: MoEProblem) -> list[list[int]]:
    """G in the column convention (what a weighted sheet raises 3 to)."""
    w = p.W_g if p.convention == "column" else transpose(p.W_g)
    x = p.X if p.convention == "column" else transpose(p.X)
    return product(w, x)


def given(problem: MoEProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key: X (the gate's, and again the layers', drawn
    with its 1s), the experts' rows one below another (W1, b1), their W2 side by side."""
    return {
        (None, "X"): problem.X,
        (None, "X_layers"): problem.X,
        (None, "W_g"): problem.W_g,
        (None, "W1"): [list(r) for e in problem.experts for r in e.W1],
        (None, "b1"): [[x] for e in problem.experts for x in e.b1],
        (None, "W2"): [[x for e in problem.experts for x in e.W2[i]] for i in range(len(problem.X))],
    }


def _powers(g: Values) -> Values:
    return [[None if x is None or abs(x) > MAX_POWER else normalize(Fraction(3) ** x) for x in r] for r in g]


def _totals(p: Values) -> Values:
    return [[None if None in col else normalize(sum(col)) for col in zip(*p)]]


def _shares(p: Values, totals: Values) -> Values:
    return [
        [None if x is None or totals[0][j] in (None, 0) else guarded(divide, x, totals[0][j]) for j, x in enumerate(r)]
        for r in p
    ]


def steps(problem: MoEProblem) -> list[Step]:
    """Every step of a column-convention problem: the gate, the route, the routed layers, the weighting."""
    E, rows = problem.E, problem.E * problem.d_ff
    skip = Skip(
        (None, "r"),
        lambda route, true: routed_cells(route, true, rows, E),
        N_("not this token's expert: nothing to write"),
    )
    out = [
        Step(
            (None, "G"),
            ((None, "W_g"), (None, "X")),
            product,
            op=Op(PRODUCT),
            face=Face("G", ("G = W_g·X", "G = X·W_g"), N_("gate scores"), "score"),
        ),
        Step(
            (None, "r"),
            ((None, "G"),),
            argmax_rows,
            op=Op(ARGMAX),
            face=Face("r", ("r (expert)", "r (expert)"), N_("each token's expert"), "attn"),
        ),
    ]
    if problem.weighted:
        out += [
            Step(
                (None, "powers"),
                ((None, "G"),),
                _powers,
                op=Op(RULE, "3^%(x)s"),
                face=Face("P", ("P = 3^G", "P = 3^G"), N_("powers"), "score"),
            ),
            Step(
                (None, "totals"),
                ((None, "powers"),),
                _totals,
                op=Op(SUM),
                face=Face("Σ", ("Σ", "Σ"), N_("column sums"), "score", row_caption=N_("row sums")),
            ),
            Step(
                (None, "A"),
                ((None, "powers"), (None, "totals")),
                _shares,
                op=Op(DIVIDE),
                face=Face("A", ("A", "A"), N_("gate probabilities"), "attn", fraction=True),
            ),
            Step(
                (None, "g"),
                ((None, "r"), (None, "A")),
                picked,
                op=Op(PICK),
                face=Face("g", ("g", "g"), N_("the chosen expert's probability"), "attn", fraction=True),
            ),
        ]
    out += [
        Step(
            (None, "H_pre"),
            ((None, "W1"), (None, "X_layers"), (None, "b1")),
            affine_pairs,
            op=Op(AFFINE),
            skip=skip,
            face=Face("H_pre", ("H_pre = W1·X + b1", "H_pre = X·W1 + b1"), N_("first layer, routed"), "score"),
        ),
        Step(
            (None, "H"),
            ((None, "H_pre"),),
            relu,
            op=Op(RULE, N_("ReLU(%(x)s)")),
            skip=skip,
            face=Face("H", ("H = ReLU(H_pre)", "H = ReLU(H_pre)"), N_("negatives to 0"), "score"),
        ),
        Step(
            (None, "Y"),
            ((None, "r"), (None, "W2"), (None, "H")),
            lambda r, w, h: routed(r, w, h, E),
            op=Op(ROUTED, params={"blocks": E}),
            face=Face("Y", ("Y = W2·H", "Y = H·W2"), N_("second layer, the chosen expert's"), "out"),
        ),
    ]
    if problem.weighted:
        out.append(
            Step(
                (None, "out"),
                ((None, "Y"), (None, "g")),
                scaled_columns,
                op=Op(SCALE),
                face=Face("out", ("out = Y·g", "out = Y·g"), N_("weighted by the gate"), "out", fraction=True),
            )
        )
    return out


GIVENS = (
    Given("X", ("d", "n")),
    Given("W_g", ("E", "d")),
    Given(
        "experts", (), items=(Given("W1", ("d_ff", "d")), Given("b1", ("d_ff",)), Given("W2", ("d", "d_ff"))), of=Expert
    ),
)
"""Its givens in problem@1, in order: the tokens, the gate, the experts ({W1, b1, W2} each)."""
column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(
    MoEProblem, GIVENS, steps, given, {"weighted": False}
)
"""Its problem@1 and solution@1, its column twin and its solution (None in the cells the route
leaves empty), from its givens (core/schema)."""

FACES = {
    "X": Face("X", ("X", "X"), N_("tokens"), "input"),
    "X_layers": Face("X", ("X", "X"), N_("tokens"), "input", within="X"),
    "W_g": Face("W_g", ("W_g", "W_g"), N_("gate weights"), "weight"),
    "W1": Face("W1", ("W1", "W1"), N_("the experts' first layers, bias last"), "weight"),
    "b1": Face("b1", ("b1", "b1"), N_("first biases"), "weight"),
    "W2": Face("W2", ("W2", "W2"), N_("the experts' second layers"), "weight"),
}
"""How the mixture's givens show (its steps' faces are declared with them)."""


def describe(p: MoEProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    return [
        f"Mixture of experts (top-1 gate), {p.convention} convention" + (", weighted" if p.weighted else ""),
        f"n = {p.n_tokens} tokens, d = {p.d_model}, E = {p.E} experts of d_ff = {p.d_ff}",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the largest number written and the products to work out
    (core/metrics), the routed entries ReLU sets to 0, the tokens of the busiest expert."""
    from generator.core.registry import kind_of
    from generator.core.metrics import largest_number, multiplications, worked

    steps_, values = worked(kind_of(problem), problem)
    routes = values[(None, "r")][0]
    pre = [x for r in values[(None, "H_pre")] for x in r if x is not None]
    return {
        "largest_number": largest_number(steps_, values),
        "multiplications": multiplications(steps_, values),
        "relu_zeros": sum(1 for x in pre if x < 0),
        "busiest": max(routes.count(e) for e in set(routes)),
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return {
        "largest number written": m["largest_number"],
        "multiplications": m["multiplications"],
        "cells ReLU sets to 0": m["relu_zeros"],
        "busiest expert's tokens": m["busiest"],
    }
