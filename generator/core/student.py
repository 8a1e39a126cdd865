"""Who a sheet is for, and one student's exercise: the problem and its solution."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from generator.core.problem import Exercise


@dataclass(frozen=True)
class Student:
    """Who a sheet is for; empty fields leave blank lines to fill by hand."""

    name: str = ""
    """Printed on the Name line."""
    id: str = ""
    """Student id from the roster, if any."""
    group: str = ""
    """Printed on the Group line."""
    print_size: str = ""
    """How large their sheets print: "" (as the class's), or one of PRINT_SIZES for a student with low vision."""

    def record(self) -> dict:
        """The student as a manifest keeps them (the print size only where it is large)."""
        fields = {"name": self.name, "id": self.id, "group": self.group}
        return {**fields, "print_size": self.print_size} if self.print_size else fields


LARGE_PRINT = "1.5"
"""The print size of large print: every word, number and box half as large again."""
DOUBLE_PRINT = "2"
"""The larger print size: every word, number and box twice as large."""
PRINT_SIZES = (LARGE_PRINT, DOUBLE_PRINT)
"""The print sizes a sheet may have beyond the class's, smaller first."""


def larger(size: str, other: str) -> str:
    """The larger of two print sizes ("" the class's, the smallest)."""
    order = ("", *PRINT_SIZES)
    return max(size, other, key=lambda s: order.index(s) if s in order else 0)


STUDENT_KEYS = ("name", "id", "group", "print_size")
"""What a manifest keeps of a student."""


def student_of(record: dict) -> Student:
    """A student as a manifest or a class's store keeps them (an unknown print size read as none)."""
    fields = {key: str(record.get(key, "") or "") for key in STUDENT_KEYS}
    if fields["print_size"] not in PRINT_SIZES:
        fields["print_size"] = ""
    return Student(**fields)


@dataclass(frozen=True)
class Sheet:
    """One student's exercise: the problem, its solution and who it is for."""

    index: int
    """1-based position in the batch."""
    student: Student
    """The student, or blank fields."""
    problem: Exercise
    """The drawn problem, with its code."""
    solution: Any
    """Its exact solution."""
    link: str = ""
    """What its worksheet's QR code opens ('' for its code): the student's link on a server's batch."""
    pin: str = ""
    """The PIN printed beside its code on a server's batch."""
