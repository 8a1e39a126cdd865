"""The transformer block as a graph of steps: attention (computed, or given as A), R = X + Z, the FFN on R, out = R + Y."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar, Optional

import generator.kinds.attention.steps as attention
from generator.core.errors import ProblemError
from generator.core.faces import ADD, PRODUCT, N_, Face, Op
from generator.core.fields import (
    checked_fraction,
    checked_object,
    code_and_metrics,
    flag,
    int_matrix,
    rules_from_json,
    with_code_and_metrics,
)
from generator.core.graph import Key, Step, Values, evaluate
from generator.core.ops import add, product
from generator.kinds.attention.problem import (
    MAX_HEADS,
    Head,
    HeadSolution,
    Problem,
    head_solution_to_json,
    heads_from_json,
    heads_to_json,
)
from generator.core.fields import prefixed
from generator.kinds.ffn.steps import Layers, check_ffn, ffn_steps, layer_fields
from generator.kinds.ffn.steps import FACES as ffn_faces
from generator.kinds.ffn.steps import given as ffn_given
from generator.core.numbers import Matrix, encode, encode_matrix
from generator.core.problem import IntMatrix, Rules, shape, transpose

KIND = "transformer"
ATTENTIONS = ("given", "computed")
HEAD_STEPS = attention.HEAD_STEPS
"""A computed block's heads are attention's, step for step."""
FLAT = attention.FLAT
FINAL_STEPS = ("Z", "output", "R", "H_pre", "H", "Y", "out")
"""The grids outside the heads, in working order: the attention's output (Z: the concatenation,
or X·A when given), W_O's output, then the residual, the FFN and the second residual."""


@dataclass(frozen=True)
class BlockProblem(Layers):
    """A transformer block: attention (computed from heads, or given as A), then the FFN, with residuals."""

    kind: ClassVar[str] = KIND
    """problem@1's `kind`."""
    attention: str = "given"
    """given: the sheet prints A and Z = X·A; computed: from the heads, as the attention kind does."""
    A: Optional[Matrix] = None
    """Given attention weights: n × n, each column (row, in the row convention) a distribution."""
    heads: tuple[Head, ...] = ()
    """Computed attention's heads."""
    W_O: Optional[IntMatrix] = None
    """Computed attention's output projection, if any."""
    rules: Rules = field(default_factory=Rules)
    """Computed attention's scaling and softmax rules."""
    causal: bool = False
    """Computed attention's causal mask."""
    convention: str = "column"
    """column: tokens are columns; row: tokens are rows (every matrix transposed)."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""
    residual: ClassVar[bool] = True
    """A block always adds its input back, twice."""

    def __post_init__(self) -> None:
        check_ffn(self, "")
        n = self.n_tokens
        if self.attention not in ATTENTIONS:
            raise ProblemError(f"attention: expected one of {', '.join(ATTENTIONS)}, got {self.attention!r}")
        if self.attention == "given":
            if self.A is None or self.heads or self.W_O is not None:
                raise ProblemError("attention given: expected A, and no heads or W_O")
            if shape(self.A) != (n, n):
                raise ProblemError(f"A: expected {n}×{n} (n × n), got {shape(self.A)[0]}×{shape(self.A)[1]}")
            weights = self.A if self.convention == "row" else transpose(self.A)
            for j, col in enumerate(weights):
                if any(x < 0 for x in col) or sum(col) != 1:
                    along = "row" if self.convention == "row" else "column"
                    raise ProblemError(f"A: {along} {j + 1} is not a distribution (entries from 0, summing to 1)")
            return
        if self.A is not None:
            raise ProblemError("attention computed: A is computed, not given")
        if not self.heads:
            raise ProblemError("attention computed: expected at least one head")
        if len(self.heads) > MAX_HEADS:
            raise ProblemError(f"heads: at most {MAX_HEADS} heads, got {len(self.heads)}")
        self.attention_problem()  # every attention shape checked as the attention kind checks them
        if self.W_O is None and (len(self.heads) > 1 or self.attention_problem().d_v != self.d_model):
            raise ProblemError(
                f"a computed block adds attention's output to X, so it needs d_model = {self.d_model} rows: "
                f"one head with d_v = {self.d_model}, or W_O"
            )

    def attention_problem(self) -> Problem:
        """Its computed attention as an attention problem (same heads, rules, mask, convention)."""
        return self._attention

    @cached_property
    def _attention(self) -> Problem:
        # Made once (its shapes checked once): the views, the steps and the solution all ask for it.
        return Problem(
            X=self.X, heads=self.heads, W_O=self.W_O, convention=self.convention, rules=self.rules, causal=self.causal
        )

    @property
    def d_v(self) -> int:
        """Computed attention's value size (d_model when A is given: Z is X·A)."""
        return self.attention_problem().d_v if self.heads else self.d_model


