"""A spreadsheet's CSV export read line by line: its separator found, every problem named by its line."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from generator.core.errors import AttnsheetError
from generator.core.usertext import clean_text

SEPARATORS = (",", ";", "\t")
"""What spreadsheets separate fields with: commas, or semicolons where the comma is the decimal
sign (most of Europe), or tabs (Excel's "Unicode text")."""

MAX_LINE = 65_536
"""Longest line read, in characters: far beyond any roster or answers row, well inside the csv
module's own field limit (131,072), which would otherwise end the read with its own error."""

_LINES = re.compile(r"\r\n|\r|\n")  # CRLF (Windows), LF, and a lone CR (old Mac exports)


class TableError(AttnsheetError):
    """A CSV text that cannot be read at all (the caller adds the file's name)."""


@dataclass(frozen=True)
class Row:
    """One data row of a table."""

    line: int
    """Its line in the file, 1-based."""
    fields: tuple[str, ...]
    """Its fields, as written (not stripped)."""


@dataclass(frozen=True)
class Table:
    """A CSV file's header and rows, with what looked wrong in them."""

    header: tuple[str, ...]
    """The header row's names, cleaned and lower-cased."""
    rows: tuple[Row, ...]
    """Every row after the header that is not blank."""
    separator: str
    """The separator found: ',', ';' or a tab."""
    problems: tuple[tuple[int, str], ...] = ()
    """(line, what is wrong) for each line with a stray quote or a field too many."""

    def column(self, name: str) -> int | None:
        """The index of a named column, or None."""
        return self.header.index(name) if name in self.header else None


def separator_name(sep: str) -> str:
    """How a separator is named in messages."""
    return {",": "commas", ";": "semicolons", "\t": "tabs"}[sep]


def _fields(line: str, sep: str) -> tuple[list[str], bool]:
    """The fields of one line, and whether its quotes were out of place (a quote left open, text
    right after a closing quote, or a quote inside a field that does not start with one): then
    the fields are as the csv module guesses them."""
    try:
        return next(csv.reader([line], delimiter=sep, strict=True)), _stray_quote(line, sep)
    except csv.Error:
        return next(csv.reader([line], delimiter=sep)), True


def _stray_quote(line: str, sep: str) -> bool:
    """Whether a quote stands where CSV has none: inside a field that is not quoted (`1"`), which
    the csv module keeps as text even in its strict mode."""
    quoted, start, i = False, True, 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"':
                if line[i + 1 : i + 2] == '"':  # a quote written twice: one quote in the text
                    i += 1
                else:
                    quoted = False
        elif ch == sep:
            start = True
            i += 1
            continue
        elif ch == '"':
            if not start:
                return True
            quoted = True
        start = False
        i += 1
    return False


def read_table(text: str, required: tuple[str, ...]) -> Table | None:
    """A CSV text read one physical line at a time (a stray quote never swallows the lines after
    it); the separator is the one that makes the header hold every `required` column. None when
    no separator does (the caller says which column is missing). Blank lines are skipped; a line
    longer than MAX_LINE is a TableError."""
    lines = _LINES.split(text.replace("\x00", ""))
    numbered = [(i, line) for i, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        return Table((), (), ",")
    for number, line in numbered:
        if len(line) > MAX_LINE:
            raise TableError(f"line {number} is longer than {MAX_LINE:,} characters; is this a CSV file?")
    header_text = numbered[0][1]
    problems: list[tuple[int, str]] = []
    best = None
    for sep in SEPARATORS:
        names = tuple(clean_text(name).lower() for name in _fields(header_text, sep)[0])
        if all(name in names for name in required) and (best is None or len(names) > len(best[1])):
            best = (sep, names)
    if best is None:
        return None
    sep, header = best
    rows = []
    for number, line in numbered[1:]:
        fields, stray = _fields(line, sep)
        if stray:
            problems.append((number, "a stray quote (a quote opened and never closed, or text after a closing quote)"))
        if len(fields) > len(header):
            problems.append((number, f"{len(fields)} fields but the header has {len(header)}"))
        rows.append(Row(number, tuple(fields)))
    return Table(header, tuple(rows), sep, tuple(problems))


def header_line(text: str) -> str:
    """The first non-blank line of a text, shortened for a message."""
    for line in _LINES.split(text):
        if line.strip():
            return clean_text(line, 80)
    return ""
