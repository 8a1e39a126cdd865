"""When a draw fails: settings near the user's that were tried and do draw it, not advice that may circle.

Relaxing one guarantee can break another (a wider --max-sum lets the Q/K window fail next), so
each option the failed guarantee names is tried, and then, where the draw fails again, each
option of that second guarantee on top: at most PROBES draws, only when a draw has failed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from generator.kinds.attention.draw.presets import (
    GUARANTEES,
    MAX_SCORE_LIMIT,
    MAX_SUM_LIMIT,
    VALUE_LIMIT,
    DrawOptions,
    Preset,
    advice,
)
from generator.draw.options import DrawError, Infeasible, Table

PROBES = 8
"""Draws tried at most, after the failed one."""

PROBE_SHEETS = 4
"""Problems each try draws: the one that failed and the next of its batch."""


def _widened(table: Table) -> Optional[tuple[int, int]]:
    lo, hi = max(min(table.values) - 1, -VALUE_LIMIT), min(max(table.values) + 1, VALUE_LIMIT)
    return None if (lo, hi) == (min(table.values), max(table.values)) else (lo, hi)


def _narrowed(table: Table) -> Optional[tuple[int, int]]:
    lo, hi = min(table.values), max(table.values)
    if hi - lo < 2:
        return None
    return (lo + 1, hi) if abs(lo) > abs(hi) else (lo, hi - 1)  # drop the end farther from 0


def _range(name: str, r: Optional[tuple[int, int]]) -> Optional[tuple[str, dict]]:
    return None if r is None else (f"--{name.replace('_', '-')} {r[0]}..{r[1]}", {name: r})


STEPS: dict[str, Callable[[DrawOptions, Preset], Optional[tuple[str, dict]]]] = {
    # Each relaxing option as one concrete step from the current settings: (its flag, the change).
    "raise --max-sum": lambda o, lim: (
        None
        if lim.max_sum >= MAX_SUM_LIMIT
        else (f"--max-sum {min(MAX_SUM_LIMIT, 4 * lim.max_sum)}", {"max_sum": min(MAX_SUM_LIMIT, 4 * lim.max_sum)})
    ),
    "raise --max-score": lambda o, lim: (
        None
        if lim.max_scaled >= MAX_SCORE_LIMIT
        else (
            f"--max-score {min(MAX_SCORE_LIMIT, lim.max_scaled + 2)}",
            {"max_score": min(MAX_SCORE_LIMIT, lim.max_scaled + 2)},
        )
    ),
    "lower --max-score": lambda o, lim: (
        None
        if lim.max_scaled <= max(lim.min_scaled, 0)
        else (f"--max-score {lim.max_scaled - 1}", {"max_score": lim.max_scaled - 1})
    ),
    "use fewer --tokens": lambda o, lim: (
        None if o.tokens <= 1 else (f"--tokens {o.tokens - 1}", {"tokens": o.tokens - 1})
    ),
    "use fewer --heads": lambda o, lim: None if o.heads <= 1 else (f"--heads {o.heads - 1}", {"heads": o.heads - 1}),
    "raise --d-model": lambda o, lim: (f"--d-model {o.d_model + 1}", {"d_model": o.d_model + 1}),
    "lower --d-model": lambda o, lim: (
        None if o.d_model <= 1 else (f"--d-model {o.d_model - 1}", {"d_model": o.d_model - 1})
    ),
    "lower --d-k": lambda o, lim: None if o.d_k <= 1 else (f"--d-k {o.d_k - 1}", {"d_k": o.d_k - 1}),
    "widen --x-range": lambda o, lim: _range("x_range", _widened(lim.x)),
    "narrow --x-range": lambda o, lim: _range("x_range", _narrowed(lim.x)),
    "widen --w-range": lambda o, lim: _range("w_range", _widened(lim.w)),
    "narrow --w-range": lambda o, lim: _range("w_range", _narrowed(lim.w)),
    "add --allow-negative-exponents": lambda o, lim: (
        None if lim.min_scaled < 0 else ("--allow-negative-exponents", {"allow_negative_exponents": True})
    ),
}


DrawKeys = Callable[[DrawOptions, list[tuple[int, int]]], list]
"""The search's draw of (seed, index) pairs, passed in: the search calls this module, not the
other way round."""


def remedy(error: Infeasible, options: DrawOptions, seed: int, end: int, draw_keys: DrawKeys) -> str:
    """The failed draw's message, its advice replaced by settings tried that draw it (or, when
    none near does, the advice and that none was found); `draw_keys` tries them."""
    said = str(error).rsplit("; ", 1)[0]
    keys = [(error.key[0], i) for i in range(error.key[1], min(error.key[1] + PROBE_SHEETS, end))]
    found = _search(options, error.guarantee, keys, draw_keys)
    if found:
        return f"{said}; {' '.join(found)} draws it (tried)"
    return (
        f"{said}; {advice(error.guarantee, options, options.limits())} (tried alone and two together, "
        "none draws it: try a smaller shape or another preset)"
    )


def _search(
    options: DrawOptions, guarantee: str, keys: list[tuple[int, int]], draw_keys: DrawKeys
) -> Optional[tuple[str, ...]]:
    """The fewest flags, one step each, that draw `keys`: one, or two where the first lets
    another guarantee fail; None when none within PROBES draws does."""
    frontier: list[tuple[tuple[str, ...], DrawOptions, str]] = [((), options, guarantee)]
    probes = 0
    for _ in range(2):
        following = []
        for flags, current, failed in frontier:
            for relax in GUARANTEES[failed][1]:
                step = STEPS[relax](current, current.limits())
                if step is None or any(f.split()[0] == step[0].split()[0] for f in flags):
                    continue
                try:
                    candidate = replace(current, **step[1])
                    candidate.check_drawable()
                except DrawError:
                    continue  # out of the options' ranges
                if probes == PROBES:
                    return None
                probes += 1
                try:
                    draw_keys(candidate, keys, retries=0)
                except Infeasible as again:
                    following.append((flags + (step[0],), candidate, again.guarantee))
                    continue
                return flags + (step[0],)
        frontier = following
    return None
