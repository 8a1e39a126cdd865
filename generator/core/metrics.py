"""Difficulty metrics: how hard a problem is to work by hand, and their spread over a batch."""

from __future__ import annotations

import statistics
from dataclasses import replace
from fractions import Fraction
from typing import Optional

from generator.core.kinds import solve
from generator.core.numbers import encode
from generator.core.kinds.attention.problem import Problem, Solution
from generator.core.problem import Rules


def metrics(problem: Problem, solution: Optional[Solution] = None) -> dict:
    """Figures for one problem, as worked under the hand rules (whatever rules it states).

    largest_number: the largest integer a student writes (for a fraction, its numerator or
    denominator); multiplications: scalar products to work out; fraction_before_division:
    whether 3^-1 style fractions appear in the powers, before A's division; column_sums: the
    sums of powers, per head.
    """
    if problem.kind != "attention":
        return _layer_metrics(problem, solution or solve(problem))
    if solution is None or not problem.rules.hand:
        solution = solve(replace(problem, rules=Rules()))
    largest = 0
    fraction_early = False
    for head in solution.heads:
        for m in (head.Q, head.K, head.V, head.scores, head.scaled, head.powers, (head.sums,), head.A, head.Z):
            for row in m:
                for x in row:
                    largest = max(largest, _size(x))
        fraction_early |= any(isinstance(x, Fraction) for row in head.powers for x in row)
    if solution.output is not None:
        largest = max(largest, max(_size(x) for row in solution.output for x in row))
    return {
        "largest_number": largest,
        "multiplications": multiplications(problem),
        "fraction_before_division": fraction_early,
        "column_sums": [[encode(s) for s in head.sums] for head in solution.heads],
    }


def _layer_metrics(problem, solution) -> dict:
    """An FFN's or a block's figures: the largest number written, the products to work out, the
    cells ReLU sets to 0, the largest denominator (R's, from the attention)."""
    grids = [solution.H_pre, solution.H, solution.Y] + [g for g in (getattr(solution, "out", None),) if g]
    mults = 2 * problem.d_ff * problem.d_model * problem.n_tokens  # W1·X and W2·H, a product per term
    if problem.kind == "transformer":
        grids += [solution.Z, solution.R]
        if problem.attention == "computed":
            attention = problem.attention_problem()
            mults += multiplications(attention)
            grids += [m for h in solution.heads for m in (h.Q, h.K, h.V, h.scores, h.scaled, h.powers, h.A, h.Z)]
        else:
            mults += problem.d_model * problem.n_tokens ** 2
    values = [x for g in grids for row in g for x in row]
    return {
        "largest_number": max(_size(x) for x in values),
        "multiplications": mults,
        "relu_zeros": sum(1 for row in solution.H_pre for x in row if x < 0),
        "largest_denominator": max(Fraction(x).denominator for x in values if x is not None),
    }


def _size(x) -> int:
    if x is None:
        return 0
    if isinstance(x, Fraction):
        return max(abs(x.numerator), x.denominator)
    return abs(x)


def multiplications(p: Problem) -> int:
    """Scalar multiplications a student works out: projections, unmasked scores, Z, W_O."""
    n = p.n_tokens
    pairs = n * (n + 1) // 2 if p.causal else n * n
    per_head = (2 * p.d_k + p.d_v) * p.d_model * n + p.d_k * pairs + p.d_v * pairs
    total = per_head * len(p.heads)
    if p.W_O is not None:
        total += p.d_model * len(p.heads) * p.d_v * n
    return total


def spread(all_metrics: list[dict]) -> list[tuple[str, float, float, float]]:
    """(name, min, median, max) of each numeric figure over a batch."""
    rows = []
    figures = {
        "largest number written": [m["largest_number"] for m in all_metrics],
        "multiplications": [m["multiplications"] for m in all_metrics],
    }
    if all("column_sums" in m for m in all_metrics):
        figures["largest column sum"] = [max(_value(s) for sums in m["column_sums"] for s in sums)
                                         for m in all_metrics]
        figures["smallest column sum"] = [min(_value(s) for sums in m["column_sums"] for s in sums)
                                          for m in all_metrics]
    else:
        figures["cells ReLU sets to 0"] = [m["relu_zeros"] for m in all_metrics]
        figures["largest denominator"] = [m["largest_denominator"] for m in all_metrics]
    for name, values in figures.items():
        rows.append((name, min(values), statistics.median(values), max(values)))
    return rows


def _value(encoded) -> float:
    if isinstance(encoded, str):
        num, den = encoded.split("/")
        return int(num) / int(den)
    return encoded


def stats_text(all_metrics: list[dict]) -> str:
    """The spread of a batch's metrics as a small aligned table."""
    lines = [f"{'metric':<26}{'min':>8}{'median':>9}{'max':>8}"]
    for name, lo, mid, hi in spread(all_metrics):
        lines.append(f"{name:<26}{_num(lo):>8}{_num(mid):>9}{_num(hi):>8}")
    if all("fraction_before_division" in m for m in all_metrics):
        early = sum(1 for m in all_metrics if m["fraction_before_division"])
        lines.append(f"problems with a fraction before the final division: {early} of {len(all_metrics)}")
    return "\n".join(lines)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"
