"""A batch, as both front ends ask for it: one request (drawn, the teacher's own problems, or blank templates), checked once, then its sheets.

The command line and the web form each turn what the teacher gave into settings by name and
the files chosen (a roster's students, a problem file's problems); `request` checks them once,
in the same words for both (each refusal names the setting it is about, so the form shows it
beside its field and the CLI exits 2 with it); `sheets_of` draws and solves the sheets; the
edges render and write them (output/batch).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Collection, Optional, Sequence

from generator.core.errors import AttnsheetError, BatchError
from generator.core.registry import solve
from generator.core.problem import Exercise as Problem
from generator.core.student import LARGE_PRINT, PRINT_SIZES, Sheet, Student, larger
from generator.core.usertext import MAX_TITLE
from generator.draw.choose import options_for
from generator.draw.options import DrawError
from generator.draw.search import fresh_seed
from generator.output.batch import Batch, Written, check_printable, generate
from generator.output.manifest import Origin
from generator.sheet.model import Settings, timestamp

__all__ = [
    "LARGE_PRINT",
    "PRINT_SIZES",
    "Batch",
    "Origin",
    "Request",
    "RequestError",
    "Settings",
    "Written",
    "blank_problem",
    "blank_sheets",
    "check_printable",
    "draw_options",
    "generate",
    "key_sheet",
    "make_sheets",
    "own_sheets",
    "request",
    "roster_students",
    "sheets_of",
    "timestamp",
    "with_files",
]


class RequestError(AttnsheetError):
    """A batch's settings that cannot go together: its message says why, `setting` which is at fault."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting
        """The setting it is about (a name of app/settings), or "form" for the whole request."""


@dataclass(frozen=True)
class Request:
    """One batch a teacher asks for, checked."""

    source: str
    """draw (numbers drawn from a seed), own (the teacher's problems) or blank (templates)."""
    options: Any
    """The kind's draw options (the shape of a blank template too); None for own problems."""
    students: tuple[Student, ...]
    """One sheet each."""
    settings: Settings
    """Paper, language, title, worked examples, blank."""
    seed: Optional[int] = None
    """A drawn batch's seed, where the teacher gave one (else a fresh one is chosen)."""
    problems: tuple[Problem, ...] = ()
    """The teacher's own problems: one for the class, or one per sheet."""
    split: bool = False
    """One file per student and per key."""
    problem_file: Optional[str] = None
    """Where the own problems came from, as the manifest names it."""
    roster: Optional[str] = None
    """Where the students came from, as the manifest names it."""
    large_print: str = ""
    """Every sheet's print size at least (core/student.PRINT_SIZES; "": each student's own, the roster's)."""


def request(
    values: dict,
    given: Collection[str],
    problems: Optional[Sequence[Problem]] = None,
    students: Optional[Sequence[Student]] = None,
    roster: Optional[str] = None,
    problem_file: Optional[str] = None,
) -> Request:
    """A batch's request from its settings by name (`values`, every default filled in; `given`:
    the ones the teacher chose) and the files chosen: the teacher's own `problems`, a roster's
    `students` (`roster`, `problem_file`: their names, for the manifest). A RequestError (with the setting it is about) where
    they cannot go together; the draw's own refusals are its DrawError."""
    count, blank, worked, seed = (
        values.get("count"),
        values.get("blank", False),
        values.get("worked", False),
        values.get("seed"),
    )
    if roster is not None and "count" in given and count is not None:
        raise RequestError("count", "use --count or --roster, not both")
    title = values.get("title") or ""
    if len(title) > MAX_TITLE:
        raise RequestError("title", f"--title: at most {MAX_TITLE} characters, got {len(title)}")
    own = problems is not None or problem_file is not None
    if own and blank:
        raise RequestError("blank", "--problem takes no --blank: the file says the shape and the rules")
    if blank and worked:
        raise RequestError("worked", "--blank has no key, so no worked example: drop --worked")
    from generator.app.settings import DRAW_SETTINGS

    if own or blank:
        used = "--problem" if own else "--blank"
        clash = [n for n in ("seed",) + (DRAW_SETTINGS if own else ()) if n in given]
        if clash:
            raise RequestError(
                clash[0],
                f"{used} takes no --{clash[0].replace('_', '-')}: "
                + ("the file says the shape and the rules" if own else "a blank template has no numbers to draw"),
            )
    settings = Settings(
        paper=values.get("paper", "a4"),
        lang=values.get("lang", "en"),
        title=title,
        worked=worked,
        blank=blank,
        decimal_comma=values.get("decimal_comma"),
        timestamp=values.get("timestamp", ""),
    )
    options = None
    if not own:
        try:
            options = options_for(values, given)
            if not blank:
                options.check_drawable()
        except DrawError as error:
            raise RequestError("form", str(error)) from None
    source = "own" if own else "blank" if blank else "draw"
    req = Request(
        source,
        options,
        (),
        settings,
        seed,
        (),
        bool(values.get("split")),
        problem_file,
        roster,
        values.get("large_print") if values.get("large_print") in PRINT_SIZES else "",
    )
    return with_files(req, count, problems, students)


def with_files(
    req: Request,
    count: Optional[int],
    problems: Optional[Sequence[Problem]] = None,
    students: Optional[Sequence[Student]] = None,
) -> Request:
    """A checked request with its files read (a problem file's problems, a roster's students):
    without a roster, --count unnamed sheets, or one per problem, or one."""
    if students is None:
        students = [Student()] * (count or (len(problems) if problems else 1))
    if req.large_print:  # the class's size, or a student's own where the class list makes it larger
        students = [replace(student, print_size=larger(student.print_size, req.large_print)) for student in students]
    return replace(req, students=tuple(students), problems=tuple(problems or ()))


