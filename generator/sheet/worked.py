"""Arithmetic written out for a key's worked example and the projector: factors, dot products, results."""

from __future__ import annotations

from generator.core.numbers import Cell, sheet_value
from generator.core.written import dot, factor  # noqa: F401  (the sheet's arithmetic is the core's)

DECIMALS = 2
"""Decimals written on sheets, below fractions and for real-valued results."""


def equals(x: Cell) -> str:
    """ "= value", or "≈ value" for a rounded real number."""
    return f"{'≈' if isinstance(x, float) else '='} {sheet_value(x)}"
