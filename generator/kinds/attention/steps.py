"""Self-attention as a graph of steps: projections, copies, scores, scaling, powers, sums, A, Z, heads and W_O."""

from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import replace
from typing import Optional, Sequence

from generator.core.engine import MAX_EXPONENT, hand_divisor, power, scale
from generator.core.errors import ProblemError
from generator.core.faces import COPY, DIVIDE, PRODUCT, RULE, STACK, SUM, TRANSPOSE, N_, Face, Op
from generator.core.graph import Key, Step, Values, evaluate
from generator.core.ops import copy, guarded, product, stacked, transposed
from generator.core.numbers import Number, divide, normalize
from generator.kinds.attention.problem import (  # noqa: F401  (problem@1 and solution@1: the kind's own)
    Head,
    HeadSolution,
    Problem,
    Solution,
    from_json,
    solution_to_json,
    to_json,
)
from generator.core.problem import Rules, transpose

KIND = "attention"

HEAD_STEPS = ("Q", "K", "V", "Q_copy", "K_T", "V_copy", "scores", "scaled", "powers", "sums", "A", "Z")
"""A head's grids, in the order a student works them (and the keys of answers@1)."""
FINAL_STEPS = ("Z", "output")
"""The grids after the heads: their concatenation, and W_O's output."""
FLAT = ("sums",)
"""Grids of one row in both conventions (a sum per column, or per row), a flat list in answers@1."""
SOLVED = ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")
"""A head's grids that solution@1 records (the copies are the student's own re-writing)."""


def has_final(problem: Problem) -> bool:
    """Whether the sheet has the concatenation grid (several heads, or W_O)."""
    return len(problem.heads) > 1 or problem.W_O is not None


def column_twin(problem: Problem) -> Problem:
    """A row-convention problem rewritten in the column convention (every matrix transposed)."""
    if problem.convention == "column":
        return problem
    return Problem(
        X=transpose(problem.X),
        heads=tuple(Head(transpose(h.W_Q), transpose(h.W_K), transpose(h.W_V)) for h in problem.heads),
        W_O=None if problem.W_O is None else transpose(problem.W_O),
        convention="column",
        rules=problem.rules,
        causal=problem.causal,
    )


def given(problem: Problem) -> dict[Key, Values]:
    """The given matrices of a column-convention problem, by key."""
    out: dict[Key, Values] = {(None, "X"): problem.X}
    for h, head in enumerate(problem.heads, start=1):
        out[(h, "W_Q")], out[(h, "W_K")], out[(h, "W_V")] = head.W_Q, head.W_K, head.W_V
    if problem.W_O is not None:
        out[(None, "W_O")] = problem.W_O
    return out


