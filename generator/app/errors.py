"""The errors the front ends turn into one line and an exit code, or a page: every layer's, named in one place."""

from __future__ import annotations

from generator.core.errors import AttnsheetError, BatchError, InputError, Interrupted, LayoutError, ProblemError
from generator.draw.codes import CodeError
from generator.output.files import OutputError
from generator.output.jobs import Stop

__all__ = [
    "AttnsheetError",
    "BatchError",
    "CodeError",
    "InputError",
    "Interrupted",
    "LayoutError",
    "NotFound",
    "OutputError",
    "ProblemError",
    "Stop",
]


class NotFound(AttnsheetError):
    """An id that names nothing in the store (a batch, a sheet, a job): a 404, never a path."""
