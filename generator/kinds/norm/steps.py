"""Normalisation as a graph of steps: (a layer Z = [W | b]·[X ; 1], H = ReLU(Z) before it, if any), then mu, D, S, var, sigma, N and Y = gamma·N + beta over each feature (batch norm) or each example (layer norm)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from typing import ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, BROADCAST, GAIN, MEAN, RULE, N_, Face, Op
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.numbers import Number
from generator.core.ops import affine_pairs, along, gained, means, relu
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.schema import Given, declared

AXES = ("batch", "layer")
"""batch: each feature over the batch (a row at a time); layer: each example over its features (a column)."""
FINAL_STEPS = ("Z", "H", "mu", "D", "S", "var", "sigma", "N", "Y")
"""Its grids in the order a student works them (Z and H only with a layer before the norm)."""


def exact_root(x: Optional[Number]) -> Optional[Number]:
    """√x where x is the square of a fraction; None where it is not (or is negative, or missing)."""
    if x is None or x < 0:
        return None
    x = Fraction(x)
    top, bottom = isqrt(x.numerator), isqrt(x.denominator)
    if top * top != x.numerator or bottom * bottom != x.denominator:
        return None
    root = Fraction(top, bottom)
    return root.numerator if root.denominator == 1 else root


def squared(a) -> Values:
    """x², cell by cell."""
    return [[None if x is None else x * x for x in r] for r in a]


def roots(a) -> Values:
    """√x, cell by cell, exact (None where x is not the square of a fraction)."""
    return [[exact_root(x) for x in r] for r in a]


GIVENS = (
    Given("X", ("d", "n"), caption=N_("inputs, an example each"), tone="input"),
    Given("gamma", ("d",), caption=N_("gains")),
    Given("beta", ("d",), caption=N_("shifts")),
    Given("W", ("d", "d_0"), optional=True, caption=N_("weights, bias last")),
    Given("b", ("d",), optional=True, caption=N_("bias")),
)
"""Its givens in problem@1, in order: the inputs, gamma and beta, and a layer before the norm (W, b) if any."""


@dataclass(frozen=True)
class NormProblem(Drawn):
    """A norm: the inputs, its gains and shifts, which axis, and a layer before it if any."""

    kind: ClassVar[str] = "norm"
    """problem@1's `kind`."""
    X: IntMatrix
    """The inputs: d × n (column convention: an example per column), or d_0 × n with a layer before."""
    gamma: tuple[int, ...]
    """The gains gamma: d entries."""
    beta: tuple[int, ...]
    """The shifts beta: d entries."""
    W: Optional[IntMatrix] = None
    """A layer's weights before the norm: d × d_0 (column convention), or None."""
    b: Optional[tuple[int, ...]] = None
    """That layer's bias: d entries."""
    axis: str = "batch"
    """batch: each feature normalised over the batch; layer: each example over its features."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        if self.axis not in AXES:
            raise ProblemError(f"axis: expected batch or layer, got {self.axis!r}")
        if (self.W is None) != (self.b is None):
            raise ProblemError("W, b: a layer before the norm has both its weights and its bias, or neither")
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        d_in, _n = shape(t(self.X))
        d = len(self.gamma)
        if self.W is not None:
            check_shaped("W", t(self.W), (d, d_in), ("d", "d_0"), row)
            if len(self.b) != d:
                raise ProblemError(f"b: expected {d} entries (d), got {len(self.b)}")
        elif d_in != d:
            raise ProblemError(f"gamma: expected {d_in} entries (d, X's features), got {d}")
        if len(self.beta) != d:
            raise ProblemError(f"beta: expected {d} entries (d), got {len(self.beta)}")

    @property
    def d(self) -> int:
        """Features the norm works on."""
        return len(self.gamma)


def given(problem: NormProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key (gamma, beta and a bias as columns)."""
    out: dict[Key, Values] = {
        (None, "X"): problem.X,
        (None, "gamma"): [[x] for x in problem.gamma],
        (None, "beta"): [[x] for x in problem.beta],
    }
    if problem.W is not None:
        out[(None, "W")], out[(None, "b")] = problem.W, [[x] for x in problem.b]
    return out


