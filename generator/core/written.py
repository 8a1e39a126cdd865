"""Arithmetic as a student writes it out: a factor in parentheses where it needs them, a dot product's terms."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from generator.core.numbers import Cell, normalize, sheet_value


def factor(x: Cell, first: bool = False) -> str:
    """A factor of a product, in parentheses where it would read wrong without them."""
    text = sheet_value(x)
    fraction = isinstance(normalize(x), Fraction) or isinstance(x, float)
    negative = text.startswith("\u2212")
    # Always around a fraction ("(3/8)·2", never "3/8·2"); around a negative one after a plus sign.
    return f"({text})" if fraction or negative and not first else text


def dot(left: Sequence[Cell], right: Sequence[Cell]) -> str:
    """a·b + c·d ...; a negative factor after a plus sign is in parentheses: "+ (−1)·2"."""
    return " + ".join(f"{factor(a, t == 0)}·{factor(b)}" for t, (a, b) in enumerate(zip(left, right)))
