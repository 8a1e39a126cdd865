"""A printed sheet code back to its problem: the one function every front end rebuilds a sheet with."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from generator.core.problem import Exercise as Problem
from generator.draw.codes import CodeError
from generator.draw.private import Secret, is_private, private_problem
from generator.draw.search import draw
from generator.draw.sheetcodes import content_key, decode_code, read_own_code


def rebuild(code: str, problems: Sequence[Problem] = (), where: str = "the file",
            secret: Optional[Secret] = None) -> Problem:
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
    raise CodeError(f"no problem in {where} has the numbers of sheet {own.code} "
                    "(was the file changed since it was printed?)")
