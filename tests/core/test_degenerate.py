"""Carried credit only for arithmetic worth doing (issue 53, 3): each operation says when the
student's own inputs leave its step degenerate, and every kind inherits the rule."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from generator.core.answers import parse_answers_json, skeleton
from generator.core.degenerate import constant as is_constant, degenerate
from generator.core.faces import ADD, ARGMAX, COPY, DIVIDE, PRODUCT, RULE, Op
from generator.core.registry import kinds, flat_steps, grade, kind_of, solve
from generator.core.numbers import sheet_value
from generator.core.student import Student
from generator.draw.choose import kind_options
from generator.draw.search import draw

CELL_LIMIT = 60
"""Longest value a carried cell is written with (a wild constant's powers run past what a box holds)."""


def _at(doc: dict, head, name: str):
    return doc["heads"][head - 1][name] if head else doc[name]


def played(problem, written: dict, trivial: str = "none"):
    """A sheet with `written` grids ((head, name) → rows, in the sheet's layout) and every other
    box as the student's own earlier cells carry it (true where nothing of theirs feeds it)."""
    doc = skeleton(problem, problem.code)
    for (head, name), rows in written.items():
        target = doc["heads"][head - 1] if head else doc
        target[name] = (
            [sheet_value(v).replace("\u2212", "-") for v in rows[0]]
            if name in flat_steps()
            else [[sheet_value(v).replace("\u2212", "-") for v in row] for row in rows]
        )
    result = None
    for _ in range(60):
        (pending,) = parse_answers_json(json.dumps(doc), "sheet")
        result = grade(problem, pending.answers(problem, Student(), problem.code), trivial=trivial)
        changed = False
        for s in result.steps:
            cells = _at(doc, s.head, s.step)
            for i, row in enumerate(s.carried):
                for j, v in enumerate(row):
                    at_row = cells if s.step in flat_steps() else cells[i]
                    if at_row[j] is None and v is not None and s.verdicts[i][j] != "masked":
                        text = sheet_value(v).replace("\u2212", "-")
                        if len(text) <= CELL_LIMIT:
                            at_row[j] = text
                            changed = True
        if not changed:
            return result
    return result


def verdicts(result) -> dict[str, set[str]]:
    return {s.step: {v for row in s.verdicts for v in row} for s in result.steps}


def constant(shape: tuple[int, int], value) -> list[list]:
    return [[value] * shape[1] for _ in range(shape[0])]


def head_shape(problem, name: str) -> tuple[int, int]:
    return kind_of(problem).grid_shapes(problem)[0][name]


# --- the examples ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def attention():
    """A default sheet whose K and Q are mostly other than 1 and 2 (so each constant below is made up)."""
    return draw(kind_options("attention"), 2028)[0]


@pytest.mark.parametrize("name,value", [("K", 1), ("Q", 1), ("K", 2), ("K_T", 1)])
def test_a_constant_grid_leaves_no_carried_credit_after_it(attention, name, value):
    """K all 1s made A uniform and Z the row means of V, and both earned "carried": 144/152."""
    result = played(attention, {(1, name): constant(head_shape(attention, name), value)})
    after = {"K": ("K_T", "scores", "A", "Z"), "Q": ("Q_copy", "scores", "A", "Z"), "K_T": ("scores", "A", "Z")}[name]
    seen = verdicts(result)
    for step in after:
        assert "carried" not in seen[step], (step, seen[step])
    assert not any("carried" in v for v in seen.values()), seen
    assert result.points <= 100, result.points
    assert played(attention, {(1, name): constant(head_shape(attention, name), value)}, "full").points > result.points


def test_a_uniform_softmax_column_is_trivial_and_says_why(attention):
    """Scores the student made up (every one off by one), query 1's all equal: that column's weights
    are 1/n, nothing to work; the other columns' are real work on their own numbers."""
    h = solve(attention).heads[0]
    scores = [[x + 1 for x in row] for row in h.scores]
    for row in scores:
        row[0] = 4
    result = played(attention, {(1, "scores"): scores})
    a = next(s for s in result.steps if s.step == "A")
    assert {row[0] for row in a.verdicts} == {"trivial"}, a.verdicts
    others = {v for row in a.verdicts for v in row[1:]}  # (a column shifted by one keeps its weights: correct)
    assert "carried" in others and "trivial" not in others, a.verdicts
    assert a.why == "a column of equal values, each weight 1/n"


@pytest.fixture(scope="module")
def rnn():
    return draw(kind_options("rnn"), 7)[0]


def test_a_relu_that_zeroes_nothing_earns_no_carried_credit(rnn):
    """The same positive vector written as every aₜ made hₜ = aₜ, every one "carried": 48/66. Now
    a state earns nothing where the key's ReLU zeroes something and the student's zeroes nothing."""
    kind = kind_of(rnn)
    steps = kind.steps(kind.column_twin(rnn))
    shapes = kind.grid_shapes(rnn)[1]
    a_steps = [s.key for s in steps if s.key[1][0] == "a"]
    rows, cols = shapes[a_steps[0][1]]
    vector = [[20 + i + j for j in range(cols)] for i in range(rows)]  # positive, not one value, every cell wrong
    result = played(rnn, {key: vector for key in a_steps})
    true = {s.step: s.expected for s in result.steps}
    zeroing = [f"h{key[1][1:]}" for key in a_steps if any(x <= 0 for row in true[key[1]] for x in row)]
    assert zeroing, "the draw gives every step's ReLU something to zero"
    for s in result.steps:
        if s.step in zeroing:
            found = {v for row in s.verdicts for v in row}
            assert "carried" not in found and "trivial" in found, (s.step, s.verdicts)
            assert s.why == "its input given back unchanged"


def test_states_all_zeroed_earn_nothing_after_them(rnn):
    """Every aₜ negative: every state zero, and yₜ = W_y·0 earned "carried" at each step."""
    steps = kind_of(rnn).steps(kind_of(rnn).column_twin(rnn))
    shapes = kind_of(rnn).grid_shapes(rnn)[1]
    result = played(rnn, {s.key: constant(shapes[s.key[1]], -3) for s in steps if s.key[1].startswith("a")})
    seen = verdicts(result)
    for name, found in seen.items():
        if name.startswith(("h", "y")):
            assert "carried" not in found, (name, found)


def test_a_real_slip_is_still_carried(attention):
    h = solve(attention).heads[0]
    q = [list(row) for row in h.Q]
    q[0][0] += 1
    result = played(attention, {(1, "Q"): q})
    seen = verdicts(result)
    assert "carried" in seen["scores"] and not any("trivial" in v for v in seen.values()), seen


# --- each operation's rule -----------------------------------------------------------------------------


def test_each_operation_says_when_it_is_degenerate():
    assert degenerate(Op(PRODUCT), [[[1, 2], [3, 4]], [[0, 0], [0, 0]]], [[0, 0], [0, 0]]).cells
    assert not degenerate(Op(PRODUCT), [[[1, 2], [3, 4]], [[1, 0], [0, 1]]], [[1, 2], [3, 4]]).cells
    assert (
        degenerate(Op(RULE, "ReLU(%(x)s)"), [[[1, 2], [3, 4]]], [[1, 2], [3, 4]]).why
        == "its input given back unchanged"
    )
    assert degenerate(Op(RULE, "ReLU(%(x)s)"), [[[-1], [-2]]], [[0], [0]]).cells
    assert not degenerate(Op(RULE, "ReLU(%(x)s)"), [[[-1, 2], [3, -4]]], [[0, 2], [3, 0]]).cells
    assert degenerate(Op(ADD), [[[1, 2], [3, 5]], [[0, 0], [0, 0]]], [[1, 2], [3, 5]]).cells
    assert degenerate(Op(COPY), [[[7, 7], [7, 7]]], [[7, 7], [7, 7]]).cells
    assert not degenerate(Op(COPY), [[[7, 1], [2, 7]]], [[7, 1], [2, 7]]).cells
    third = Fraction(1, 3)
    assert degenerate(
        Op(DIVIDE),
        [[[3, 1], [3, 9]], [[6, 10]]],
        [[Fraction(1, 2), Fraction(1, 10)], [Fraction(1, 2), Fraction(9, 10)]],
    ).cells == frozenset({(0, 0), (1, 0)})
    assert degenerate(Op(ARGMAX), [[[5, 1], [5, 2]]], [[1, 2]]).cells == frozenset({(0, 0)})
    assert not degenerate(Op(ARGMAX), [[[5, 1], [4, 2]]], [[1, 2]]).cells
    assert third  # (a fraction is a value like any other)


# --- the rule as a property, for every kind ---------------------------------------------------------


@pytest.mark.parametrize("kind", kinds())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), value=st.integers(-4, 4))
def test_a_constant_first_step_earns_at_most_its_own_right_cells(kind, seed, value):
    """Whatever constant a student writes as the first computed step (not one slip from the key's), and
    whatever follows from it by their own arithmetic: nothing downstream earns carried credit (where
    the key's own first step is not one value throughout: then the constant is as much work as the key's)."""
    problem = draw(kind_options(kind), seed)[0]
    first = kind_of(problem).steps(kind_of(problem).column_twin(problem))[0]
    shapes = kind_of(problem).grid_shapes(problem)
    shape = (shapes[0] if first.key[0] else shapes[1])[first.key[1]]
    result = played(problem, {first.key: constant(shape, value)})
    step = next(s for s in result.steps if (s.head, s.step) == first.key)
    # A constant two cells or more from the key: one cell from it is a slip, whose trail is carried
    # as every slip's is.
    assume(sum(v == "wrong" for row in step.verdicts for v in row) >= 2)
    # Where the key's own grid is one value throughout, a constant is as much work as the key's.
    assume(not is_constant(step.expected))
    own_right = sum(v == "correct" for row in step.verdicts for v in row)
    independent = sum(v == "correct" for s in result.steps if s is not step for row in s.verdicts for v in row)
    assert not any(v == "carried" for s in result.steps for row in s.verdicts for v in row), [
        (s.step, s.verdicts) for s in result.steps if any("carried" in r for r in s.verdicts)
    ]
    assert result.points <= own_right + independent


def test_under_a_causal_mask_too():
    """A causal sheet's masked cells are no one's values: the rule looks at the others."""
    problem = draw(kind_options("attention", causal=True), 0)[0]
    assert problem.causal
    shape = head_shape(problem, "K")
    result = played(problem, {(1, "K"): constant(shape, 7)})
    seen = verdicts(result)
    assert "carried" not in seen["A"] and "carried" not in seen["Z"], seen
