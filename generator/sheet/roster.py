"""Class rosters: a CSV with a `name` column (and optional `id`, `group`), read as plain data."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from generator.core.errors import AttnsheetError
from generator.core.student import Student
from generator.core.usertext import clean_text

MAX_STUDENTS = 100_000
"""Most rows in a roster (the same cap as --count)."""


class RosterError(AttnsheetError):
    """A roster that cannot be read as a class list."""


@dataclass(frozen=True)
class Roster:
    """The students of a roster, and what looked wrong in it."""

    students: tuple[Student, ...]
    """One per row, in order."""
    warnings: tuple[str, ...]
    """One line per suspicious row (an unbalanced quote, a row wider than the header)."""
    lines: tuple[int, ...] = ()
    """The line each student's row starts on, for messages."""


def parse_roster(text: str, label: str = "roster", strict: bool = False) -> Roster:
    """Students from CSV text with a header row; `name` is required, `id` and `group` optional.

    A quoted field that runs over several lines (an unbalanced quote, which merges rows) and a
    row with more fields than the header are warned about, with their line, or refused when
    `strict`.
    """
    if "\x00" in text:
        text = text.replace("\x00", "")
    sample = text[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t") if sample.strip() else csv.excel
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    rows: list[tuple[int, int, list[str]]] = []  # first line, last line, fields
    try:
        start = 1
        for row in reader:
            rows.append((start, reader.line_num, row))
            start = reader.line_num + 1
    except csv.Error as error:
        raise RosterError(f"{label}: not a CSV file ({error})") from None
    rows = [r for r in rows if any(cell.strip() for cell in r[2])]
    if not rows:
        raise RosterError(f"{label}: empty; expected a header row with a 'name' column")
    header = [clean_text(h).lower() for h in rows[0][2]]
    if "name" not in header:
        raise RosterError(f"{label}: no 'name' column in the header row (found: {', '.join(header)[:80]})")
    if len(rows) - 1 > MAX_STUDENTS:
        raise RosterError(f"{label}: more than {MAX_STUDENTS} students")
    at = {key: header.index(key) for key in ("name", "id", "group") if key in header}
    students, warnings, starts = [], [], []
    for first, last, row in rows[1:]:
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        if any("\n" in cell or "\r" in cell for cell in row):
            warnings.append(f"{label}: {where}: a quoted field runs over {last - first + 1} lines, "
                            "merging rows (an unbalanced quote?)")
        if len(row) > len(header):
            extra = ", ".join(repr(clean_text(c, 20)) for c in row[len(header):])[:60]
            warnings.append(f"{label}: {where} has {len(row)} fields but the header has {len(header)}; "
                            f"ignored: {extra} (a comma inside a name needs quotes)")
        fields = {key: clean_text(row[i]) if i < len(row) else "" for key, i in at.items()}
        if not fields["name"]:
            raise RosterError(f"{label}: {where} has no name")
        students.append(Student(name=fields["name"], id=fields.get("id", ""), group=fields.get("group", "")))
        starts.append(first)
    if not students:
        raise RosterError(f"{label}: a header row but no students")
    if strict and warnings:
        raise RosterError(f"{warnings[0]}; fix the roster, or leave out --strict to read it anyway")
    return Roster(tuple(students), tuple(warnings), tuple(starts))
