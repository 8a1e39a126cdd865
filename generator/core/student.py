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
