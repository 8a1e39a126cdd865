"""Sheet codes: every option that shaped a draw, the seed and the index, in a short checked code."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields, replace
from typing import Callable, Optional, Union

from generator.core.formats import problem_to_json
from generator.core.problem import Exercise as Problem
from generator.draw.codes import BitWriter, CodeError, pack, unpack
from generator.draw.kindopts import KindOptions
from generator.draw.options import (
    MAX_COUNT,
    MAX_SEED,
    PRESET_NAMES,
    DrawError,
    DrawOptions,
)

CODE_VERSION = 1
"""Version of the code layout, and of the draw for every shape the draw's version 2 left as it was."""

BOUNDED_VERSION = 2
"""The same layout, for the shapes whose draw version 2 changed (several heads with W_O): their
older codes (version 1) still rebuild the sheets they were printed on."""

SCALED_VERSION = 3
"""The same layout, for the shapes whose draw version 3 changed (a preset scaled with the
shape): their older codes (versions 1 and 2) still rebuild the sheets they were printed on."""

KIND_VERSION = 4
"""The layout of the kinds after attention (the FFN, the transformer block): version (3 bits),
kind (2: 1 ffn, 2 transformer), preset (2), tokens-2, d_model-1, d_ff-1 (Elias gamma), row
convention, residual (ffn) or computed attention (transformer), and for computed attention
d_k-1, heads-1 (gamma), output projection and causal (1 bit each); then the seed and the index
as in every layout. Attention's codes (versions 1 to 3) are unchanged: every code printed
before the kinds rebuilds its sheet."""

PRIVATE_VERSION = 5
"""The version field of a private code (draw/private.py): the numbers need the teacher's secret."""

OWN_VERSION = 7
"""The version field of a teacher's own problem: its code names the content, not a draw."""

CONTENT_BITS = 40
"""Bits of the problem's SHA-256 an own problem's code carries: a mistaken match is a chance in
a trillion, and the code stays a dozen symbols."""


_SHAPES = ("tokens", "d_model", "d_k", "d_v", "heads")


def encode_code(o: DrawOptions, seed: int, index: int) -> str:
    """The sheet code of problem `index` of the batch drawn with `seed` and options `o`.

    Layout (versions 1 to 3: see BOUNDED_VERSION, SCALED_VERSION), most significant bit first: version (3 bits), preset (2), a flag for
    non-default options; if set: tokens-1, d_model-1, d_k-1, d_v-1, heads-1 (Elias gamma),
    output projection, causal, row convention, exact rules (1 bit each), then x range, w range,
    max score, max sum (each a presence bit and its value), allow negative exponents (1 bit);
    then the seed (6-bit length, then its bits) and the index (5-bit length, then its bits).
    """
    return coder(o, seed)(index)


def coder(o, seed: int) -> Callable[[int], str]:
    """Codes for the problems of one batch: the options and seed are packed once."""
    if not isinstance(o, DrawOptions):
        return _kind_coder(o, seed)
    w = BitWriter()
    w.uint(SCALED_VERSION if o.scales_shape else BOUNDED_VERSION if o.bounds_output else CODE_VERSION, 3)
    w.uint(PRESET_NAMES.index(o.preset), 2)
    default = DrawOptions()
    custom = any(getattr(o, f.name) != getattr(default, f.name) for f in fields(DrawOptions)
                 if f.name not in ("preset", "draw_version"))
    w.flag(custom)
    if custom:
        for name in _SHAPES:
            w.gamma(getattr(o, name) - 1)
        for bit in (o.output_projection, o.causal, o.convention == "row", o.rules == "exact"):
            w.flag(bit)
        for r in (o.x_range, o.w_range):
            w.flag(r is not None)
            if r is not None:
                w.signed(r[0])
                w.gamma(r[1] - r[0])
        w.flag(o.max_score is not None)
        if o.max_score is not None:
            w.signed(o.max_score)
        w.flag(o.max_sum is not None)
        if o.max_sum is not None:
            w.gamma(o.max_sum)
        w.flag(o.allow_negative_exponents)
    w.sized(seed, 6)
    return _indexed(w.bits)


def _indexed(prefix: list[int]) -> Callable[[int], str]:
    """Codes that end a batch's packed options and seed (`prefix`) with each sheet's index."""

    def code(index: int) -> str:
        tail = BitWriter()
        tail.sized(index, 5)
        return pack(prefix + tail.bits)

    return code


KIND_INDEX = {"ffn": 1, "transformer": 2}


def _kind_coder(o: KindOptions, seed: int) -> Callable[[int], str]:
    w = BitWriter()
    w.uint(KIND_VERSION, 3)
    w.uint(KIND_INDEX[o.kind], 2)
    w.uint(PRESET_NAMES.index(o.preset), 2)
    w.gamma(o.tokens - 2)
    w.gamma(o.d_model - 1)
    w.gamma(o.d_ff - 1)
    w.flag(o.convention == "row")
    w.flag(o.residual if o.kind == "ffn" else o.computed)
    if o.computed:
        w.gamma(o.d_k - 1)
        w.gamma(o.heads - 1)
        w.flag(o.output_projection)
        w.flag(o.causal)
    w.sized(seed, 6)
    return _indexed(w.bits)


