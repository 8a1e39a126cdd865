"""A class's grades written out: the gradebook (ours and a school system's), the summary lines, graded sheets and the class report."""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional, Sequence

from generator.core.errors import AttnsheetError
from generator.core.words import N_
from generator.core.grade import Grade, step_label
from generator.core.grades import grade_to_json
from generator.core.registry import heads_of, solve
from generator.core.problem import Exercise as Problem
from generator.core.student import Student
from generator.core.usertext import clean_text
from generator.output.files import slug
from generator.sheet.graded import graded_sheet, step_names, step_title
from generator.sheet.model import Settings
from generator.sheet.sheets import sheet_view


@dataclass(frozen=True)
class Graded:
    """A grade with the problem it is of."""

    grade: Grade
    """The verdicts and points."""
    problem: Problem
    """The sheet's problem."""


def _cell(text: str) -> str:
    """Spreadsheet-safe text: a field that would start a formula is prefixed with a quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


CSV_DIALECTS = {"excel": ",", "excel-semicolon": ";"}
"""Separators of gradebook.csv: Excel's own (commas), or semicolons for the locales whose Excel
expects them (their decimal sign is a comma: the percent is written with one there)."""

SCHOOL_SYSTEMS = ("moodle", "canvas", "classroom")
"""The gradebook layouts school systems import (see `school_gradebook`)."""


def gradebook_csv(grades: Sequence[Grade], dialect: str = "excel", missing: Sequence[tuple[Student, str]] = ()) -> str:
    """One row per sheet: code, name, id, group, points, total, percent, then points per step;
    then a row with no points for each sheet of the class with no answers (`missing`: its student
    and code); UTF-8 with a byte-order mark, so that Excel shows accented names as they are."""
    sep = CSV_DIALECTS[dialect]
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer, delimiter=sep, lineterminator="\r\n")
    labels: list[str] = []
    for g in grades:
        heads = max((s.head or 0 for s in g.steps), default=0)
        for s in g.steps:
            label = step_label(s.head, s.step, heads)
            if label not in labels:
                labels.append(label)
    writer.writerow(["code", "name", "id", "group", "points", "total", "percent", *labels])
    for g in grades:
        heads = max((s.head or 0 for s in g.steps), default=0)
        by_label = {step_label(s.head, s.step, heads): s.points for s in g.steps}
        percent = f"{g.percent:.1f}".replace(".", "," if sep == ";" else ".")
        writer.writerow(
            [
                _cell(g.code or ""),
                _cell(g.student.name),
                _cell(g.student.id),
                _cell(g.student.group),
                g.points,
                g.total,
                percent,
                *[by_label.get(label, "") for label in labels],
            ]
        )
    for student, code in missing:
        writer.writerow(
            [_cell(code), _cell(student.name), _cell(student.id), _cell(student.group), "", "", "", *[""] * len(labels)]
        )
    return buffer.getvalue()


def school_gradebook(
    grades: Sequence[Grade], system: str, assignment: str, missing: Sequence[tuple[Student, str]] = ()
) -> str:
    """The grades as a school system imports them, the roster's `id` as each student's identifier,
    each student of the class with no answers (`missing`) without a score:

    - moodle: `ID number,<assignment>` (Moodle's grade import: an identifier column, mapped to
      "ID number", and a grade column, mapped to the grade item; points as a plain number);
    - canvas: `Student,ID,SIS User ID,Section,<assignment>`, then a `Points Possible` row (Canvas
      gradebook import: the roster's id as SIS User ID, its group as Section);
    - classroom: `Email Address,<assignment>` (Google Classroom's grade import; the roster's id
      must be the student's email).
    """
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer, lineterminator="\r\n")
    name = _cell(assignment)
    rows = [(g.student, g.points) for g in grades] + [(student, "") for student, _ in missing]
    if system == "moodle":
        writer.writerow(["ID number", name])
        writer.writerows([[_cell(student.id), points] for student, points in rows])
    elif system == "canvas":
        writer.writerow(["Student", "ID", "SIS User ID", "Section", name])
        writer.writerow(["Points Possible", "", "", "", max((g.total for g in grades), default=0)])
        writer.writerows(
            [[_cell(student.name), "", _cell(student.id), _cell(student.group), points] for student, points in rows]
        )
    elif system == "classroom":
        writer.writerow(["Email Address", name])
        writer.writerows([[_cell(student.id), points] for student, points in rows])
    else:
        raise ValueError(f"unknown school system {system!r}")
    return buffer.getvalue()


SCALES = ("points", "10", "20", "100")
"""What a gradebook's score is out of: the sheet's own points, or a mark out of 10, 20 or 100."""
COMMA_LOCALES = ("es",)
"""Languages whose spreadsheets write a decimal comma and so read semicolon-separated files."""


class GradebookError(AttnsheetError):
    """A gradebook that cannot be made as asked (a Classroom file without e-mails), in one line."""

    def __init__(self, message: str, words: str = "", values: Optional[dict] = None) -> None:
        super().__init__(message)
        self.words, self.values = words, values or {}
        """Its message id and values, for a page in the class's language (empty: the message is the words)."""


CLASSROOM_REFUSAL = N_(
    "Google Classroom matches students by e-mail, and the roster's id column has none for "
    "%(missing)s of %(count)s students (the first: %(first)s): put each student's e-mail in the "
    "roster's id column, or import another gradebook"
)
"""Why a Classroom gradebook is refused (a message id)."""


def scaled(points: int, total: int, scale: str) -> Fraction:
    """A sheet's score on `scale`, exact: its points, or points/total of 10, 20 or 100."""
    if scale == "points":
        return Fraction(points)
    return Fraction(points * int(scale), total) if total else Fraction(0)


def _number(value: Fraction, comma: bool) -> str:
    """A score as a spreadsheet reads it: a whole number as it is, else to two decimals (with a decimal comma)."""
    text = str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}"
    return text.replace(".", ",") if comma else text


def class_gradebook(
    rows: Sequence[tuple[Student, str, Optional[Grade]]],
    system: str = "attnsheet",
    scale: str = "points",
    lang: str = "en",
    assignment: str = "attnsheet",
    titles: Optional[dict[str, str]] = None,
) -> str:
    """Every sheet of a class, saved or not (`rows`: its student, its code, its grade or None), as
    `system` imports it: attnsheet's own (headers in `lang`, its locale's separator and decimal
    sign, a status column saying which sheets are missing, each step's column headed by its title
    as the sheets name it, `titles`), moodle, canvas or classroom; the score in points or on a
    `scale` of 10, 20 or 100. A Classroom file needs each student's e-mail (the
    roster's id): without them it is refused, never filled with ids."""
    if scale not in SCALES:
        raise GradebookError(f"scale: one of {', '.join(SCALES)}")
    if system not in ("attnsheet",) + SCHOOL_SYSTEMS:
        raise GradebookError(f"gradebook: one of attnsheet, {', '.join(SCHOOL_SYSTEMS)}")
    total = max((g.total for _, _, g in rows if g is not None), default=0)
    ours = system == "attnsheet"
    comma = ours and lang in COMMA_LOCALES
    buffer = io.StringIO()
    buffer.write("\ufeff")
    writer = csv.writer(buffer, delimiter=";" if comma else ",", lineterminator="\r\n")

    def score(grade: Optional[Grade]) -> str:
        return "" if grade is None else _number(scaled(grade.points, grade.total, scale), comma)

    name = _cell(assignment)
    out_of = total if scale == "points" else int(scale)
    if system == "classroom":
        missing = [s.name or code for s, code, _ in rows if "@" not in (s.id or "")]
        if missing:
            values = {"missing": len(missing), "count": len(rows), "first": missing[0][:60]}
            raise GradebookError(CLASSROOM_REFUSAL % values, CLASSROOM_REFUSAL, values)
        writer.writerow(["Email Address", name])
        writer.writerows([[_cell(s.id), score(g)] for s, _, g in rows])
    elif system == "moodle":
        writer.writerow(["ID number", name])
        writer.writerows([[_cell(s.id), score(g)] for s, _, g in rows])
    elif system == "canvas":
        writer.writerow(["Student", "ID", "SIS User ID", "Section", name])
        writer.writerow(["Points Possible", "", "", "", out_of])
        writer.writerows([[_cell(s.name), "", _cell(s.id), _cell(s.group), score(g)] for s, _, g in rows])
    else:
        from generator.sheet.i18n import translations

        _ = translations(lang).gettext
        labels: list[str] = []
        for _student, _code, g in rows:
            if g is None:
                continue
            heads = max((st.head or 0 for st in g.steps), default=0)
            for st in g.steps:
                label = step_label(st.head, st.step, heads)
                if label not in labels:
                    labels.append(label)
        shown = _("score out of %(scale)s") % {"scale": out_of}
        writer.writerow(
            [
                _("code"),
                _("name"),
                "id",
                _("group"),
                _("points"),
                _("total"),
                _("percent"),
                shown,
                _("status"),
                *[_cell((titles or {}).get(label, label)) for label in labels],
            ]
        )
        for student, code, g in rows:
            if g is None:
                writer.writerow(
                    [
                        _cell(code),
                        _cell(student.name),
                        _cell(student.id),
                        _cell(student.group),
                        "",
                        "",
                        "",
                        "",
                        _("missing"),
                        *[""] * len(labels),
                    ]
                )
                continue
            heads = max((st.head or 0 for st in g.steps), default=0)
            by_label = {step_label(st.head, st.step, heads): st.points for st in g.steps}
            writer.writerow(
                [
                    _cell(code),
                    _cell(student.name),
                    _cell(student.id),
                    _cell(student.group),
                    g.points,
                    g.total,
                    f"{g.percent:.1f}".replace(".", "," if comma else "."),
                    score(g),
                    _("saved"),
                    *[by_label.get(label, "") for label in labels],
                ]
            )
    return buffer.getvalue()


def summary_lines(grades: Sequence[Grade]) -> list[str]:
    """One line per sheet (name, code, points/total, percent) and one for the class."""
    # Codes from a file reach the terminal: cleaned as roster text is (no escape sequences).
    rows = [
        (g.student.name or "-", clean_text(g.code or "") or "(no code)", f"{g.points}/{g.total}", f"{g.percent:.1f}%")
        for g in grades
    ]
    widths = [max((len(r[k]) for r in rows), default=1) for k in range(4)]
    # Every column lines up: names and codes to the left, points and percents to the right.
    lines = [
        f"{name:<{widths[0]}}  {code:<{widths[1]}}  {points:>{widths[2]}}  {percent:>{widths[3]}}"
        for name, code, points, percent in rows
    ]
    if len(grades) > 1:
        percents = [g.percent for g in grades]
        lines.append(
            f"class: {len(grades)} sheets, mean {statistics.mean(percents):.1f}%, "
            f"median {statistics.median(percents):.1f}%, lowest {min(percents):.1f}%, "
            f"highest {max(percents):.1f}%"
        )
    return lines


def grades_json(grades: Sequence[Grade]) -> Any:
    """grade@1 for one sheet, or a list of them for several."""
    docs = [grade_to_json(g) for g in grades]
    return docs[0] if len(docs) == 1 else docs


def graded_paths(graded: Sequence[Graded], out: Path) -> list[Path]:
    """Where each student's graded sheet goes: graded/NN-name.pdf (the code when there is no name)."""
    width = max(2, len(str(len(graded))))
    return [
        out / "graded" / f"{i:0{width}d}-{slug(g.grade.student.name) or slug(g.grade.code or '') or 'sheet'}.pdf"
        for i, g in enumerate(graded, start=1)
    ]


def graded_pdf(graded: Graded, settings: Settings) -> bytes:
    """A student's sheet with their own values in the boxes, each marked, and their points."""
    from generator.output.documents import document  # pikepdf (and maybe WeasyPrint) load only here

    g = graded.grade
    view = sheet_view(
        graded.problem, solve(graded.problem), g.student, settings, False, graded_sheet(g, graded.problem)
    )
    data, _ = document([view], settings)
    return data


SHARE_KINDS = ("correct", "carried", "trivial", "wrong", "blank")
"""The parts of each step's bar; unreadable cells count as blank (nothing usable was written)."""


def class_report(grades: Sequence[Grade]) -> dict:
    """A class's results, for the report: each step's shares of correct, carried, wrong and blank
    cells, the five cells most often wrong, and the scores in ten bins of 10 %."""
    steps: dict[tuple, dict[str, int]] = {}
    wrong: dict[tuple, int] = {}
    for g in grades:
        heads = max((s.head or 0 for s in g.steps), default=0)
        for s in g.steps:
            label = step_label(s.head, s.step, heads)
            counts = steps.setdefault(label, dict.fromkeys(SHARE_KINDS, 0))
            for i, row in enumerate(s.verdicts):
                for j, verdict in enumerate(row):
                    if verdict == "masked":
                        continue
                    counts["blank" if verdict == "unreadable" else verdict] += 1
                    if verdict == "wrong":
                        key = (label, i + 1, j + 1)
                        wrong[key] = wrong.get(key, 0) + 1
    bars = []
    for label, counts in steps.items():
        total = sum(counts.values()) or 1
        bars.append({"label": label, "shares": [(kind, 100.0 * counts[kind] / total) for kind in SHARE_KINDS]})
    worst = sorted(wrong.items(), key=lambda item: (-item[1], item[0]))[:5]
    bins = [0] * 10
    for g in grades:
        bins[min(9, int(g.percent // 10))] += 1
    percents = [g.percent for g in grades]
    trivial, why = 0, {}
    for s in (s for g in grades for s in g.steps):
        n = sum(v == "trivial" for row in s.verdicts for v in row)
        trivial += n
        if n:
            why[s.why] = why.get(s.why, 0) + n
    return {
        "sheets": len(grades),
        "trivial": trivial,
        "trivial_why": sorted(why.items(), key=lambda item: (-item[1], item[0])),
        "trivial_credit": grades[0].trivial if grades else "none",
        "mean": statistics.mean(percents) if percents else 0.0,
        "median": statistics.median(percents) if percents else 0.0,
        "bars": bars,
        "worst": [
            {"step": label, "row": r, "col": c, "count": n, "share": 100.0 * n / len(grades)}
            for (label, r, c), n in worst
        ],
        "bins": bins,
    }


def report_pdf(graded: Sequence[Graded], settings: Settings) -> bytes:
    """The class report as a one-page PDF, its steps named as the sheets name them, in their language."""
    from generator.output.html import report_html
    from generator.output.pdf import renderer  # WeasyPrint loads only when a PDF is asked for

    r = renderer()
    return r.pdf([r.render(report_html(titled_report(graded, settings.lang), settings))])


def step_titles(graded: Sequence[Graded], lang: str = "en") -> dict[str, str]:
    """Each gradebook label of a class's sheets ('Q_copy', 'h2 scaled') as the sheets name the grid
    ('Q, copied'), in `lang`: what a teacher reads at the head of a column."""
    names: dict = {}
    for shape in {(g.problem.kind, heads_of(g.problem)): g.problem for g in graded}.values():
        names.update(step_names(shape))  # the sheets of one shape name their steps alike
    return {label: step_title(label, names, lang) for label in names}


def titled_report(graded: Sequence[Graded], lang: str = "en") -> dict:
    """The class report (`class_report`), its steps named as the sheets name them, in `lang`."""
    report = class_report([g.grade for g in graded])
    titles = step_titles(graded, lang)
    return {
        **report,
        "bars": [{**bar, "label": titles.get(bar["label"], bar["label"])} for bar in report["bars"]],
        "worst": [{**w, "step": titles.get(w["step"], w["step"])} for w in report["worst"]],
    }
