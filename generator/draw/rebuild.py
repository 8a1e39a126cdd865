"""A printed sheet code back to its problem: the one function every front end rebuilds a sheet with."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Callable, Optional, Sequence

from generator.core.problem import Exercise as Problem
from generator.draw.codes import CodeError, unpack
from generator.draw.options import DrawError
from generator.draw.private import Secret, is_private, private_problem, read_private
from generator.draw.search import draw
from generator.draw.sheetcodes import KINDS_VERSION, content_key, decode_code, read_own_code


def rebuild(
    code: str, problems: Sequence[Problem] = (), where: str = "the file", secret: Optional[Secret] = None
) -> Problem:
    """The problem a sheet code was printed for, with its code as printed: redrawn for a drawn
    code (a private one with the teacher's `secret`); for a teacher's own problem, the one among
    `problems` with the numbers the code names (`where` says where they came from, for the message)."""
    if is_private(code):
        return private_problem(code, secret)
    own = read_own_code(code)
    if own is None:
        d = decode_code(code)
        return draw(d.options, d.seed, count=1, start=d.index)[0]
    if not problems:
        decode_code(code)  # says, in one line, that the problem file is needed
    for problem in problems:
        if content_key(problem) == own.key:
            return replace(problem, code=own.code, metrics=None)
    raise CodeError(
        f"no problem in {where} has the numbers of sheet {own.code} (was the file changed since it was printed?)"
    )


@functools.lru_cache(maxsize=1024)  # a sheet's worksheet, key and scans ask of one code often
def drawn_version(code: Optional[str]) -> Optional[int]:
    """Which of its kind's draws printed the sheet of `code` (its options' draw_version), a private
    code's too; None where the code does not say (none, a teacher's own problem's, a kind of one draw)."""
    if not code:
        return None
    try:
        private = read_private(code) if is_private(code) else None
        decoded = private.inner if private else decode_code(code)
        if unpack(decoded.code).uint(3) != KINDS_VERSION:
            return 1  # a code of the layouts before the kinds' own numbers: their first draw's
    except (CodeError, DrawError):
        return None
    return getattr(decoded.options, "draw_version", None)


def grown_since(version: int) -> Callable[[Any], bool]:
    """Whether a kind's sheet is laid out as its draw `version` and later print it (its boxes
    grown where the page has room): a sheet printed before keeps its layout, so its scans are read
    where it was written; a problem no draw made is laid out as today."""
    return lambda problem: (drawn_version(problem.code) or version) >= version
