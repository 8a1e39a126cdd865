"""A graph convolution as a graph of steps: for each layer, M{ℓ} = H{ℓ−1}·A (each column ÷ its node's degree under "mean"; H0 = X), Z{ℓ} = [W{ℓ} | b{ℓ}]·[M{ℓ} ; 1] and H{ℓ} = ReLU(Z{ℓ})."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from generator.core.errors import ProblemError
from generator.core.faces import AFFINE, NEIGHBOURS, PRODUCT, RULE, N_, Face, Op, given_faces
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.ops import affine_pairs, averaged, degrees, product, relu
from generator.core.problem import Drawn, IntMatrix, check_convention, check_shaped, shape, transpose
from generator.core.schema import Given, declared

MAX_LAYERS = 2
"""The deepest graph convolution a sheet works."""
NODES = (2, 6)
"""The fewest and the most nodes a sheet draws a graph of."""
AGGREGATES = ("sum", "mean")
"""How a node gathers its neighbours' features (itself too): their sum, or their mean."""
FINAL_STEPS = tuple(name for layer in range(1, MAX_LAYERS + 1) for name in (f"M{layer}", f"Z{layer}", f"H{layer}"))
"""Its grids in the order a student works them: each layer's M, Z, then H."""


@dataclass(frozen=True)
class Layer:
    """One layer: its weights, d_ℓ × d_{ℓ−1} (column convention), and its bias, d_ℓ entries."""

    W: IntMatrix
    """The weights."""
    b: tuple[int, ...]
    """The bias."""


GIVENS = (
    Given("X", ("d", "n"), caption=N_("features, a node each"), tone="input"),
    Given("A", ("n", "n"), caption=N_("adjacency, self-loops on the diagonal"), tone="k"),
    Given("layers", (), items=(Given("W", ("d_ℓ", "d_ℓ−1")), Given("b", ("d_ℓ",))), of=Layer),
)
"""Its givens in problem@1, in order: the features (a node per column), the adjacency, the layers ({W, b} each)."""


def edges(adjacency: IntMatrix) -> list[tuple[int, int]]:
    """The graph's edges (i < j), its self-loops aside."""
    return [(i, j) for i in range(len(adjacency)) for j in range(i + 1, len(adjacency)) if adjacency[i][j]]


def connected(adjacency: IntMatrix) -> bool:
    """Whether every node reaches every other."""
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j, linked in enumerate(adjacency[i]):
            if linked and j not in seen:
                seen.add(j)
                todo.append(j)
    return len(seen) == len(adjacency)


@dataclass(frozen=True)
class GCNProblem(Drawn):
    """A graph convolution: the nodes' features, the graph's adjacency, its layers and how a node gathers."""

    kind: ClassVar[str] = "gcn"
    """problem@1's `kind`."""
    X: IntMatrix
    """The features: d × n (column convention: a node per column) or n × d (row)."""
    A: IntMatrix
    """The adjacency, n × n: symmetric, 0 or 1, every node's self-loop on the diagonal."""
    layers: tuple[Layer, ...]
    """Its layers, first to last."""
    aggregate: str = "sum"
    """sum: a node takes the sum of its neighbours' features (its own too); mean: their mean."""

    def __post_init__(self) -> None:
        check_convention(self.convention)
        if self.aggregate not in AGGREGATES:
            raise ProblemError(f"aggregate: expected sum or mean, got {self.aggregate!r}")
        if not 1 <= len(self.layers) <= MAX_LAYERS:
            raise ProblemError(f"layers: a sheet works 1 to {MAX_LAYERS} layers, got {len(self.layers)}")
        row = self.convention == "row"
        t = transpose if row else (lambda m: m)
        n = self.n_tokens
        if not NODES[0] <= n <= NODES[1]:
            raise ProblemError(f"X: a sheet draws a graph of {NODES[0]} to {NODES[1]} nodes, got {n}")
        check_shaped("A", self.A, (n, n), ("n", "n"), row)
        if any(x not in (0, 1) for r in self.A for x in r):
            raise ProblemError("A: expected 0 or 1 in every entry (1: an edge)")
        if any(self.A[i][j] != self.A[j][i] for i in range(n) for j in range(n)):
            raise ProblemError("A: expected a symmetric adjacency (an edge goes both ways)")
        if any(self.A[i][i] != 1 for i in range(n)):
            raise ProblemError("A: expected 1 on the diagonal (every node is its own neighbour)")
        width = shape(t(self.X))[0]
        for k, layer in enumerate(self.layers):
            check_shaped(f"layers[{k}].W", t(layer.W), (len(layer.b), width), ("d_ℓ", "d_ℓ−1"), row)
            width = len(layer.b)

    def sizes(self) -> tuple[int, ...]:
        """d_0, d_1, …, d_L: the features' size, then each layer's."""
        return (self.d_model, *(len(layer.b) for layer in self.layers))

    def degrees(self) -> list[int]:
        """Each node's degree: the 1s of its column of A (its self-loop counted)."""
        return degrees(self.A)


