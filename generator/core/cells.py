"""A cell as a student wrote it, read: an integer, a fraction, a decimal, or a fraction and a decimal."""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import Any, Optional

from generator.core.grade import BLANK, Entry
from generator.core.numbers import normalize

MAX_DIGITS = 400
"""Longest run of digits read in one number (3^600, the largest power a sheet holds, has 287):
a longer one is unreadable, not arithmetic to do."""


_INT = re.compile(rf"[+-]?\d{{1,{MAX_DIGITS}}}")
_FRACTION = re.compile(rf"([+-]?\d{{1,{MAX_DIGITS}}})/([+-]?\d{{1,{MAX_DIGITS}}})")
_DECIMAL = re.compile(rf"([+-]?)(\d{{0,{MAX_DIGITS}}})[.,](\d{{1,{MAX_DIGITS}}})")
_SLASH = re.compile(r"\s*/\s*")
_SEPARATORS = ("=", "≈", "~")  # "3/8 = 0.38" reads as "3/8 0.38"


def _exact(token: str) -> Optional[Fraction]:
    if _INT.fullmatch(token):
        return Fraction(int(token))
    m = _FRACTION.fullmatch(token)
    if m and int(m.group(2)) != 0:
        return Fraction(int(m.group(1)), int(m.group(2)))
    return None


def _decimal(token: str) -> Optional[tuple[Fraction, int]]:
    m = _DECIMAL.fullmatch(token)
    if not m:
        return None
    sign, whole, places = m.groups()
    value = Fraction(int(whole or "0") * 10 ** len(places) + int(places), 10 ** len(places))
    return (-value if sign == "-" else value), len(places)


@functools.lru_cache(maxsize=4096)  # a class writes the same few dozen strings over and over
def read_cell_text(text: str) -> Entry:
    """A cell as written: an integer, a fraction p/q, a decimal (0.38, .38, 0,38), or a fraction
    and a decimal; a true minus (U+2212) is a minus. Anything else is unreadable."""
    raw = text.strip()
    if not raw:
        return BLANK
    tokens = [tok for tok in _SLASH.sub("/", raw.replace("\u2212", "-")).split() if tok not in _SEPARATORS]
    exact, decimal = None, None
    for token in tokens:
        as_exact = _exact(token)
        if as_exact is not None and exact is None and decimal is None:
            exact = normalize(as_exact)
            continue
        as_decimal = _decimal(token)
        if as_decimal is not None and decimal is None:
            decimal = as_decimal
            continue
        return Entry("unreadable", raw=raw[:40])
    if exact is None and decimal is None:
        return Entry("unreadable", raw=raw[:40])
    return Entry("value", exact=exact, decimal=decimal, raw=raw[:40])


@functools.lru_cache(maxsize=2048)
def _small_int(value: int) -> Entry:
    return Entry("value", exact=value, raw=str(value))


def read_cell(value: Any) -> Entry:
    """A cell of answers@1: null or "" (blank), a JSON integer, or a string (see read_cell_text)."""
    if value is None:
        return BLANK
    if isinstance(value, bool):
        return Entry("unreadable", raw=str(value).lower())
    if isinstance(value, int):
        if -1000 < value < 1000:
            return _small_int(value)
        if abs(value) >= 10**MAX_DIGITS:
            return Entry("unreadable", raw=str(value)[:40])
        return Entry("value", exact=value, raw=str(value))
    if isinstance(value, float):
        # A spreadsheet may export a decimal as a JSON number: read it as the decimal it prints.
        return read_cell_text(repr(value)) if value == value and abs(value) < 1e15 else Entry("unreadable")
    if isinstance(value, str):
        return read_cell_text(value)
    return Entry("unreadable", raw="(not a value)")
