"""The fields every problem@1 and solution@1 object shares, read with every field checked: matrices, heads, rules, code."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from generator.core.errors import ProblemError
from generator.core.numbers import Number, decode
from generator.core.problem import MAX_DIM, MAX_ENTRY, IntMatrix, Rules

MAX_CODE = 64
"""Longest `code` read from a problem file."""

_RULE_KEYS = ("scale", "softmax")


def int_matrix(value: Any, where: str, what: str) -> IntMatrix:
    """Validate a JSON matrix of integers; `what` names its expected shape for messages."""
    if not isinstance(value, list) or not value:
        raise ProblemError(f"{where}: expected a non-empty list of rows ({what}), got {_kind(value)}")
    if len(value) > MAX_DIM:
        raise ProblemError(f"{where}: at most {MAX_DIM} rows, got {len(value)}")
    rows = []
    width = None
    for i, row in enumerate(value):
        if not isinstance(row, list) or not row:
            raise ProblemError(
                f"{where}[{i}]: expected a non-empty list of integers (a row of {what}), got {_kind(row)}"
            )
        if width is None:
            width = len(row)
            if width > MAX_DIM:
                raise ProblemError(f"{where}[{i}]: at most {MAX_DIM} columns, got {width}")
        elif len(row) != width:
            raise ProblemError(
                f"{where}[{i}]: expected {width} entries like row 0 ({what} must be rectangular), got {len(row)}"
            )
        for j, x in enumerate(row):
            if isinstance(x, bool) or not isinstance(x, int):
                raise ProblemError(f"{where}[{i}][{j}]: expected an integer, got {_kind(x)}")
            if abs(x) > MAX_ENTRY:
                raise ProblemError(f"{where}[{i}][{j}]: expected an integer between -{MAX_ENTRY} and {MAX_ENTRY}")
        rows.append(tuple(row))
    return tuple(rows)


def _kind(value: Any) -> str:
    """A short description of a JSON value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= 20 else value[:20] + "…"
        return f"the string {text!r}"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    return "an object"


def int_vector(value: Any, where: str, what: str) -> tuple[int, ...]:
    """Validate a JSON list of integers (a bias); `what` names its expected length for messages."""
    if not isinstance(value, list) or not value or any(isinstance(x, list) for x in value):
        raise ProblemError(f"{where}: expected a non-empty list of integers ({what} entries), got {_kind(value)}")
    return int_matrix([value], where, what)[0]


def int_scalar(value: Any, where: str) -> int:
    """Validate one JSON integer (a kernel's bias)."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_ENTRY:
        raise ProblemError(f"{where}: expected an integer between -{MAX_ENTRY} and {MAX_ENTRY}, got {_kind(value)}")
    return value


def flag(obj: dict, key: str, prefix: str, default: bool) -> bool:
    """A true/false field."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise ProblemError(f"{prefix}{key}: expected true or false, got {_kind(value)}")
    return value


def checked_object(value: Any, where: str, keys: tuple[str, ...]) -> dict:
    """Validate a JSON object that may hold only `keys`."""
    if not isinstance(value, dict):
        raise ProblemError(f"{where}: expected an object, got {_kind(value)}")
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise ProblemError(f"{where}: unknown key {unknown[0][:60]!r} (allowed: {', '.join(keys)})")
    return value


def choice(obj: dict, key: str, where: str, default: str) -> str:
    """A string option that must be a string; its value is checked by the dataclass."""
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise ProblemError(f"{where}: expected a string, got {_kind(value)}")
    return value


def rules_from_json(value: Any, prefix: str) -> Rules:
    """A problem's `rules` object (scale, softmax), each a string the Rules type checks."""
    obj = checked_object(value, prefix + "rules", _RULE_KEYS)
    scale, softmax = (
        choice(obj, "scale", prefix + "rules.scale", "floor"),
        choice(obj, "softmax", prefix + "rules.softmax", "base3"),
    )
    try:
        return Rules(scale=scale, softmax=softmax)
    except ProblemError as error:
        raise ProblemError(f"{prefix}{error}") from None


def checked_fraction(value: Any, where: str) -> Number:
    """A weight between 0 and 1: an integer, or a "p/q" string."""
    try:
        x = decode(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    except (ZeroDivisionError, ValueError):
        x = None
    if x is None or isinstance(x, float) or not 0 <= x <= 1:
        raise ProblemError(
            f'{where}: expected a weight from 0 to 1 (0, 1 or a fraction such as "1/2"), got {_kind(value)}'
        )
    return x


def code_and_metrics(obj: dict, prefix: str) -> tuple[Any, Any]:
    """A problem's optional `code` (printable text) and `metrics` (an object), checked."""
    code = obj.get("code")
    if code is not None and not _printable(code):
        # A code is printed on sheets and terminals: no escape sequences, no broken Unicode.
        raise ProblemError(f"{prefix}code: expected printable text of at most {MAX_CODE} characters")
    metrics = obj.get("metrics")
    if metrics is not None and not isinstance(metrics, dict):
        raise ProblemError(f"{prefix}metrics: expected an object, got {_kind(metrics)}")
    if metrics is not None and not _encodable(metrics):
        raise ProblemError(f"{prefix}metrics: holds text that is not valid Unicode")
    return code, metrics


def _printable(code: Any) -> bool:
    return isinstance(code, str) and len(code) <= MAX_CODE and code.isprintable()


def _encodable(value: Any) -> bool:
    """Whether a JSON value can be written out again as UTF-8 (a lone surrogate cannot)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError, TypeError):
        return False
    return True


def with_code_and_metrics(out: dict, problem) -> dict:
    """problem@1 `out` with the problem's `code` and `metrics`, where it has them."""
    if problem.code is not None:
        out["code"] = problem.code
    if problem.metrics is not None:
        out["metrics"] = problem.metrics
    return out


@contextmanager
def prefixed(prefix: str) -> Iterator[None]:
    """A ProblemError from a problem's own checks, named by where the problem is in its file."""
    try:
        yield
    except ProblemError as error:
        if prefix and not str(error).startswith(prefix):
            raise ProblemError(f"{prefix}{error}") from None
        raise
