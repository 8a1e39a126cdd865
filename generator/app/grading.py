"""A class graded, as both front ends ask for it: answers matched to their sheets against the teacher's truth, graded with error carried forward, written out."""

from __future__ import annotations

from dataclasses import replace

from pathlib import Path
from typing import Optional, Sequence

from generator.core.answers import AnswersError, Pending, parse_answers, skeleton
from generator.core.errors import AttnsheetError
from generator.core.formats import dumps
from generator.core.registry import grade
from generator.core.problem import Exercise as Problem
from generator.core.problem import same_numbers
from generator.core.student import Student, student_of
from generator.core.usertext import clean_text
from generator.output.gradebook import (
    CSV_DIALECTS,
    SCALES,
    SCHOOL_SYSTEMS,
    GradebookError,
    Graded,
    class_gradebook,
    class_report,
    gradebook_csv,
    graded_paths,
    graded_pdf,
    grades_json,
    report_pdf,
    titled_report,
    school_gradebook,
    step_titles,
    summary_lines,
)
from generator.output.manifest import Listed, check_codes, code_key, manifest_settings, read_manifest
from generator.sheet.i18n import languages
from generator.sheet.model import PAPERS, Settings

__all__ = [
    "CSV_DIALECTS",
    "PAPERS",
    "SCALES",
    "SCHOOL_SYSTEMS",
    "GradebookError",
    "Graded",
    "Listed",
    "Student",
    "student_of",
    "answer_skeletons",
    "class_gradebook",
    "class_report",
    "grade_all",
    "dumps",
    "gradebook_csv",
    "graded_pdf",
    "grades_json",
    "grades_text",
    "languages",
    "load_manifest",
    "parse_answers",
    "report_pdf",
    "school_gradebook",
    "skeleton",
    "step_titles",
    "summary_lines",
    "titled_report",
    "write_grades",
]


def load_manifest(text: str, label: str, secret=None) -> tuple[dict[str, Listed], dict]:
    """The sheets of a manifest, by code, each checked against its code (with the teacher's `secret`
    for private codes), and its paper, language and title."""
    sheets = read_manifest(text, label)
    check_codes(sheets, label, secret)
    return sheets, manifest_settings(text, label)


def answer_skeletons(
    code: Optional[str], sheets: Optional[dict[str, Listed]], every: bool, label: str = "the manifest", secret=None
) -> list[dict]:
    """The empty answers@1 skeletons asked for: every sheet of a manifest, the manifest's sheet
    `code`, or the sheet a drawn `code` rebuilds."""
    if every:
        return [skeleton(s.problem, s.code, s.student) for s in (sheets or {}).values()]
    if sheets is not None:
        listed = sheets.get(code_key(code))
        if listed is None:
            raise AnswersError(f"sheet {clean_text(code, 40)!r} is not in {label}")
        return [skeleton(listed.problem, listed.code, listed.student)]
    from generator.draw.rebuild import rebuild

    problem = rebuild(code, secret=secret)
    return [skeleton(problem, problem.code)]


def grades_text(graded: Sequence[Graded], as_json: bool) -> str:
    """What `grade` prints: attnsheet/grade@1 JSON, or one line per sheet and one for the class."""
    grades = [g.grade for g in graded]
    return (dumps(grades_json(grades)) if as_json else "\n".join(summary_lines(grades))) + "\n"


def _rebuilt(code: str, where: str, problems: Sequence[Problem] = (), secret=None) -> Problem:
    """The problem a sheet's code rebuilds (drawn again, with the teacher's `secret` for a private
    code, or found among `problems` by content)."""
    from generator.draw.rebuild import rebuild  # the drawing (and numpy) only when a code needs it

    try:
        return rebuild(code, problems, secret=secret)
    except AttnsheetError as error:
        raise AnswersError(f"{where}: {error}") from None


