"""attnsheet benchmark: measures in one run, prints one table, exits 1 when a target is missed.

Timings on shared machines are noisy, so every figure that meets a target is the best of a
few repeats, and targets are stated as rates or ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import Callable

from generator.draw import DrawOptions, draw
from generator.engine import solve


@dataclass
class Row:
    """One measured figure and its target."""

    name: str
    value: float
    unit: str
    target: str
    ok: bool


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """The fastest of `repeats` timed runs of `work`, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def draw_and_solve(count: int, repeats: int) -> Row:
    """Draw `count` medium problems in one batch and solve each one, on one core."""
    options = DrawOptions(preset="medium")
    draw(options, 0, 100)  # warm up imports and caches

    def work():
        for problem in draw(options, 1, count):
            solve(problem)

    rate = count / best_of(repeats, work)
    return Row("draw + solve, medium preset, one core", rate, "problems/s", ">= 5000", rate >= 5000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads, for a smoke run")
    args = parser.parse_args(argv)
    rows = [draw_and_solve(1000 if args.quick else 5000, 2 if args.quick else 3)]
    width = max(len(r.name) for r in rows)
    print(f"{'measure':<{width}}  {'value':>12}  {'unit':<12}  {'target':<10}  ok")
    for r in rows:
        print(f"{r.name:<{width}}  {r.value:>12.1f}  {r.unit:<12}  {r.target:<10}  {'yes' if r.ok else 'NO'}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
