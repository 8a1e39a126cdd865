"""Problems read and solved for the command line: problem@1 in, every step's exact answer out, as text or solution@1.

Light by design: `attnsheet solve` loads neither numpy, Jinja nor WeasyPrint (a test checks).
"""

from __future__ import annotations

from generator.core.formats import dumps, parse_problems, problem_to_json, solution_to_json
from generator.core.registry import solve
from generator.core.usertext import decode

__all__ = ["decode", "dumps", "parse_problems", "problem_to_json", "solution_text", "solution_to_json", "solve"]


def solution_text(solution, places: int = 3) -> str:
    """A solution as readable text, step by step (sheet/text: loaded when one is shown, not at every start)."""
    from generator.sheet.text import solution_text as text

    return text(solution, places)
