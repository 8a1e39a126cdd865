"""The attnsheet/grade@1 format: a graded sheet's verdicts and points as JSON."""

from __future__ import annotations

from typing import Any, Callable

from generator.core.grade import Grade, StepGrade
from generator.core.registry import flat_steps

GRADE_FORMAT = "attnsheet/grade@1"


def cells_json(grade: Grade, cell: Callable[[StepGrade, int, int], Any]) -> dict:
    """A value per cell of every graded grid, shaped as grade@1's `cells`: heads first, then the
    concatenation and the output; a flat grid (attention's sums) is a flat list, as in answers@1."""
    heads: list[dict] = []
    final: dict[str, list] = {}
    for s in grade.steps:
        grid = [[cell(s, i, j) for j in range(len(row))] for i, row in enumerate(s.verdicts)]
        values = grid[0] if s.step in flat_steps() else grid
        if s.head is None:
            final[s.step] = values
        else:
            heads.extend({} for _ in range(s.head - len(heads)))
            heads[s.head - 1][s.step] = values
    return {"heads": heads, **final}


def grade_to_json(grade: Grade) -> dict:
    """A Grade as attnsheet/grade@1 JSON."""
    return {
        "format": GRADE_FORMAT,
        "code": grade.code,
        "student": {"name": grade.student.name, "id": grade.student.id, "group": grade.student.group},
        "carry": grade.carry,
        "trivial": grade.trivial,
        "points": grade.points,
        "total": grade.total,
        "steps": [{"head": s.head, "step": s.step, "points": s.points, "total": s.total} for s in grade.steps],
        "cells": cells_json(grade, lambda s, i, j: s.verdicts[i][j]),
    }
