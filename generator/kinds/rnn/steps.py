"""The recurrent layer as a graph of steps: for t = 1…T, h_{t−1} copied in, a_t = W_x·x_t + W_h·h_{t−1} + b, h_t = ReLU(a_t), y_t = W_y·h_t."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, COPY, PRODUCT, RULE, N_, Face, Op
from generator.core.graph import Key, Step, Values
from generator.core.ops import affine_pairs, copy, product, relu
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.metrics import figures_of
from generator.core.schema import Given, declared

MAX_STEPS = 5
"""The longest sequence a sheet unrolls (answers@1 names every step's grids)."""
FINAL_STEPS = tuple(
    name
    for t in range(1, MAX_STEPS + 1)
    for name in ((f"h{t - 1}_copy",) if t > 1 else ()) + (f"a{t}", f"h{t}", f"y{t}")
)
"""Its grids, in the order a student works them, step by step: h_{t−1} copied into step t's
input, a_t, h_t, and y_t with a readout."""


@dataclass(frozen=True)
class RNNProblem(Drawn):
    """A recurrent exercise: the inputs (a column per time step), the weights, the bias and an optional readout."""

    kind: ClassVar[str] = "rnn"
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

    def __post_init__(self) -> None:
        check_convention(self.convention)
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        d_x, steps = shape(t(self.X))
        if not 1 <= steps <= MAX_STEPS:
            raise ProblemError(f"X: a sheet unrolls 1 to {MAX_STEPS} time steps, got {steps}")
        d_h = len(self.b)
        check_shaped("W_x", t(self.W_x), (d_h, d_x), ("d_h", "d_x"), row)
        check_shaped("W_h", t(self.W_h), (d_h, d_h), ("d_h", "d_h"), row)
        if self.W_y is not None:
            check_shaped("W_y", t(self.W_y), (len(t(self.W_y)), d_h), ("d_y", "d_h"), row)

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
        return 0 if self.W_y is None else len(self.W_y[0] if self.convention == "row" else self.W_y)


GIVENS = (
    Given("X", ("d_x", "T"), caption=N_("inputs, a time step each"), tone="input"),
    Given("W_x", ("d_h", "d_x"), caption=N_("input weights")),
    Given("W_h", ("d_h", "d_h"), caption=N_("recurrent weights")),
    Given("b", ("d_h",), caption=N_("bias")),
    Given("W_y", ("d_y", "d_h"), optional=True, caption=N_("readout weights")),
)
"""Its givens in problem@1, in order."""


def given(problem: RNNProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key: each x_t as a column, h₀ = 0, the bias as a column."""
    out: dict[Key, Values] = {
        (None, "X"): problem.X,
        (None, "W_x"): problem.W_x,
        (None, "W_h"): problem.W_h,
        (None, "b"): [[x] for x in problem.b],
        (None, "h0"): [[0] for _ in problem.b],
    }
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
            out.append(
                Step(
                    state,
                    ((None, f"h{t - 1}"),),
                    copy,
                    op=Op(COPY),
                    face=Face(f"h{t - 1}", (f"h{t - 1}", f"h{t - 1}"), N_("the state, copied in"), "k"),
                )
            )
        out.append(
            Step(
                (None, f"a{t}"),
                ((None, "W_x"), (None, f"x{t}"), (None, "W_h"), state, (None, "b")),
                affine_pairs,
                op=Op(AFFINE),
                face=Face(
                    f"a{t}",
                    (f"a{t} = W_x·x{t} + W_h·h{t - 1} + b", f"a{t} = x{t}·W_x + h{t - 1}·W_h + b"),
                    N_("pre-activation"),
                    "score",
                ),
            )
        )
        out.append(
            Step(
                (None, f"h{t}"),
                ((None, f"a{t}"),),
                relu,
                op=Op(RULE, N_("ReLU(%(x)s)")),
                face=Face(f"h{t}", (f"h{t}", f"h{t}"), N_("the state: negatives to 0"), "q"),
            )
        )
        if problem.W_y is not None:
            out.append(
                Step(
                    (None, f"y{t}"),
                    ((None, "W_y"), (None, f"h{t}")),
                    product,
                    op=Op(PRODUCT),
                    face=Face(f"y{t}", (f"y{t} = W_y·h{t}", f"y{t} = h{t}·W_y"), N_("output"), "out"),
                )
            )
    return out


column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(RNNProblem, GIVENS, steps, given)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (core/schema)."""


FACES = {
    **{g.name: g.face for g in GIVENS},
    "h0": Face("h0", ("h0", "h0"), N_("the state before the first step: 0"), "k"),
    **{f"x{t}": Face(f"x{t}", (f"x{t}", f"x{t}"), N_("input"), "input", within="X") for t in range(1, MAX_STEPS + 1)},
}
"""How the recurrent layer's givens show (its steps' faces are declared with them)."""


def describe(p: RNNProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    readout = f", a readout of {p.d_y}" if p.W_y is not None else ""
    return [
        f"Recurrent layer (ReLU), {p.convention} convention{readout}",
        f"T = {p.steps} time steps, d_x = {p.d_model}, d_h = {p.d_h}, h0 = 0",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the largest number written and the products to work out
    (core/metrics), the entries ReLU sets to 0, the largest |a|."""
    from generator.core.metrics import shared
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    pre = [x for s in steps_ if s.key[1].startswith("a") for row in values[s.key] for x in row]
    states = [values[s.key] for s in steps_ if s.key[1].startswith("h") and not s.key[1].endswith("_copy")]
    dead = sum(1 for unit in range(problem.d_h) if all(h[unit][0] <= 0 for h in states))
    return {
        **out,
        "relu_zeros": sum(1 for x in pre if x < 0),
        "largest_pre": max(abs(x) for x in pre),
        "dead_units": dead,
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"cells ReLU sets to 0": "relu_zeros", "largest |a|": "largest_pre"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: the sheets whose every unit of the state lives."""
    alive = sum(1 for m in all_metrics if m.get("dead_units") == 0)
    return [f"every unit of the state positive at some step: {alive} of {len(all_metrics)}"]
