"""Self-attention's problem and solution: the inputs, the heads' weights, the rules, and every step of the answer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Optional

from generator.core.errors import ProblemError
from generator.core.fields import checked_object, int_matrix
from generator.core.numbers import Matrix, encode, encode_matrix
from generator.core.problem import CONVENTIONS, IntMatrix, Rules, Tokens, shape, transpose

MAX_HEADS = 16
"""Largest number of heads."""

MAX_SCORE_CELLS = 4096
"""Largest heads × tokens² (score cells) of one problem: 16 heads of 16 tokens, or one of 64.
The work and the size of a solution grow with it (a maximal 16 × 64² one took 5 s and 130 MB)."""


@dataclass(frozen=True)
class Head:
    """One attention head's weights, in the problem's convention."""

    W_Q: IntMatrix
    """Query weights: d_k × d_model (column convention)."""
    W_K: IntMatrix
    """Key weights: d_k × d_model (column convention)."""
    W_V: IntMatrix
    """Value weights: d_v × d_model (column convention)."""


@dataclass(frozen=True)
class Problem(Tokens):
    """A self-attention exercise: the inputs, the weights and the rules. Shapes are checked."""

    kind: ClassVar[str] = "attention"
    """The exercise's kind (problem@1's `kind`; a file without one is attention)."""
    X: IntMatrix
    """Token features: d_model × n (column convention) or n × d_model (row)."""
    heads: tuple[Head, ...]
    """One or more heads, all with the same d_k and d_v."""
    W_O: Optional[IntMatrix] = None
    """Optional output projection: d_model × h·d_v (column convention)."""
    convention: str = "column"
    """column: tokens are columns (the by-hand sheets); row: tokens are rows (PyTorch)."""
    rules: Rules = field(default_factory=Rules)
    """Scaling and softmax rules."""
    causal: bool = False
    """When true, query j only attends to keys i ≤ j."""
    code: Optional[str] = None
    """The sheet code this problem was drawn from, if any."""
    metrics: Optional[dict] = field(default=None, compare=False, hash=False)
    """Difficulty metrics recorded when the problem was drawn, if any."""

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ProblemError(f"convention: expected one of {', '.join(CONVENTIONS)}, got {self.convention!r}")
        if not self.heads:
            raise ProblemError("heads: expected at least one head")
        if len(self.heads) > MAX_HEADS:
            raise ProblemError(f"heads: at most {MAX_HEADS} heads, got {len(self.heads)}")
        cells = len(self.heads) * self.n_tokens**2
        if cells > MAX_SCORE_CELLS:
            raise ProblemError(
                f"too much work: {len(self.heads)} head(s) × {self.n_tokens}² tokens is {cells} score cells; "
                f"at most {MAX_SCORE_CELLS}"
            )
        row = self.convention == "row"
        # Check every shape in the column convention; in the row one, look at the transposes.
        t = transpose if row else (lambda m: m)
        d_model, n = shape(t(self.X))
        d_k, _ = shape(t(self.heads[0].W_Q))
        d_v, _ = shape(t(self.heads[0].W_V))
        expect = {"W_Q": (d_k, "d_k"), "W_K": (d_k, "d_k"), "W_V": (d_v, "d_v")}
        for h, head in enumerate(self.heads):
            for name, (rows, rows_name) in expect.items():
                got = shape(t(getattr(head, name)))
                if got != (rows, d_model):
                    want = _shape_words(row, (rows, rows_name), (d_model, "d_model"))
                    raise ProblemError(f"heads[{h}].{name}: expected {want}, got {_dims(row, got)}")
        if self.W_O is not None:
            width = len(self.heads) * d_v
            got = shape(t(self.W_O))
            if got != (d_model, width):
                want = _shape_words(row, (d_model, "d_model"), (width, "h·d_v"))
                raise ProblemError(f"W_O: expected {want}, got {_dims(row, got)}")

    @property
    def d_k(self) -> int:
        """Query and key size."""
        q = self.heads[0].W_Q
        return len(q[0]) if self.convention == "row" else len(q)

    @property
    def d_v(self) -> int:
        """Value size."""
        v = self.heads[0].W_V
        return len(v[0]) if self.convention == "row" else len(v)


def _dims(row: bool, rc: tuple[int, int]) -> str:
    """A column-convention (rows, cols) pair written in the problem's own convention."""
    r, c = (rc[1], rc[0]) if row else rc
    return f"{r}×{c}"


def _shape_words(row: bool, rows: tuple[int, str], cols: tuple[int, str]) -> str:
    """An expected shape such as '3×6 (d_k × d_model)', transposed for the row convention."""
    if row:
        rows, cols = cols, rows
    return f"{rows[0]}×{cols[0]} ({rows[1]} × {cols[1]})"


@dataclass(frozen=True)
class HeadSolution:
    """Every matrix a student writes for one head, in the problem's convention."""

    Q: Matrix
    """Queries: W_Q·X."""
    K: Matrix
    """Keys: W_K·X."""
    V: Matrix
    """Values: W_V·X."""
    scores: Matrix
    """Kᵀ·Q: rows are keys, columns are queries (transposed in the row convention)."""
    scaled: Matrix
    """Scores after scaling; None where the causal mask hides a key."""
    powers: Matrix
    """3^x (or e^x) of each scaled score; 0 where masked."""
    sums: tuple
    """One sum of powers per query."""
    A: Matrix
    """Attention weights: powers divided by their query's sum."""
    Z: Matrix
    """Weighted values: V·A."""


