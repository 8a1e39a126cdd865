"""One step of backpropagation as a graph of steps: the forward pass Z1, H, Y; the loss's gradient dY = Y − T; back through the layers dW2, db2, dH, dZ1, dW1, db1; and with a learning rate the weights updated."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, DIFFERENCE, GATE, PRODUCT, RULE, TOTAL, TRANSPOSE, UPDATE, N_, Face, Op
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.ops import affine_pairs, gated, product, relu, stepped_by, subtracted, totals, transposed
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.schema import Given, declared

FORWARD = ("Z1", "H", "Y")
"""The forward pass."""
BACKWARD = ("dY", "H_T", "dW2", "db2", "dH", "dZ1", "dW1", "db1")
"""The backward pass, in the order a student works it (Hᵀ written where dW2 needs it)."""
UPDATES = ("W2_new", "b2_new", "W1_new", "b1_new")
"""The weights after one step of gradient descent (with a learning rate)."""
FINAL_STEPS = FORWARD + BACKWARD + UPDATES
"""Its grids in working order."""

GIVENS = (
    Given("X", ("d_0", "n"), caption=N_("inputs, an example each"), tone="input"),
    Given("W1", ("d_1", "d_0"), caption=N_("weights, bias last")),
    Given("b1", ("d_1",), caption=N_("bias")),
    Given("W2", ("d_2", "d_1"), caption=N_("weights, bias last")),
    Given("b2", ("d_2",), caption=N_("bias")),
    Given("T", ("d_2", "n"), caption=N_("targets"), tone="input"),
)
"""Its givens in problem@1, in order (and `lr`, a learning rate, if any)."""


@dataclass(frozen=True)
class BackpropProblem(Drawn):
    """A network of two layers, its inputs and targets, and a learning rate if its weights are to be updated."""

    kind: ClassVar[str] = "backprop"
    """problem@1's `kind`."""
    X: IntMatrix
    """The inputs: d_0 × n (column convention: an example per column) or n × d_0 (row)."""
    W1: IntMatrix
    """The first layer's weights: d_1 × d_0 (column convention)."""
    b1: tuple[int, ...]
    """Its bias: d_1 entries."""
    W2: IntMatrix
    """The second layer's weights: d_2 × d_1."""
    b2: tuple[int, ...]
    """Its bias: d_2 entries."""
    T: IntMatrix
    """The targets: d_2 × n."""
    lr: Optional[Fraction] = None
    """The learning rate (a fraction from 0 to 1), or None: no update."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        d0, n = shape(t(self.X))
        d1, d2 = len(self.b1), len(self.b2)
        check_shaped("W1", t(self.W1), (d1, d0), ("d_1", "d_0"), row)
        check_shaped("W2", t(self.W2), (d2, d1), ("d_2", "d_1"), row)
        check_shaped("T", t(self.T), (d2, n), ("d_2", "n"), row)
        if self.lr is not None and not 0 < self.lr <= 1:
            raise ProblemError(f"lr: expected a learning rate above 0 and at most 1, got {self.lr}")


def given(problem: BackpropProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key, and the transposes a sheet prints: Xᵀ, W2ᵀ."""
    return {
        (None, "X"): problem.X,
        (None, "W1"): problem.W1,
        (None, "b1"): [[x] for x in problem.b1],
        (None, "W2"): problem.W2,
        (None, "b2"): [[x] for x in problem.b2],
        (None, "T"): problem.T,
        (None, "X_T"): transposed(problem.X),
        (None, "W2_T"): transposed(problem.W2),
    }


