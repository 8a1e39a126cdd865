"""Seeded, hand-friendly drawing of any kind: a batch's problems from its seed, each with its sheet code.

Each kind draws its own (its folder's `draw`: its presets, guarantees and bounded search), from
its own streams: problem `index` of a batch drawn with `seed` reads
PCG64(SeedSequence(seed, spawn_key=(index, ...))) through `random_raw` alone (whose words numpy
promises to keep stable), turned into entries by the kind's own arithmetic, so a code printed on
a sheet rebuilds that sheet after library upgrades. Here: the checks every draw shares, the
dispatch to the kind, and fresh seeds.
"""

from __future__ import annotations

import secrets

from generator.core.registry import part
from generator.draw.options import MAX_COUNT, MAX_SEED, DrawError, Infeasible


def draw(options, seed: int, count: int = 1, start: int = 0) -> list:
    """Problems start..start+count-1 of the batch drawn with `seed`, each with its sheet code
    (`options` any kind's, as its folder's `draw` declares them)."""
    if not 0 <= seed <= MAX_SEED:
        raise DrawError(f"--seed: expected 0 to {MAX_SEED}, got {seed}")
    if not 1 <= count <= MAX_COUNT:
        raise DrawError(f"--count: expected 1 to {MAX_COUNT}, got {count}")
    if start < 0 or start + count > MAX_COUNT:
        raise DrawError(f"problem index out of range: at most {MAX_COUNT - 1}")
    options.check_drawable()
    kind = part(options.kind, "draw")
    try:
        return kind.draw_keys(options, [(seed, i) for i in range(start, start + count)])
    except Infeasible as error:
        # A kind whose draw can fail says what near settings would draw it (attention: tried ones).
        raise DrawError(kind.remedy(error, options, seed, start + count)) from None


def draw_keys(options, keys: list[tuple[int, int]]) -> list:
    """The problems for (seed, index) pairs, possibly from many seeds, in order."""
    return part(options.kind, "draw").draw_keys(options, keys)


FRESH_SEED_BITS = 30
"""A fresh seed's size: a billion batches, and default codes of 12 symbols for up to 1,024 sheets."""


def fresh_seed() -> int:
    """A new random seed for a batch."""
    return secrets.randbits(FRESH_SEED_BITS)