def column_twin(problem: BlockProblem) -> BlockProblem:
    """A row-convention block rewritten in the column convention (every matrix transposed)."""
    if problem.convention == "column":
        return problem
    t = transpose
    return BlockProblem(
        X=t(problem.X),
        W1=t(problem.W1),
        b1=problem.b1,
        W2=t(problem.W2),
        b2=problem.b2,
        attention=problem.attention,
        A=None if problem.A is None else t(problem.A),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else t(problem.W_O),
        rules=problem.rules,
        causal=problem.causal,
    )


def given(problem: BlockProblem) -> dict[Key, Values]:
    """The given matrices of a column-convention block, by key."""
    out = ffn_given(problem)
    if problem.attention == "given":
        out[(None, "A")] = problem.A
    else:
        out.update(attention.given(problem.attention_problem()))
    return out


def attention_output(problem: BlockProblem) -> Key:
    """Where the attention's output is: X·A, the concatenation with W_O's output, or the one head's Z."""
    if problem.attention == "given":
        return (None, "Z")
    return (None, "output") if problem.W_O is not None else (1, "Z")


def steps(problem: BlockProblem) -> list[Step]:
    """Every step of a column-convention block."""
    if problem.attention == "given":
        out = [
            Step(
                (None, "Z"),
                ((None, "X"), (None, "A")),
                product,
                face=Face("Z", ("Z = X·A", "Z = A·X"), N_("attended inputs"), "attn"),
                op=Op(PRODUCT),
            )
        ]
    else:
        # W_O's output is the attention's here, on one line a cell (its fractions are R's to add).
        out = [
            replace(s, face=replace(s.face, caption=N_("attention's output"), fraction=False))
            if s.key == (None, "output")
            else s
            for s in attention.steps(problem.attention_problem())
        ]
    attended = ("W_O·Z_concat", "Z_concat·W_O") if problem.W_O is not None else ("Z", "Z")
    out.append(
        Step(
            (None, "R"),
            ((None, "X"), attention_output(problem)),
            add,
            face=Face("R", (f"R = X + {attended[0]}", f"R = X + {attended[1]}"), N_("residual"), "input"),
            op=Op(ADD),
        )
    )
    return out + ffn_steps((None, "R"), residual=True)


FACES = {**attention.FACES, **ffn_faces, "A": Face("A", ("A", "A"), N_("attention weights, given"), "attn")}
"""How a block's givens show (a given A, or computed attention's heads; then the FFN's)."""


@dataclass(frozen=True)
class BlockSolution:
    """A block with every step of its answer, in the problem's convention."""

    problem: BlockProblem
    """The problem solved."""
    heads: tuple[HeadSolution, ...]
    """Computed attention's heads (none when A is given)."""
    Z: Matrix
    """The attention's Z: X·A (given), or the heads' Z concatenated (computed)."""
    output: Optional[Matrix]
    """W_O applied to Z, when the block has W_O."""
    R: Matrix
    """X + the attention's output."""
    H_pre: Matrix
    """W1·R + b1."""
    H: Matrix
    """ReLU(H_pre)."""
    Y: Matrix
    """W2·H + b2."""
    out: Matrix
    """R + Y."""


