"""A grade as a graded sheet shows it: what the student wrote, each cell's verdict, the points."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from generator.core.grade import Entry, Grade, StepGrade, step_label
from generator.core.registry import heads_of, kind_of
from generator.core.numbers import decimal_str, sheet_value
from generator.sheet.grid import Marking
from generator.sheet.i18n import translations
from generator.sheet.panel import PanelView, text_panel


@dataclass(frozen=True)
class GradedSheet:
    """What a graded sheet adds to a worksheet."""

    marks: dict[Optional[int], dict[str, Marking]]
    """By head (1-based; None for the concatenation and the output), each step's marking."""
    points: int
    """Points earned."""
    total: int
    """Points available."""
    steps: tuple[tuple[str, int, int], ...]
    """Each step's label, points and total, for the header."""
    trivial: Optional[str] = None
    """The credit of the sheet's trivial cells (none, half, full), or None when it has none."""
    names: dict = field(default_factory=dict)
    """Each step's label → its head and its name on the sheet (`step_names`)."""

    @property
    def percent(self) -> str:
        """The score in percent, as the header prints it."""
        return f"{100 * self.points / self.total:.1f}" if self.total else "0.0"


def _decimal(entry: Entry) -> str:
    value, places = entry.decimal
    return decimal_str(value, places).replace("-", "\u2212")


def written_lines(entry: Entry) -> tuple[str, str]:
    """A written cell as our own text: the number as read (never the student's raw characters),
    "?" when unreadable; a fraction with its decimals takes two lines."""
    if entry.kind == "blank":
        return "", ""
    if entry.kind == "unreadable":
        return "?", ""
    if entry.exact is None:
        return _decimal(entry), ""
    return sheet_value(entry.exact), _decimal(entry) if entry.decimal is not None else ""


def _marking(step: StepGrade) -> Marking:
    texts = tuple(tuple(written_lines(e) for e in row) for row in step.written)
    notes = tuple(
        tuple(sheet_value(x) if v == "wrong" else "" for v, x in zip(vs, xs))
        for vs, xs in zip(step.verdicts, step.expected)
    )
    return Marking(texts, step.verdicts, notes)


SCORE_SCALE = 0.75
"""The score panel's size: 7.5 pt values, 5.6 pt steps and legend, 12 pt lines."""


def step_names(problem) -> dict[str, tuple[Optional[int], str]]:
    """Each of a problem's gradebook labels ('Q_copy', 'h2 scaled', 'Z concat'): the head it is
    in, on several heads, and the name its sheet gives the grid (its face's title, a message id,
    or its symbol)."""
    kind = kind_of(problem)
    heads = heads_of(problem)
    return {
        step_label(s.key[0], s.key[1], heads): (s.key[0] if heads > 1 else None, s.face.title or s.face.symbol)
        for s in kind.steps(kind.column_twin(problem))
        if s.face is not None
    }


def step_title(label: str, names: dict[str, tuple[Optional[int], str]], lang: str = "en") -> str:
    """A gradebook label as a sheet names its grid (`step_names`), in the sheet's language."""
    _ = translations(lang).gettext
    head, name = names.get(label, (None, label))
    name = _(name) if name else name
    return _("head %(n)s: %(step)s") % {"n": head, "step": name} if head else name


def score_panel(graded: GradedSheet, width_pt: float, lang: str = "en") -> PanelView:
    """The score, the points of every step and what the marks mean, for a graded sheet's header."""
    _ = translations(lang).gettext
    steps = " · ".join(
        f"{step_title(label, graded.names, lang)} {points}/{total}" for label, points, total in graded.steps
    )
    return text_panel(
        [
            (kind, text.split(" "))
            for kind, text in [
                (
                    "answers",
                    _("Score %(points)s/%(total)s (%(percent)s%%)")
                    % {"points": graded.points, "total": graded.total, "percent": graded.percent},
                ),
                ("captions", steps),
                (
                    "captions",
                    _(
                        "Marks: tick = correct; tick with a tail = carried (right from your own earlier numbers); "
                        "cross = wrong, with the expected value in small red; square = blank or unreadable."
                    ),
                ),
            ]
            + (
                [
                    (
                        "captions",
                        {
                            "none": _(
                                "Tick with a barred tail = right from your own earlier numbers, but those left nothing to "
                                "compute (all zeros, one value throughout, a column repeated, nothing changed): no point."
                            ),
                            "half": _(
                                "Tick with a barred tail = right from your own earlier numbers, but those left nothing to "
                                "compute (all zeros, one value throughout, a column repeated, nothing changed): half a point."
                            ),
                            "full": _(
                                "Tick with a barred tail = right from your own earlier numbers, but those left nothing to "
                                "compute (all zeros, one value throughout, a column repeated, nothing changed): a point."
                            ),
                        }[graded.trivial],
                    )
                ]
                if graded.trivial
                else []
            )
        ],
        width_pt,
        SCORE_SCALE,
    )


def graded_sheet(grade: Grade, problem) -> GradedSheet:
    """The markings and points of a grade of `problem`."""
    marks: dict[Optional[int], dict[str, Marking]] = {}
    heads = max((s.head or 0 for s in grade.steps), default=0)
    for step in grade.steps:
        marks.setdefault(step.head, {})[step.step] = _marking(step)
    labels = tuple((step_label(s.head, s.step, heads), s.points, s.total) for s in grade.steps)
    trivial = any(v == "trivial" for s in grade.steps for row in s.verdicts for v in row)
    return GradedSheet(
        marks, grade.points, grade.total, labels, grade.trivial if trivial else None, step_names(problem)
    )