def _decode_kind(r, code: str) -> "Decoded":
    """The rest of a version-4 code (the kinds after attention), its version already read."""
    kinds = {v: k for k, v in KIND_INDEX.items()}
    kind = kinds.get(r.uint(2))
    preset_index = r.uint(2)
    if kind is None or preset_index >= len(PRESET_NAMES):
        raise CodeError(f"{_shown(code)} is not a sheet code")
    values: dict = {"kind": kind, "preset": PRESET_NAMES[preset_index], "tokens": r.gamma() + 2,
                    "d_model": r.gamma() + 1, "d_ff": r.gamma() + 1}
    values["convention"] = "row" if r.flag() else "column"
    flag = r.flag()
    if kind == "ffn":
        values["residual"] = flag
    elif flag:
        values.update(attention="computed", d_k=r.gamma() + 1, heads=r.gamma() + 1, output_projection=r.flag(),
                      causal=r.flag())
    seed = r.sized(6)
    index = r.sized(5)
    r.finish()
    try:
        options = KindOptions(**values)
    except DrawError as error:
        raise CodeError(f"sheet code holds options this attnsheet rejects: {error}") from None
    if seed > MAX_SEED or index >= MAX_COUNT:
        raise CodeError("sheet code is malformed")
    canonical = coder(options, seed)(index)
    if _bare(canonical) != _bare(code):
        raise CodeError(f"{_shown(code)} is not a sheet code as attnsheet prints them; "
                        f"the sheet it describes is {canonical}")
    return Decoded(options, seed, index, canonical)


@dataclass(frozen=True)
class Decoded:
    """What a sheet code says."""

    options: Union[DrawOptions, KindOptions]
    """Every option that shaped the draw."""
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
        raise CodeError(f"{_shown(code)} is not a sheet code as attnsheet prints them; "
                        f"the sheet it describes is {canonical}")
    return OwnCode(key, index, canonical)


def decode_code(code: str) -> Decoded:
    """Read a sheet code back; a mistyped code or an unknown version is a CodeError."""
    r = unpack(code)
    version = r.uint(3)
    if version == 0:
        # No code was ever of version 0: a run of 2s, or a leading 2 (which the check cannot see).
        raise CodeError(f"{_shown(code)} is not a sheet code")
    if version == KIND_VERSION:
        return _decode_kind(r, code)
    if version == PRIVATE_VERSION:
        raise CodeError(f"sheet {_shown(code)} has a private code: its key needs the teacher's secret file "
                        "(--secret-file FILE)")
    if version == OWN_VERSION:
        read_own_code(code)  # a mistyped one is said as such
        raise CodeError(f"{_shown(code)} is the code of a teacher's own problem, not of a draw: "
                        "give the problem file too (attnsheet key CODE --problem FILE), or the batch's manifest")
    if version not in (CODE_VERSION, BOUNDED_VERSION, SCALED_VERSION):
        raise CodeError(
            f"sheet code is of format version {version}, which this attnsheet does not know "
            f"(it reads versions {CODE_VERSION} to {PRIVATE_VERSION} and {OWN_VERSION}); use the attnsheet that printed it"
        )
    preset_index = r.uint(2)
    if preset_index >= len(PRESET_NAMES):
        raise CodeError("sheet code names an unknown preset")
    values: dict = {"preset": PRESET_NAMES[preset_index]}
    if r.flag():
        for name in _SHAPES:
            values[name] = r.gamma() + 1
        values["output_projection"] = r.flag()
        values["causal"] = r.flag()
        values["convention"] = "row" if r.flag() else "column"
        values["rules"] = "exact" if r.flag() else "hand"
        for name in ("x_range", "w_range"):
            if r.flag():
                lo = r.signed()
                values[name] = (lo, lo + r.gamma())
        if r.flag():
            values["max_score"] = r.signed()
        if r.flag():
            values["max_sum"] = r.gamma()
        values["allow_negative_exponents"] = r.flag()
    seed = r.sized(6)
    index = r.sized(5)
    r.finish()
    try:
        options = DrawOptions(**values)
        if version == CODE_VERSION and options.bounds_output:
            options = replace(options, draw_version=1)  # printed before the output's bound: drawn without it
        elif version < SCALED_VERSION and options.scales_shape:
            options = replace(options, draw_version=2)  # printed before the presets scaled with the shape
    except DrawError as error:
        raise CodeError(f"sheet code holds options this attnsheet rejects: {error}") from None
    if seed > MAX_SEED or index >= MAX_COUNT:
        raise CodeError("sheet code is malformed")
    canonical = encode_code(options, seed, index)
    if _bare(canonical) != _bare(code):
        # Another spelling of the same bits (say, default options written out): one sheet, one code.
        raise CodeError(f"{_shown(code)} is not a sheet code as attnsheet prints them; "
                        f"the sheet it describes is {canonical}")
    return Decoded(options, seed, index, canonical)


def _bare(code: str) -> str:
    return "".join(code.split()).replace("-", "").upper()


def _shown(code: str) -> str:
    """A typed code, safe and short for a message."""
    return repr(code[:40])
