"""Class rosters: a CSV with a `name` column (and optional `id`, `group`), read as plain data."""

from __future__ import annotations

import csv
import io
import unicodedata

from generator.errors import AttnsheetError
from generator.model import Student

MAX_FIELD = 200
"""Longest name, id or group kept: a sheet's line holds about 40 characters anyway."""

MAX_STUDENTS = 100_000
"""Most rows in a roster (the same cap as --count)."""


class RosterError(AttnsheetError):
    """A roster that cannot be read as a class list."""


def clean_text(value: str) -> str:
    """A roster field as plain text: controls (NUL, bidi overrides, ...) dropped, spaces folded."""
    kept = []
    for ch in value:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            kept.append(" " if ch in "\t\r\n" else "")
        else:
            kept.append(ch)
    text = " ".join("".join(kept).split())
    return text[:MAX_FIELD]


def parse_roster(text: str, label: str = "roster") -> list[Student]:
    """Students from CSV text with a header row; `name` is required, `id` and `group` optional."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    sample = text[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t") if sample.strip() else csv.excel
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        rows = [row for row in reader]
    except csv.Error as error:
        raise RosterError(f"{label}: not a CSV file ({error})") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise RosterError(f"{label}: empty; expected a header row with a 'name' column")
    header = [clean_text(h).lower() for h in rows[0]]
    if "name" not in header:
        raise RosterError(f"{label}: no 'name' column in the header row (found: {', '.join(header)[:80]})")
    if len(rows) - 1 > MAX_STUDENTS:
        raise RosterError(f"{label}: more than {MAX_STUDENTS} students")
    at = {key: header.index(key) for key in ("name", "id", "group") if key in header}
    students = []
    for line, row in enumerate(rows[1:], start=2):
        fields = {key: clean_text(row[i]) if i < len(row) else "" for key, i in at.items()}
        if not fields["name"]:
            raise RosterError(f"{label}: row {line} has no name")
        students.append(Student(name=fields["name"], id=fields.get("id", ""), group=fields.get("group", "")))
    if not students:
        raise RosterError(f"{label}: a header row but no students")
    return students