def steps(problem: NormProblem) -> list[Step]:
    """Every step of a column-convention problem: the layer, if any, then the norm's."""
    out: list[Step] = []
    source = (None, "X")
    line = "row" if problem.axis == "batch" else "column"
    if problem.W is not None:
        out += [
            Step(
                (None, "Z"),
                ((None, "W"), (None, "X"), (None, "b")),
                affine_pairs,
                op=Op(AFFINE),
                face=Face("Z", ("Z = W·X + b", "Z = X·W + b"), N_("pre-activation"), "score"),
            ),
            Step(
                (None, "H"),
                ((None, "Z"),),
                relu,
                op=Op(RULE, N_("ReLU(%(x)s)")),
                face=Face("H", ("H", "H"), N_("activation: negatives to 0"), "q"),
            ),
        ]
        source = (None, "H")
    name = source[1]
    k = lambda s: (None, s)  # noqa: E731
    out += [
        Step(
            k("mu"),
            (source,),
            means(line),
            op=Op(MEAN, params={"along": line}),
            face=Face("mu", ("mu", "mu"), N_("means"), "k"),
        ),
        Step(
            k("D"),
            (source, k("mu")),
            along("−", line),
            op=Op(BROADCAST, params={"along": line, "sign": "−"}),
            face=Face("D", (f"D = {name} − mu",) * 2, N_("minus the mean"), "v"),
        ),
        Step(
            k("S"), (k("D"),), squared, op=Op(RULE, N_("%(x)s²")), face=Face("S", ("S = D²",) * 2, N_("squares"), "v")
        ),
        Step(
            k("var"),
            (k("S"),),
            means(line),
            op=Op(MEAN, params={"along": line}),
            face=Face("var", ("var", "var"), N_("means of S"), "k"),
        ),
        Step(
            k("sigma"),
            (k("var"),),
            roots,
            op=Op(RULE, N_("√%(x)s")),
            face=Face("sigma", ("sigma = √var",) * 2, N_("roots"), "k"),
        ),
        Step(
            k("N"),
            (k("D"), k("sigma")),
            along("÷", line),
            op=Op(BROADCAST, params={"along": line, "sign": "÷"}),
            face=Face("N", ("N = D ÷ sigma",) * 2, N_("normalised"), "score", fraction=True),
        ),
        Step(
            k("Y"),
            (k("N"), k("gamma"), k("beta")),
            gained,
            op=Op(GAIN),
            face=Face("Y", ("Y = gamma·N + beta",) * 2, N_("output"), "out", fraction=True),
        ),
    ]
    return out


FACES = {g.name: g.face for g in GIVENS}
"""How its givens show (its steps' faces are declared with them)."""

column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(
    NormProblem, GIVENS, steps, given, {"axis": "batch"}
)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (core/schema)."""


def describe(p: NormProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    before = ", after a layer with ReLU" if p.W is not None else ""
    return [
        f"{'Batch' if p.axis == 'batch' else 'Layer'} norm{before}, {p.convention} convention, ε = 0",
        f"d = {p.d} features, n = {p.n_tokens} examples",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the shared ones (core/metrics), the largest denominator of N and Y,
    and what its guarantees say: standard deviations of 0, roots that are not exact."""
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    sigmas = [x for row in values[(None, "sigma")] for x in row]
    written = [x for key in ((None, "N"), (None, "Y")) for row in values[key] for x in row if x is not None]
    return {
        **out,
        "largest_denominator": max(Fraction(x).denominator for x in written),
        "sigma_zero": sum(1 for x in sigmas if x == 0),
        "sigma_inexact": sum(1 for x in sigmas if x is None),
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"largest denominator of N, Y": "largest_denominator"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: how many sheets hold each."""
    count = len(all_metrics)
    return [
        f"no σ of 0: {sum(1 for m in all_metrics if not m['sigma_zero'])} of {count}",
        f"every σ exact: {sum(1 for m in all_metrics if not m['sigma_inexact'])} of {count}",
    ]
