"""Sheet codes: every option that shaped a draw, the seed and the index, in a short checked code (any kind's)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, Callable, Optional

from generator.core.formats import problem_to_json
from generator.core.registry import by_code, kinds, part
from generator.core.problem import Exercise as Problem
from generator.draw.codes import BitWriter, CodeError, pack, unpack
from generator.draw.options import MAX_COUNT, MAX_SEED, DrawError

KIND_VERSION = 4
"""The layout of the first kinds after attention: version (3 bits), the kind's index (2 bits: its
`LEGACY_INDEX`), then the kind's own fields (see its `code_fields`); then the seed and the index."""

PRIVATE_VERSION = 5
"""The version field of a private code (draw/private.py): the numbers need the teacher's secret."""

KINDS_VERSION = 6
"""The layout of every later kind: version (3 bits), the kind's number (Elias gamma: its
`Kind.code`, never reused), then its own fields; then the seed and the index. Room for any
number of kinds, so no version is spent on a kind."""

OWN_VERSION = 7
"""The version field of a teacher's own problem: its code names the content, not a draw."""

CONTENT_BITS = 40
"""Bits of the problem's SHA-256 an own problem's code carries: a mistaken match is a chance in
a trillion, and the code stays a dozen symbols."""


def encode_code(o, seed: int, index: int) -> str:
    """The sheet code of problem `index` of the batch drawn with `seed` and options `o` (any kind's)."""
    return coder(o, seed)(index)


def coder(o, seed: int) -> Callable[[int], str]:
    """Codes for the problems of one batch: the kind's options and the seed are packed once.

    Layout, most significant bit first: the kind's head (its version, and its fields: the kind's
    `code_head`), then the seed (6-bit length, then its bits) and the index (5-bit length, then
    its bits).
    """
    w = BitWriter()
    part(o.kind, "draw").code_head(o, w)
    w.sized(seed, 6)
    return _indexed(w.bits)


def _indexed(prefix: list[int]) -> Callable[[int], str]:
    """Codes that end a batch's packed options and seed (`prefix`) with each sheet's index."""

    def code(index: int) -> str:
        tail = BitWriter()
        tail.sized(index, 5)
        return pack(prefix + tail.bits)

    return code


def _owner(version: int, r) -> tuple[ModuleType, int]:
    """The draw of the kind whose code this is, its head's kind field read, and which of its
    draws made the code (1: its first; a later draw's codes carry a later number, Kind.later)."""
    if version == KINDS_VERSION:
        number = r.gamma()
        owner = by_code(number)
        if owner is None:
            raise UnknownKind(
                f"a kind this attnsheet does not know (kind number {number}); "
                "use the attnsheet that printed it (or install the package of that kind)"
            )
        return owner.draw, owner.numbers.index(number) + 1
    # The codes printed before kinds had numbers name theirs in their own ways.
    faces = [part(kind, "draw") for kind in kinds()]
    if version == KIND_VERSION:
        index = r.uint(2)
        found = [f for f in faces if getattr(f, "LEGACY_INDEX", None) == index]
    else:
        found = [f for f in faces if version in getattr(f, "CODE_VERSIONS", ())]
    if not found:
        raise CodeError("not a sheet code")
    return found[0], 1


class UnknownKind(CodeError):
    """A code of a kind a later attnsheet added."""


@dataclass(frozen=True)
class Decoded:
    """What a sheet code says."""

    options: Any
    """Every option that shaped the draw (its kind's options)."""
    seed: int
    """The batch's seed."""
    index: int
    """The problem's index in the batch."""
    code: str = field(default="")
    """The code, normalised."""


def content_key(problem: Problem) -> int:
    """The first CONTENT_BITS bits of the SHA-256 of a problem's numbers and rules (its canonical
    problem@1 JSON without code and metrics)."""
    plain = problem_to_json(replace(problem, code=None, metrics=None))
    digest = hashlib.sha256(json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()).digest()
    return int.from_bytes(digest, "big") >> (256 - CONTENT_BITS)


def content_code(problem: Problem, index: int) -> str:
    """The code of sheet `index` of a batch printed from a teacher's own problem.

    Layout: version 7 (3 bits), the problem's content key (CONTENT_BITS), then the index (5-bit
    length, then its bits). It rebuilds nothing by itself: `key CODE --problem FILE` finds the
    problem in the file by its content key.
    """
    w = BitWriter()
    w.uint(OWN_VERSION, 3)
    w.uint(content_key(problem), CONTENT_BITS)
    w.sized(index, 5)
    return pack(w.bits)


@dataclass(frozen=True)
class OwnCode:
    """What the code of a teacher's own problem says."""

    key: int
    """The problem's content key."""
    index: int
    """The sheet's index in its batch."""
    code: str
    """The code, as attnsheet prints it."""


def read_own_code(code: str) -> Optional[OwnCode]:
    """The content key and index of an own problem's code; None for any other code."""
    r = unpack(code)
    if r.uint(3) != OWN_VERSION:
        return None
    key = r.uint(CONTENT_BITS)
    index = r.sized(5)
    r.finish()
    w = BitWriter()
    w.uint(OWN_VERSION, 3)
    w.uint(key, CONTENT_BITS)
    w.sized(index, 5)
    canonical = pack(w.bits)
    if _bare(canonical) != _bare(code):
        raise CodeError(
            f"{_shown(code)} is not a sheet code as attnsheet prints them; the sheet it describes is {canonical}"
        )
    return OwnCode(key, index, canonical)


def decode_code(code: str) -> Decoded:
    """Read a sheet code back; a mistyped code or an unknown version is a CodeError."""
    r = unpack(code)
    version = r.uint(3)
    if version == 0:
        # No code was ever of version 0: a run of 2s, or a leading 2 (which the check cannot see).
        raise CodeError(f"{_shown(code)} is not a sheet code")
    if version == PRIVATE_VERSION:
        raise CodeError(
            f"sheet {_shown(code)} has a private code: its key needs the teacher's secret file (--secret-file FILE)"
        )
    if version == OWN_VERSION:
        read_own_code(code)  # a mistyped one is said as such
        raise CodeError(
            f"{_shown(code)} is the code of a teacher's own problem, not of a draw: "
            "give the problem file too (attnsheet key CODE --problem FILE), or the batch's manifest"
        )
    try:
        face, drawn_by = _owner(version, r)
    except UnknownKind as error:
        raise CodeError(f"sheet code {_shown(code)} is of {error}") from None
    except CodeError:
        raise CodeError(f"{_shown(code)} is not a sheet code") from None
    try:
        options = face.read_code(version, r, code)
        if version == KINDS_VERSION and hasattr(options, "draw_version"):
            options = replace(options, draw_version=drawn_by)  # which of the kind's draws made it
    except DrawError as error:
        raise CodeError(f"sheet code holds options this attnsheet rejects: {error}") from None
    seed = r.sized(6)
    index = r.sized(5)
    r.finish()
    if seed > MAX_SEED or index >= MAX_COUNT:
        raise CodeError("sheet code is malformed")
    canonical = encode_code(options, seed, index)
    if _bare(canonical) != _bare(code):
        # Another spelling of the same bits (say, default options written out): one sheet, one code.
        raise CodeError(
            f"{_shown(code)} is not a sheet code as attnsheet prints them; the sheet it describes is {canonical}"
        )
    return Decoded(options, seed, index, canonical)


def _bare(code: str) -> str:
    return "".join(code.split()).replace("-", "").upper()


def _shown(code: str) -> str:
    """A typed code, safe and short for a message."""
    return repr(code[:40])
