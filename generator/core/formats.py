"""The attnsheet/problem@1 and attnsheet/solution@1 JSON formats, read with every field checked."""

from __future__ import annotations

import json
from typing import Any

from generator.core.errors import ProblemError
from generator.core.fields import (
    _choice,
    _kind,
    checked_object,
    code_and_metrics,
    flag,
    head_solution_to_json,
    heads_from_json,
    heads_to_json,
    int_matrix,
    rules_from_json,
    with_code_and_metrics,
)
from generator.core.numbers import encode_matrix
from generator.core.problem import (
    CONVENTIONS,
    MAX_ENTRY,
    Problem,
    Solution,
)

PROBLEM_FORMAT = "attnsheet/problem@1"
SOLUTION_FORMAT = "attnsheet/solution@1"


_KEYS = ("format", "kind", "convention", "rules", "causal", "X", "heads", "W_O", "code", "metrics")















def problem_from_json(value: Any, where: str = "problem") -> Problem:
    """Build a Problem from a parsed attnsheet/problem@1 JSON value, checking every field."""
    prefix = "" if where == "problem" else where + "."
    if isinstance(value, dict) and value.get("kind", "attention") != "attention":
        from generator.core.kinds import KINDS  # the other kinds read their own fields

        kind = value["kind"]
        if not isinstance(kind, str) or kind not in KINDS:
            raise ProblemError(f"{prefix}kind: expected one of {', '.join(KINDS)}, got {_kind(kind)}")
        _format(value, prefix)
        return KINDS[kind].from_json(value, prefix)
    obj = checked_object(value, where, _KEYS)
    _format(obj, prefix)
    convention = _choice(obj, "convention", prefix + "convention", "column")
    if convention not in CONVENTIONS:
        raise ProblemError(
            f"{prefix}convention: expected one of {', '.join(CONVENTIONS)}, got {convention!r}"
        )
    row = convention == "row"
    rules = rules_from_json(obj.get("rules", {}), prefix)
    causal = flag(obj, "causal", prefix, False)
    for key in ("X", "heads"):
        if key not in obj:
            raise ProblemError(f"{prefix}{key}: missing")
    X = int_matrix(obj["X"], prefix + "X", "n × d_model" if row else "d_model × n")
    heads = heads_from_json(obj["heads"], prefix, row)
    W_O = None
    if obj.get("W_O") is not None:
        W_O = int_matrix(obj["W_O"], prefix + "W_O", "h·d_v × d_model" if row else "d_model × h·d_v")
    code, metrics = code_and_metrics(obj, prefix)
    try:
        return Problem(
            X=X,
            heads=tuple(heads),
            W_O=W_O,
            convention=convention,
            rules=rules,
            causal=causal,
            code=code,
            metrics=metrics,
        )
    except ProblemError as error:
        if prefix:
            raise ProblemError(f"{prefix}{error}") from None
        raise












def _format(obj: dict, prefix: str) -> None:
    if "format" not in obj:
        raise ProblemError(f"{prefix}format: missing; expected {PROBLEM_FORMAT!r}")
    if obj["format"] != PROBLEM_FORMAT:
        raise ProblemError(f"{prefix}format: expected {PROBLEM_FORMAT!r}, got {_kind(obj['format'])}")








def problem_to_json(problem: Problem) -> dict:
    """A Problem as attnsheet/problem@1 JSON, with every default filled in; an attention problem
    carries no `kind` (a file without one is attention: every file written before reads the same)."""
    if problem.kind != "attention":
        from generator.core.kinds import kind_of

        return kind_of(problem).to_json(problem)
    out: dict[str, Any] = {
        "format": PROBLEM_FORMAT,
        "convention": problem.convention,
        "rules": {"scale": problem.rules.scale, "softmax": problem.rules.softmax},
        "causal": problem.causal,
        "X": [list(r) for r in problem.X],
        "heads": heads_to_json(problem.heads),
    }
    if problem.W_O is not None:
        out["W_O"] = [list(r) for r in problem.W_O]
    return with_code_and_metrics(out, problem)




def solution_to_json(solution: Solution) -> dict:
    """A Solution as attnsheet/solution@1 JSON: ints, "p/q" strings, and floats only when irrational."""
    if solution.problem.kind != "attention":
        from generator.core.kinds import kind_of

        return kind_of(solution.problem).solution_to_json(solution)
    out: dict[str, Any] = {
        "format": SOLUTION_FORMAT,
        "problem": problem_to_json(solution.problem),
        "heads": [head_solution_to_json(h) for h in solution.heads],
        "Z": encode_matrix(solution.Z),
    }
    if solution.output is not None:
        out["output"] = encode_matrix(solution.output)
    return out


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


def parse_problems(text: str) -> list[Problem]:
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
            raise ProblemError("an integer with more than 4300 digits; entries are at most "
                               f"{MAX_ENTRY:,} in magnitude") from None
        raise ProblemError(f"not valid JSON: {str(error).splitlines()[0][:120]}") from None
    if isinstance(value, list):
        if not value:
            raise ProblemError("expected a problem or a non-empty list of problems, got an empty list")
        return [problem_from_json(item, f"[{i}]") for i, item in enumerate(value)]
    return [problem_from_json(value)]
