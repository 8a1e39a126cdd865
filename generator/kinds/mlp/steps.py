"""The multi-layer perceptron as a graph of steps: for ℓ = 1…L, Z{ℓ} = [W{ℓ} | b{ℓ}]·[H{ℓ−1} ; 1] (H0 = X) and H{ℓ} = ReLU(Z{ℓ}), but for a linear last layer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, RULE, N_, Face, Op, given_faces
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.ops import affine_pairs, relu
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.schema import Given, declared

MAX_LAYERS = 4
"""The deepest network a sheet works (answers@1 names every layer's grids)."""
LASTS = ("linear", "relu")
"""What the last layer does: its Z is the output, or ReLU follows it as it follows the others."""
FINAL_STEPS = tuple(name for layer in range(1, MAX_LAYERS + 1) for name in (f"Z{layer}", f"H{layer}"))
"""Its grids in the order a student works them: each layer's Z, then its H (none after a linear last layer)."""


@dataclass(frozen=True)
class Layer:
    """One layer: its weights, d_ℓ × d_{ℓ−1} (column convention), and its bias, d_ℓ entries."""

    W: IntMatrix
    """The weights."""
    b: tuple[int, ...]
    """The bias."""


GIVENS = (
    Given("X", ("d_0", "n"), caption=N_("inputs, an example each"), tone="input"),
    Given("layers", (), items=(Given("W", ("d_ℓ", "d_ℓ−1")), Given("b", ("d_ℓ",))), of=Layer),
)
"""Its givens in problem@1, in order: the inputs (an example per column), the layers ({W, b} each)."""


@dataclass(frozen=True)
class MLPProblem(Drawn):
    """A multi-layer perceptron: the inputs, its layers in order, and what its last layer does."""

    kind: ClassVar[str] = "mlp"
    """problem@1's `kind`."""
    X: IntMatrix
    """The inputs: d_0 × n (column convention: an example per column) or n × d_0 (row)."""
    layers: tuple[Layer, ...]
    """Its layers, first to last."""
    last: str = "linear"
    """linear: the last layer's Z is the output; relu: ReLU follows it too."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        if self.last not in LASTS:
            raise ProblemError(f"last: expected linear or relu, got {self.last!r}")
        if not 1 <= len(self.layers) <= MAX_LAYERS:
            raise ProblemError(f"layers: a sheet works 1 to {MAX_LAYERS} layers, got {len(self.layers)}")
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        width = shape(t(self.X))[0]
        for k, layer in enumerate(self.layers):
            check_shaped(f"layers[{k}].W", t(layer.W), (len(layer.b), width), ("d_ℓ", "d_ℓ−1"), row)
            width = len(layer.b)

    def sizes(self) -> tuple[int, ...]:
        """d_0, d_1, …, d_L: the inputs' size, then each layer's."""
        return (self.d_model, *(len(layer.b) for layer in self.layers))

    def has_h(self, layer: int) -> bool:
        """Whether layer `layer` (1-based) has an H: every layer but a linear last one."""
        return layer < len(self.layers) or self.last == "relu"


def given(problem: MLPProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key: X, each layer's W{ℓ} and b{ℓ} (a column)."""
    out: dict[Key, Values] = {(None, "X"): problem.X}
    for k, layer in enumerate(problem.layers, start=1):
        out[(None, f"W{k}")], out[(None, f"b{k}")] = layer.W, [[x] for x in layer.b]
    return out


def steps(problem: MLPProblem) -> list[Step]:
    """Every step of a column-convention problem, layer after layer."""
    out: list[Step] = []
    source, name = (None, "X"), "X"
    for k in range(1, len(problem.layers) + 1):
        output = not problem.has_h(k)
        out.append(
            Step(
                (None, f"Z{k}"),
                ((None, f"W{k}"), source, (None, f"b{k}")),
                affine_pairs,
                op=Op(AFFINE),
                face=Face(
                    f"Z{k}",
                    (f"Z{k} = W{k}·{name} + b{k}", f"Z{k} = {name}·W{k} + b{k}"),
                    N_("output") if output else N_("pre-activation"),
                    "out" if output else "score",
                ),
            )
        )
        if problem.has_h(k):
            out.append(
                Step(
                    (None, f"H{k}"),
                    ((None, f"Z{k}"),),
                    relu,
                    op=Op(RULE, N_("ReLU(%(x)s)")),
                    face=Face(f"H{k}", (f"H{k}", f"H{k}"), N_("activation: negatives to 0"), "q"),
                )
            )
        source, name = (None, f"H{k}"), f"H{k}"
    return out


FACES = {
    **given_faces({"X": N_("inputs, an example each")}, "input"),
    **given_faces(
        {
            f"{w}{k}": words
            for k in range(1, MAX_LAYERS + 1)
            for w, words in (("W", N_("weights, bias last")), ("b", N_("bias")))
        }
    ),
}
"""How its givens show (its steps' faces are declared with them)."""

column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(
    MLPProblem, GIVENS, steps, given, {"last": "linear"}
)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (core/schema)."""


def describe(p: MLPProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    return [
        f"Multi-layer perceptron (ReLU), {len(p.layers)} layers, last layer {p.last}, {p.convention} convention",
        f"n = {p.n_tokens} examples, sizes " + " → ".join(map(str, p.sizes())),
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the shared ones (core/metrics), the entries ReLU sets to 0, the
    largest |Z|, and what its guarantees say: units never positive (dead), an output all zero."""
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    relu_in = [values[s.inputs[0]] for s in steps_ if s.key[1].startswith("H")]
    zs = [x for s in steps_ if s.key[1].startswith("Z") for row in values[s.key] for x in row]
    output = values[steps_[-1].key]
    return {
        **out,
        "relu_zeros": sum(1 for grid in relu_in for row in grid for x in row if x < 0),
        "largest_z": max(abs(x) for x in zs),
        "relus": len(relu_in),
        "dead_units": sum(1 for grid in relu_in for row in grid if all(x <= 0 for x in row)),
        "output_zero": all(x == 0 for row in output for x in row),
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"cells ReLU sets to 0": "relu_zeros", "largest |Z|": "largest_z"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: how many sheets hold each."""
    count = len(all_metrics)
    with_relu = [m for m in all_metrics if m.get("relus")]
    return [
        f"no hidden unit dead: {sum(1 for m in all_metrics if m['dead_units'] == 0)} of {count}",
        f"ReLU zeroes an entry: {sum(1 for m in with_relu if m['relu_zeros'] > 0)} of {len(with_relu)} "
        "(the sheets with a ReLU)",
        f"output not all zero: {sum(1 for m in all_metrics if not m['output_zero'])} of {count}",
    ]