def sheets_of(req: Request, secret=None, start: int = 0) -> tuple[tuple[Sheet, ...], Origin, Optional[int]]:
    """A request's sheets, drawn and solved (a drawn batch's numbers from `secret` when given: its
    codes are then private), how they came to be, and the seed drawn with (a fresh one if none)."""
    if req.source == "own":
        return (
            own_sheets(req.problems, req.students),
            Origin(problem_file=req.problem_file or "(given)", roster=req.roster),
            None,
        )
    if req.source == "blank":
        return blank_sheets(req.options, req.students), Origin(options=req.options, roster=req.roster), None
    seed = fresh_seed() if req.seed is None else req.seed
    return (
        make_sheets(req.options, seed, req.students, start, secret),
        Origin(options=req.options, roster=req.roster),
        seed,
    )


def make_sheets(options, seed: int, students: Sequence[Student], start: int = 0, secret=None) -> tuple[Sheet, ...]:
    """Draw and solve one problem per student (blank students for a plain --count); with a
    `secret` (draw/private.Secret) the numbers are drawn from it and the codes are private."""
    from generator.draw.search import draw

    if secret is None:
        problems = draw(options, seed, count=len(students), start=start)
    else:
        from generator.draw.private import private_coder

        code = private_coder(options, seed, secret)  # the seed is the batch's tag; the numbers are the secret's
        problems = [
            replace(p, code=code(start + i))
            for i, p in enumerate(draw(options, secret.seed(seed), count=len(students), start=start))
        ]
    return tuple(Sheet(i, student, p, solve(p)) for i, (student, p) in enumerate(zip(students, problems), start=1))


def own_sheets(problems: Sequence[Problem], students: Sequence[Student]) -> tuple[Sheet, ...]:
    """Sheets of a teacher's own problems: one per student (a single problem serves the whole
    class), each with a code derived from its content and its place in the batch."""
    from generator.draw.sheetcodes import content_code

    if len(problems) != 1 and len(problems) != len(students):
        raise BatchError(
            f"the file holds {len(problems)} problems for {len(students)} sheets: give one problem "
            "for the whole class, or one per sheet"
        )
    chosen = list(problems) * len(students) if len(problems) == 1 else problems
    sheets = []
    for i, (student, problem) in enumerate(zip(students, chosen), start=1):
        problem = replace(problem, code=content_code(problem, i - 1), metrics=None)
        sheets.append(Sheet(i, student, problem, solve(problem)))
    return tuple(sheets)


def blank_sheets(options, students: Sequence[Student]) -> tuple[Sheet, ...]:
    """One blank template per student, of the shape and rules of `options`."""
    problem = blank_problem(options)
    solution = solve(problem)
    return tuple(Sheet(i, student, problem, solution) for i, student in enumerate(students, start=1))


def blank_problem(options) -> Problem:
    """A problem of the shape and rules of `options` (any kind's) with every entry 0: what a blank
    template is laid out from (none of its numbers is printed)."""
    from generator.core.registry import part

    return part(options.kind, "draw").blank(options)


def draw_options(values: dict, given: Collection[str], drawn: bool = True):
    """A draw's options from its settings by name (a `drawn` shape checked drawable, a blank
    template's need not be); a RequestError in the draw's words where they cannot be."""
    try:
        options = options_for(values, given)
        if drawn:
            options.check_drawable()
        return options
    except DrawError as error:
        raise RequestError("form", str(error)) from None


def roster_students(text: str, label: str, strict: bool = False) -> tuple[list[Student], list[str]]:
    """A roster's students and what to say of it: its rows that look wrong, names no installed
    font prints (they would print with gaps), how many were read."""
    from generator.output.fonts import unprintable
    from generator.sheet.roster import parse_roster

    read = parse_roster(text, label=label, strict=strict)
    said = [f"warning: {warning}" for warning in read.warnings]
    for student, line in zip(read.students, read.lines):
        missing = unprintable(student.name)
        if missing:
            said.append(
                f"warning: {label}: line {line}: no installed font has {missing[:10]!r} of the name "
                f"{student.name[:40]!r}, which prints with gaps; install a font for its script "
                "(on Debian: fonts-noto-cjk for Chinese, Japanese and Korean)"
            )
    said.append(f"read {len(read.students)} student{'s' if len(read.students) != 1 else ''} from {label}")
    return list(read.students), said


def key_sheet(
    code: str, problems: Sequence[Problem] = (), where: str = "the file", secret=None
) -> tuple[Sheet, Origin, Optional[int]]:
    """The one sheet a code was printed for, rebuilt (a teacher's own from `problems`, a private one
    with its `secret`), how the manifest names its origin, and its seed (none for a private or own code)."""
    from generator.draw.private import is_private
    from generator.draw.rebuild import rebuild
    from generator.draw.sheetcodes import decode_code, read_own_code

    own = read_own_code(code)
    if own is None and problems:
        raise RequestError("problem", "--problem is for a sheet of your own numbers; this code rebuilds its draw alone")
    problem = rebuild(code, problems, where, secret=secret)
    if is_private(code):  # its seed is the secret's: the manifest names the code alone
        return Sheet(1, Student(), problem, solve(problem)), Origin(code=problem.code), None
    if own is not None:
        return (
            Sheet(own.index + 1, Student(), problem, solve(problem)),
            Origin(code=own.code, problem_file=where if problems else None),
            None,
        )
    decoded = decode_code(code)
    return Sheet(1, Student(), problem, solve(problem)), Origin(code=decoded.code), decoded.seed
