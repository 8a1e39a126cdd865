"""An attention sheet's matrices as their faces show them: labelled, named by their steps, marked when graded."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from generator.sheet.grid import Marking, marked, matrix


def face_matrix(face, row: bool, _, values, **options):
    """A matrix labelled, captioned and toned as its face says (in the sheet's convention and language)."""
    return matrix(face.label[row], _(face.caption_in(row)), values, tone=face.tone, two_line=face.fraction, **options)


def stepped(views: dict, steps: tuple, head: Optional[int]) -> dict:
    """Views named with their answers@1 step and head: what a scanner reads where (sheet/boxes.py)."""
    return {name: replace(view, step=name, head=head) if name in steps else view for name, view in views.items()}


def marked_views(views: dict, steps: tuple, marks: dict, row: bool) -> dict:
    """Views with their steps' markings; sums are a row of the grade, a column of a row-convention sheet."""
    out = dict(views)
    for name in steps:
        if name in views and name in marks:
            marking = marks[name]
            if name == "sums" and row:
                marking = Marking(*(tuple(zip(*grid)) for grid in (marking.texts, marking.verdicts, marking.notes)))
            out[name] = marked(views[name], marking)
    return out