def describe(p: BlockProblem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    return [
        f"Transformer block, {p.convention} convention, attention {p.attention}",
        f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_ff = {p.d_ff}",
    ]


def solve(problem: BlockProblem) -> BlockSolution:
    """Solve a block exactly."""
    work = column_twin(problem)
    values = evaluate(steps(work), given(work)).values
    attention.check_exponents(values, len(work.heads))
    t = transpose if problem.convention == "row" else (lambda m: tuple(map(tuple, m)))
    heads = ()
    if work.attention == "computed":
        heads = tuple(
            HeadSolution(
                **{name: t(values[(h, name)]) for name in attention.SOLVED}, sums=tuple(values[(h, "sums")][0])
            )
            for h in range(1, len(work.heads) + 1)
        )
        Z = values.get((None, "Z"), values[(1, "Z")])
    else:
        Z = values[(None, "Z")]
    output = values.get((None, "output"))
    return BlockSolution(
        problem,
        heads,
        t(Z),
        None if output is None else t(output),
        *(t(values[(None, name)]) for name in ("R", "H_pre", "H", "Y", "out")),
    )


def grid_shapes(problem: BlockProblem) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(rows, columns) of every grid a student writes, in the sheet's layout."""
    n, d_model, d_ff = problem.n_tokens, problem.d_model, problem.d_ff
    if problem.attention == "computed":
        head, final = attention.grid_shapes(problem.attention_problem())
    else:
        head, final = {}, {"Z": (d_model, n) if problem.convention == "column" else (n, d_model)}
    block = {"R": (d_model, n), "H_pre": (d_ff, n), "H": (d_ff, n), "Y": (d_model, n), "out": (d_model, n)}
    if problem.convention == "row":
        block = {k: (s[1], s[0]) for k, s in block.items()}
    return head, {**final, **block}


# --- problem@1 and solution@1 -------------------------------------------------------------------

KEYS = (
    "format",
    "kind",
    "convention",
    "attention",
    "A",
    "heads",
    "W_O",
    "rules",
    "causal",
    "X",
    "W1",
    "b1",
    "W2",
    "b2",
    "code",
    "metrics",
)


def from_json(obj: dict, prefix: str) -> BlockProblem:
    """A block from a problem@1 object whose kind is transformer, every field checked."""
    from generator.core.formats import check_format

    check_format(obj, prefix)
    checked_object(obj, prefix.rstrip(".") or "problem", KEYS)
    convention = obj.get("convention", "column")
    row = convention == "row"
    how = obj.get("attention", "given")
    needed = "A" if how == "given" else "heads"
    if needed not in obj:
        raise ProblemError(f"{prefix}{needed}: missing (attention {how})")
    code, metrics = code_and_metrics(obj, prefix)
    with prefixed(prefix):
        return BlockProblem(
            **layer_fields(obj, prefix, row),
            attention=how,
            A=_weights(obj["A"], prefix + "A") if "A" in obj else None,
            heads=heads_from_json(obj["heads"], prefix, row) if "heads" in obj else (),
            W_O=(
                int_matrix(obj["W_O"], prefix + "W_O", "h·d_v × d_model" if row else "d_model × h·d_v")
                if obj.get("W_O") is not None
                else None
            ),
            rules=rules_from_json(obj.get("rules", {}), prefix),
            causal=flag(obj, "causal", prefix, False),
            convention=convention,
            code=code,
            metrics=metrics,
        )


def _weights(value: Any, where: str) -> Matrix:
    """Attention weights: a matrix of integers or "p/q" fractions between 0 and 1."""
    if not isinstance(value, list) or not value or not all(isinstance(r, list) and r for r in value):
        raise ProblemError(f"{where}: expected a non-empty list of rows (n × n)")
    if len({len(r) for r in value}) != 1 or len(value) > 64:
        raise ProblemError(f"{where}: expected a square n × n matrix")
    return tuple(tuple(checked_fraction(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)) for i, r in enumerate(value))


def to_json(problem: BlockProblem) -> dict:
    """A block as problem@1, every default filled in."""
    out: dict[str, Any] = {
        "format": "attnsheet/problem@1",
        "kind": KIND,
        "convention": problem.convention,
        "attention": problem.attention,
    }
    if problem.attention == "given":
        out["A"] = [[encode(x) for x in r] for r in problem.A]
    else:
        out["rules"] = {"scale": problem.rules.scale, "softmax": problem.rules.softmax}
        out["causal"] = problem.causal
        out["heads"] = heads_to_json(problem.heads)
        if problem.W_O is not None:
            out["W_O"] = [list(r) for r in problem.W_O]
    out.update(
        {
            "X": [list(r) for r in problem.X],
            "W1": [list(r) for r in problem.W1],
            "b1": list(problem.b1),
            "W2": [list(r) for r in problem.W2],
            "b2": list(problem.b2),
        }
    )
    return with_code_and_metrics(out, problem)


def solution_to_json(solution: BlockSolution) -> dict:
    """A block's solution as solution@1: its kind and its steps by name."""
    out: dict[str, Any] = {"format": "attnsheet/solution@1", "kind": KIND, "problem": to_json(solution.problem)}
    if solution.heads:
        out["heads"] = [head_solution_to_json(h) for h in solution.heads]
    out["Z"] = encode_matrix(solution.Z)
    if solution.output is not None:
        out["output"] = encode_matrix(solution.output)
    for name in ("R", "H_pre", "H", "Y", "out"):
        out[name] = encode_matrix(getattr(solution, name))
    return out


def metrics(problem: BlockProblem, solution=None) -> dict:
    """The FFN's figures, over the block's every step but the heads' sums and W_O's output (as
    they were always counted: the numbers a block's student carries on are in A, Z and R)."""
    from generator.kinds.ffn.steps import metrics as layer_metrics

    return layer_metrics(problem, solution, ("sums", "output"))


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    from generator.kinds.ffn.steps import figures as layer_figures

    return layer_figures(m)