@dataclass(frozen=True)
class Solution:
    """A problem with every step of its answer."""

    problem: Problem
    """The problem solved."""
    heads: tuple[HeadSolution, ...]
    """One solution per head."""
    Z: Matrix
    """The heads' Z concatenated along the feature axis."""
    output: Optional[Matrix] = None
    """W_O applied to Z, when the problem has W_O."""


def to_row(problem: Problem) -> Problem:
    """The row-convention twin of a column-convention problem: every matrix transposed."""
    t = transpose
    return replace(
        problem,
        X=t(problem.X),
        heads=tuple(Head(t(h.W_Q), t(h.W_K), t(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else t(problem.W_O),
        convention="row",
    )


_HEAD_KEYS = ("W_Q", "W_K", "W_V")


def heads_from_json(value: Any, prefix: str, row: bool) -> tuple[Head, ...]:
    """A problem's `heads`: a non-empty list of {W_Q, W_K, W_V} objects."""
    from generator.core.fields import _kind

    if not isinstance(value, list) or not value:
        raise ProblemError(f"{prefix}heads: expected a non-empty list of heads, got {_kind(value)}")
    heads = []
    for h, head_value in enumerate(value):
        head_where = f"{prefix}heads[{h}]"
        head_obj = checked_object(head_value, head_where, _HEAD_KEYS)
        mats = {}
        for key, rows_name in (("W_Q", "d_k"), ("W_K", "d_k"), ("W_V", "d_v")):
            if key not in head_obj:
                raise ProblemError(f"{head_where}.{key}: missing")
            what = f"d_model × {rows_name}" if row else f"{rows_name} × d_model"
            mats[key] = int_matrix(head_obj[key], f"{head_where}.{key}", what)
        heads.append(Head(**mats))
    return tuple(heads)


def heads_to_json(heads: tuple[Head, ...]) -> list[dict]:
    """Heads as problem@1 writes them."""
    return [
        {"W_Q": [list(r) for r in h.W_Q], "W_K": [list(r) for r in h.W_K], "W_V": [list(r) for r in h.W_V]}
        for h in heads
    ]


def head_solution_to_json(h) -> dict:
    """One head's solved steps as solution@1 writes them."""
    return {
        "Q": encode_matrix(h.Q),
        "K": encode_matrix(h.K),
        "V": encode_matrix(h.V),
        "scores": encode_matrix(h.scores),
        "scaled": encode_matrix(h.scaled),
        "powers": encode_matrix(h.powers),
        "sums": [encode(s) for s in h.sums],
        "A": encode_matrix(h.A),
        "Z": encode_matrix(h.Z),
    }


_KEYS = ("format", "kind", "convention", "rules", "causal", "X", "heads", "W_O", "code", "metrics")


def from_json(value: Any, prefix: str) -> Problem:
    """An attention problem from a problem@1 object, every field checked."""
    from generator.core.fields import choice, code_and_metrics, flag, rules_from_json

    from generator.core.formats import check_format

    obj = checked_object(value, prefix.rstrip(".") or "problem", _KEYS)
    check_format(obj, prefix)
    convention = choice(obj, "convention", prefix + "convention", "column")
    if convention not in CONVENTIONS:
        raise ProblemError(f"{prefix}convention: expected one of {', '.join(CONVENTIONS)}, got {convention!r}")
    row = convention == "row"
    rules = rules_from_json(obj.get("rules", {}), prefix)
    causal = flag(obj, "causal", prefix, False)
    for key in ("X", "heads"):
        if key not in obj:
            raise ProblemError(f"{prefix}{key}: missing")
    X = int_matrix(obj["X"], prefix + "X", "n × d_model" if row else "d_model × n")
    heads = heads_from_json(obj["heads"], prefix, row)
    W_O = None
    if obj.get("W_O") is not None:
        W_O = int_matrix(obj["W_O"], prefix + "W_O", "h·d_v × d_model" if row else "d_model × h·d_v")
    code, metrics = code_and_metrics(obj, prefix)
    try:
        return Problem(
            X=X,
            heads=tuple(heads),
            W_O=W_O,
            convention=convention,
            rules=rules,
            causal=causal,
            code=code,
            metrics=metrics,
        )
    except ProblemError as error:
        if prefix:
            raise ProblemError(f"{prefix}{error}") from None
        raise


def to_json(problem: Problem) -> dict:
    """An attention problem as problem@1, every default filled in; it carries no `kind` (a file
    without one is attention: every file written before the kinds reads the same)."""
    from generator.core.fields import with_code_and_metrics

    out: dict[str, Any] = {
        "format": "attnsheet/problem@1",
        "convention": problem.convention,
        "rules": {"scale": problem.rules.scale, "softmax": problem.rules.softmax},
        "causal": problem.causal,
        "X": [list(r) for r in problem.X],
        "heads": heads_to_json(problem.heads),
    }
    if problem.W_O is not None:
        out["W_O"] = [list(r) for r in problem.W_O]
    return with_code_and_metrics(out, problem)


def solution_to_json(solution: Solution) -> dict:
    """An attention solution as solution@1."""
    out: dict[str, Any] = {
        "format": "attnsheet/solution@1",
        "problem": to_json(solution.problem),
        "heads": [head_solution_to_json(h) for h in solution.heads],
        "Z": encode_matrix(solution.Z),
    }
    if solution.output is not None:
        out["output"] = encode_matrix(solution.output)
    return out
