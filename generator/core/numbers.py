"""Exact numbers: normalising, JSON encoding and printing of ints, Fractions and floats."""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Optional, Union

Number = Union[int, Fraction, float]
"""A value in a solution: exact (int, Fraction) under hand rules, float only when irrational."""

Cell = Optional[Number]
"""A matrix cell; None marks a causal-masked entry of the scaled scores."""

Matrix = tuple[tuple[Cell, ...], ...]
"""A matrix as a tuple of rows."""

_RATIO = re.compile(r"^(-?\d+)/(\d+)$")


def normalize(x: Number) -> Number:
    """Turn a Fraction with denominator 1 into an int; leave everything else alone."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return x.numerator
    return x


def divide(a: Number, b: Number) -> Number:
    """a / b, exact when both are exact, normalised."""
    if type(a) is int and type(b) is int:  # the common case on a sheet: one gcd, no Fraction maths
        return a // b if a % b == 0 else Fraction(a, b)
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    return normalize(Fraction(a) / b)


def is_exact(x: Cell) -> bool:
    """True for ints, Fractions and masked (None) cells; False for floats."""
    return x is None or (isinstance(x, (int, Fraction)) and not isinstance(x, bool))


def encode(x: Cell) -> Union[int, float, str, None]:
    """A cell as JSON: int when integral, "p/q" (lowest terms, sign on p) when rational, else float."""
    if x is None or isinstance(x, (int, float)):
        return x
    if x.denominator == 1:
        return x.numerator
    return f"{x.numerator}/{x.denominator}"


def decode(value: object) -> Cell:
    """The inverse of `encode`: a JSON value back to a cell."""
    if value is None or isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        match = _RATIO.match(value)
        if match:
            return normalize(Fraction(int(match.group(1)), int(match.group(2))))
    raise ValueError(f"not a solution number: {value!r}")


def encode_matrix(m: Matrix) -> list[list]:
    """A matrix as nested JSON lists."""
    return [[encode(x) for x in row] for row in m]


def decimal_str(x: Number, places: int) -> str:
    """x rounded to `places` decimals, halves away from zero (exact for Fractions)."""
    if isinstance(x, float):
        return f"{x:.{places}f}"
    q = Fraction(x) * 10**places
    magnitude = abs(q)
    rounded = magnitude.numerator * 2 + magnitude.denominator
    rounded //= magnitude.denominator * 2  # floor(|q| + 1/2): half away from zero
    sign = "-" if q < 0 and rounded else ""
    digits = str(rounded).rjust(places + 1, "0")
    if places == 0:
        return sign + digits
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def cell_str(x: Cell, places: int = 3) -> str:
    """A cell as a person writes it: int, p/q, a rounded float, or a dash when masked."""
    if x is None:
        return "—"
    if isinstance(x, float):
        return decimal_str(x, places)
    x = normalize(x)
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    return str(x)


# Cached: a page writes a few dozen distinct values, each measured and then written, and
# Fraction arithmetic is slow. typed: 1, 1.0 and Fraction(1) are written differently.
@functools.lru_cache(maxsize=4096, typed=True)
def sheet_value(x: Cell) -> str:
    """A value as a sheet prints it: `cell_str` with two decimals and a true minus sign; blank
    where masked (the cell is struck out instead)."""
    return "" if x is None else cell_str(x, 2).replace("-", "\u2212")


@functools.lru_cache(maxsize=4096, typed=True)
def sheet_decimal(x: Cell) -> str:
    """A value rounded to two decimals, as a sheet prints it below a fraction."""
    return "" if x is None else decimal_str(x, 2).replace("-", "\u2212")
