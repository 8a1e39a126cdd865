"""The graph's arithmetic for layers that recur and layers that route: affine maps of several
inputs, a top-1 choice per column, cells a route leaves empty, graded by the student's own route."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from generator.core.cells import read_cell_text
from generator.core.faces import AFFINE, ARGMAX, PRODUCT, ROUTED, RULE, Op
from generator.core.graph import Skip, Step, evaluate
from generator.core.ops import (
    affine,
    affine_pairs,
    argmax_rows,
    picked,
    product,
    relu,
    routed,
    routed_cells,
    scaled_columns,
)

small = st.integers(-4, 4)


def grid(rows: int, cols: int):
    return st.lists(st.lists(small, min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@given(grid(3, 2), grid(2, 4), grid(3, 3), grid(3, 4), grid(3, 1))
def test_an_affine_map_of_two_inputs_is_their_products_summed_with_the_bias(wx, x, wh, h, b):
    got = affine_pairs(wx, x, wh, h, b)
    want = [[a + c + b[i][0] for a, c in zip(p, q)] for i, (p, q) in enumerate(zip(product(wx, x), product(wh, h)))]
    assert got == want
    # One pair is the ordinary affine map.
    assert affine_pairs(wh, h, b) == affine(wh, h, [r[0] for r in b])


def test_a_choice_per_column_is_its_largest_row_a_tie_going_to_the_first():
    assert argmax_rows([[1, 0, 2, 5], [-1, 1, 2, None]]) == [[1, 2, 1, None]]
    assert picked([[2, 1, 3]], [[1, 2, 3], [4, 5, 6]]) == [[4, 2, None]]  # 3 names no row
    assert scaled_columns([[2, 4], [1, None]], [[Fraction(1, 2), 3]]) == [[1, 12], [Fraction(1, 2), None]]


# The worked example of docs/exercise.md's mixture of experts (two experts of two units).
X = [[1, 0, 2], [0, 1, 1]]
W_G = [[1, 0], [-1, 1]]
W1 = [[1, 0], [-1, 1], [0, 1], [1, 1]]
B1 = [[0], [0], [-1], [0]]
W2 = [[1, -1, 2, 1], [0, 2, -1, 1]]
GIVEN = {(None, "X"): X, (None, "W_g"): W_G, (None, "W1"): W1, (None, "b1"): B1, (None, "W2"): W2}


def empty_by_route(route, true):
    return routed_cells(route, true, 4, 2)


SKIP = Skip((None, "r"), empty_by_route, "not routed to this expert")
STEPS = [
    Step((None, "G"), ((None, "W_g"), (None, "X")), product, op=Op(PRODUCT)),
    Step((None, "r"), ((None, "G"),), argmax_rows, op=Op(ARGMAX)),
    Step((None, "H_pre"), ((None, "W1"), (None, "X"), (None, "b1")), affine_pairs, op=Op(AFFINE), skip=SKIP),
    Step((None, "H"), ((None, "H_pre"),), relu, op=Op(RULE, "ReLU(%(x)s)"), skip=SKIP),
    Step(
        (None, "Y"),
        ((None, "r"), (None, "W2"), (None, "H")),
        lambda r, w, h: routed(r, w, h, 2),
        op=Op(ROUTED, params={"blocks": 2}),
    ),
]


def cells(values: dict) -> dict:
    return {
        key: tuple(tuple(read_cell_text("" if x is None else str(x)) for x in row) for row in grid)
        for key, grid in values.items()
    }


def test_the_worked_example_solves_and_its_route_leaves_the_other_experts_rows_empty():
    solved = evaluate(STEPS, GIVEN)
    assert solved.values[(None, "G")] == [[1, 0, 2], [-1, 1, -1]]
    assert solved.values[(None, "r")] == [[1, 2, 1]]
    assert solved.values[(None, "Y")] == [[1, 1, 2], [0, 1, 0]]
    assert solved.skipped[(None, "H_pre")] == {(2, 0), (3, 0), (0, 1), (1, 1), (2, 2), (3, 2)}
    assert [solved.values[(None, "H_pre")][i][1] for i in (2, 3)] == [0, 1]


def test_a_token_sent_to_the_wrong_expert_is_graded_by_that_experts_arithmetic_on_the_students_numbers():
    # Token 2 sent to expert 1: its rows 1-2 are worked (W1₁·x₂ + b1₁ = (0, 1)), rows 3-4 left empty.
    written = {
        (None, "G"): [[1, 0, 2], [-1, 1, -1]],
        (None, "r"): [[1, 1, 1]],
        (None, "H_pre"): [[1, 0, 2], [-1, 1, -1], [None, None, None], [None, None, None]],
        (None, "H"): [[1, 0, 2], [0, 1, 0], [None, None, None], [None, None, None]],
        (None, "Y"): [[1, -1, 2], [0, 2, 0]],
    }
    grades = {(g.head, g.step): g for g in evaluate(STEPS, GIVEN, cells(written)).grades}
    assert grades[(None, "r")].verdicts == (("correct", "wrong", "correct"),)
    h_pre = grades[(None, "H_pre")]
    assert [h_pre.verdicts[i][1] for i in range(4)] == ["correct", "correct", "masked", "masked"]
    assert h_pre.total == 6  # two rows a token, whichever expert it is sent to
    assert [grades[(None, "Y")].verdicts[i][1] for i in range(2)] == ["carried", "carried"]
    # Right everywhere: the expert's rows of the true route are the ones graded.
    right = evaluate(STEPS, GIVEN).values
    for key, cells_ in evaluate(STEPS, GIVEN).skipped.items():
        right[key] = [[None if (i, j) in cells_ else x for j, x in enumerate(r)] for i, r in enumerate(right[key])]
    grades = evaluate(STEPS, GIVEN, cells({k: v for k, v in right.items() if k[1] not in GIVEN_NAMES})).grades
    assert all(v in ("correct", "masked") for g in grades for row in g.verdicts for v in row)
    assert sum(g.points for g in grades) == sum(g.total for g in grades) == 6 + 3 + 6 + 6 + 6


GIVEN_NAMES = {name for _, name in GIVEN}


def test_a_blank_route_leaves_the_true_experts_rows_to_write():
    written = {(None, "r"): [[None, None, None]]}
    grades = {(g.head, g.step): g for g in evaluate(STEPS, GIVEN, cells(written)).grades}
    assert [grades[(None, "H_pre")].verdicts[i][1] for i in range(4)] == ["masked", "masked", "blank", "blank"]
