"""Problems drawn for the command line (`attnsheet draw`): from options or a code, each with its difficulty figures, and their spread."""

from __future__ import annotations

from dataclasses import replace

from generator.core.registry import kind_of, metrics
from generator.core.metrics import stats_text
from generator.draw.options import MAX_COUNT, MAX_SEED
from generator.draw.rebuild import rebuild
from generator.draw.search import draw, fresh_seed


def drawn(options, seed: int, count: int) -> list:
    """A batch's problems, each with its metrics."""
    return [replace(p, metrics=metrics(p)) for p in draw(options, seed, count)]


def rebuilt(code: str) -> list:
    """The one problem a code was printed for, with its metrics."""
    problem = rebuild(code)
    return [replace(problem, metrics=metrics(problem))]


def spread_text(problems: list) -> str:
    """The spread of the problems' metrics, as the kind of the first shows them."""
    return stats_text([p.metrics for p in problems], kind_of(problems[0]))


__all__ = ["MAX_COUNT", "MAX_SEED", "drawn", "fresh_seed", "rebuilt", "spread_text"]
