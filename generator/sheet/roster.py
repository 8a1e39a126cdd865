"""Class rosters: a CSV with a `name` column (and optional `id`, `group`, `print`), read as plain data."""

from __future__ import annotations

from dataclasses import dataclass

from generator.core.errors import AttnsheetError
from generator.core.student import DOUBLE_PRINT, LARGE_PRINT, Student
from generator.core.table import TableError, header_line, read_table
from generator.core.usertext import clean_text

MAX_STUDENTS = 100_000
"""Most rows in a roster (the same cap as --count)."""

PRINT_WORDS = {
    "": "",
    "normal": "",
    "1": "",
    "100%": "",
    "large": LARGE_PRINT,
    "grande": LARGE_PRINT,
    "1.5": LARGE_PRINT,
    "1,5": LARGE_PRINT,
    "150%": LARGE_PRINT,
    "x1.5": LARGE_PRINT,
    "2": DOUBLE_PRINT,
    "x2": DOUBLE_PRINT,
    "2x": DOUBLE_PRINT,
    "200%": DOUBLE_PRINT,
    "double": DOUBLE_PRINT,
    "doble": DOUBLE_PRINT,
    "larger": DOUBLE_PRINT,
    "mayor": DOUBLE_PRINT,
}
"""What a roster's `print` column may say of a student, and the print size it means: large print
(1.5 times, or twice) for a student with low vision, else the class's."""


class RosterError(AttnsheetError):
    """A roster that cannot be read as a class list."""


@dataclass(frozen=True)
class Roster:
    """The students of a roster, and what looked wrong in it."""

    students: tuple[Student, ...]
    """One per row, in order."""
    warnings: tuple[str, ...]
    """One line per suspicious row (a stray quote, a row wider than the header)."""
    lines: tuple[int, ...] = ()
    """The line each student's row starts on, for messages."""


def parse_roster(text: str, label: str = "roster", strict: bool = False) -> Roster:
    """Students from CSV text with a header row; `name` is required, `id`, `group` and `print` optional.

    Separated by commas, semicolons or tabs (found from the header), with any line ending. A
    stray quote (read on its own line: it never merges rows) and a row with more fields than the
    header are warned about, with their line, or refused when `strict`.
    """
    try:
        table = read_table(text, ("name",))
    except TableError as error:
        raise RosterError(f"{label}: {error}") from None
    if table is None:
        raise RosterError(f"{label}: no 'name' column in the header row (found: {header_line(text)})")
    if not table.header:
        raise RosterError(f"{label}: empty; expected a header row with a 'name' column")
    if len(table.rows) > MAX_STUDENTS:
        raise RosterError(f"{label}: more than {MAX_STUDENTS} students")
    at = {key: i for key in ("name", "id", "group", "print") if (i := table.column(key)) is not None}
    problems = dict(table.problems)
    students, warnings, starts = [], [], []
    for row in table.rows:
        where = f"line {row.line}"
        if row.line in problems:
            what = problems[row.line]
            if "fields but" in what:
                extra = ", ".join(repr(clean_text(c, 20)) for c in row.fields[len(table.header) :])[:60]
                what += (
                    f"; ignored: {extra} (a {'comma' if table.separator == ',' else 'separator'} inside a "
                    "name needs quotes)"
                )
            warnings.append(f"{label}: {where}: {what}")
        fields = {key: clean_text(row.fields[i]) if i < len(row.fields) else "" for key, i in at.items()}
        if not fields["name"]:
            raise RosterError(f"{label}: {where} has no name")
        size = PRINT_WORDS.get(fields.get("print", "").strip().lower().replace(" ", ""))
        if size is None:
            raise RosterError(
                f"{label}: {where}: print: {fields['print'][:20]!r} is no print size: 'large' (or 1.5, 150%) "
                "for large print, 'double' (or 2, 200%) for twice as large, or empty for the class's"
            )
        students.append(
            Student(name=fields["name"], id=fields.get("id", ""), group=fields.get("group", ""), print_size=size)
        )
        starts.append(row.line)
    if not students:
        raise RosterError(f"{label}: a header row but no students")
    if strict and warnings:
        raise RosterError(f"{warnings[0]}; fix the roster, or leave out --strict to read it anyway")
    return Roster(tuple(students), tuple(warnings), tuple(starts))
