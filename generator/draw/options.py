"""What every kind's draw shares: its errors, a batch's limits, the preset names, tables sampled from 16-bit lanes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from generator.core.errors import AttnsheetError
from generator.draw.settings import PRESET_NAMES

__all__ = ["PRESET_NAMES", "MAX_COUNT", "MAX_SEED", "DrawError", "Infeasible", "Table", "Tables", "lanes", "words_for"]

MAX_COUNT = 100_000
"""Most problems in one batch."""

MAX_SEED = 2**63 - 1
"""Largest seed."""


class DrawError(AttnsheetError):
    """Options that are invalid, or guarantees that cannot be met."""


class Infeasible(DrawError):
    """A problem of a batch that no candidate drew: which guarantee failed most, and where."""

    def __init__(self, message: str, guarantee: str, key: tuple[int, int]) -> None:
        super().__init__(message)
        self.guarantee = guarantee
        """The name of the guarantee that failed most often (a key of GUARANTEES)."""
        self.key = key
        """The problem's (seed, index)."""


LANES = 4
"""Entries drawn from one 64-bit word: four 16-bit lanes, lowest bits first."""


def lanes(words: np.ndarray, count: int) -> np.ndarray:
    """The first `count` 16-bit lanes of the last axis of `words`, lowest lane of each word first."""
    # An explicit little-endian view, so the order is the same on every machine.
    as_lanes = np.ascontiguousarray(words).astype("<u8", copy=False).view("<u2")
    return as_lanes[..., :count]


def words_for(count: int) -> int:
    """Words holding `count` lanes."""
    return -(-count // LANES)


@dataclass(frozen=True)
class Table:
    """A discrete distribution over small integers, sampled from 16-bit lanes."""

    values: tuple[int, ...]
    """The values, in increasing order."""
    weights: tuple[int, ...]
    """Relative weight of each value."""

    @cached_property
    def lookup(self) -> np.ndarray:
        """Value for each lane u: value k when T[k-1] ≤ u < T[k], T[k] = floor(2^16·(w_0+…+w_k)/Σw)."""
        total = sum(self.weights)
        bounds = [(c << 16) // total for c in np.cumsum(self.weights).tolist()]
        out = np.empty(1 << 16, dtype=np.int16)
        lo = 0
        for value, hi in zip(self.values, bounds):
            out[lo:hi] = value
            lo = hi
        return out

    def sample(self, words: np.ndarray, count: int) -> np.ndarray:
        """`count` values from the lanes of the last axis of `words`."""
        return self.lookup[lanes(words, count)]

    @staticmethod
    def uniform(lo: int, hi: int) -> "Table":
        """Every integer of lo..hi equally likely."""
        return Table(tuple(range(lo, hi + 1)), (1,) * (hi - lo + 1))


@dataclass(frozen=True)
class Tables:
    """The tables a layer's entries are drawn through: a preset of a kind of layers adds its bounds."""

    x: Table
    """Distribution of the inputs' entries."""
    w: Table
    """Distribution of the weights' entries."""
    b: Table
    """Distribution of the biases' entries."""
