"""Difficulty metrics: how hard a problem is to work by hand, and their spread over a batch."""

from __future__ import annotations

import statistics
from dataclasses import replace
from fractions import Fraction
from typing import Optional

from generator.core.kinds import solve
from generator.core.numbers import encode
from generator.core.problem import Problem, Rules, Solution


def metrics(problem: Problem, solution: Optional[Solution] = None) -> dict:
    """Figures for one problem, as worked under the hand rules (whatever rules it states).

    largest_number: the largest integer a student writes (for a fraction, its numerator or
    denominator); multiplications: scalar products to work out; fraction_before_division:
    whether 3^-1 style fractions appear in the powers, before A's division; column_sums: the
    sums of powers, per head.
    """
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
        "largest column sum": [max(_value(s) for sums in m["column_sums"] for s in sums) for m in all_metrics],
        "smallest column sum": [min(_value(s) for sums in m["column_sums"] for s in sums) for m in all_metrics],
    }
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
    early = sum(1 for m in all_metrics if m["fraction_before_division"])
    lines.append(f"problems with a fraction before the final division: {early} of {len(all_metrics)}")
    return "\n".join(lines)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"
