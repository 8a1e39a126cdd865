"""The attnsheet/problem@1 and attnsheet/solution@1 JSON formats, read with every field checked."""

from __future__ import annotations

import json
from typing import Any

from generator.core.errors import ProblemError
from generator.core.fields import _kind
from generator.core.problem import MAX_ENTRY

PROBLEM_FORMAT = "attnsheet/problem@1"
SOLUTION_FORMAT = "attnsheet/solution@1"


def problem_from_json(value: Any, where: str = "problem"):
    """A problem of any kind from a parsed attnsheet/problem@1 JSON value, every field checked
    by its kind (a value without `kind` is the first kind's: every file written before kinds)."""
    from generator.core.registry import default_kind, kinds, steps_of

    prefix = "" if where == "problem" else where + "."
    kind = value.get("kind", default_kind()) if isinstance(value, dict) else default_kind()
    if not isinstance(kind, str) or kind not in kinds():
        raise ProblemError(f"{prefix}kind: expected one of {', '.join(kinds())}, got {_kind(kind)}")
    return steps_of(kind).from_json(value, prefix)  # each kind checks its fields (`check_format` too)


def check_format(obj: dict, prefix: str) -> None:
    """problem@1's `format` field, as every kind's reader wants it."""
    _format(obj, prefix)


def _format(obj: dict, prefix: str) -> None:
    if "format" not in obj:
        raise ProblemError(f"{prefix}format: missing; expected {PROBLEM_FORMAT!r}")
    if obj["format"] != PROBLEM_FORMAT:
        raise ProblemError(f"{prefix}format: expected {PROBLEM_FORMAT!r}, got {_kind(obj['format'])}")


def problem_to_json(problem) -> dict:
    """A problem of any kind as attnsheet/problem@1 JSON, with every default filled in (by its kind)."""
    from generator.core.registry import kind_of

    return kind_of(problem).to_json(problem)


def solution_to_json(solution) -> dict:
    """A solution of any kind as attnsheet/solution@1 JSON: ints, "p/q" strings, and floats only when irrational."""
    from generator.core.registry import kind_of

    return kind_of(solution.problem).solution_to_json(solution)


def dumps(value: Any, indent: int = 2, _level: int = 0) -> str:
    """JSON text with objects indented and each list of plain values on one line (matrix rows)."""
    pad = " " * (indent * (_level + 1))
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent, _level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * (indent * _level) + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [pad + dumps(v, indent, _level + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * (indent * _level) + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


MAX_TEXT = 256 * 1024 * 1024
"""Largest problem file read, in characters: `draw --count 100000` writes about 90 MiB."""


def _reject_constant(name: str) -> None:
    raise ProblemError(f"not valid JSON: {name} is not a number JSON allows")


def parse_problems(text: str) -> list:
    """Problems from JSON text: one problem@1 object, or a list of them (as `draw` writes)."""
    if len(text) > MAX_TEXT:
        raise ProblemError(f"problem file too large: over {MAX_TEXT // (1024 * 1024)} MiB")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        # Some of json's messages end in "at" ("Invalid control character at"): say it once.
        what = error.msg[:-3] if error.msg.endswith(" at") else error.msg
        raise ProblemError(f"not valid JSON: {what} at line {error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise ProblemError("not valid JSON: nested too deeply") from None
    except ValueError as error:
        if "integer string conversion" in str(error):
            raise ProblemError(
                f"an integer with more than 4300 digits; entries are at most {MAX_ENTRY:,} in magnitude"
            ) from None
        raise ProblemError(f"not valid JSON: {str(error).splitlines()[0][:120]}") from None
    if isinstance(value, list):
        if not value:
            raise ProblemError("expected a problem or a non-empty list of problems, got an empty list")
        return [problem_from_json(item, f"[{i}]") for i, item in enumerate(value)]
    return [problem_from_json(value)]