def grade_all(
    pendings: Sequence[Pending],
    manifest: Optional[dict[str, Listed]],
    carry: bool,
    manifest_label: str = "the manifest",
    secret=None,
    trivial: str = "none",
) -> list[Graded]:
    """Grade every sheet's answers against the teacher's truth; the same sheet twice is an error.

    With a manifest, a sheet's problem comes from the manifest alone: a code not in it, or
    answers whose embedded problem differs from it, are refused. Without one, a drawn code's
    problem is always drawn again (never taken from the answers), and answers that carry their
    problem must carry the one their code names.
    """
    seen: dict[str, str] = {}
    grades = []
    for pending in pendings:
        student, code, where = pending.student, pending.code, pending.where
        if manifest is not None:
            listed = _listed(pending, manifest, manifest_label)
            problem, code = listed.problem, listed.code
            if student == Student():
                student = listed.student
            elif listed.student.print_size:  # their sheets print large: their graded sheet does too
                student = replace(student, print_size=listed.student.print_size)
        elif code is not None:
            problem = _rebuilt(code, where, () if pending.problem is None else (pending.problem,), secret)
            if pending.problem is not None and not same_numbers(pending.problem, problem):
                raise AnswersError(
                    f"{where}: its problem is not the one sheet {problem.code} was printed with; "
                    "grade it with the batch's manifest (--manifest)"
                )
            code = problem.code
        else:
            problem = pending.problem
            code = problem.code
        key = code_key(code) if code else dumps(problem.X)
        if key in seen:
            raise AnswersError(f"{where}: sheet {code or '(no code)'} is graded twice (also in {seen[key]})")
        seen[key] = where
        grades.append(
            Graded(grade(problem, pending.answers(problem, student, code), carry=carry, trivial=trivial), problem)
        )
    return grades


def _listed(pending: Pending, manifest: dict[str, Listed], label: str) -> Listed:
    """The manifest's sheet for a pending's answers: by its code, or by the problem it carries."""
    where, code = pending.where, pending.code
    if code is None:
        found = [s for s in manifest.values() if same_numbers(s.problem, pending.problem)]
        if len(found) != 1:
            why = "is not one of" if not found else f"is on {len(found)} sheets of"
            raise AnswersError(f"{where}: its problem {why} {label}'s sheets; give the sheet's code")
        return found[0]
    listed = manifest.get(code_key(code))
    if listed is None:
        raise AnswersError(f"{where}: sheet {clean_text(code, 40)!r} is not in {label}")
    if pending.problem is not None and not same_numbers(pending.problem, listed.problem):
        raise AnswersError(
            f"{where}: its problem is not the one {label} lists for sheet {listed.code}; "
            "the manifest's is the one graded, so remove the answers' own"
        )
    return listed


def write_grades(
    graded: Sequence[Graded],
    out: Path,
    chosen: dict,
    force: bool,
    paper: Optional[str] = None,
    lang: Optional[str] = None,
    dialect: str = "excel",
    systems: Sequence[str] = (),
    roster: Sequence[Listed] = (),
) -> int:
    """A class's grades written into `out`: gradebook.csv (and a school system's), grades.json, the
    report and each student's graded sheet; every target checked before any work, all or nothing
    (`chosen`: the batch's paper, language and title, where the teacher chose none). The gradebooks
    list the whole class (`roster`: the manifest's sheets), a sheet with no answers without points;
    returns how many of its sheets had none."""
    from generator.output.files import check_free, check_writable
    from generator.output.staging import Staging

    grades = [g.grade for g in graded]
    handed = {code_key(g.code) for g in grades if g.code}
    missing = [(s.student, s.code) for s in roster if code_key(s.code) not in handed]
    targets = {
        out / "gradebook.csv": gradebook_csv(grades, dialect, missing),
        out / "grades.json": dumps(grades_json(grades)) + "\n",
    }
    assignment = chosen.get("title") or "attnsheet"
    targets.update(
        {
            out / f"gradebook-{system}.csv": school_gradebook(grades, system, assignment, missing)
            for system in dict.fromkeys(systems)
        }
    )
    pdfs = graded_paths(graded, out)
    report = out / "report.pdf"
    check_free(list(targets) + pdfs + [report], force)  # every target is checked before any work
    check_writable(out)
    check_writable(out / "graded")
    settings = Settings(
        paper=paper or chosen.get("paper", "a4"),
        lang=lang or chosen.get("lang", "en"),
        title=chosen.get("title", ""),
        decimal_comma=chosen.get("decimal_comma"),
    )
    # Staged, then moved in together: a failed or stopped run leaves `out` as it was.
    with Staging(out, force) as stage:
        for g, path in zip(graded, pdfs):
            stage.write(path, graded_pdf(g, settings))
        stage.write(report, report_pdf(graded, settings))
        for path, text in targets.items():
            stage.write(path, text.encode("utf-8"))
        stage.commit()
    return len(missing)
