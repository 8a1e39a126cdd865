"""A convolution layer as a graph of steps: for each kernel c, the map Z{c} (the kernel over every window of X, plus its bias), H{c} = ReLU(Z{c}), and with a pool P{c}, the largest of each 2 × 2 block of H{c}."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from generator.core.errors import ProblemError
from generator.core.faces import N_, POOL, RULE, WINDOW, Face, Op, given_faces
from generator.core.graph import Key, Step, Values
from generator.core.metrics import figures_of, shared
from generator.core.ops import pooled, relu, windowed
from generator.core.problem import Drawn, IntMatrix, shape
from generator.core.schema import Given, declared

MAX_KERNELS = 2
"""The most kernels a sheet works (answers@1 names every kernel's grids)."""
FINAL_STEPS = tuple(name for c in range(1, MAX_KERNELS + 1) for name in (f"Z{c}", f"H{c}", f"P{c}"))
"""Its grids in the order a student works them: each kernel's map, its ReLU, its pool."""


@dataclass(frozen=True)
class Kernel:
    """One kernel: its k × k weights and its bias, one integer."""

    K: IntMatrix
    """The weights, laid over each k × k window of the image."""
    b: int
    """The bias, added to every cell of the map."""


GIVENS = (
    Given("X", ("h", "w"), caption=N_("the image"), tone="input"),
    Given("kernels", (), items=(Given("K", ("k", "k")), Given("b", ())), of=Kernel),
)
"""Its givens in problem@1, in order: the image, the kernels ({K, b} each)."""


@dataclass(frozen=True)
class ConvProblem(Drawn):
    """A convolution layer: an image, its kernels, and whether each map is max-pooled by 2 × 2 blocks."""

    kind: ClassVar[str] = "conv"
    """problem@1's `kind`."""
    X: IntMatrix
    """The image: h × w."""
    kernels: tuple[Kernel, ...]
    """The kernels, each over every window of the image."""
    pool: int = 0
    """0: no pool; 2: each map max-pooled by 2 × 2 blocks, stride 2."""

    def __post_init__(self) -> None:
        if self.convention != "column":
            raise ProblemError(f"convention: an image has no row twin: expected column, got {self.convention!r}")
        if self.pool not in (0, 2):
            raise ProblemError(f"pool: expected 0 (none) or 2 (2 × 2 blocks), got {self.pool}")
        if not 1 <= len(self.kernels) <= MAX_KERNELS:
            raise ProblemError(f"kernels: a sheet works 1 to {MAX_KERNELS} kernels, got {len(self.kernels)}")
        h, w = shape(self.X)
        for c, kernel in enumerate(self.kernels):
            k, k2 = shape(kernel.K)
            if k != k2 or not 1 <= k <= min(h, w):
                raise ProblemError(
                    f"kernels[{c}].K: expected a square k × k kernel no larger than the {h}×{w} image, got {k}×{k2}"
                )
            if self.pool and ((h - k + 1) % 2 or (w - k + 1) % 2):
                raise ProblemError(
                    f"pool: kernel {c + 1}'s map is {h - k + 1}×{w - k + 1}; 2 × 2 blocks need even sides"
                )

    @property
    def n_tokens(self) -> int:
        """The image's columns (what a sheet lays out across)."""
        return len(self.X[0])

    @property
    def d_model(self) -> int:
        """The image's rows."""
        return len(self.X)


def given(problem: ConvProblem) -> dict[Key, Values]:
    """The givens, by key: the image, each kernel K{c} and its bias b{c} (a 1 × 1 grid)."""
    out: dict[Key, Values] = {(None, "X"): problem.X}
    for c, kernel in enumerate(problem.kernels, start=1):
        out[(None, f"K{c}")], out[(None, f"b{c}")] = kernel.K, [[kernel.b]]
    return out


def steps(problem: ConvProblem) -> list[Step]:
    """Every step, kernel after kernel."""
    out: list[Step] = []
    for c in range(1, len(problem.kernels) + 1):
        out.append(
            Step(
                (None, f"Z{c}"),
                ((None, "X"), (None, f"K{c}"), (None, f"b{c}")),
                windowed,
                op=Op(WINDOW),
                face=Face(f"Z{c}", (f"Z{c} = K{c} * X + b{c}",) * 2, N_("map"), "score"),
            )
        )
        out.append(
            Step(
                (None, f"H{c}"),
                ((None, f"Z{c}"),),
                relu,
                op=Op(RULE, N_("ReLU(%(x)s)")),
                face=Face(f"H{c}", (f"H{c}",) * 2, N_("negatives to 0"), "q"),
            )
        )
        if problem.pool:
            out.append(
                Step(
                    (None, f"P{c}"),
                    ((None, f"H{c}"),),
                    pooled,
                    op=Op(POOL),
                    face=Face(f"P{c}", (f"P{c}",) * 2, N_("2 × 2 maxima"), "out"),
                )
            )
    return out


FACES = {
    **given_faces({"X": N_("the image")}, "input"),
    **given_faces(
        {f"{w}{c}": words for c in range(1, MAX_KERNELS + 1) for w, words in (("K", N_("kernel")), ("b", N_("bias")))}
    ),
}
"""How its givens show (its steps' faces are declared with them)."""

column_twin, solve, grid_shapes, from_json, to_json, solution_to_json = declared(
    ConvProblem, GIVENS, steps, given, {"pool": 0}
)
"""Its problem@1 and solution@1 and its solution, from its givens (core/schema): it has no row twin."""


def describe(p: ConvProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    sizes = ", ".join(f"{len(k.K)}×{len(k.K)}" for k in p.kernels)
    return [
        f"Convolution layer (stride 1, no padding, ReLU{', 2 × 2 max-pool' if p.pool else ''})",
        f"image {p.d_model}×{p.n_tokens}, kernels {sizes}",
    ]


def metrics(problem, solution=None) -> dict:
    """Figures for one problem: the shared ones (core/metrics), the cells ReLU sets to 0, the largest
    |Z|, and what its guarantees say: maps ReLU leaves unchanged, pools whose maxima share a corner."""
    from generator.core.registry import kind_of

    steps_, values, out = shared(kind_of(problem), problem)
    maps = [values[s.key] for s in steps_ if s.key[1].startswith("Z")]
    corners = [_corners(values[s.key]) for s in steps_ if s.key[1].startswith("H")] if problem.pool else []
    return {
        **out,
        "relu_zeros": sum(1 for z in maps for row in z for x in row if x < 0),
        "largest_z": max(abs(x) for z in maps for row in z for x in row),
        "maps_unzeroed": sum(1 for z in maps if all(x >= 0 for row in z for x in row)),
        "pools_one_corner": sum(1 for c in corners if len(c) > 1 and len(set(c)) == 1),
    }


def _corners(h: Values) -> list[int]:
    """Where each 2 × 2 block's largest cell sits (0–3, the first where several are)."""
    out = []
    for i in range(0, len(h) - 1, 2):
        for j in range(0, len(h[0]) - 1, 2):
            block = [h[i][j], h[i][j + 1], h[i + 1][j], h[i + 1][j + 1]]
            out.append(block.index(max(block)))
    return out


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    return figures_of(m, {"cells ReLU sets to 0": "relu_zeros", "largest |Z|": "largest_z"})


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch's guarantees: how many sheets hold each."""
    count = len(all_metrics)
    return [
        f"ReLU zeroes an entry of every map: {sum(1 for m in all_metrics if not m['maps_unzeroed'])} of {count}",
        f"pooled maxima not all in one corner: {sum(1 for m in all_metrics if not m['pools_one_corner'])} of {count}",
    ]
