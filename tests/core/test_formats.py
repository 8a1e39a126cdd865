"""problem@1 and solution@1: round trips, number encoding, and every kind of bad input."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import pytest
from conftest import EXAMPLES
from hypothesis import given
from strategies import problems, to_row

from generator.core.errors import ProblemError
from generator.core.formats import (
    parse_problems,
    problem_from_json,
    problem_to_json,
    solution_to_json,
)
from generator.core.registry import solve
from generator.core.numbers import decimal_str, decode, encode

WORKED = json.loads((EXAMPLES / "worked.json").read_text())


@given(problems())
def test_problem_json_round_trip(p):
    assert problem_from_json(json.loads(json.dumps(problem_to_json(p)))) == p
    r = to_row(p)
    assert problem_from_json(json.loads(json.dumps(problem_to_json(r)))) == r


def test_defaults_are_filled_in():
    doc = problem_to_json(problem_from_json(WORKED))
    assert doc["convention"] == "column"
    assert doc["rules"] == {"scale": "floor", "softmax": "base3"}
    assert doc["causal"] is False
    assert "W_O" not in doc


@pytest.mark.parametrize(
    "x, encoded",
    [(3, 3), (F(6, 3), 2), (F(-2, 4), "-1/2"), (F(1, 3), "1/3"), (0.5, 0.5), (None, None)],
)
def test_number_encoding(x, encoded):
    assert encode(x) == encoded
    assert decode(encoded) == x


@pytest.mark.parametrize(
    "x, places, text",
    [
        (F(1, 8), 2, "0.13"),
        (F(-1, 8), 2, "-0.13"),
        (F(1, 3), 3, "0.333"),
        (F(2, 3), 0, "1"),
        (F(-1, 1000), 2, "0.00"),
        (5, 2, "5.00"),
        (F(999, 1000), 2, "1.00"),
        (0.25, 1, "0.2"),
    ],
)
def test_decimal_str_rounds_half_away_from_zero(x, places, text):
    assert decimal_str(x, places) == text


def test_solution_json_of_the_worked_example():
    doc = solution_to_json(solve(problem_from_json(WORKED)))
    assert doc["format"] == "attnsheet/solution@1"
    assert doc["heads"][0]["A"] == [["1/5", "1/5", "1/5"], ["1/5", "3/5", "3/5"], ["3/5", "1/5", "1/5"]]
    assert doc["heads"][0]["sums"] == [15, 15, 15]
    assert doc["Z"] == [["4/5", "2/5", "2/5"], ["8/5", "8/5", "8/5"]]
    assert "output" not in doc


def test_causal_masked_entries_are_null_in_scaled():
    doc = solution_to_json(solve(problem_from_json({**WORKED, "causal": True})))
    head = doc["heads"][0]
    assert head["scaled"][2] == [None, None, 1]
    assert head["powers"][2] == [0, 0, 3]
    assert head["A"][2] == [0, 0, "1/5"]


def test_a_list_of_problems_is_read_in_order():
    text = json.dumps([WORKED, {**WORKED, "causal": True}])
    assert [p.causal for p in parse_problems(text)] == [False, True]


def bad(mutate):
    doc = copy.deepcopy(WORKED)
    mutate(doc)
    return doc


BAD = {
    "wrong W_K shape": (
        bad(lambda d: d["heads"][0].update(W_K=[[1, 1, 0], [0, 0, 1]])),
        "heads[0].W_K: expected 3×4 (d_k × d_model), got 2×3",
    ),
    "ragged X": (bad(lambda d: d["X"][1].append(5)), "X[1]: expected 3 entries"),
    "float entry": (bad(lambda d: d["X"][0].__setitem__(0, 1.5)), "X[0][0]: expected an integer, got 1.5"),
    "integral float": (bad(lambda d: d["X"][0].__setitem__(0, 1.0)), "X[0][0]: expected an integer, got 1.0"),
    "boolean entry": (
        bad(lambda d: d["heads"][0]["W_Q"][0].__setitem__(0, True)),
        "heads[0].W_Q[0][0]: expected an integer, got true",
    ),
    "string entry": (bad(lambda d: d["X"][0].__setitem__(0, "1")), "X[0][0]: expected an integer, got the string '1'"),
    "huge entry": (bad(lambda d: d["X"][0].__setitem__(0, 10**30)), "X[0][0]: expected an integer between"),
    "missing X": (bad(lambda d: d.pop("X")), "X: missing"),
    "missing W_V": (bad(lambda d: d["heads"][0].pop("W_V")), "heads[0].W_V: missing"),
    "unknown key": (bad(lambda d: d.update(Y=1)), "problem: unknown key 'Y'"),
    "unknown head key": (bad(lambda d: d["heads"][0].update(W_X=1)), "heads[0]: unknown key 'W_X'"),
    "unknown format": (bad(lambda d: d.update(format="attnsheet/problem@9")), "format: expected 'attnsheet/problem@1'"),
    "missing format": (bad(lambda d: d.pop("format")), "format: missing"),
    "unknown scale": (
        bad(lambda d: d.update(rules={"scale": "ceil"})),
        "rules.scale: expected one of floor, exact, none",
    ),
    "unknown softmax": (bad(lambda d: d.update(rules={"softmax": 2})), "rules.softmax: expected a string, got 2"),
    "unknown rule": (bad(lambda d: d.update(rules={"temperature": 2})), "rules: unknown key 'temperature'"),
    "unknown convention": (bad(lambda d: d.update(convention="diagonal")), "convention: expected one of column, row"),
    "causal not bool": (bad(lambda d: d.update(causal="yes")), "causal: expected true or false"),
    "empty X": (bad(lambda d: d.update(X=[])), "X: expected a non-empty list of rows (d_model × n), got an empty list"),
    "empty row": (bad(lambda d: d.update(X=[[]])), "X[0]: expected a non-empty list of integers"),
    "no heads": (bad(lambda d: d.update(heads=[])), "heads: expected a non-empty list of heads"),
    "inconsistent heads": (
        bad(lambda d: d["heads"].append({"W_Q": [[1, 0, 0, 0]], "W_K": [[1, 0, 0, 0]], "W_V": [[1, 0, 0, 0]]})),
        "heads[1].W_Q: expected 3×4 (d_k × d_model), got 1×4",
    ),
    "wrong W_O": (bad(lambda d: d.update(W_O=[[1, 2]])), "W_O: expected 4×2 (d_model × h·d_v), got 1×2"),
    "not an object": ([1, 2], "[0]: expected an object, got 1"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_problems_name_the_field(name):
    doc, message = BAD[name]
    with pytest.raises(ProblemError) as info:
        parse_problems(json.dumps(doc))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_row_convention_shapes_are_named_transposed():
    doc = {
        "format": "attnsheet/problem@1",
        "convention": "row",
        "X": [[1, 0], [0, 1], [1, 1]],
        "heads": [{"W_Q": [[1, 0, 1]], "W_K": [[1], [0]], "W_V": [[1], [0]]}],
    }
    with pytest.raises(ProblemError, match=r"heads\[0\].W_Q: expected 2×.*\(d_model × d_k\), got 1×3"):
        parse_problems(json.dumps(doc))


@pytest.mark.parametrize("text", ["", "{", "[1,", "NaN", '{"X": Infinity}', "\x00"])
def test_not_json(text):
    with pytest.raises(ProblemError, match="not valid JSON"):
        parse_problems(text)