def given(problem: GCNProblem) -> dict[Key, Values]:
    """The givens of a column-convention problem, by key: X, A, each layer's W{ℓ} and b{ℓ} (a column)."""
    out: dict[Key, Values] = {(None, "X"): problem.X, (None, "A"): problem.A}
    for k, layer in enumerate(problem.layers, start=1):
        out[(None, f"W{k}")], out[(None, f"b{k}")] = layer.W, [[x] for x in layer.b]
    return out


def steps(problem: GCNProblem) -> list[Step]:
    """Every step of a column-convention problem, layer after layer."""
    mean = problem.aggregate == "mean"
    out: list[Step] = []
    source, name = (None, "X"), "X"
    for k in range(1, len(problem.layers) + 1):
        out.append(
            Step(
                (None, f"M{k}"),
                (source, (None, "A")),
                averaged if mean else product,
                op=Op(NEIGHBOURS if mean else PRODUCT),
                face=Face(
                    f"M{k}",
                    (f"M{k} = {name}·A", f"M{k} = A·{name}"),
                    N_("neighbours' mean") if mean else N_("neighbours' sum"),
                    "k",
                ),
            )
        )
        out.append(
            Step(
                (None, f"Z{k}"),
                ((None, f"W{k}"), (None, f"M{k}"), (None, f"b{k}")),
                affine_pairs,
                op=Op(AFFINE),
                face=Face(
                    f"Z{k}", (f"Z{k} = W{k}·M{k} + b{k}", f"Z{k} = M{k}·W{k} + b{k}"), N_("pre-activation"), "score"
                ),
            )
        )
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
    **given_faces({"X": N_("features, a node each")}, "input"),
    **given_faces({"A": N_("adjacency, self-loops on the diagonal")}, "k"),
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
    GCNProblem, GIVENS, steps, given, {"aggregate": "sum"}
)
"""Its problem@1 and solution@1, its column twin and its solution, from its givens (core/schema)."""


def describe(p: GCNProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    return [
        f"Graph convolution (ReLU), {len(p.layers)} layer{'s' if len(p.layers) > 1 else ''}, each node takes the {p.aggregate} of its "
        f"neighbours, {p.convention} convention",
        f"n = {p.n_tokens} nodes, edges "
        + " ".join(f"{i + 1}–{j + 1}" for i, j in edges(p.A))
        + ", sizes "
        + " → ".join(map(str, p.sizes())),
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the shared ones (core/metrics), the entries ReLU sets to 0, the
    largest |Z|, and what its guarantees say: the graph's shape, nodes whose output is all zero."""
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    relu_in = [values[s.inputs[0]] for s in steps_ if s.key[1].startswith("H")]
    zs = [x for s in steps_ if s.key[1].startswith("Z") for row in values[s.key] for x in row]
    output = values[steps_[-1].key]
    column = column_twin(problem)
    n = len(column.A)
    return {
        **out,
        "relu_zeros": sum(1 for grid in relu_in for row in grid for x in row if x < 0),
        "largest_z": round(float(max(abs(x) for x in zs)), 2),
        "connected": connected(column.A),
        "complete": len(edges(column.A)) == n * (n - 1) // 2,
        "degrees_differ": len(set(column.degrees())) > 1,
        "zero_nodes": sum(1 for node in zip(*output) if all(x == 0 for x in node)),
        "dead_units": sum(1 for grid in relu_in for unit in grid if all(x <= 0 for x in unit)),
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"cells ReLU sets to 0": "relu_zeros", "largest |Z|": "largest_z"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: how many sheets hold each."""
    count = len(all_metrics)
    held = lambda test: sum(1 for m in all_metrics if test(m))  # noqa: E731
    return [
        f"graph connected, not complete: {held(lambda m: m['connected'] and not m['complete'])} of {count}",
        f"degrees differ: {held(lambda m: m['degrees_differ'])} of {count}",
        f"ReLU zeroes an entry: {held(lambda m: m['relu_zeros'] > 0)} of {count}",
        f"no node's output all zero: {held(lambda m: m['zero_nodes'] == 0)} of {count}",
        f"no unit dead: {held(lambda m: m['dead_units'] == 0)} of {count}",
    ]
