"""Sheet codes: a short, checkable, read-aloud text that packs a bit string.

Alphabet: the 32 symbols 2-9 and A-Z without I and O (so no 0/O or 1/I confusion), five bits
each. The last symbol is a Damm check over GF(32): x∘y = 2·x ⊕ y is totally anti-symmetric,
so every single-symbol substitution and every swap of neighbours (check symbol included)
changes the result. Symbols are shown in blocks of four joined by hyphens.
"""

from __future__ import annotations

from generator.core.errors import AttnsheetError

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
_VALUE = {c: i for i, c in enumerate(ALPHABET)}
_POLY = 0b100101  # x^5 + x^2 + 1, primitive over GF(2): GF(32) with generator x = 2
BLOCK = 4


class CodeError(AttnsheetError):
    """A sheet code that is mistyped, malformed or from an unknown format version."""


def _times2(x: int) -> int:
    """x·2 in GF(32)."""
    x <<= 1
    return x ^ _POLY if x & 0b100000 else x


def _damm(values: list[int]) -> int:
    """Fold symbols with x∘y = 2·x ⊕ y; the check symbol brings the fold back to 0."""
    interim = 0
    for v in values:
        interim = _times2(interim) ^ v
    return interim


class BitWriter:
    """Collects fields as bits, most significant first."""

    def __init__(self) -> None:
        self.bits: list[int] = []

    def uint(self, value: int, width: int) -> None:
        """An unsigned integer in exactly `width` bits."""
        if not 0 <= value < 1 << width:
            raise ValueError(f"{value} does not fit in {width} bits")
        self.bits.extend((value >> i) & 1 for i in range(width - 1, -1, -1))

    def flag(self, value: bool) -> None:
        """One bit."""
        self.bits.append(1 if value else 0)

    def gamma(self, value: int) -> None:
        """A non-negative integer, Elias-gamma coded (small numbers take few bits)."""
        v = value + 1
        self.bits.extend([0] * (v.bit_length() - 1))
        self.uint(v, v.bit_length())

    def signed(self, value: int) -> None:
        """An integer of either sign: zig-zag, then gamma."""
        self.gamma(2 * value if value >= 0 else -2 * value - 1)

    def sized(self, value: int, length_bits: int) -> None:
        """A non-negative integer as its bit length (in `length_bits` bits) then its bits."""
        n = value.bit_length()
        self.uint(n, length_bits)
        if n > 1:
            self.uint(value - (1 << (n - 1)), n - 1)  # the leading 1 is implied by the length


class BitReader:
    """Reads back what a BitWriter wrote; running out of bits is a CodeError."""

    def __init__(self, bits: list[int]) -> None:
        self.bits = bits
        self.pos = 0

    def uint(self, width: int) -> int:
        """An unsigned integer of `width` bits."""
        if self.pos + width > len(self.bits):
            raise CodeError("sheet code is too short")
        value = 0
        for b in self.bits[self.pos : self.pos + width]:
            value = value << 1 | b
        self.pos += width
        return value

    def flag(self) -> bool:
        """One bit."""
        return self.uint(1) == 1

    def gamma(self) -> int:
        """An Elias-gamma coded integer."""
        zeros = 0
        while self.uint(1) == 0:
            zeros += 1
            if zeros > 64:
                raise CodeError("sheet code is malformed")
        return ((1 << zeros) | self.uint(zeros)) - 1

    def signed(self) -> int:
        """A zig-zag integer."""
        z = self.gamma()
        return z // 2 if z % 2 == 0 else -(z + 1) // 2

    def sized(self, length_bits: int) -> int:
        """A length-prefixed integer."""
        n = self.uint(length_bits)
        if n <= 1:
            return n
        return (1 << (n - 1)) | self.uint(n - 1)

    def finish(self) -> None:
        """Only zero padding (fewer than 5 bits) may be left."""
        rest = self.bits[self.pos :]
        if len(rest) >= 5 or any(rest):
            raise CodeError("sheet code has extra symbols")


def pack(bits: list[int]) -> str:
    """Bits (zero-padded to whole symbols) as a grouped code ending in its check symbol."""
    padded = bits + [0] * (-len(bits) % 5)
    values = [int("".join(map(str, padded[i : i + 5])), 2) for i in range(0, len(padded), 5)]
    values.append(_check_symbol(values))
    text = "".join(ALPHABET[v] for v in values)
    return "-".join(text[i : i + BLOCK] for i in range(0, len(text), BLOCK))


def _check_symbol(values: list[int]) -> int:
    # The check c must satisfy 2·interim ⊕ c = 0, i.e. c = 2·interim.
    return _times2(_damm(values))


def checks(code: str) -> bool:
    """Whether `code` (hyphens ignored) is a code of our alphabet whose check character agrees."""
    text = code.replace("-", "")
    return len(text) >= 2 and all(ch in _VALUE for ch in text) and _damm([_VALUE[ch] for ch in text]) == 0


def unpack(code: str) -> BitReader:
    """A typed code (any case, hyphens and spaces ignored) back to its bits, check verified."""
    text = "".join(code.split()).replace("-", "").upper()
    if not text:
        raise CodeError("sheet code is empty")
    for ch in text:
        if ch not in _VALUE:
            hint = " (codes have no 0, O, 1 or I)" if ch in "0O1I" else ""
            raise CodeError(f"sheet code has a character that codes never use: {ch!r}{hint}")
    values = [_VALUE[ch] for ch in text]
    if len(values) < 2 or _damm(values) != 0:
        raise CodeError("sheet code is mistyped: its check character does not match")
    bits = []
    for v in values[:-1]:
        bits.extend((v >> i) & 1 for i in range(4, -1, -1))
    return BitReader(bits)
