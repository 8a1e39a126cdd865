"""A worksheet's box geometry (sheet/boxes.py) from the PDF writer's own layout of it."""

from __future__ import annotations

from dataclasses import replace

from generator.core.errors import AttnsheetError
from generator.core.student import Student
from generator.output.prose import shaper
from generator.sheet.boxes import PageBoxes, page_boxes
from generator.sheet.layout import page_layout
from generator.sheet.model import Settings
from generator.sheet.sheets import sheet_view


class NoGeometry(AttnsheetError):
    """A sheet whose layout needs a text engine: its boxes' places are not known here."""


def worksheet_boxes(problem, solution, student: Student, settings: Settings, link: str = "") -> tuple[PageBoxes, ...]:
    """Every page of `problem`'s worksheet as printed for `student`: its marks, QR code and answer boxes."""
    view = replace(sheet_view(problem, solution, student, settings, False), link=link)
    layouts = page_layout(view, settings, shaper())
    if layouts is None and student != Student():
        # A name our fonts cannot print goes to WeasyPrint; it sits on a line of fixed width,
        # so nothing else moves: the places are those of the same sheet without it.
        layouts = page_layout(replace(view, student=Student()), settings, shaper())
        if layouts is not None:
            layouts = tuple(replace(p, runs=()) for p in layouts)
    if layouts is None:
        raise NoGeometry(
            f"sheet {problem.code}: its title or text needs a text engine to lay out, "
            "so its boxes' places are not known"
        )
    return page_boxes(layouts)