def steps(problem: BackpropProblem) -> list[Step]:
    """Every step of a column-convention problem: forward, backward, and the updates with a learning rate."""
    k = lambda name: (None, name)  # noqa: E731

    rows = totals("row")  # a bias's gradient: each unit's row of its layer's gradient, summed over the examples
    out = [
        Step(
            k("Z1"),
            (k("W1"), k("X"), k("b1")),
            affine_pairs,
            op=Op(AFFINE),
            face=Face("Z1", ("Z1 = W1·X + b1", "Z1 = X·W1 + b1"), N_("pre-activation"), "score"),
        ),
        Step(
            k("H"),
            (k("Z1"),),
            relu,
            op=Op(RULE, N_("ReLU(%(x)s)")),
            face=Face("H", ("H", "H"), N_("activation: negatives to 0"), "q"),
        ),
        Step(
            k("Y"),
            (k("W2"), k("H"), k("b2")),
            affine_pairs,
            op=Op(AFFINE),
            face=Face("Y", ("Y = W2·H + b2", "Y = H·W2 + b2"), N_("output"), "out"),
        ),
        Step(
            k("dY"),
            (k("Y"), k("T")),
            subtracted,
            op=Op(DIFFERENCE),
            face=Face("dY", ("dY = Y − T",) * 2, N_("the loss's gradient"), "attn"),
        ),
        Step(k("H_T"), (k("H"),), transposed, op=Op(TRANSPOSE), face=Face("Hᵀ", ("Hᵀ",) * 2, N_("H, transposed"), "q")),
        Step(
            k("dW2"),
            (k("dY"), k("H_T")),
            product,
            op=Op(PRODUCT),
            face=Face("dW2", ("dW2 = dY·Hᵀ", "dW2 = Hᵀ·dY"), N_("gradient"), "attn"),
        ),
        Step(
            k("db2"),
            (k("dY"),),
            rows,
            op=Op(TOTAL, params={"along": "row"}),
            face=Face("db2", ("db2",) * 2, N_("gradient: sums of dY"), "attn"),
        ),
        Step(
            k("dH"),
            (k("W2_T"), k("dY")),
            product,
            op=Op(PRODUCT),
            face=Face("dH", ("dH = W2ᵀ·dY", "dH = dY·W2ᵀ"), N_("gradient"), "attn"),
        ),
        Step(
            k("dZ1"),
            (k("dH"), k("Z1")),
            gated,
            op=Op(GATE),
            face=Face("dZ1", ("dZ1",) * 2, N_("ReLU's gradient"), "attn"),
        ),
        Step(
            k("dW1"),
            (k("dZ1"), k("X_T")),
            product,
            op=Op(PRODUCT),
            face=Face("dW1", ("dW1 = dZ1·Xᵀ", "dW1 = Xᵀ·dZ1"), N_("gradient"), "attn"),
        ),
        Step(
            k("db1"),
            (k("dZ1"),),
            rows,
            op=Op(TOTAL, params={"along": "row"}),
            face=Face("db1", ("db1",) * 2, N_("gradient: sums of dZ1"), "attn"),
        ),
    ]
    if problem.lr is not None:
        step, lr = stepped_by(problem.lr), {"lr": problem.lr}
        for name, grad in (("W2", "dW2"), ("b2", "db2"), ("W1", "dW1"), ("b1", "db1")):
            out.append(
                Step(
                    k(f"{name}_new"),
                    (k(name), k(grad)),
                    step,
                    op=Op(UPDATE, params=lr),
                    face=Face(f"{name}_new", (f"{name}_new",) * 2, N_("updated"), "weight"),
                )
            )
    return out


FACES = {
    **{g.name: g.face for g in GIVENS},
    "X_T": Face("Xᵀ", ("Xᵀ", "Xᵀ"), N_("X, transposed"), "input"),
    "W2_T": Face("W2ᵀ", ("W2ᵀ", "W2ᵀ"), N_("W2, transposed"), "weight"),
}
"""How its givens show (its steps' faces are declared with them)."""

column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(
    BackpropProblem, GIVENS, steps, given, {"lr": None}
)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (core/schema)."""


def describe(p: BackpropProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    lr = f", lr = {p.lr}" if p.lr is not None else ""
    return [
        f"Backpropagation, one step: two layers (ReLU), loss ½·Σ(Y − T)², {p.convention} convention{lr}",
        f"n = {p.n_tokens} examples, sizes {p.d_model} → {len(p.b1)} → {len(p.b2)}",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the shared ones (core/metrics), and what its guarantees say: where
    ReLU's gradient stops dH, and gradients all zero."""
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    z1, dh = values[(None, "Z1")], values[(None, "dH")]
    stopped = sum(1 for zr, hr in zip(z1, dh) for z, h in zip(zr, hr) if z <= 0 and h != 0)
    zero = lambda name: all(x == 0 for r in values[(None, name)] for x in r)  # noqa: E731
    return {**out, "gradient_stopped": stopped, "dY_zero": zero("dY"), "dW_zero": zero("dW1") or zero("dW2")}


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"dH entries ReLU's gradient stops": "gradient_stopped"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: how many sheets hold each."""
    count = len(all_metrics)
    return [
        f"ReLU's gradient matters: {sum(1 for m in all_metrics if m['gradient_stopped'])} of {count}",
        f"dY not all zero: {sum(1 for m in all_metrics if not m['dY_zero'])} of {count}",
        f"no weight gradient all zero: {sum(1 for m in all_metrics if not m['dW_zero'])} of {count}",
    ]