def head_steps(h: int, n: int, d_k: int, rules: Rules, causal: bool) -> list[Step]:
    """One head's steps; `h` is its 1-based number."""
    masked = frozenset((i, j) for i in range(n) for j in range(n) if causal and i > j)
    k = lambda name: (h, name)  # noqa: E731

    divisor = hand_divisor(d_k)

    def whole(grid: Values) -> bool:
        return not masked and all(type(x) is int for r in grid for x in r)

    def scaled(scores: Values) -> Values:
        if rules.hand and whole(scores):  # the by-hand rule on the key's own scores: no dispatch per cell
            return [[x // divisor for x in r] for r in scores]
        return [
            [None if (i, j) in masked else _scale(x, d_k, rules) for j, x in enumerate(r)] for i, r in enumerate(scores)
        ]

    def powers(scaled_: Values) -> Values:
        if rules.hand and whole(scaled_) and all(0 <= x <= MAX_EXPONENT for r in scaled_ for x in r):
            return [[3**x for x in r] for r in scaled_]
        return [[0 if (i, j) in masked else _power(x, rules) for j, x in enumerate(r)] for i, r in enumerate(scaled_)]

    def sums(powers_: Values) -> Values:
        # A column's sum is over its unmasked cells: a masked key has no part in its query's softmax.
        columns = list(zip(*powers_))
        return [[_total([x for i, x in enumerate(col) if (i, j) not in masked]) for j, col in enumerate(columns)]]

    def weights(powers_: Values, sums_: Values) -> Values:
        total = sums_[0]
        if all(type(t) is int and t for t in total) and all(type(p) is int for r in powers_ for p in r):
            # Every power a whole number (no 3^-1): one gcd a cell, the hot path of every drawn sheet.
            return [[p // t if p % t == 0 else Fraction(p, t) for p, t in zip(r, total)] for r in powers_]
        return [
            [None if p is None or total[j] in (None, 0) else guarded(divide, p, total[j]) for j, p in enumerate(r)]
            for r in powers_
        ]

    return [
        Step(k("Q"), (k("W_Q"), (None, "X")), product, face=FACES["Q"], op=Op(PRODUCT)),
        Step(k("K"), (k("W_K"), (None, "X")), product, face=FACES["K"], op=Op(PRODUCT)),
        Step(k("V"), (k("W_V"), (None, "X")), product, face=FACES["V"], op=Op(PRODUCT)),
        Step(k("Q_copy"), (k("Q"),), copy, face=FACES["Q_copy"], op=Op(COPY)),
        Step(k("K_T"), (k("K"),), transposed, face=FACES["K_T"], op=Op(TRANSPOSE)),
        Step(k("V_copy"), (k("V"),), copy, face=FACES["V_copy"], op=Op(COPY)),
        Step(k("scores"), (k("K_T"), k("Q_copy")), product, masked, FACES["scores"], Op(PRODUCT)),
        Step(k("scaled"), (k("scores"),), scaled, masked, FACES["scaled"], scale_op(d_k, rules)),
        Step(
            k("powers"),
            (k("scaled"),),
            powers,
            masked,
            FACES["powers"],
            Op(RULE, N_("3^%(x)s") if rules.softmax == "base3" else N_("e^%(x)s")),
        ),
        Step(k("sums"), (k("powers"),), sums, face=FACES["sums"], op=Op(SUM)),
        Step(k("A"), (k("powers"), k("sums")), weights, masked, FACES["A"], Op(DIVIDE)),
        Step(k("Z"), (k("V_copy"), k("A")), product, face=FACES["Z"], op=Op(PRODUCT)),
    ]


def scale_op(d_k: int, rules: Rules) -> Op:
    """The scaling rule as a student works it: floor(x / 2) by hand, x / √d_k exactly, or none."""
    if rules.scale == "floor":
        return Op(RULE, N_("floor(%(x)s / %(d)s)"), {"d": hand_divisor(d_k)})
    if rules.scale == "exact":
        return Op(RULE, N_("%(x)s / √%(d)s"), {"d": d_k})
    return Op(RULE, "%(x)s")


FACES = {
    # Givens: what the sheet prints for the student to work from.
    "X": Face("X", ("X", "X"), N_("inputs"), "input"),
    "W_Q": Face("W_Q", ("W_Q", "W_Q"), N_("query weights"), "weight"),
    "W_K": Face("W_K", ("W_K", "W_K"), N_("key weights"), "weight"),
    "W_V": Face("W_V", ("W_V", "W_V"), N_("value weights"), "weight"),
    "W_O": Face("W_O", ("W_O", "W_O"), N_("output weights"), "weight"),
    # A head's steps, in working order.
    "Q": Face("Q", ("Q = W_Q·X", "Q = X·W_Q"), N_("queries"), "q"),
    "K": Face("K", ("K = W_K·X", "K = X·W_K"), N_("keys"), "k"),
    "V": Face("V", ("V = W_V·X", "V = X·W_V"), N_("values"), "v"),
    "Q_copy": Face("Q", ("Q", "Q"), N_("queries, copied"), "q", title=N_("Q, copied")),
    "K_T": Face("Kᵀ", ("Kᵀ", "Kᵀ"), N_("keys, transposed"), "k"),
    "V_copy": Face("V", ("V", "V"), N_("values, copied"), "v", title=N_("V, copied")),
    "scores": Face(
        "S",
        ("Kᵀ·Q", "Q·Kᵀ"),
        N_("scores"),
        "score",
        note=("(rows: keys, columns: queries)", "(rows: queries, columns: keys)"),
    ),
    "scaled": Face("S'", ("S'", "S'"), N_("scaled"), "score"),
    "powers": Face("E", ("E", "E"), N_("powers"), "score"),
    "sums": Face("Σ", ("Σ", "Σ"), N_("column sums"), "score", row_caption=N_("row sums")),
    "A": Face("A", ("A", "A"), N_("attention"), "attn", fraction=True),
    "Z": Face("Z", ("Z = V·A", "Z = A·V"), N_("output"), "out", fraction=True),
    # After the heads.
    "Z_concat": Face("Z_concat", ("Z_concat", "Z_concat"), N_("heads' outputs, concatenated"), "out"),
    "output": Face("output", ("W_O·Z_concat", "Z_concat·W_O"), N_("output"), "out", fraction=True, title=N_("output")),
}
"""How each grid of an attention sheet shows, by name (the concatenation's is Z_concat)."""


def steps(problem: Problem) -> list[Step]:
    """Every step of a column-convention problem: each head's, then the concatenation and W_O's output."""
    out: list[Step] = []
    for h in range(1, len(problem.heads) + 1):
        out += head_steps(h, problem.n_tokens, problem.d_k, problem.rules, problem.causal)
    if has_final(problem):
        out.append(
            Step(
                (None, "Z"),
                tuple((h, "Z") for h in range(1, len(problem.heads) + 1)),
                stacked,
                face=FACES["Z_concat"],
                op=Op(STACK),
            )
        )
        if problem.W_O is not None:
            out.append(
                Step((None, "output"), ((None, "W_O"), (None, "Z")), product, face=FACES["output"], op=Op(PRODUCT))
            )
    return out


def _total(values: Sequence[Optional[Number]]) -> Optional[Number]:
    if None in values:
        return None
    return guarded(lambda: normalize(sum(values)))


def _scale(x: Optional[Number], d_k: int, rules: Rules) -> Optional[Number]:
    """The sheet's scaling rule on any score, the key's or one a student wrote (a fraction is floored too)."""
    if x is None:
        return None
    if type(x) is int:
        return guarded(scale, x, d_k, rules)  # the key's own rule, exactly (a student's huge int: None)
    if rules.scale == "none":
        return x
    if rules.scale == "floor":
        if isinstance(x, float):
            return math.floor(x / hand_divisor(d_k)) if math.isfinite(x) else None
        return math.floor(Fraction(x) / hand_divisor(d_k))
    root = math.isqrt(d_k)
    if root * root == d_k and not isinstance(x, float):
        return normalize(Fraction(x) / root)
    return guarded(lambda: float(x) / math.sqrt(d_k))


def _power(x: Optional[Number], rules: Rules) -> Optional[Number]:
    """3^x (or e^x); None when it is far too large (a student's number; the key is checked in solve)."""
    if x is None:
        return None
    try:
        return power(normalize(x), rules)
    except (ProblemError, OverflowError):
        return None


def describe(p: Problem) -> list[str]:
    """The solve text's header: what the sheet asks, in a line or two."""
    rules = p.rules
    rules_words = "hand rules" if rules.hand else "custom rules"
    return [
        f"Self-attention, {p.convention} convention, {rules_words} "
        f"(scale: {rules.scale}, softmax: {rules.softmax})" + (", causal mask" if p.causal else ""),
        f"n = {p.n_tokens} tokens, d_model = {p.d_model}, d_k = {p.d_k}, d_v = {p.d_v}, "
        f"{len(p.heads)} head{'s' if len(p.heads) > 1 else ''}",
    ]


def solve(problem: Problem) -> Solution:
    """Solve a problem exactly: every head's steps, the concatenated Z and the output projection."""
    work = column_twin(problem)
    values = evaluate(steps(work), given(work)).values
    check_exponents(values, len(work.heads))
    row = problem.convention == "row"
    t = transpose if row else _rows
    heads = tuple(
        HeadSolution(
            **{name: t(values[(h, name)]) for name in SOLVED if name != "sums"}, sums=tuple(values[(h, "sums")][0])
        )
        for h in range(1, len(work.heads) + 1)
    )
    Z = values[(None, "Z")] if has_final(work) else values[(1, "Z")]
    output = values.get((None, "output"))
    return Solution(problem=problem, heads=heads, Z=t(Z), output=None if output is None else t(output))


def _rows(grid: Values) -> tuple:
    return tuple(map(tuple, grid))


def check_exponents(values: dict, heads: int) -> None:
    """Refuse a solved problem whose key exponentiates a scaled score beyond MAX_EXPONENT (its
    power was left out, None: a student's such number is only wrong, the key's is an error)."""
    for h in range(1, heads + 1):
        for row in values[(h, "scaled")]:
            for x in row:
                if x is not None and abs(x) > MAX_EXPONENT:
                    raise ProblemError(
                        f"heads[{h - 1}]: a scaled score of {float(x):.6g} is too large to "
                        f"exponentiate (at most {MAX_EXPONENT}); use smaller entries or scaling"
                    )


def grid_shapes(problem: Problem) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(rows, columns) of every head grid and every final grid, in the sheet's layout."""
    n, d_k, d_v, d_model, h = problem.n_tokens, problem.d_k, problem.d_v, problem.d_model, len(problem.heads)
    head = {
        "Q": (d_k, n),
        "K": (d_k, n),
        "V": (d_v, n),
        "Q_copy": (d_k, n),
        "K_T": (n, d_k),
        "V_copy": (d_v, n),
        "scores": (n, n),
        "scaled": (n, n),
        "powers": (n, n),
        "sums": (1, n),
        "A": (n, n),
        "Z": (d_v, n),
    }
    final = {}
    if has_final(problem):
        final["Z"] = (h * d_v, n)
        if problem.W_O is not None:
            final["output"] = (d_model, n)
    if problem.convention == "row":
        # Every grid is its column twin's transpose; sums stay a flat list, one per query.
        head = {k: (s if k == "sums" else (s[1], s[0])) for k, s in head.items()}
        final = {k: (s[1], s[0]) for k, s in final.items()}
    return head, final


def metrics(problem: Problem, solution=None) -> dict:
    """Figures for one problem, as worked under the hand rules (whatever rules it states):
    largest_number, multiplications (core/metrics), fraction_before_division (3^-1 style fractions
    in the powers, before A's division), column_sums (the sums of powers, per head)."""
    from generator.core.metrics import largest_number, multiplications, worked

    from generator.kinds.attention import steps as me
    from generator.core.numbers import encode

    steps, values = worked(me, problem if problem.rules.hand else replace(problem, rules=Rules()))
    heads = range(1, len(problem.heads) + 1)
    return {
        "largest_number": largest_number(steps, values),
        "multiplications": multiplications(steps, values),
        "fraction_before_division": any(
            isinstance(x, Fraction) for h in heads for row in values[(h, "powers")] for x in row
        ),
        "column_sums": [[encode(s) for s in values[(h, "sums")][0]] for h in heads],
    }


def figures(m: dict) -> dict[str, float]:
    """What `draw --stats` shows of a problem's metrics."""
    from generator.core.metrics import value_of

    return {
        "largest number written": m["largest_number"],
        "multiplications": m["multiplications"],
        "largest column sum": max(value_of(s) for sums in m["column_sums"] for s in sums),
        "smallest column sum": min(value_of(s) for sums in m["column_sums"] for s in sums),
    }


def notes(all_metrics: list[dict]) -> list[str]:
    """What `draw --stats` says of a batch besides its figures."""
    early = sum(1 for m in all_metrics if m["fraction_before_division"])
    return [f"problems with a fraction before the final division: {early} of {len(all_metrics)}"]
