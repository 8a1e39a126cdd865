"""Any sheet's view, whatever its kind: each kind's folder lays out its own (its `sheet`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.core.registry import part
from generator.core.student import Student
from generator.sheet.graded import GradedSheet
from generator.sheet.model import Settings, for_student
from generator.sheet.panel import with_decimal_comma
from generator.sheet.sheetview import HeadView, SheetView


def sheet_view(
    problem, solution, student: Student, settings: Settings, key: bool, graded: Optional[GradedSheet] = None
) -> SheetView:
    """Everything the template needs for one worksheet (key=False), answer key (key=True) or
    graded sheet (`graded`: the student's values and verdicts in the worksheet's boxes)."""
    settings = for_student(settings, student)  # a student's large print: laid out on its own page
    view = part(problem.kind, "sheet").view(problem, solution, student, settings, key, graded)
    return decimal_comma(view) if settings.comma else view


def decimal_comma(view: SheetView) -> SheetView:
    """A sheet whose every decimal is written with a comma: grids, worked example, score."""

    def head(h: HeadView) -> HeadView:
        panels = {name: with_decimal_comma(p) for name in ("both", "proj", "att", "out") if (p := getattr(h, name))}
        bands = tuple((name, tuple(with_decimal_comma(p) for p in band)) for name, band in h.bands)
        return replace(h, bands=bands, **panels)

    marked = {name: with_decimal_comma(p) for name in ("final", "worked", "score") if (p := getattr(view, name))}
    return replace(view, heads=tuple(head(h) for h in view.heads), **marked)


def check_fits(problem, solution, settings: Settings) -> None:
    """Raise LayoutError now if a sheet of `problem` cannot be printed legibly (a batch checks
    every sheet before it renders any)."""
    part(problem.kind, "sheet").check_fits(problem, solution, settings)
